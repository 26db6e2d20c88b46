package analysis

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/kbf-project/kbf/results"
)

// The replica view's summary: per partition, from replicas.csv, what each
// replica's log end offset and the high watermark did through the fault —
// the dead or cut replica's LEO frozen, the HW held, the new leader's LEO
// taking over — and the ISR/ELR changes the cluster reported.

// ReplicaView is the summary of a trial's replica view.
type ReplicaView struct {
	// Sampling is what the run achieved, from meta.json; nil when it did
	// not record it.
	Sampling   *results.ReplicaStats
	Partitions []PartitionReplicas
	// Silent are the brokers that stopped answering after the fault, the
	// first to stop first: evidence of which broker an external fault
	// hit (externalBroker). Not in the JSON: replicas.csv holds it.
	Silent []SilentBroker
	// Answered is, by broker, its last answer in the whole view.
	Answered map[int32]time.Time
}

// SilentBroker is a broker whose answers to the replica view turned to
// errors after the fault: its first error then, and its last answer
// before that.
type SilentBroker struct {
	Broker     int32
	LastAnswer time.Time
	FirstError time.Time
	Err        string
}

// PartitionReplicas is one partition's replicas through the fault.
type PartitionReplicas struct {
	Partition int32
	// AtFault is each replica's latest LEO at or before the fault, by
	// broker, in broker order.
	AtFault []ReplicaOffset
	// HWAtFault is the latest high watermark at or before the fault; -1
	// unknown.
	HWAtFault int64
	// HW is the high watermark's longest stop through the fault: nil when
	// it never stopped for longer than the sampling could tell.
	HW *Stop
	// Frozen are the replicas whose LEO stopped through the fault.
	Frozen []ReplicaStop
	// TakeOver is the new leader's first answer as leader after the fault,
	// nil when leadership did not move.
	TakeOver *TakeOver
	// Changes are the cluster's reported states of the partition: the one
	// at the fault first, then each change after it.
	Changes []StateChange
	// Stale counts the state answers after the fault that repeated an
	// older state than the last one seen (a broker cut from the
	// controller answers from the metadata it last had); FirstStale is the
	// first of them. They are left out of Changes.
	Stale      int
	FirstStale time.Time
	// Leaderless are the times Changes say the partition had no leader
	// (leader -1: the last replica of its ISR dead): no broker answers as
	// leader then, so the HW is unknown, while each live replica's LEO goes
	// on being sampled. A picture breaks the HW's line there.
	Leaderless []Leaderless
	// LEOs are each replica's answers in time order, by broker in broker
	// order, and HWs the high watermarks the leaders gave: what a picture
	// draws as lines. Past the Condense partitions of lowest number with an
	// offset, a replica keeps only the answers where its LEO changed. Not in
	// the JSON: replicas.csv holds them.
	LEOs []ReplicaSeries
	HWs  []ReplicaOffset
}

// ReplicaSeries is one replica's LEO answers, in time order.
type ReplicaSeries struct {
	Broker int32
	Points []ReplicaOffset
}

// ReplicaOffset is one replica's offset at a moment.
type ReplicaOffset struct {
	Broker int32
	Offset int64
	Time   time.Time
}

// Stop is an offset that stopped: it reached Offset at Stopped (the first
// sample showing it) and moved again at Moved (the first sample showing
// more), zero when it never moved again while sampled.
type Stop struct {
	Offset  int64
	Stopped time.Time
	Moved   time.Time
}

// ReplicaStop is one replica's LEO that stopped.
type ReplicaStop struct {
	Broker int32
	Stop
}

// TakeOver is the new leader starting to answer as leader.
type TakeOver struct {
	Broker int32
	Time   time.Time
	LEO    int64
}

// Leaderless is a time without a leader: from the first state answer that
// named none to the first that named one again; To is zero when none did
// while sampled.
type Leaderless struct {
	From time.Time
	To   time.Time
}

// leaderless finds the times without a leader in changes, in time order.
func leaderless(changes []StateChange) []Leaderless {
	var out []Leaderless
	open := false
	for _, c := range changes {
		switch {
		case c.Leader < 0 && !open:
			out = append(out, Leaderless{From: c.Time})
			open = true
		case c.Leader >= 0 && open:
			out[len(out)-1].To = c.Time
			open = false
		}
	}
	return out
}

