package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// TxnView is a transactional probe's trial (kbf run --producer
// transactional): its transactions' commit stall and latencies, those
// that did not commit, the read_committed reader's stall per partition,
// and what read_committed returned that it must not have.
type TxnView struct {
	Settings results.TxnSettings
	// Transactions counts every transaction; Committed, Aborted, TimedOut
	// and Unknown by outcome.
	Transactions, Committed, Aborted, TimedOut, Unknown int
	// Latency is the committed transactions' commit latency, from the
	// probe's asking to commit (its flush) to the commit's answer.
	Latency Latency
	// CommitStall is the longest time with no committed transaction at
	// the fault (or in the run, without one): from a commit's end to the
	// next commit's end. Its Failed counts the transactions that ended
	// within it without committing. nil with fewer than two commits and
	// none open.
	CommitStall *CommitStall
	// LSO is, per partition, the read_committed stall at the fault.
	LSO []LSOStall
	// AbortedRead counts records of transactions that did not commit
	// (aborted or timed out, whatever their outcome would be) that the
	// read_committed reader returned, live or at the read-back; Torn the
	// transactions of unknown outcome (timed out, unknown) the read-back
	// held only some records of. Either breaks read_committed's promise.
	AbortedRead, Torn int
	// FirstAbortedRead is the first such record, for the report.
	FirstAbortedRead *TxnRecord
	// events are transactions.csv's transactions, in the order they
	// ended.
	events []results.TxnEvent
}

// Latency is a distribution of durations: how many, and their median,
// 99th percentile and maximum.
type Latency struct {
	N             int
	P50, P99, Max time.Duration
}

// LSOStall is one partition's read_committed stall: how long the last
// stable offset stood still at the fault, as the read_committed reader saw
// it.
//
// It is read from what the probe's read_committed reader received, not
// from ListOffsets with committed isolation: a record becomes readable at
// read_committed exactly when the last stable offset passes it, so the
// reader's receive gap is the LSO's standstill as an application sees it,
// with no request stream of kbf's own to add to the leader's load and to
// fail over with it. It includes the reader's own stall (its partition's
// leader moved), which a read_committed application pays as well; the
// probe's ack stall on the same partition, beside it, says which of the two
// held it.
type LSOStall struct {
	Partition int32
	Gap       *gaps.Gap // nil: no gap at the fault
}

// TxnRecord is one probe record of a transaction.
type TxnRecord struct {
	Partition int32
	Seq       int64
	Txn       int64
	Outcome   results.TxnOutcome
	Where     string // "the live reader" or "the read-back"
}

// Events are the trial's transactions (transactions.csv), in the order
// they ended; renderers draw them and decide nothing from them.
func (v *TxnView) Events() []results.TxnEvent {
	if v == nil {
		return nil
	}
	return v.events
}

// txnOf is the transactional probe's stage: transactions.csv, beside the
// read_committed reader's gaps g and what the probe and the read-back
// read; nil for a trial without a transactional probe.
func txnOf(ctx context.Context, t results.Trial, gopt gaps.Options, g *gaps.Report) (*TxnView, notes, error) {
	if t.Dir == "" || t.Meta == nil || t.Meta.Probe.Txn == nil {
		return nil, nil, nil
	}
	v := &TxnView{Settings: *t.Meta.Probe.Txn}
	evs, ns, err := readFileRows[results.TxnEvent](ctx, t.Path(results.TxnFile), "a transactional producer", g,
		func(r io.Reader, file string) *results.TxnDecoder {
			d := results.NewTxnDecoder(r, file)
			d.Scope, d.MaxRecords = t.Meta.Scope(), v.Settings.Records
			return d
		})
	if err != nil || ns != nil {
		return nil, ns, err
	}
	v.outcomes(evs, gopt, readEnd(gopt, g))
	v.lso(g)
	if err := v.audit(ctx, t, evs); err != nil {
		return nil, nil, err
	}
	return v, nil, nil
}

