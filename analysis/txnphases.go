package analysis

import (
	"fmt"
	"slices"
	"time"

	"github.com/kbf-project/kbf/results"
)

// txnRecoveryOf is the transaction coordinator's recovery stage: the
// coordinator recipe (coordinatorRecoveryOf) for the transactional probe's
// id, whose phase after the new coordinator was found is its first
// committed transaction. v is the transactional probe's view; nil for a
// trial with none.
func txnRecoveryOf(ev *evidence, ff *faultFacts, v *TxnView) *TxnRecovery {
	if ff == nil || ff.f.TxnCoordinator == nil || v == nil {
		return nil
	}
	return coordinatorRecoveryOf(ev, ff, ff.f.TxnCoordinator, &txnRecipe, func(w *coordWalk) { txnCommit(w, v) })
}

func txnCommit(w *coordWalk, v *TxnView) {
	ev, ok := firstCommitted(v.events, w.c.prev)
	if !ok {
		w.c.missing("no transaction committed after the fault in " + results.TxnFile)
		return
	}
	why := fmt.Sprintf("transaction %d, whose commit the producer asked for before the fault, committed once its EndTxn, retried, reached the new coordinator", ev.Txn)
	if ev.CommitStart.IsZero() || ev.CommitStart.After(w.ev.F) {
		why = fmt.Sprintf("transaction %d, whose commit the producer asked for after the fault, was the first to commit once its requests reached the new coordinator", ev.Txn)
	}
	w.c.add(TxnPhaseCommit, ev.End, Explanation{Evidence: fmt.Sprintf("transaction %d committed (%d records, commit asked at %s)", ev.Txn, ev.Count(), clock(ev.CommitStart)),
		Source:   results.TxnFile,
		Why:      why + "; a transaction left open instead holds the read_committed readers until the coordinator aborts it after transaction.timeout.ms",
		Setting:  "the client's retry backoff (retry_backoff); transaction.timeout.ms (the producer's transaction_timeout) bounds an abandoned transaction's hold on the last stable offset",
		Settings: []Setting{w.x.clientSetting("retry_backoff"), w.x.clientSetting("transaction_timeout")}},
		noBound("the first commit waits on the producer's own transaction; no setting bounds it"))
}

// firstCommitted is the first transaction of evs that committed at or
// after at.
func firstCommitted(evs []results.TxnEvent, at time.Time) (results.TxnEvent, bool) {
	i := slices.IndexFunc(evs, func(e results.TxnEvent) bool { return e.Outcome == results.TxnCommitted && !e.End.Before(at) })
	if i < 0 {
		return results.TxnEvent{}, false
	}
	return evs[i], true
}
