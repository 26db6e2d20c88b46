package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"

	"github.com/kbf-project/kbf/benchfile"
)

// cells are one row's printed columns.
func (r Row) cells(need int) (name, old, new, delta, test string) {
	name = shortName(r.Name) + " " + metricName(r.Unit)
	old, new = summary(r.Old, r.Unit), summary(r.New, r.Unit)
	delta, test = "", ""
	if r.Cmp != nil {
		test = fmt.Sprintf("p=%.3f adj=%.3f n=%d+%d", r.P, r.PAdj, r.NOld, r.NNew)
		switch {
		case !(r.PAdj < r.Cmp.Alpha) || !enough(r.NOld, r.NNew, need):
			// No difference shown where the gate cannot call one: a
			// change significant alone among many metrics, or on too
			// few trials, reads as one.
			delta = "~"
		case math.IsNaN(r.Delta):
			delta = "?"
		default:
			delta = fmt.Sprintf("%+.1f%%", 100*r.Delta)
		}
	}
	return
}

// shortName is a benchmark's name without what every kbf benchmark's
// has: Failover/scenario=.
func shortName(name string) string {
	return strings.TrimPrefix(strings.TrimPrefix(name, benchfile.BenchName+"/"), "scenario=")
}

func metricName(unit string) string {
	if m, ok := benchfile.MetricByName(unit); ok {
		return m.Name
	}
	return unit
}

// summary prints a median ± its interval as benchstat does, with the unit.
func summary(s *benchmath.Summary, unit string) string {
	if s == nil {
		return "-"
	}
	if m, ok := benchfile.MetricByName(unit); ok && !m.Seconds {
		return strconv.FormatFloat(s.Center, 'f', 2, 64) + " ± " + s.PctRangeString()
	}
	// A few milliseconds (a follower's first ack) would print as 0.00 s
	// beside a change the floor explains in ms: print them in ms.
	if s.Center != 0 && s.Center < 0.005 {
		return strconv.FormatFloat(s.Center*1000, 'f', 1, 64) + " ms ± " + s.PctRangeString()
	}
	return strconv.FormatFloat(s.Center, 'f', 2, 64) + " s ± " + s.PctRangeString()
}

// verdict is the row's verdict column: the answer, its evidence, and the
// note; the answer between marks (** for Markdown) unless it is Same.
func (r Row) verdict(mark string) string {
	if !r.Compared() && r.Verdict == Same {
		return r.Note // one-sided, allowed
	}
	v := r.Verdict.String()
	if !r.Gated {
		v = "not gated, " + v
	} else if r.Verdict != Same {
		v = mark + v + mark
	}
	if r.Why != "" {
		v += ": " + r.Why
	}
	if r.Note != "" {
		v += " (" + r.Note + ")"
	}
	return v
}

// WriteText writes the comparison as a table, then the verdict in one line.
func WriteText(w io.Writer, res *Result) error {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\told\tnew\tvs old\t\tverdict")
	for _, r := range res.Rows {
		name, old, new, delta, test := r.cells(res.Need)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, old, new, delta, test, r.verdict(""))
	}
	tw.Flush()
	b.WriteString("\n")
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	fmt.Fprintf(&b, "%s\n", res.Summary())
	_, err := w.Write(b.Bytes())
	return err
}