// StateChange is one state the cluster reported for the partition.
type StateChange struct {
	Time         time.Time
	Leader       int32
	LeaderEpoch  int32
	ISR          []int32
	ELR          []int32
	LastKnownELR []int32
}

// readReplicaView reads the trial's replicas.csv once and summarises it
// around the fault at F, over [F, F+window]; nil, nil when the trial has
// no replica view.
func readReplicaView(ctx context.Context, t results.Trial, F time.Time, window time.Duration) (*ReplicaView, error) {
	if t.Dir == "" || F.IsZero() {
		return nil, nil
	}
	path := t.Path(results.ReplicasFile)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	f, err := results.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("replica view: %w", err)
	}
	defer f.Close()
	v, err := SummarizeReplicas(bufio.NewReader(f), path, F, window)
	if err != nil {
		return nil, err
	}
	if t.Meta != nil {
		v.Sampling = t.Meta.Replicas
	}
	return v, nil
}

// minStop is the shortest stop the summary reports: shorter ones are the
// sampling's own granularity, not the fault's.
const minStop = 500 * time.Millisecond

// SummarizeReplicas reads a replica view (results.ReplicasFile) from r,
// file naming it in errors, and summarises each partition around the
// fault at F: what stopped in progress at some moment of [F, F+window].
func SummarizeReplicas(r io.Reader, file string, F time.Time, window time.Duration) (*ReplicaView, error) {
	rd := replicaRows{F: F, parts: map[int32]*replicaSeries{},
		answered: map[int32]time.Time{}, answeredBefore: map[int32]time.Time{}, failed: map[int32]results.ReplicaSample{}}
	d := results.NewReplicaDecoder(r, file)
	var s results.ReplicaSample
	for {
		err := d.Decode(&s)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		rd.add(&s)
	}
	parts, last, answered, answeredBefore, failed := rd.parts, rd.last, rd.answered, rd.answeredBefore, rd.failed
	v := &ReplicaView{Answered: answered}
	end := F.Add(window)
	for b, e := range failed {
		v.Silent = append(v.Silent, SilentBroker{Broker: b, LastAnswer: answeredBefore[b], FirstError: e.Time, Err: e.Err})
	}
	slices.SortFunc(v.Silent, func(a, b SilentBroker) int { return a.FirstError.Compare(b.FirstError) })
	for _, id := range slices.Sorted(mapKeys(parts)) {
		p := parts[id]
		pr := PartitionReplicas{Partition: id, HWAtFault: -1}
		for _, b := range slices.Sorted(mapKeys(p.leo)) {
			ls := p.leo[b]
			xs := byTime(ls.points)
			pr.LEOs = append(pr.LEOs, ReplicaSeries{Broker: b, Points: xs})
			if ls.hasAt {
				pr.AtFault = append(pr.AtFault, ls.atFault)
			}
			if st := longestStop(xs, F, end, last); st != nil {
				pr.Frozen = append(pr.Frozen, ReplicaStop{Broker: b, Stop: *st})
			}
		}
		hw := byTime(p.hw)
		pr.HWs = hw
		if at, ok := atOrBefore(hw, F); ok {
			pr.HWAtFault = at.Offset
		}
		pr.HW = longestStop(hw, F, end, last)
		states := p.states
		slices.SortStableFunc(states, func(a, b stateRun) int { return a.Time.Compare(b.Time) })
		leader := int32(-1)
		for _, run := range states {
			st := run.StateChange
			if !st.Time.After(F) {
				leader = st.Leader
				st.Time = run.last // the latest answer at or before the fault
				pr.Changes = []StateChange{st}
				continue
			}
			n := len(pr.Changes)
			switch {
			case n > 0 && sameState(pr.Changes[n-1], st):
			case n > 0 && (st.LeaderEpoch < pr.Changes[n-1].LeaderEpoch ||
				slices.ContainsFunc(pr.Changes[:n-1], func(c StateChange) bool { return sameState(c, st) })):
				// Answered from metadata older than the last state seen:
				// a broker that stopped hearing from the controller still
				// serves what it last knew.
				if pr.Stale == 0 {
					pr.FirstStale = st.Time
				}
				pr.Stale += run.answers
			default:
				pr.Changes = append(pr.Changes, st)
			}
		}
		pr.Leaderless = leaderless(pr.Changes)
		if leader >= 0 {
			for _, x := range hw {
				if x.Time.After(F) && x.Broker != leader {
					to := &TakeOver{Broker: x.Broker, Time: x.Time, LEO: -1}
					if l, ok := p.leo[x.Broker].offsetAt(x.Time); ok {
						to.LEO = l.Offset
					}
					pr.TakeOver = to
					break
				}
			}
		}
		v.Partitions = append(v.Partitions, pr)
	}
	return v, nil
}

