package probe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/internal/firsterr"
	"github.com/kbf-project/kbf/results"
)

// txnWriter writes the probe's records in transactions, for a
// transactional probe (Config.Transactional). The send loop keeps its
// schedule and queues each record; txnWriter begins a transaction,
// produces what is queued, and ends it once it holds Config.TxnRecords
// records or Config.TxnInterval after it began. While a transaction ends
// the queue grows, as an application's does while it waits for its
// commit: a record's ack latency counts the wait. Every transaction is
// written to the transactions CSV (results.TxnFile); the records of one
// that did not commit are marked failed in probe.csv (failTxn).
type txnWriter struct {
	p    *Probe
	opts []kgo.Opt // the producer's, to make it again after a lost transaction

	mu    sync.Mutex
	queue []queued
	wake  chan struct{} // a record was queued

	emu  sync.Mutex
	enc  *results.TxnEncoder
	werr firsterr.Keeper
}

// queued is one record waiting for a transaction.
type queued struct {
	r    *kgo.Record
	part int32
	seq  int64
}

func newTxnWriter(p *Probe, opts []kgo.Opt, out Output) *txnWriter {
	return &txnWriter{p: p, opts: opts, wake: make(chan struct{}, 1), enc: results.NewTxnEncoder(orDiscard(out.Txn))}
}

// enqueue queues record seq of part for the next transaction.
func (w *txnWriter) enqueue(r *kgo.Record, part int32, seq int64) {
	w.mu.Lock()
	w.queue = append(w.queue, queued{r, part, seq})
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// take removes up to n queued records.
func (w *txnWriter) take(n int) []queued {
	w.mu.Lock()
	defer w.mu.Unlock()
	n = min(n, len(w.queue))
	out := w.queue[:n:n]
	w.queue = w.queue[n:]
	return out
}

func (w *txnWriter) queued() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.queue)
}

// run writes transactions until stop is closed and the queue is empty;
// ctx ends a transaction still open (the drain is over).
func (w *txnWriter) run(ctx context.Context, stop <-chan struct{}) {
	cfg := &w.p.cfg
	for n := int64(0); ; {
		if ctx.Err() != nil {
			return // the drain is over: what is still queued was never sent
		}
		if w.queued() == 0 {
			select {
			case <-stop:
				if w.queued() == 0 {
					return
				}
			case <-w.wake:
			case <-ctx.Done():
				return
			}
			continue
		}
		if err := w.p.prod.BeginTransaction(); err != nil {
			w.p.logs.named("txn").Log(kgo.LogLevelWarn, "cannot begin a transaction; making the producer again", "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(cfg.RetryBackoff):
			}
			if !w.remake(ctx) {
				return
			}
			continue
		}
		ev := &results.TxnEvent{Txn: n, Begin: time.Now()}
		n++
		var failed atomic.Int64
		ranges := map[int32]*results.SeqRange{}
		count := 0
		add := func(batch []queued) {
			for _, q := range batch {
				w.produce(q, &failed)
				if r := ranges[q.part]; r == nil {
					ranges[q.part] = &results.SeqRange{Partition: q.part, First: q.seq, Last: q.seq}
				} else {
					r.Last = q.seq // queued in order: a partition's seqs only grow
				}
			}
			count += len(batch)
		}
		timer := time.NewTimer(cfg.TxnInterval)
		for count < cfg.TxnRecords {
			add(w.take(cfg.TxnRecords - count))
			if count >= cfg.TxnRecords {
				break
			}
			select {
			case <-w.wake:
				continue
			case <-timer.C:
			case <-stop:
			case <-ctx.Done():
			}
			add(w.take(cfg.TxnRecords - count)) // those queued as the interval ended
			break
		}
		timer.Stop()
		for _, r := range ranges {
			ev.Records = append(ev.Records, *r)
		}
		w.end(ctx, ev, &failed)
	}
}

// produce writes q in the open transaction.
func (w *txnWriter) produce(q queued, failed *atomic.Int64) {
	w.p.prod.Produce(context.Background(), q.r, func(r *kgo.Record, err error) {
		if err != nil {
			failed.Add(1)
		}
		w.p.acked(q.part, q.seq, r, err)
	})
}