// outcomes counts the transactions evs by outcome, their commit
// latencies and the commit stall at the fault.
func (v *TxnView) outcomes(evs []results.TxnEvent, gopt gaps.Options, end time.Time) {
	slices.SortStableFunc(evs, func(a, b results.TxnEvent) int { return a.End.Compare(b.End) })
	v.events = evs
	var lat []time.Duration
	var stalls []CommitStall
	var open *CommitStall
	for _, ev := range evs {
		v.Transactions++
		switch ev.Outcome {
		case results.TxnCommitted:
			v.Committed++
			lat = append(lat, ev.End.Sub(ev.CommitStart))
			if open != nil {
				open.End = ev.End
				stalls = append(stalls, *open)
			}
			open = &CommitStall{Start: ev.End}
			continue
		case results.TxnAborted:
			v.Aborted++
		case results.TxnTimedOut:
			v.TimedOut++
		default:
			v.Unknown++
		}
		if open == nil {
			open = &CommitStall{Start: ev.Begin}
		}
		open.Failed++
	}
	if open != nil && end.After(open.Start) && (open.Failed > 0 || len(stalls) == 0) {
		open.End, open.Open = end, true
		stalls = append(stalls, *open)
	}
	v.CommitStall = longestCommitStall(stalls, gopt)
	v.Latency = latencyOf(lat)
}

// latencyOf summarises ds.
func latencyOf(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	q := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
	return Latency{N: len(ds), P50: q(0.5), P99: q(0.99), Max: ds[len(ds)-1]}
}

// lso reads each partition's read_committed stall from the reader's gaps.
func (v *TxnView) lso(g *gaps.Report) {
	if g == nil {
		return
	}
	for _, p := range g.Partitions {
		v.LSO = append(v.LSO, LSOStall{Partition: p.Partition, Gap: p.Receive.Fault})
	}
}

