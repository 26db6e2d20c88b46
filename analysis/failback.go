package analysis

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
	"github.com/kbf-project/kbf/verdict"
)

// A failback trial (kbf run --failback) brings the faulted broker back
// with the probe running. Its return makes a second stall, or a latency
// spike, that the fault's own analysis does not see: the broker catches up
// as a follower, every ISR takes it back, the preferred leader election
// gives it its leaderships again, and the producer must learn the new
// leader while the broker answers its first produce requests. The
// failback's view dates each of these from the nodes' lines and the
// probe's acks, per partition, and sets the ack latency of the minute
// after the election beside the baseline's.

// The failback's phases, per partition the returned broker leads again.
const (
	// PhaseCatchUp is the restart → the broker back in the partition's
	// ISR, as the leader's line shows it.
	PhaseCatchUp = "catch up"
	// PhaseElection is → the broker's own line taking the partition's
	// leadership back.
	PhaseElection = "election"
	// PhaseFirstAnswers is → the first ack the probe got from it as leader.
	PhaseFirstAnswers = "first answers"
)

// FailbackView is the failback as the probe and the nodes saw it;
// report.json's shape of it is its renderer's.
type FailbackView struct {
	Broker string
	NodeID int32
	// The steps meta.json records (results.Failback).
	Restarted time.Time
	ISRFull   time.Time
	Elected   time.Time
	Ended     time.Time
	// Partitions are the probed partitions, each with its stall in the
	// failback and, where the broker leads it again, its phases.
	Partitions []FailbackPartition
	// Baseline is the ack latency of the records sent and acked while the
	// baseline was steady, before the fault; After of those sent in the minute (Failback.After) after
	// the election.
	Baseline AckLatency
	After    AckLatency
	// Err is the failback's own error, as meta.json records it.
	Err string
}

// FailbackPartition is one partition's failback.
type FailbackPartition struct {
	Partition int32
	// Led is true when the returned broker is the partition's preferred
	// leader: the election gives it the leadership back.
	Led bool
	// Stall is the partition's longest ack gap that overlaps the
	// failback (restart → end of probing), from StallStart to StallEnd;
	// zero when it acked throughout.
	Stall      time.Duration
	StallStart time.Time
	StallEnd   time.Time
	// MaxAck is the longest ack latency of a record sent during the
	// failback.
	MaxAck time.Duration
	// Phases are a led partition's: catch up, election, first answers,
	// as far as the lines and the acks show them.
	Phases Phases
	// Note says what is missing from the phases.
	Note string
}

// AckLatency is the ack latency (sent → acked) of the records sent
// From–To.
type AckLatency struct {
	From time.Time
	To   time.Time
	Latency
}

// Ratio is l's p99 over base's; zero when either has no acks.
func (l AckLatency) Ratio(base AckLatency) float64 {
	if l.N == 0 || base.N == 0 || base.P99 <= 0 {
		return 0
	}
	return float64(l.P99) / float64(base.P99)
}

// failbackOf reads the failback of trial t from its probe CSV (a pass of
// its own: only failback trials pay for it) and the timeline tl; nil for a
// trial without one.
func failbackOf(ctx context.Context, t results.Trial, tl *timeline.Timeline, F time.Time) (*FailbackView, error) {
	m := t.Meta
	if m == nil || m.Failback == nil || m.Fault == nil || m.Failback.Restarted.IsZero() {
		return nil, nil
	}
	fb := m.Failback
	v := &FailbackView{Broker: m.Fault.Broker, NodeID: m.Fault.NodeID, Restarted: fb.Restarted, ISRFull: fb.ISRFull,
		Elected: fb.Elected, Ended: cmpTime(fb.Ended, m.Ended), Err: fb.Err}
	v.Baseline = AckLatency{From: baselineFrom(m), To: F}
	if !fb.Elected.IsZero() {
		v.After = AckLatency{From: fb.Elected, To: fb.Elected.Add(fb.After)}
	}
	acc := newFailbackAcc(v)
	if _, err := readProbe(ctx, t, acc.add); err != nil {
		return nil, fmt.Errorf("failback: %w", err)
	}
	v.Baseline.Latency = latencyOf(acc.base)
	v.After.Latency = latencyOf(acc.after)
	for _, p := range m.Probe.Partitions {
		v.Partitions = append(v.Partitions, acc.partition(m, tl, p))
	}
	return v, nil
}

// cmpTime is a, or b when a is zero.
func cmpTime(a, b time.Time) time.Time {
	if a.IsZero() {
		return b
	}
	return a
}

// baselineFrom is when the baseline's steady period began: Healthy less
// Period; the trial's start without one.
func baselineFrom(m *results.Meta) time.Time {
	if b := m.Baseline; b != nil && !b.Healthy.IsZero() {
		return b.Healthy.Add(-b.Period)
	}
	return m.Started
}

// failbackAcc gathers, in one pass over the probe CSV, each partition's
// acks and the latencies of the two windows.
type failbackAcc struct {
	v           *FailbackView
	acks        map[int32][]time.Time
	maxAck      map[int32]time.Duration
	base, after []time.Duration
}

func newFailbackAcc(v *FailbackView) *failbackAcc {
	return &failbackAcc{v: v, acks: map[int32][]time.Time{}, maxAck: map[int32]time.Duration{}}
}

