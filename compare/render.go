package compare

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"

	"github.com/kbf-project/kbf/bench"
)

// cells are one row's printed columns.
func (r Row) cells() (name, old, new, delta, test string) {
	name = strings.TrimPrefix(r.Name, bench.BenchName+"/")
	name = strings.TrimPrefix(name, "scenario=") + " " + metricName(r.Unit)
	old, new = summary(r.Old, r.Unit), summary(r.New, r.Unit)
	delta, test = "", ""
	if r.Cmp != nil {
		test = r.Cmp.String()
		switch {
		case r.Cmp.P > r.Cmp.Alpha:
			delta = "~"
		case math.IsNaN(r.Delta):
			delta = "?"
		default:
			delta = fmt.Sprintf("%+.1f%%", 100*r.Delta)
		}
	}
	return
}

func metricName(unit string) string {
	if m, ok := bench.MetricByName(unit); ok {
		return m.Name
	}
	return unit
}

// summary prints a median ± its interval as benchstat does, with the unit.
func summary(s *benchmath.Summary, unit string) string {
	if s == nil {
		return "-"
	}
	u := " s"
	if m, ok := bench.MetricByName(unit); ok && !m.Seconds {
		u = ""
	}
	return strconv.FormatFloat(s.Center, 'f', 2, 64) + u + " ± " + s.PctRangeString()
}

// WriteText writes the comparison as a table, then the verdict in one line.
func WriteText(w io.Writer, res *Result) error {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\told\tnew\tvs old\t\tverdict")
	for _, r := range res.Rows {
		name, old, new, delta, test := r.cells()
		v := ""
		if r.Verdict != None {
			v = r.Verdict.String() + ": " + r.Why
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, old, new, delta, test, v)
	}
	tw.Flush()
	fmt.Fprintf(&b, "\n%s\n", res.Summary())
	_, err := w.Write(b.Bytes())
	return err
}

// WriteMarkdown writes the comparison for a CI job's summary page.
func WriteMarkdown(w io.Writer, res *Result) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# kbf compare\n\n**%s**\n\n", res.Summary())
	fmt.Fprintf(&b, "Gate: a median %.0f %% worse at p < %g is a regression; medians ± 95 %% interval.\n\n", 100*res.Gate.MaxRegression, res.Gate.Alpha)
	b.WriteString("| benchmark | old | new | vs old | test | verdict |\n|---|---:|---:|---:|---|---|\n")
	for _, r := range res.Rows {
		name, old, new, delta, test := r.cells()
		v := ""
		if r.Verdict != None {
			v = "**" + r.Verdict.String() + "**: " + r.Why
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", name, old, new, delta, test, v)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// Summary is the verdict in one line.
func (res *Result) Summary() string {
	count := map[Verdict]int{}
	for _, r := range res.Rows {
		count[r.Verdict]++
	}
	switch res.Verdict {
	case Lost:
		return fmt.Sprintf("verdict: acknowledged records lost under acks=all (%d benchmarks)", count[Lost])
	case Regression:
		return fmt.Sprintf("verdict: regression (%d metrics regressed)", count[Regression])
	case TooFew:
		return fmt.Sprintf("verdict: too few samples to conclude (%d metrics): run at least %d valid trials a side", count[TooFew], res.Need)
	}
	return fmt.Sprintf("verdict: no regression (%d metrics compared)", len(res.Rows))
}
