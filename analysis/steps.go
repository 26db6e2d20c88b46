package analysis

import (
	"fmt"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// The steps of a fault of several steps (results.FaultKind.MultiStep). The
// rest of the report reads such a fault as its first step — the gaps at
// the fault, the stalls in phases — which says nothing of a rolling
// restart's second and third broker. The step view reads every stall of
// the trial and puts each after the step it followed.

// StepView is a fault of several steps, step by step: each step meta.json
// records and, per partition, the longest ack and receive stall that began
// in the step's window; over the whole fault, each partition's stalled time
// and its longest stall with the step it followed.
//
// A stall is a gap longer than Bound, the bound the run judged its
// baseline by (verdict.StallBound). A step's window runs from its time less
// Bound to the next step's time less Bound, the last step's to the end of
// the probing: a partition steady before a step acked at most a Bound
// before it, so the stall the step causes begins in its window. A stall in
// progress when the first window opens is the first step's; one over
// before it is no part of the fault. A step kbf only saw (every ISR full,
// a new leader of the quorum) opens no window: its stalls are the
// previous step's.
type StepView struct {
	Bound      time.Duration
	Steps      []StepWindow
	Partitions []PartitionSteps
	// Stops counts the graceful stops; Escalated those of them that
	// outlived their grace period and were SIGKILLed.
	Stops     int
	Escalated int
}

// StepWindow is one step, as meta.json records it, and where it falls.
type StepWindow struct {
	// N numbers the step from 1, in meta.json's order.
	N int
	results.Step
	// From is the step's time: when kbf asked for it (Sent), nothing it
	// caused can come earlier; for a step kbf only saw, when it saw it
	// (At). Since is From after the first step's.
	From  time.Time
	Since time.Duration
	// Observed is set for a step kbf saw rather than took: it opens no
	// window.
	Observed bool
}

// PartitionSteps is one partition through a fault of several steps.
type PartitionSteps struct {
	Partition int32
	// Steps are the longest stalls that began in each step's window, one
	// per StepView.Steps, in the same order; empty for a step with none
	// (and for an observed step).
	Steps []StepStalls
	// Stalled is the sum of the partition's ack stalls through the fault,
	// Stalls their number; Open says the last had not ended when the
	// probe stopped, so Stalled is a lower bound.
	Stalled time.Duration
	Stalls  int
	Open    bool
	// Longest is the longest ack stall, and LongestStep the N of the step
	// it followed; nil and 0 without a stall.
	Longest     *gaps.Gap
	LongestStep int
}

// StepStalls are the longest ack and receive stall that began in one
// step's window; nil where none did.
type StepStalls struct {
	Ack     *gaps.Gap
	Receive *gaps.Gap
}

// multiStep reports whether m is a fault of several steps with its steps
// recorded.
func multiStep(m *results.Meta) bool {
	return m != nil && m.Fault != nil && m.Fault.Kind.MultiStep() && len(m.Steps) > 0
}

// observed reports whether a step is one kbf saw rather than took.
func observed(a results.StepAction) bool {
	return a == results.StepISRFull || a == results.StepQuorumLeader
}

// stepView puts the stalls long found after the steps m records.
func stepView(m *results.Meta, long *gaps.Longer) *StepView {
	v := &StepView{Bound: long.Bound}
	first := stepTime(m.Steps[0])
	for i, s := range m.Steps {
		w := StepWindow{N: i + 1, Step: s, From: stepTime(s), Observed: observed(s.Action)}
		w.Since = w.From.Sub(first)
		if s.Action == results.StepStop {
			v.Stops++
			if s.Escalated {
				v.Escalated++
			}
		}
		v.Steps = append(v.Steps, w)
	}
	for _, lp := range long.Partitions {
		ps := PartitionSteps{Partition: lp.Partition, Steps: make([]StepStalls, len(v.Steps))}
		for _, g := range lp.Ack {
			i, ok := v.stepOf(g)
			if !ok {
				continue
			}
			ps.Stalls++
			ps.Stalled += g.Duration()
			ps.Open = ps.Open || g.Open
			if ps.Longest == nil || g.Duration() > ps.Longest.Duration() {
				ps.Longest, ps.LongestStep = &g, v.Steps[i].N
			}
			keepLonger(&ps.Steps[i].Ack, g)
		}
		for _, g := range lp.Receive {
			if i, ok := v.stepOf(g); ok {
				keepLonger(&ps.Steps[i].Receive, g)
			}
		}
		v.Partitions = append(v.Partitions, ps)
	}
	return v
}

// stepTime is a step's time, as StepWindow.From says.
func stepTime(s results.Step) time.Time {
	if !s.Sent.IsZero() {
		return s.Sent
	}
	return s.At
}

// stepOf returns the index in v.Steps of the step whose window the stall
// g began in, false for a stall over before the first window opened.
func (v *StepView) stepOf(g gaps.Gap) (int, bool) {
	found := -1
	for i, s := range v.Steps {
		if s.Observed {
			continue
		}
		opens := s.From.Add(-v.Bound)
		if found < 0 {
			if !g.End.After(opens) {
				return 0, false
			}
			found = i
			continue
		}
		if opens.After(g.Start) {
			break
		}
		found = i
	}
	return found, found >= 0
}

// keepLonger keeps in *dst the longer of *dst and g, the earlier of two as
// long.
func keepLonger(dst **gaps.Gap, g gaps.Gap) {
	if *dst == nil || g.Duration() > (*dst).Duration() {
		*dst = &g
	}
}

// What names a step: its action and node.
func (w *StepWindow) What() string {
	s := string(w.Action)
	if w.Node != "" {
		s += " " + w.Node
	}
	if w.NodeID != 0 {
		s += fmt.Sprintf(" (node %d)", w.NodeID)
	}
	return s
}