func (a *failbackAcc) add(m *results.Message) {
	if m.Acked.IsZero() || m.Failed() {
		return
	}
	a.acks[m.Partition] = append(a.acks[m.Partition], m.Acked)
	lat := m.Acked.Sub(m.Sent)
	// The baseline's records were answered before the fault: one held
	// by the fault's stall is the fault's latency, not the baseline's.
	if in(m.Sent, a.v.Baseline.From, a.v.Baseline.To) && m.Acked.Before(a.v.Baseline.To) {
		a.base = append(a.base, lat)
	}
	if !a.v.After.From.IsZero() && in(m.Sent, a.v.After.From, a.v.After.To) {
		a.after = append(a.after, lat)
	}
	if in(m.Sent, a.v.Restarted, a.v.Ended) && lat > a.maxAck[m.Partition] {
		a.maxAck[m.Partition] = lat
	}
}

// in reports whether t is in [from, to).
func in(t, from, to time.Time) bool { return !t.Before(from) && t.Before(to) }

// partition is partition p's failback: its longest ack gap over the
// failback and, where the broker is its preferred leader, its phases.
func (a *failbackAcc) partition(m *results.Meta, tl *timeline.Timeline, p int32) FailbackPartition {
	fp := FailbackPartition{Partition: p, MaxAck: a.maxAck[p]}
	acks := a.acks[p]
	slices.SortFunc(acks, func(x, y time.Time) int { return x.Compare(y) })
	for i := 1; i < len(acks); i++ {
		s, e := acks[i-1], acks[i]
		if e.After(a.v.Restarted) && s.Before(a.v.Ended) && e.Sub(s) > fp.Stall {
			fp.Stall, fp.StallStart, fp.StallEnd = e.Sub(s), s, e
		}
	}
	if r := m.Probe.Replicas[p]; len(r) > 0 && r[0] == a.v.NodeID {
		fp.Led = true
		fp.Phases, fp.Note = a.phases(m.Probe.Topic, tl, p, acks)
	}
	return fp
}

// phases are a led partition's failback phases, from the restart: the
// ISR taking the broker back, the broker's own line leading the partition
// again, and the first ack after that line. A step the lines do not show
// ends the phases there, and the note says so.
func (a *failbackAcc) phases(topic string, tl *timeline.Timeline, p int32, acks []time.Time) (Phases, string) {
	if tl == nil {
		return nil, "no node logs: the failback is not split into phases"
	}
	prev := a.v.Restarted
	var ps Phases
	joined, ok := tl.ISRJoined(topic, p, a.v.NodeID, prev)
	if !ok {
		return ps, fmt.Sprintf("no line shows broker %d back in the ISR after its restart", a.v.NodeID)
	}
	ps = append(ps, toLine(PhaseCatchUp, prev, joined,
		fmt.Sprintf("broker %d fetched what it had missed as a follower until the leader took it back into the ISR", a.v.NodeID)))
	prev = joined.Time
	led, ok := tl.First(prev, timeline.ForPartition(topic, p), timeline.OfKind(timeline.KindLeaderStarted),
		func(e *timeline.Event) bool { return e.Broker == a.v.NodeID })
	if !ok {
		return ps, fmt.Sprintf("no line shows broker %d leading the partition again after it rejoined the ISR", a.v.NodeID)
	}
	ps = append(ps, toLine(PhaseElection, prev, led,
		fmt.Sprintf("the preferred leader election gave broker %d the partition back: it leads from this line on", a.v.NodeID)))
	prev = led.Time
	i, _ := slices.BinarySearchFunc(acks, prev, func(x, t time.Time) int { return x.Compare(t) })
	if i == len(acks) {
		return ps, fmt.Sprintf("no ack came after broker %d led the partition again", a.v.NodeID)
	}
	ps = append(ps, Phase{Name: PhaseFirstAnswers, Start: prev, End: acks[i], Duration: acks[i].Sub(prev),
		Explanation: Explanation{Why: fmt.Sprintf("the producer learnt that broker %d leads the partition again and it answered its first produce request", a.v.NodeID)}})
	return ps, ""
}

// toLine is the phase name from start to the line e, which it cites; why
// says what took its time.
func toLine(name string, start time.Time, e timeline.Event, why string) Phase {
	return Phase{Name: name, Start: start, End: e.Time, Duration: e.Time.Sub(start),
		Explanation: Explanation{Evidence: e.Summary(), Source: e.Source, Why: why}}
}

// confirmFailback makes v suspect when the failback is not what it
// measured: a step of it failed, or the nodes' lines do not show the
// broker taking a partition it prefers to lead back.
func confirmFailback(v *verdict.Verdict, fv *FailbackView) {
	if v == nil || fv == nil {
		return
	}
	if fv.Err != "" {
		v.Add(verdict.Suspect, verdict.EvidenceDamaged, "failback: "+fv.Err)
	}
	for _, p := range fv.Partitions {
		if p.Led && p.Note != "" {
			v.Add(verdict.Suspect, verdict.EvidenceDamaged, fmt.Sprintf("failback p%d: %s", p.Partition, p.Note))
		}
	}
}
