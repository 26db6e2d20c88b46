package report

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
	// draws as lines. Not in the JSON: replicas.csv holds them.
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
	type series struct {
		leo    map[int32][]ReplicaOffset
		hw     []ReplicaOffset
		states []StateChange
	}
	parts := map[int32]*series{}
	// last is the latest row's time: a replica whose answers stopped (timed
	// out, refused) stayed frozen at least until then, as far as kbf saw.
	var last time.Time
	// answered and failed are, by broker, its last answer and its first
	// error after the fault, for Silent.
	answered := map[int32]time.Time{}
	answeredBefore := map[int32]time.Time{}
	failed := map[int32]results.ReplicaSample{}
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
		if s.Time.After(last) {
			last = s.Time
		}
		p := parts[s.Partition]
		if p == nil {
			p = &series{leo: map[int32][]ReplicaOffset{}}
			parts[s.Partition] = p
		}
		if !s.IsState() {
			_, seen := failed[s.Broker]
			switch {
			case s.Err == "":
				if s.Time.After(answered[s.Broker]) {
					answered[s.Broker] = s.Time
				}
				if !seen && s.Time.After(answeredBefore[s.Broker]) {
					answeredBefore[s.Broker] = s.Time
				}
			case !seen && s.Time.After(F):
				failed[s.Broker] = s
			}
		}
		switch {
		case s.Err != "":
		case s.IsState():
			p.states = append(p.states, StateChange{Time: s.Time, Leader: s.Leader, LeaderEpoch: s.LeaderEpoch,
				ISR: slices.Clone(s.ISR), ELR: slices.Clone(s.ELR), LastKnownELR: slices.Clone(s.LastKnownELR)})
		default:
			if s.LEO >= 0 {
				p.leo[s.Broker] = append(p.leo[s.Broker], ReplicaOffset{s.Broker, s.LEO, s.Time})
			}
			if s.HW >= 0 {
				p.hw = append(p.hw, ReplicaOffset{s.Broker, s.HW, s.Time})
			}
		}
	}
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
			xs := byTime(p.leo[b])
			pr.LEOs = append(pr.LEOs, ReplicaSeries{Broker: b, Points: xs})
			if at, ok := atOrBefore(xs, F); ok {
				pr.AtFault = append(pr.AtFault, at)
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
		slices.SortStableFunc(states, func(a, b StateChange) int { return a.Time.Compare(b.Time) })
		leader := int32(-1)
		for _, st := range states {
			if !st.Time.After(F) {
				leader = st.Leader
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
				pr.Stale++
			default:
				pr.Changes = append(pr.Changes, st)
			}
		}
		pr.Leaderless = leaderless(pr.Changes)
		if leader >= 0 {
			for _, x := range hw {
				if x.Time.After(F) && x.Broker != leader {
					to := &TakeOver{Broker: x.Broker, Time: x.Time, LEO: -1}
					if l, ok := atOrBefore(byTime(p.leo[x.Broker]), x.Time); ok {
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
