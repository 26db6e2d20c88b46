package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// GroupView is the group reader's trial (kbf run --consumer group): what
// an application reading in a consumer group went through, beside the
// probe's own reader on the same records — its processing stall per
// partition, its commits' stall, its rebalances, and whether its committed
// offsets ever went backwards.
type GroupView struct {
	Settings results.GroupSettings
	// Partitions are each partition's processing gaps (gaps.Stalls over
	// the times the group reader polled the partition's records, the
	// fault's window as the receives'), beside the assign reader's receive
	// gap at the fault, in partition order.
	Partitions []GroupPartition
	// Processed counts the records processed, Reprocessed those processed
	// again (read again from a committed offset after a rebalance).
	Processed, Reprocessed int
	// Commits counts the commits that answered, Failed those that failed.
	Commits, Failed int
	// CommitStall is the longest time from a commit's start to the end of
	// the next successful commit (the fault's, with a fault: in progress
	// at some moment of its window); nil without a commit.
	CommitStall *CommitStall
	// Changes are the reader's assignment changes, in time order: its
	// first assignment, then every rebalance's.
	Changes []results.GroupEvent
	// Backwards are the commits whose offset for a partition was below
	// one committed before: a finding.
	Backwards []CommitBackwards
	// Promise is what the reader's commit mode promises of the records
	// below a committed offset (groupaudit.go); Audited says whether they
	// were weighed against the read-back. SkippedN counts the probe's
	// records below a committed offset never processed — a finding —
	// and Skipped names the first of them.
	Promise  string
	Audited  bool
	SkippedN int
	Skipped  []GroupSkip

	// okCommits are the successful commits, and processed the times
	// records were processed, each in time order: the group recovery's
	// evidence (groupphases.go).
	okCommits []results.GroupEvent
	processed []time.Time
}

// FirstProcessed is the first time a record was processed after t; false
// for none.
func (g *GroupView) FirstProcessed(t time.Time) (time.Time, bool) {
	i, _ := slices.BinarySearchFunc(g.processed, t, func(a, b time.Time) int { return a.Compare(b) })
	if i < len(g.processed) {
		return g.processed[i], true
	}
	return time.Time{}, false
}

// GroupPartition is one partition's processing by the group reader.
type GroupPartition struct {
	Partition int32
	Processed int
	// Stalls are the gaps between the times the group reader processed
	// the partition's records.
	Stalls gaps.Stalls
	// Receive is the assign reader's receive gap at the fault on the same
	// partition; nil without one.
	Receive *gaps.Gap
}

// CommitStall is a stretch with no successful commit: from a commit's
// start (an autocommit's, whose start the client does not say: the end of
// the commit before it) to the end of the next that succeeded.
type CommitStall struct {
	Start, End time.Time
	// Open is set when no commit succeeded after it: End is the trial's.
	Open bool
	// Failed counts the commits that failed within it.
	Failed int
}

// Duration is the stall's length.
func (s CommitStall) Duration() time.Duration { return s.End.Sub(s.Start) }

// CommitBackwards is a commit that moved a partition's committed offset
// back.
type CommitBackwards struct {
	Partition int32
	At        time.Time // the commit's end
	Offset    int64     // what it committed
	Before    int64     // the highest offset committed before it
}

// Rebalances counts the assignment changes after the first assignment.
func (g *GroupView) Rebalances() int {
	if len(g.Changes) == 0 {
		return 0
	}
	if g.Changes[0].Kind == results.GroupAssigned {
		return len(g.Changes) - 1
	}
	return len(g.Changes)
}

// Worst is the partition with the longest processing gap at the fault (or
// the longest without one); false when none has a gap.
func (g *GroupView) Worst() (GroupPartition, bool) {
	var worst GroupPartition
	var d time.Duration
	found := false
	for _, p := range g.Partitions {
		gp := p.Stalls.Fault
		if gp == nil {
			gp = p.Stalls.Longest
		}
		if gp != nil && (!found || gp.Duration() > d) {
			worst, d, found = p, gp.Duration(), true
		}
	}
	return worst, found
}

