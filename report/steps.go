package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
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
	Bound      time.Duration    `json:"-"`
	Steps      []StepWindow     `json:"steps"`
	Partitions []PartitionSteps `json:"partitions"`
	// Stops counts the graceful stops; Escalated those of them that
	// outlived their grace period and were SIGKILLed.
	Stops     int `json:"graceful_stops"`
	Escalated int `json:"escalated"`
}

// StepWindow is one step, as meta.json records it, and where it falls.
type StepWindow struct {
	// N numbers the step from 1, in meta.json's order.
	N int `json:"step"`
	results.Step
	// From is the step's time: when kbf asked for it (Sent), nothing it
	// caused can come earlier; for a step kbf only saw, when it saw it
	// (At). Since is From after the first step's.
	From  time.Time     `json:"from"`
	Since time.Duration `json:"-"`
	// Observed is set for a step kbf saw rather than took: it opens no
	// window.
	Observed bool `json:"observed,omitempty"`
}

// PartitionSteps is one partition through a fault of several steps.
type PartitionSteps struct {
	Partition int32 `json:"partition"`
	// Steps are the longest stalls that began in each step's window, one
	// per StepView.Steps, in the same order; empty for a step with none
	// (and for an observed step).
	Steps []StepStalls `json:"steps"`
	// Stalled is the sum of the partition's ack stalls through the fault,
	// Stalls their number; Open says the last had not ended when the
	// probe stopped, so Stalled is a lower bound.
	Stalled time.Duration `json:"-"`
	Stalls  int           `json:"stalls"`
	Open    bool          `json:"open,omitempty"`
	// Longest is the longest ack stall, and LongestStep the N of the step
	// it followed; nil and 0 without a stall.
	Longest     *gaps.Gap `json:"longest,omitempty"`
	LongestStep int       `json:"longest_step,omitempty"`
}

// StepStalls are the longest ack and receive stall that began in one
// step's window; nil where none did.
type StepStalls struct {
	Ack     *gaps.Gap `json:"ack,omitempty"`
	Receive *gaps.Gap `json:"receive,omitempty"`
}

// MarshalJSON writes the view with its bound in seconds.
func (v StepView) MarshalJSON() ([]byte, error) {
	type plain StepView
	return json.Marshal(struct {
		BoundSeconds float64 `json:"stall_bound_seconds"`
		plain
	}{v.Bound.Seconds(), plain(v)})
}

// MarshalJSON writes the step with its time since the first in seconds.
func (w StepWindow) MarshalJSON() ([]byte, error) {
	type plain StepWindow
	return json.Marshal(struct {
		plain
		SinceSeconds float64 `json:"since_first_seconds"`
	}{plain(w), w.Since.Seconds()})
}

// MarshalJSON writes the partition with its stalled time in seconds.
func (p PartitionSteps) MarshalJSON() ([]byte, error) {
	type plain PartitionSteps
	return json.Marshal(struct {
		plain
		StalledSeconds float64 `json:"stalled_seconds"`
	}{plain(p), p.Stalled.Seconds()})
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

// what names a step: its action and node.
func (w *StepWindow) what() string {
	s := string(w.Action)
	if w.Node != "" {
		s += " " + w.Node
	}
	if w.NodeID != 0 {
		s += fmt.Sprintf(" (node %d)", w.NodeID)
	}
	return s
}

// writeSteps writes the step view: the steps with each partition's
// longest stalls in their windows, then the fault's stalls per partition.
func writeSteps(b *bytes.Buffer, v *StepView) {
	if v == nil {
		return
	}
	fmt.Fprintf(b, "\nsteps, from the first at %s; each partition's longest ack and receive gap over the stall bound %.2f s that began from one step to the next:\n",
		v.Steps[0].From.UTC().Format("15:04:05.000"), v.Bound.Seconds())
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	head := []string{"step", "since", "what"}
	for _, p := range v.Partitions {
		head = append(head, fmt.Sprintf("p%d ack", p.Partition), fmt.Sprintf("p%d receive", p.Partition))
	}
	fmt.Fprintln(tw, strings.Join(append(head, "note"), "\t"))
	for i := range v.Steps {
		s := &v.Steps[i]
		cells := []string{fmt.Sprint(s.N), fmt.Sprintf("%+.2f s", s.Since.Seconds()), s.what()}
		for _, p := range v.Partitions {
			if s.Observed {
				cells = append(cells, "", "")
				continue
			}
			cells = append(cells, stallCell(p.Steps[i].Ack), stallCell(p.Steps[i].Receive))
		}
		fmt.Fprintln(tw, strings.Join(append(cells, stepNote(s)), "\t"))
	}
	tw.Flush()
	fmt.Fprintf(b, "stalls through the fault, from the first step on (ack gaps over %.2f s):\n", v.Bound.Seconds())
	writeStepTotals(b, v)
}

// writeStepTotals writes one line per partition: its stalled time through
// the fault and its longest stall, after the step it followed; then, for
// graceful stops, whether any was SIGKILLed. The digest and the full
// report share it.
func writeStepTotals(b *bytes.Buffer, v *StepView) {
	for _, p := range v.Partitions {
		if p.Stalls == 0 {
			fmt.Fprintf(b, "p%d no stall\n", p.Partition)
			continue
		}
		s := &v.Steps[p.LongestStep-1]
		fmt.Fprintf(b, "p%d stalled %s in %d stall%s, the longest %s after step %d, %s at %+.2f s\n",
			p.Partition, gapCell(p.Stalled, p.Open), p.Stalls, plural(p.Stalls), stallCell(p.Longest), s.N, s.what(), s.Since.Seconds())
	}
	if v.Stops == 0 {
		return
	}
	fmt.Fprintf(b, "graceful stops %d: ", v.Stops)
	if v.Escalated == 0 {
		b.WriteString("none escalated to SIGKILL\n")
		return
	}
	var which []string
	for i := range v.Steps {
		if s := &v.Steps[i]; s.Action == results.StepStop && s.Escalated {
			which = append(which, fmt.Sprintf("step %d (%s)", s.N, s.Node))
		}
	}
	fmt.Fprintf(b, "%d ESCALATED to SIGKILL after the grace period: %s\n", v.Escalated, strings.Join(which, ", "))
}

// writeStepsDigest writes the step view at a glance: one line for the
// fault, one per partition.
func writeStepsDigest(b *bytes.Buffer, v *StepView) {
	if v == nil {
		return
	}
	last := v.Steps[len(v.Steps)-1]
	fmt.Fprintf(b, "%d steps, the last %.2f s after the first; stalls through the fault, from the first step on (ack gaps over %.2f s):\n",
		len(v.Steps), last.Since.Seconds(), v.Bound.Seconds())
	writeStepTotals(b, v)
}

// stallCell is a stall in the table: "-" for none.
func stallCell(g *gaps.Gap) string {
	if g == nil {
		return "-"
	}
	return gapCell(g.Duration(), g.Open)
}

func stepNote(s *StepWindow) string {
	n := s.Note
	if s.Escalated {
		n = strings.TrimSuffix("ESCALATED to SIGKILL after the grace period; "+n, "; ")
	}
	return n
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
