package analysis

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

var txnT0 = time.Date(2026, 11, 30, 3, 26, 0, 0, time.UTC)

func at(s float64) time.Time { return txnT0.Add(time.Duration(s * float64(time.Second))) }

// txnRow is a transaction from begin b to end e, its commit asked at c,
// holding seqs first–last of p0.
func txnRow(n int64, b, c, e float64, o results.TxnOutcome, first, last int64) results.TxnEvent {
	return results.TxnEvent{Txn: n, Begin: at(b), CommitStart: at(c), End: at(e), Outcome: o,
		Records: []results.SeqRange{{Partition: 0, First: first, Last: last}}}
}

// TestTxnOutcomes: the commit stall at the fault runs from the last commit
// before it to the first after, counting what did not commit within; the
// outcomes are counted and the committed transactions' latency summed up.
func TestTxnOutcomes(t *testing.T) {
	evs := []results.TxnEvent{
		txnRow(0, 0, 0.6, 0.7, results.TxnCommitted, 0, 9),
		txnRow(1, 0.7, 1.3, 1.4, results.TxnCommitted, 10, 19),
		txnRow(2, 1.4, 2.0, 9.0, results.TxnAborted, 20, 29),
		txnRow(3, 9.0, 9.6, 12.0, results.TxnTimedOut, 30, 39),
		txnRow(4, 12.0, 12.6, 13.5, results.TxnCommitted, 40, 49),
		txnRow(5, 13.5, 14.1, 14.2, results.TxnCommitted, 50, 59),
	}
	v := &TxnView{}
	v.outcomes(evs, gaps.Options{FaultAt: at(2.5)}, at(20))
	if v.Transactions != 6 || v.Committed != 4 || v.Aborted != 1 || v.TimedOut != 1 || v.Unknown != 0 {
		t.Errorf("counts %+v", v)
	}
	c := v.CommitStall
	if c == nil || !c.Start.Equal(at(1.4)) || !c.End.Equal(at(13.5)) || c.Failed != 2 || c.Open {
		t.Fatalf("commit stall %+v: want 1.4 s to 13.5 s, 2 not committed within", c)
	}
	if l := v.Latency; l.N != 4 || l.Max != 900*time.Millisecond || l.P50 < 100*time.Millisecond {
		t.Errorf("latency %+v: want 4, the longest 0.9 s", l)
	}
	// With no commit after the fault, the stall is open to the trial's end.
	v = &TxnView{}
	v.outcomes(evs[:4], gaps.Options{FaultAt: at(2.5)}, at(20))
	if c := v.CommitStall; c == nil || !c.Open || !c.End.Equal(at(20)) || c.Failed != 2 {
		t.Errorf("commit stall %+v: want open from 1.4 s to the end, 20 s", c)
	}
}

// TestTxnAudit: a record of an aborted transaction read live or read back
// at read_committed is counted; a committed transaction's records are not;
// a timed-out transaction read back in part is torn, and one read back
// whole is not.
func TestTxnAudit(t *testing.T) {
	dir := t.TempDir()
	evs := []results.TxnEvent{
		txnRow(0, 0, 0.6, 0.7, results.TxnCommitted, 0, 3),
		txnRow(1, 0.7, 1.3, 5.0, results.TxnAborted, 4, 7),
		txnRow(2, 5.0, 5.6, 40.0, results.TxnTimedOut, 8, 11),
		txnRow(3, 40.0, 40.6, 50.0, results.TxnTimedOut, 12, 13),
	}
	var probe, log bytes.Buffer
	enc := results.NewEncoder(&probe)
	for seq := int64(0); seq < 14; seq++ {
		m := &results.Message{Partition: 0, Seq: seq, Offset: seq, Sent: at(float64(seq) / 10), Acked: at(float64(seq)/10 + 0.01)}
		if seq <= 3 || seq == 5 { // seq 5, aborted, read live
			m.Received = at(float64(seq)/10 + 0.02)
		}
		if seq >= 4 {
			m.Err = "transaction not committed"
		}
		enc.Encode(m)
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	lenc := results.NewLogEncoder(&log)
	for _, seq := range []int64{0, 1, 2, 3, 6, 8, 9, 12, 13} { // 6 aborted; 8–9 of 8–11 torn; 12–13 whole
		lenc.Encode(&results.LogRecord{Partition: 0, Offset: seq, Seq: seq})
	}
	if err := lenc.Flush(); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{results.ProbeFile: probe.Bytes(), results.LogFile: log.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v := &TxnView{}
	if err := v.audit(context.Background(), results.Trial{Dir: dir}, evs); err != nil {
		t.Fatal(err)
	}
	if v.AbortedRead != 2 || v.Torn != 1 {
		t.Errorf("aborted read %d, torn %d: want 2 (seq 5 live, 6 read back) and 1 (transaction 2)", v.AbortedRead, v.Torn)
	}
	if r := v.FirstAbortedRead; r == nil || r.Seq != 5 || r.Txn != 1 || r.Where != "the live reader" {
		t.Errorf("first aborted read %+v: want seq 5 of transaction 1, by the live reader", r)
	}
	fs := txnFindings(Findings{{Client: FranzGo, Acks: "all", Idempotent: true}}, nil, v)
	if !fs.Fail() || fs[0].AbortedRead != 2 || fs[0].TxnTorn != 1 {
		t.Errorf("findings %+v: want franz-go's to fail on both", fs)
	}
}