// replicaRows is what SummarizeReplicas keeps of the rows it read.
type replicaRows struct {
	F     time.Time // the fault
	parts map[int32]*replicaSeries
	// full are the partitions whose every LEO answer is kept, the Condense
	// of lowest number seen with an offset: what a picture draws (plot
	// draws fewer). The others keep only what the summary reads.
	full []int32
	// last is the latest row's time: a replica whose answers stopped (timed
	// out, refused) stayed frozen at least until then, as far as kbf saw.
	last time.Time
	// answered and failed are, by broker, its last answer and its first
	// error after the fault, for Silent; answeredBefore its last answer
	// before that error.
	answered, answeredBefore map[int32]time.Time
	failed                   map[int32]results.ReplicaSample
}

func (rd *replicaRows) add(s *results.ReplicaSample) {
	if s.Time.After(rd.last) {
		rd.last = s.Time
	}
	p := rd.parts[s.Partition]
	if p == nil {
		p = &replicaSeries{leo: map[int32]*leoSeries{}}
		rd.parts[s.Partition] = p
	}
	if !s.IsState() {
		_, seen := rd.failed[s.Broker]
		switch {
		case s.Err == "":
			if s.Time.After(rd.answered[s.Broker]) {
				rd.answered[s.Broker] = s.Time
			}
			if !seen && s.Time.After(rd.answeredBefore[s.Broker]) {
				rd.answeredBefore[s.Broker] = s.Time
			}
		case !seen && s.Time.After(rd.F):
			rd.failed[s.Broker] = *s
		}
	}
	switch {
	case s.Err != "":
	case s.IsState():
		p.addState(s, rd.F)
	default:
		if (s.LEO >= 0 || s.HW >= 0) && !p.seen {
			p.seen = true
			rd.keepFull(s.Partition, p)
		}
		if s.LEO >= 0 {
			p.addLEO(ReplicaOffset{s.Broker, s.LEO, s.Time}, rd.F)
		}
		if s.HW >= 0 {
			p.hw = append(p.hw, ReplicaOffset{s.Broker, s.HW, s.Time})
		}
	}
}

// keepFull keeps every LEO answer of partition id, p, if it is among the
// Condense of lowest number, thinning the one it displaces.
func (rd *replicaRows) keepFull(id int32, p *replicaSeries) {
	if len(rd.full) < Condense {
		rd.full = append(rd.full, id)
		p.full = true
		return
	}
	hi := slices.Max(rd.full)
	if id > hi {
		return
	}
	rd.full[slices.Index(rd.full, hi)] = id
	p.full = true
	rd.parts[hi].thin()
}

// replicaSeries is what SummarizeReplicas keeps of one partition's rows.
type replicaSeries struct {
	leo    map[int32]*leoSeries
	hw     []ReplicaOffset
	states []stateRun
	// seen is set at the partition's first offset; full when every LEO
	// answer is kept (keepFull).
	seen, full bool
}

// leoSeries is one replica's LEO answers. A replica's answers come from
// one loop of the sampler, so in time order. Of a partition not drawn
// only the answers where the LEO changed are kept, and the latest at or
// before the fault: all longestStop and offsetAt read, at 2,000 partitions
// a tenth of the answers or less.
type leoSeries struct {
	points  []ReplicaOffset
	atFault ReplicaOffset
	hasAt   bool // atFault was answered
}

