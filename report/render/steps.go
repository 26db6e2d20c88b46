package render

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// writeSteps writes the step view: the steps with each partition's
// longest stalls in their windows, then the fault's stalls per partition.
func writeSteps(b *bytes.Buffer, v *analysis.StepView) {
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
		cells := []string{fmt.Sprint(s.N), fmt.Sprintf("%+.2f s", s.Since.Seconds()), s.What()}
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
func writeStepTotals(b *bytes.Buffer, v *analysis.StepView) {
	for _, p := range v.Partitions {
		if p.Stalls == 0 {
			fmt.Fprintf(b, "p%d no stall\n", p.Partition)
			continue
		}
		s := &v.Steps[p.LongestStep-1]
		fmt.Fprintf(b, "p%d stalled %s in %d stall%s, the longest %s after step %d, %s at %+.2f s\n",
			p.Partition, gapCell(p.Stalled, p.Open), p.Stalls, plural(p.Stalls), stallCell(p.Longest), s.N, s.What(), s.Since.Seconds())
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
func writeStepsDigest(b *bytes.Buffer, v *analysis.StepView) {
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

func stepNote(s *analysis.StepWindow) string {
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