// groupOf is the group reader's stage: group.csv read within the window
// gopt, as the receives were, beside the assign reader's gaps g, and
// group-events.csv; nil for a trial without a group reader.
func groupOf(ctx context.Context, t results.Trial, gopt gaps.Options, g *gaps.Report) (*GroupView, notes, error) {
	if t.Dir == "" || t.Meta == nil || t.Meta.Probe.Group == nil {
		return nil, nil, nil
	}
	v := &GroupView{Settings: *t.Meta.Probe.Group}
	scope := t.Meta.Scope()
	const what = "a group reader"
	proc, ns, err := readFileRows[results.GroupRecord](ctx, t.GroupPath(results.GroupFile), what, g,
		func(r io.Reader, file string) *results.GroupDecoder {
			d := results.NewGroupDecoder(r, file)
			d.Scope = scope
			return d
		})
	if err != nil || ns != nil {
		return nil, ns, err
	}
	evs, ns, err := readFileRows[results.GroupEvent](ctx, t.GroupPath(results.GroupEventsFile), what, g,
		func(r io.Reader, file string) *results.GroupEventDecoder {
			d := results.NewGroupEventDecoder(r, file)
			d.Scope = scope
			return d
		})
	if err != nil || ns != nil {
		return nil, ns, err
	}
	v.processing(proc, gopt, g)
	v.commits(evs, gopt, readEnd(gopt, g))
	if err := v.auditGroup(ctx, t, proc, evs); err != nil { // groupaudit.go
		return nil, nil, err
	}
	return v, nil, nil
}

// processing reads the processed records recs into per-partition gaps:
// the processing times stand as receives, read by package gaps as the
// assign reader's are.
func (v *GroupView) processing(recs []results.GroupRecord, gopt gaps.Options, g *gaps.Report) {
	r := gaps.NewReport(gopt)
	seen := map[[2]int64]bool{}
	count := map[int32]int{}
	for _, rec := range recs {
		k := [2]int64{int64(rec.Partition), rec.Offset}
		if seen[k] {
			v.Reprocessed++
		}
		seen[k] = true
		count[rec.Partition]++
		v.Processed++
		v.processed = append(v.processed, rec.Processed)
		r.Add(&results.Message{Partition: rec.Partition, Seq: rec.Seq, Offset: rec.Offset, Sent: rec.Processed, Received: rec.Processed})
	}
	r.Close()
	slices.SortFunc(v.processed, func(a, b time.Time) int { return a.Compare(b) })
	receive := map[int32]*gaps.Gap{}
	if g != nil {
		for _, p := range g.Partitions {
			receive[p.Partition] = p.Receive.Fault
		}
	}
	for _, p := range r.Partitions {
		v.Partitions = append(v.Partitions, GroupPartition{Partition: p.Partition, Processed: count[p.Partition], Stalls: p.Receive, Receive: receive[p.Partition]})
	}
}

// commits reads the events evs, in the order they ended: the commits'
// stall and failures, the offsets committed per partition, the
// assignment changes. end is the trial's end, for a stall no commit ended.
func (v *GroupView) commits(evs []results.GroupEvent, gopt gaps.Options, end time.Time) {
	slices.SortStableFunc(evs, func(a, b results.GroupEvent) int { return a.Time.Compare(b.Time) })
	committed := map[int32]int64{}
	var stalls []CommitStall
	var prevEnd time.Time
	var open *CommitStall // from the first commit not yet followed by a success
	for _, ev := range evs {
		if ev.Kind != results.GroupCommit {
			v.Changes = append(v.Changes, ev)
			continue
		}
		v.Commits++
		start := ev.Start
		if start.IsZero() {
			start = prevEnd // an autocommit: after the commit before it
		}
		if start.IsZero() || start.After(ev.Time) {
			start = ev.Time
		}
		prevEnd = ev.Time
		if open == nil {
			open = &CommitStall{Start: start}
		}
		if ev.Failed() {
			v.Failed++
			open.Failed++
			continue
		}
		v.okCommits = append(v.okCommits, ev)
		open.End = ev.Time
		stalls = append(stalls, *open)
		open = nil
		for _, o := range ev.Offsets {
			if before, ok := committed[o.Partition]; ok && o.Offset < before {
				v.Backwards = append(v.Backwards, CommitBackwards{Partition: o.Partition, At: ev.Time, Offset: o.Offset, Before: before})
				continue
			}
			committed[o.Partition] = o.Offset
		}
	}
	if open != nil && end.After(open.Start) {
		open.End, open.Open = end, true
		stalls = append(stalls, *open)
	}
	v.CommitStall = longestCommitStall(stalls, gopt)
}