func (p *replicaSeries) addLEO(x ReplicaOffset, F time.Time) {
	ls := p.leo[x.Broker]
	if ls == nil {
		ls = &leoSeries{}
		p.leo[x.Broker] = ls
	}
	if !x.Time.After(F) && (!ls.hasAt || !x.Time.Before(ls.atFault.Time)) {
		ls.atFault, ls.hasAt = x, true
	}
	if n := len(ls.points); p.full || n == 0 || ls.points[n-1].Offset != x.Offset {
		ls.points = append(ls.points, x)
	}
}

// thin drops the answers of a partition no longer drawn that repeat the
// answer before them, as addLEO does for one never drawn.
func (p *replicaSeries) thin() {
	p.full = false
	for _, ls := range p.leo {
		kept := ls.points[:0]
		for i, x := range ls.points {
			if i == 0 || x.Offset != ls.points[i-1].Offset {
				kept = append(kept, x)
			}
		}
		ls.points = slices.Clip(kept)
	}
}

// offsetAt is the replica's LEO at t: its latest answer at or before t.
func (ls *leoSeries) offsetAt(t time.Time) (ReplicaOffset, bool) {
	if ls == nil {
		return ReplicaOffset{}, false
	}
	return atOrBefore(byTime(ls.points), t)
}

// stateRun is a run of state answers alike (sameState), on one side of
// the fault: its first answer, the time of its last, and how many.
type stateRun struct {
	StateChange
	last    time.Time
	answers int
}

func (p *replicaSeries) addState(s *results.ReplicaSample, F time.Time) {
	st := StateChange{Time: s.Time, Leader: s.Leader, LeaderEpoch: s.LeaderEpoch,
		ISR: s.ISR, ELR: s.ELR, LastKnownELR: s.LastKnownELR}
	if n := len(p.states); n > 0 {
		r := &p.states[n-1]
		if sameState(r.StateChange, st) && r.Time.After(F) == s.Time.After(F) && !s.Time.Before(r.last) {
			r.last = s.Time
			r.answers++
			return
		}
	}
	st.ISR, st.ELR, st.LastKnownELR = slices.Clone(s.ISR), slices.Clone(s.ELR), slices.Clone(s.LastKnownELR)
	p.states = append(p.states, stateRun{StateChange: st, last: s.Time, answers: 1})
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func byTime(xs []ReplicaOffset) []ReplicaOffset {
	slices.SortStableFunc(xs, func(a, b ReplicaOffset) int { return a.Time.Compare(b.Time) })
	return xs
}

func atOrBefore(xs []ReplicaOffset, t time.Time) (ReplicaOffset, bool) {
	var out ReplicaOffset
	ok := false
	for _, x := range xs {
		if x.Time.After(t) {
			break
		}
		out, ok = x, true
	}
	return out, ok
}

// longestStop finds, in samples sorted by time, the longest time an offset
// held still that was in progress at some moment of [from, to]: from the
// first sample showing the offset to the first showing more. A stop never
// ended runs to last, the end of the sampling.
func longestStop(xs []ReplicaOffset, from, to, last time.Time) *Stop {
	var best *Stop
	var bestLen time.Duration
	consider := func(st Stop, until time.Time) {
		if !until.After(from) || st.Stopped.After(to) {
			return
		}
		if l := until.Sub(st.Stopped); l >= minStop && l > bestLen {
			c := st
			best, bestLen = &c, l
		}
	}
	var cur *Stop
	for _, x := range xs {
		switch {
		case cur == nil:
			cur = &Stop{Offset: x.Offset, Stopped: x.Time}
		case x.Offset > cur.Offset:
			done := *cur
			done.Moved = x.Time
			consider(done, x.Time)
			cur = &Stop{Offset: x.Offset, Stopped: x.Time}
		}
	}
	if cur != nil && len(xs) > 0 {
		consider(*cur, last)
	}
	return best
}

func sameState(a, b StateChange) bool {
	return a.Leader == b.Leader && a.LeaderEpoch == b.LeaderEpoch && slices.Equal(a.ISR, b.ISR) &&
		slices.Equal(a.ELR, b.ELR) && slices.Equal(a.LastKnownELR, b.LastKnownELR)
}