// audit weighs what read_committed returned against the transactions'
// outcomes: a record of a transaction that did not commit read by the
// live reader (probe.csv) or held by the read-back (log.csv, read at
// read_committed), and a transaction of unknown outcome the read-back
// holds only part of. A committed transaction's records are the
// integrity audit's: acknowledged, each must be read back exactly once.
func (v *TxnView) audit(ctx context.Context, t results.Trial, evs []results.TxnEvent) error {
	failed := map[[2]int64]*results.TxnEvent{}
	for i := range evs {
		ev := &evs[i]
		if ev.Outcome == results.TxnCommitted {
			continue
		}
		for _, r := range ev.Records {
			for s := r.First; s <= r.Last; s++ {
				failed[[2]int64{int64(r.Partition), s}] = ev
			}
		}
	}
	if len(failed) == 0 {
		return nil
	}
	read := func(p int32, seq int64, where string) {
		ev := failed[[2]int64{int64(p), seq}]
		if ev == nil {
			return
		}
		if ev.Outcome == results.TxnAborted {
			v.AbortedRead++
			if v.FirstAbortedRead == nil {
				v.FirstAbortedRead = &TxnRecord{Partition: p, Seq: seq, Txn: ev.Txn, Outcome: ev.Outcome, Where: where}
			}
		}
	}
	if err := eachMessage(ctx, t.Path(results.ProbeFile), func(m *results.Message) {
		if !m.Received.IsZero() {
			read(m.Partition, m.Seq, "the live reader")
		}
	}); err != nil {
		return err
	}
	held := map[int64]int64{} // transaction → its records the read-back holds
	err := eachLog(ctx, t.Path(results.LogFile), func(r results.LogRecord) {
		read(r.Partition, r.Seq, "the read-back")
		if ev := failed[[2]int64{int64(r.Partition), r.Seq}]; ev != nil {
			held[ev.Txn]++
		}
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err != nil {
		return nil // no read-back: nothing more to weigh
	}
	for i := range evs {
		ev := &evs[i]
		if (ev.Outcome == results.TxnTimedOut || ev.Outcome == results.TxnUnknown) && held[ev.Txn] > 0 && held[ev.Txn] < ev.Count() {
			v.Torn++
		}
	}
	return nil
}

func eachMessage(ctx context.Context, path string, fn func(*results.Message)) error {
	f, err := results.Open(ctx, path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := results.NewDecoder(f, path)
	for {
		var m results.Message
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		fn(&m)
	}
}

func eachLog(ctx context.Context, path string, fn func(results.LogRecord)) error {
	f, err := results.Open(ctx, path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := results.NewLogDecoder(f, path)
	for {
		var r results.LogRecord
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		fn(r)
	}
}

// txnMeasures puts the transactional probe's measures of the fault in
// each partition's values of m: the commit stall, the producer's, on
// every partition, and the partition's read_committed stall.
func txnMeasures(m *Metrics, v *TxnView) {
	if v == nil {
		return
	}
	putStalls(m, MeasureLSOStall, v.LSO, func(s LSOStall) (int32, *gaps.Gap) { return s.Partition, s.Gap },
		MeasureTxnCommitStall, v.CommitStall)
}

// txnFindings adds the transactional probe's breaches of read_committed
// to franz-go's finding in fs.
func txnFindings(fs Findings, m *results.Meta, v *TxnView) Findings {
	if v == nil || v.AbortedRead+v.Torn == 0 {
		return fs
	}
	i := slices.IndexFunc(fs, func(f Finding) bool { return f.Client == FranzGo })
	if i < 0 {
		f, _ := finding(FranzGo, m, nil)
		f.Client, f.Acks = FranzGo, "all"
		fs = append(Findings{f}, fs...)
		i = 0
	}
	fs[i].AbortedRead, fs[i].TxnTorn = v.AbortedRead, v.Torn
	return fs
}

// TxnLines are the transactional probe at a glance, two or three lines
// for the digest and the text report: its transactions by outcome, the
// commit stall and latencies, the worst read_committed stall, and what
// read_committed returned that it must not have. None without one.
func (tr *Trial) TxnLines() []string {
	v := tr.Txn
	if v == nil {
		return nil
	}
	l := fmt.Sprintf("transactions (%s, every %d records or %v): %d, %d committed, %d aborted, %d timed out",
		v.Settings.ID, v.Settings.Records, v.Settings.Interval, v.Transactions, v.Committed, v.Aborted, v.TimedOut)
	if v.Unknown > 0 {
		l += fmt.Sprintf(", %d unknown", v.Unknown)
	}
	if f := TxnFault(tr); f != nil && f.TxnCoordinator != nil {
		c := f.TxnCoordinator
		switch {
		case !c.Found():
			l += "; its coordinator not found: " + c.Err
		case c.NodeID == f.NodeID:
			l += fmt.Sprintf("; its coordinator, broker %d (%s, by %s), faulted", c.NodeID, c.Broker, c.Via)
		default:
			l += fmt.Sprintf("; its coordinator, broker %d (%s, by %s), not faulted", c.NodeID, c.Broker, c.Via)
		}
	}
	lines := []string{l}
	l = "  commit stall "
	if c := v.CommitStall; c != nil {
		l += fmt.Sprintf("%s (%s ~ %s, %d not committed within)", durText(c.Duration(), c.Open),
			c.Start.UTC().Format("15:04:05.000"), c.End.UTC().Format("15:04:05.000"), c.Failed)
	} else {
		l += "none"
	}
	if n := v.Latency; n.N > 0 {
		l += fmt.Sprintf("; commit latency p50 %s, p99 %s, max %s", durText(n.P50, false), durText(n.P99, false), durText(n.Max, false))
	}
	var worst *LSOStall
	for i := range v.LSO {
		if s := &v.LSO[i]; s.Gap != nil && (worst == nil || s.Gap.Duration() > worst.Gap.Duration()) {
			worst = s
		}
	}
	if worst != nil {
		l += fmt.Sprintf("; read_committed stall %s on p%d", durText(worst.Gap.Duration(), worst.Gap.Open), worst.Partition)
	}
	lines = append(lines, l)
	if r := tr.TxnRecovery; r != nil && (len(r.Phases) > 0 || r.Faulted) {
		lines = append(lines, r.Line())
	}
	if v.AbortedRead > 0 {
		r := v.FirstAbortedRead
		lines = append(lines, fmt.Sprintf("  FINDING: read_committed returned %d record(s) of aborted transactions, first p%d seq %d of transaction %d (%s)",
			v.AbortedRead, r.Partition, r.Seq, r.Txn, r.Where))
	}
	if v.Torn > 0 {
		lines = append(lines, fmt.Sprintf("  FINDING: %d transaction(s) of unknown outcome only partly read back at read_committed", v.Torn))
	}
	return lines
}

// TxnFault is the trial's recorded fault, nil for none.
func TxnFault(tr *Trial) *results.Fault {
	if tr.Meta == nil {
		return nil
	}
	return tr.Meta.Fault
}