// end ends the open transaction ev: it commits it when every record was
// acknowledged, and aborts it otherwise or when the commit failed. A
// transaction whose end is not answered within TxnTimeout (or before ctx
// ends) timed out; one whose commit and abort both failed has an unknown
// outcome: the producer is then made again, which fences what the old one
// left open.
func (w *txnWriter) end(ctx context.Context, ev *results.TxnEvent, failed *atomic.Int64) {
	cl := w.p.prod
	ev.CommitStart = time.Now()
	cctx, cancel := context.WithTimeout(ctx, TxnTimeout)
	defer cancel()
	try, why := kgo.TryCommit, ""
	if err := cl.Flush(cctx); err != nil {
		try, why = kgo.TryAbort, fmt.Sprintf("records not acknowledged within %v: %v", TxnTimeout, err)
		actx, acancel := context.WithTimeout(context.Background(), 5*time.Second)
		cl.AbortBufferedRecords(actx) //nolint:errcheck // what is left is failed by the abort below
		acancel()
	} else if n := failed.Load(); n > 0 {
		try, why = kgo.TryAbort, fmt.Sprintf("%d record(s) failed", n)
	}
	err := cl.EndTransaction(cctx, try)
	switch {
	case err == nil && try == kgo.TryCommit:
		ev.Outcome = results.TxnCommitted
	case err == nil:
		ev.Outcome, ev.Err = results.TxnAborted, why
	default:
		if why == "" {
			why = "commit: " + err.Error()
		} else {
			why += "; abort: " + err.Error()
		}
		timedOut := cctx.Err() != nil
		actx, acancel := context.WithTimeout(context.Background(), 10*time.Second)
		aerr := errors.New("not tried")
		if try == kgo.TryCommit || !timedOut {
			aerr = cl.EndTransaction(actx, kgo.TryAbort)
		}
		acancel()
		// A commit refused before it was tried aborts for sure; any other
		// failed commit may have been applied (its answer lost with the
		// coordinator), and the abort after it may then only fence.
		notTried := try == kgo.TryAbort || errors.Is(err, kerr.OperationNotAttempted) || errors.Is(err, kerr.TransactionAbortable)
		switch {
		case timedOut:
			ev.Outcome, ev.Err = results.TxnTimedOut, why
		case aerr == nil && notTried:
			ev.Outcome, ev.Err = results.TxnAborted, why
		default:
			ev.Outcome, ev.Err = results.TxnUnknown, why+"; abort: "+aerr.Error()
		}
	}
	ev.End = time.Now()
	if ev.Outcome != results.TxnCommitted {
		w.p.failTxn(ev)
	}
	w.record(ev)
	if (ev.Outcome == results.TxnTimedOut || ev.Outcome == results.TxnUnknown) && ctx.Err() == nil {
		w.remake(ctx)
	}
}

// remake closes the producer and makes it again with the same
// transactional id: its InitProducerId bumps the epoch, which fences the
// old producer and aborts what it left open. false: it could not be made,
// or ctx ended.
func (w *txnWriter) remake(ctx context.Context) bool {
	w.p.prod.Close()
	for {
		cl, err := kgo.NewClient(w.opts...)
		if err == nil {
			w.p.prod = cl // only this goroutine produces while the probe runs
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Second):
		}
	}
}

func (w *txnWriter) record(ev *results.TxnEvent) {
	w.emu.Lock()
	defer w.emu.Unlock()
	w.enc.Encode(ev)
}

// flush writes the buffered rows; the first write error is kept.
func (w *txnWriter) flush() error {
	w.emu.Lock()
	defer w.emu.Unlock()
	return w.werr.Flush("write transactions", w.enc.Flush)
}

// failTxn marks each record of ev, a transaction that did not commit,
// failed with the transaction's outcome: it was never committed, so the
// integrity audit must not count it an acknowledged record lost. A record
// already written as acknowledged and read (the reader read it at
// read_committed, which it must not) keeps its row; the report finds it
// from the transactions file.
func (p *Probe) failTxn(ev *results.TxnEvent) {
	msg := fmt.Sprintf("transaction %d %s: %s", ev.Txn, ev.Outcome, ev.Err)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range ev.Records {
		ps := p.parts[r.Partition]
		if ps == nil {
			continue
		}
		for seq := r.First; seq <= r.Last; seq++ {
			if m := ps.pending.get(seq); m != nil && !m.failed() {
				ps.pending.fail(m, msg)
			}
		}
	}
}
