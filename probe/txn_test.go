package probe

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestTxnProducer: a transactional probe writes its records in
// transactions that commit, each no larger than TxnRecords, and its
// read_committed reader reads every acknowledged record; every record is
// in exactly one transaction.
func TestTxnProducer(t *testing.T) {
	c := newFake(t)
	cfg := testConfig(c)
	cfg.Producer, cfg.TxnRecords, cfg.TxnInterval = results.ProducerTransactional, 20, 300*time.Millisecond
	var csv, log, txns bytes.Buffer
	ctx := context.Background()
	p, err := New(ctx, cfg, Output{Messages: &csv, ClientLog: &log, Txn: &txns})
	if err != nil {
		t.Fatal(err)
	}
	if id := p.Config().TxnID; id != "kbf-probe-"+p.Config().RunID+"-tx" {
		t.Errorf("transactional id %q, want one of the run's own", id)
	}
	rctx, cancel := context.WithTimeout(ctx, 2500*time.Millisecond)
	defer cancel()
	if _, err := p.Run(rctx); err != nil {
		t.Fatal(err)
	}
	in := map[[2]int64]int{}
	dec := results.NewTxnDecoder(&txns, results.TxnFile)
	n := 0
	for {
		var ev results.TxnEvent
		err := dec.Decode(&ev)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if ev.Outcome != results.TxnCommitted {
			t.Errorf("transaction %+v: want it committed", ev)
		}
		if ev.Count() > int64(cfg.TxnRecords) {
			t.Errorf("transaction %d holds %d records, more than %d", ev.Txn, ev.Count(), cfg.TxnRecords)
		}
		for _, r := range ev.Records {
			for s := r.First; s <= r.Last; s++ {
				in[[2]int64{int64(r.Partition), s}]++
			}
		}
	}
	if n < 3 {
		t.Errorf("%d transactions, want several", n)
	}
	mdec := results.NewDecoder(&csv, results.ProbeFile)
	msgs := 0
	for {
		var m results.Message
		err := mdec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		msgs++
		if m.Failed() || m.Acked.IsZero() || m.Received.IsZero() {
			t.Errorf("message %+v: want acknowledged and read", m)
		}
		if k := in[[2]int64{int64(m.Partition), m.Seq}]; k != 1 {
			t.Errorf("p%d seq %d in %d transactions, want 1", m.Partition, m.Seq, k)
		}
	}
	if msgs == 0 || msgs != len(in) {
		t.Errorf("%d messages, %d records in transactions: want the same, not 0", msgs, len(in))
	}
}
