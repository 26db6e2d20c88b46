package render

import (
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// txnJSON is report.json's transactions: the transactional probe's trial
// (analysis.TxnView), with its transactional id's coordinator as the trial
// found it; absent for an idempotent producer.
type txnJSON struct {
	Settings     results.TxnSettings  `json:"settings"`
	Coordinator  *results.Coordinator `json:"coordinator,omitempty"`
	Faulted      bool                 `json:"coordinator_faulted"`
	Transactions int                  `json:"transactions"`
	Committed    int                  `json:"committed"`
	Aborted      int                  `json:"aborted"`
	TimedOut     int                  `json:"timed_out"`
	Unknown      int                  `json:"unknown"`
	// Latency is the committed transactions' commit latency, in seconds.
	Latency struct {
		N   int      `json:"n"`
		P50 *float64 `json:"p50_sec"`
		P99 *float64 `json:"p99_sec"`
		Max *float64 `json:"max_sec"`
	} `json:"commit_latency"`
	CommitStall *txnStallJSON `json:"commit_stall,omitempty"`
	// LSO is, per partition, the read_committed stall at the fault.
	LSO         []lsoJSON `json:"read_committed_stall"`
	AbortedRead int       `json:"aborted_read"`
	Torn        int       `json:"torn"`
	// Recovery is the coordinator's recovery from the fault, phase by
	// phase (analysis.TxnRecovery); absent without a fault.
	Recovery *txnRecoveryJSON `json:"recovery,omitempty"`
}

// txnRecoveryJSON is the transaction coordinator's recovery
// (analysis.TxnRecovery): its __transaction_state partition and how it was
// placed, the coordinators before and after, and its phases, each ending
// at its evidence.
type txnRecoveryJSON struct {
	StatePartition int32       `json:"state_partition"`
	Partitions     settingJSON `json:"state_log_partitions"`
	Coordinator    int32       `json:"coordinator"`
	NewCoordinator int32       `json:"new_coordinator"`
	Faulted        bool        `json:"coordinator_faulted"`
	Loaded         int64       `json:"loaded_transactional_ids"`
	LoadTookSec    float64     `json:"load_took_sec"`
	TotalSec       float64     `json:"total_sec"`
	Phases         []phaseJSON `json:"phases"`
	Note           string      `json:"note,omitempty"`
}

func txnRecoveryDoc(r *analysis.TxnRecovery) *txnRecoveryJSON {
	if r == nil {
		return nil
	}
	return &txnRecoveryJSON{StatePartition: r.Partition, Partitions: settingDoc(r.Partitions),
		Coordinator: r.Coordinator, NewCoordinator: r.NewCoordinator, Faulted: r.Faulted, Loaded: r.Loaded,
		LoadTookSec: r.LoadTook.Seconds(), TotalSec: r.Total().Seconds(), Phases: append([]phaseJSON{}, each(r.Phases, phaseDoc)...), Note: r.Note}
}

type txnStallJSON struct {
	spanJSON
	Open   bool `json:"open,omitempty"`
	Failed int  `json:"not_committed_within"`
}

// spanJSON is an interval and its length in seconds: a failback phase, a
// commit stall (the group reader's or the transactions').
type spanJSON struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Sec   float64   `json:"sec"`
}

// commitSpan is s's interval, in UTC.
func commitSpan(s *analysis.CommitStall) spanJSON {
	return spanJSON{Start: s.Start.UTC(), End: s.End.UTC(), Sec: s.Duration().Seconds()}
}

type lsoJSON struct {
	Partition int32     `json:"partition"`
	Sec       *float64  `json:"sec"`
	Open      bool      `json:"open,omitempty"`
	Gap       *gaps.Gap `json:"gap,omitempty"`
}

func txnDoc(tr *analysis.Trial) *txnJSON {
	v := tr.Txn
	if v == nil {
		return nil
	}
	out := &txnJSON{Settings: v.Settings, Transactions: v.Transactions, Committed: v.Committed, Aborted: v.Aborted,
		TimedOut: v.TimedOut, Unknown: v.Unknown, LSO: []lsoJSON{}, AbortedRead: v.AbortedRead, Torn: v.Torn,
		Recovery: txnRecoveryDoc(tr.TxnRecovery)}
	if f := analysis.TxnFault(tr); f != nil && f.TxnCoordinator != nil {
		out.Coordinator = f.TxnCoordinator
		out.Faulted = f.TxnCoordinator.Found() && f.TxnCoordinator.NodeID == f.NodeID
	}
	if n := v.Latency; n.N > 0 {
		out.Latency.N, out.Latency.P50, out.Latency.P99, out.Latency.Max = n.N, seconds(n.P50), seconds(n.P99), seconds(n.Max)
	}
	if s := v.CommitStall; s != nil {
		out.CommitStall = &txnStallJSON{spanJSON: commitSpan(s), Open: s.Open, Failed: s.Failed}
	}
	for _, s := range v.LSO {
		l := lsoJSON{Partition: s.Partition, Gap: s.Gap}
		if s.Gap != nil {
			l.Sec, l.Open = seconds(s.Gap.Duration()), s.Gap.Open
		}
		out.LSO = append(out.LSO, l)
	}
	return out
}