// WriteMarkdown writes the comparison for a CI job's summary page.
func WriteMarkdown(w io.Writer, res *Result) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# kbf compare\n\n**%s**\n\n", res.Summary())
	fmt.Fprintf(&b, "Gate: a median %.0f %% worse at p < %g, and worse by more than %s, is a regression (better, an improvement); p is the smaller of the Mann–Whitney U and Kolmogorov–Smirnov tests' p, doubled; adj is p adjusted for the metrics tested with it (Holm: the gated ones together, the rest apart), which a difference needs under %g; same is a p above the threshold that a change of that size stays under in %.0f %% of comparisons; neither is given on fewer than %d valid trials a side; medians ± 95 %% interval.\n\n", 100*res.Gate.MaxRegression, res.Gate.Alpha, res.minChange(), res.Gate.Alpha, 100*(1-SameMiss), res.Need)
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "Warning: %s\n\n", w)
	}
	b.WriteString("| benchmark | old | new | vs old | test | verdict |\n|---|---:|---:|---:|---|---|\n")
	for _, r := range res.Rows {
		name, old, new, delta, test := r.cells(res.Need)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", name, old, new, delta, test, r.verdict("**"))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// minChange says the floor the gate applied, for the Markdown's header.
func (res *Result) minChange() string {
	if res.Gate.MinChange != AutoMinChange {
		return res.Gate.MinChange.String()
	}
	return fmt.Sprintf("the probe interval (%v where none is recorded)", DefaultMinChange)
}

// Compared counts the rows both sides had.
func (res *Result) Compared() int {
	n := 0
	for _, r := range res.Rows {
		if r.Compared() {
			n++
		}
	}
	return n
}

// Summary is the verdict in one line.
func (res *Result) Summary() string {
	// count holds the rows that make the verdict, a one-sided row allowed
	// apart (its Same is no evidence).
	count := map[Verdict]int{}
	for _, r := range res.Rows {
		if (r.Gated || r.Verdict == Lost) && (r.Compared() || r.Verdict != Same) {
			count[r.Verdict]++
		}
	}
	compared := res.Compared()
	switch res.Verdict {
	case Lost:
		return fmt.Sprintf("verdict: acknowledged records lost under acks=all (%d benchmarks)", count[Lost])
	case Regression:
		return fmt.Sprintf("verdict: different: regression (%d metrics regressed%s)", count[Regression], res.gatedOn())
	case Missing:
		return fmt.Sprintf("verdict: undecided: %d metrics on one side only (%s); compare like with like, or pass --allow-missing", count[Missing], res.oneSided())
	case Undecided:
		return fmt.Sprintf("verdict: undecided (%d metrics neither different nor same%s): run more trials%s%s", count[Undecided], res.gatedOn(), res.tooFew(), res.allowed(compared))
	case Improvement:
		return fmt.Sprintf("verdict: different: improvement (%d metrics improved, %d same%s%s)", count[Improvement], count[Same], res.gatedOn(), res.allowed(compared))
	}
	if len(res.Gate.Metrics) > 0 || !res.Gate.All {
		return fmt.Sprintf("verdict: same (%d metrics same%s%s)", count[Same], res.gatedOn(), res.allowed(compared))
	}
	return fmt.Sprintf("verdict: same (%d metrics compared%s)", compared, res.allowed(compared))
}

// gatedOn names the metrics the gate judged when it was told which, or
// "".
func (res *Result) gatedOn() string {
	if res.Gate.All && len(res.Gate.Metrics) == 0 {
		return ""
	}
	return fmt.Sprintf("; gated on %s, the other %d rows figures", strings.Join(res.gatedNames(), ", "), len(res.Rows)-res.gated())
}

// gatedNames names what the gate judged: --metric's selectors, or the
// headline stalls the rows gated by default are.
func (res *Result) gatedNames() []string {
	var names []string
	if len(res.Gate.Metrics) > 0 {
		for _, m := range res.Gate.Metrics {
			names = append(names, m.String())
		}
		return names
	}
	if res.Gate.All {
		return nil
	}
	for _, m := range []benchfile.Metric{HeadlineCrash, HeadlineStop} {
		if slices.ContainsFunc(res.Rows, func(r Row) bool { return r.Gated && r.Unit == m.Unit }) {
			names = append(names, m.Name)
		}
	}
	return names
}

// gated counts the rows whose verdict counts.
func (res *Result) gated() int {
	n := 0
	for _, r := range res.Rows {
		if r.Gated {
			n++
		}
	}
	return n
}

// allowed says what one side only had, allowed, or "".
func (res *Result) allowed(compared int) string {
	if n := len(res.Rows) - compared; n > 0 {
		return fmt.Sprintf("; %d on one side only, allowed: %s", n, res.oneSided())
	}
	return ""
}

// tooFew says how many trials a side give an interval, where a gated row
// had fewer, or "". A row not gated does not decide the answer: its want
// of trials is not what the answer waits on.
func (res *Result) tooFew() string {
	short := false
	var old, new int // the most trials a row lacks, per side
	for _, r := range res.Rows {
		if r.Gated && r.Verdict == Undecided && !enough(r.NOld, r.NNew, res.Need) {
			short = true
			old, new = max(old, res.Need-r.NOld), max(new, res.Need-r.NNew)
		}
	}
	if !short {
		return ""
	}
	var more []string
	if old > 0 {
		more = append(more, fmt.Sprintf("%d more old", old))
	}
	if new > 0 {
		more = append(more, fmt.Sprintf("%d more new", new))
	}
	return fmt.Sprintf(", at least %d valid trials a side (%s)", res.Need, strings.Join(more, ", "))
}

// oneSided lists what one side only has, a benchmark whole where all its
// metrics are, the first few.
func (res *Result) oneSided() string {
	const most = 4
	type group struct {
		name, side string
		units      []string
		all        bool
	}
	var groups []*group
	byName := map[string]*group{}
	for _, r := range res.Rows {
		side := "new"
		if r.New == nil {
			side = "old"
		}
		g := byName[r.Name]
		if g == nil {
			g = &group{name: r.Name, side: side, all: true}
			byName[r.Name] = g
			groups = append(groups, g)
		}
		if r.Compared() || g.side != side {
			g.all = false
		}
		if !r.Compared() {
			g.units = append(g.units, metricName(r.Unit)+" only in "+side)
		}
	}
	var items []string
	for _, g := range groups {
		switch {
		case len(g.units) == 0:
		case g.all:
			items = append(items, shortName(g.name)+" only in "+g.side)
		default:
			for _, u := range g.units {
				items = append(items, shortName(g.name)+" "+u)
			}
		}
	}
	if len(items) > most {
		items = append(items[:most], fmt.Sprintf("and %d more", len(items)-most))
	}
	return strings.Join(items, "; ")
}

// jsonSummary is a median and its 95 % interval in the metric's unit
// (seconds, or records), with the trials it is of; an interval that fewer
// trials leave unbounded is absent.
type jsonSummary struct {
	Median float64  `json:"median"`
	Lo     *float64 `json:"lo,omitempty"`
	Hi     *float64 `json:"hi,omitempty"`
	N      int      `json:"n"`
}

// jsonRow is one row of the comparison as JSON. A p that was not
// computed (a row on one side only) is absent.
type jsonRow struct {
	Benchmark string       `json:"benchmark"`
	Metric    string       `json:"metric"`
	Unit      string       `json:"unit"`
	Old       *jsonSummary `json:"old,omitempty"`
	New       *jsonSummary `json:"new,omitempty"`
	Delta     *float64     `json:"delta,omitempty"`
	PU        *float64     `json:"p_u,omitempty"`
	PKS       *float64     `json:"p_ks,omitempty"`
	P         *float64     `json:"p,omitempty"`
	PAdjusted *float64     `json:"p_adjusted,omitempty"`
	Family    int          `json:"family"`
	SameAbove *float64     `json:"same_above,omitempty"`
	Gated     bool         `json:"gated"`
	Verdict   string       `json:"verdict"`
	Why       string       `json:"why,omitempty"`
	Note      string       `json:"note,omitempty"`
}

// jsonResult is the comparison as JSON: the gate, every row, the verdict.
type jsonResult struct {
	// Answer is the gate's: same, different or undecided.
	Answer        string    `json:"answer"`
	Verdict       string    `json:"verdict"`
	Summary       string    `json:"summary"`
	Alpha         float64   `json:"alpha"`
	MaxRegression float64   `json:"max_regression"`
	Correction    string    `json:"correction"`
	Need          int       `json:"need"`
	Gated         []string  `json:"gated_metrics,omitempty"`
	Rows          []jsonRow `json:"rows"`
	Warnings      []string  `json:"warnings,omitempty"`
}

// WriteJSON writes the comparison as one JSON document: per row both
// sides' medians and intervals, the tests' p, the gate's p and the p
// adjusted for its family, whether it is gated, and its verdict.
func WriteJSON(w io.Writer, res *Result) error {
	finite := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	side := func(s *benchmath.Summary, n int) *jsonSummary {
		if s == nil {
			return nil
		}
		return &jsonSummary{Median: s.Center, Lo: finite(s.Lo), Hi: finite(s.Hi), N: n}
	}
	out := jsonResult{Answer: res.Verdict.Answer(), Verdict: res.Verdict.String(), Summary: res.Summary(), Alpha: res.Gate.Alpha, MaxRegression: res.Gate.MaxRegression,
		Correction: "holm", Need: res.Need, Rows: []jsonRow{}, Warnings: res.Warnings}
	if res.Gate.perMetric {
		out.Correction = "none"
	}
	out.Gated = res.gatedNames()
	for _, r := range res.Rows {
		jr := jsonRow{Benchmark: shortName(r.Name), Metric: metricName(r.Unit), Unit: r.Unit, Old: side(r.Old, r.NOld), New: side(r.New, r.NNew),
			Delta: finite(r.Delta), PKS: finite(r.PKS), P: finite(r.P), PAdjusted: finite(r.PAdj), Family: r.Family,
			Gated: r.Gated, Verdict: r.Verdict.String(), Why: r.Why, Note: r.Note}
		if r.Cmp != nil {
			jr.PU = finite(r.Cmp.P)
		}
		if r.Compared() {
			jr.SameAbove = finite(r.SameAbove)
		}
		out.Rows = append(out.Rows, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