// readRows decodes the whole of the CSV at path with the decoder newDec
// makes: the group's and the transactions' files, read whole.
func readRows[T any, D interface{ Decode(*T) error }](ctx context.Context, path string, newDec func(io.Reader, string) D) ([]T, error) {
	f, err := results.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := newDec(f, path)
	var out []T
	for {
		var row T
		err := dec.Decode(&row)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
}

// groupMeasures puts the group reader's measures of the fault in each
// partition's values of m: its processing stall, and the commit stall,
// the group's, on every partition.
func groupMeasures(m *Metrics, v *GroupView) {
	if v == nil {
		return
	}
	putStalls(m, MeasureGroupStall, v.Partitions, func(p GroupPartition) (int32, *gaps.Gap) { return p.Partition, p.Stalls.Fault },
		MeasureCommitStall, v.CommitStall)
}

// GroupLines are the group reader at a glance, two or three lines for the
// digest and the text report: its worst processing stall beside the
// assign reader's on the same partition, the commits' stall and failures,
// the rebalances, and offsets committed backwards. None without one.
func (tr *Trial) GroupLines() []string {
	v := tr.Group
	if v == nil {
		return nil
	}
	s := v.Settings
	head := fmt.Sprintf("group reader (%s, commit %s): ", s.Protocol, s.Commit)
	var lines []string
	what := "stall at the fault"
	if tr.FaultAt.IsZero() {
		what = "longest gap"
	}
	if w, ok := v.Worst(); ok {
		gp := w.Stalls.Fault
		if gp == nil {
			gp = w.Stalls.Longest
		}
		l := fmt.Sprintf("%sprocessing %s %s on p%d", head, what, durText(gp.Duration(), gp.Open), w.Partition)
		if w.Receive != nil {
			l += fmt.Sprintf(" (the assign reader's receive stall %s)", durText(w.Receive.Duration(), w.Receive.Open))
		}
		lines = append(lines, l+fmt.Sprintf("; %d processed, %d again", v.Processed, v.Reprocessed))
	} else {
		lines = append(lines, head+"processed nothing")
	}
	l := fmt.Sprintf("  commits: %d, %d failed", v.Commits, v.Failed)
	if c := v.CommitStall; c != nil {
		l += fmt.Sprintf("; commit stall %s (%s ~ %s, %d failed within)", durText(c.Duration(), c.Open),
			c.Start.UTC().Format("15:04:05.000"), c.End.UTC().Format("15:04:05.000"), c.Failed)
	}
	l += fmt.Sprintf("; %d rebalance(s)", v.Rebalances())
	for i, c := range v.Changes {
		if i == 0 && c.Kind == results.GroupAssigned {
			continue
		}
		if i > 4 {
			l += ", …"
			break
		}
		l += fmt.Sprintf(", %s %s (gen %d)", c.Kind, c.Time.UTC().Format("15:04:05.000"), c.Generation)
	}
	lines = append(lines, l)
	if r := tr.Recovery; r != nil {
		lines = append(lines, r.Line())
	}
	if n := len(v.Backwards); n > 0 {
		b := v.Backwards[0]
		lines = append(lines, fmt.Sprintf("  FINDING: %d committed offset(s) went backwards, first p%d %d after %d at %s",
			n, b.Partition, b.Offset, b.Before, b.At.UTC().Format("15:04:05.000")))
	}
	if v.SkippedN > 0 {
		k := v.Skipped[0]
		lines = append(lines, fmt.Sprintf("  FINDING: %d record(s) below a committed offset never processed (%s), first p%d offset %d (seq %d)",
			v.SkippedN, v.Promise, k.Partition, k.Offset, k.Seq))
	}
	return lines
}

// durText is a duration in seconds with two decimals, "≥" before an open
// one.
func durText(d time.Duration, open bool) string {
	s := fmt.Sprintf("%.2f s", d.Seconds())
	if open {
		return "≥ " + s
	}
	return s
}
