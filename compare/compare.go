// Package compare reads two sets of kbf bench results (bench.txt, through
// package benchfile) and compares them per benchmark and metric with
// golang.org/x/perf's benchmath — medians and 95 % intervals, as benchstat
// gives them — and a p in the manner of Chromium's Pinpoint: the smaller of
// the Mann–Whitney U test's (benchmath) and the Kolmogorov–Smirnov test's
// (gonum's statistic, an exact distribution here), doubled, then adjusted
// for the metrics tested with it (Holm's step-down over the gated ones).
// Each metric, and the comparison, gets one of three answers: different
// (a regression or an improvement: significant once adjusted, and beyond
// both the relative bound and the absolute floor of the probe's
// resolution), same (a p above the threshold that a change of the size
// sought stays under, falling as trials grow), or undecided (run more
// trials; Next says when a sequential benchmark may stop); neither answer
// on fewer than benchfile.NeedSamples valid trials a side. A benchmark or
// metric on one side only is listed; an absolute limit or a lost
// acknowledged record under acks=all fails outright.
package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"

	"github.com/kbf-project/kbf/benchfile"
)

// Key identifies one sample: a benchmark (Failover/scenario=…/role=…)
// and a unit.
type Key struct {
	Name, Unit string
}

// Side is one side of a comparison: the results of one or more files,
// merged.
type Side struct {
	Files   []string
	Samples map[Key][]float64
	// Acks is each benchmark's acks configuration line.
	Acks map[string]string
	// Interval is each benchmark's probe interval, the longest its files
	// recorded; absent where none was recorded.
	Interval map[string]time.Duration
	// Mixed are, per benchmark, the configuration keys whose values
	// differ between the results merged into it (shards of two kbf
	// versions, say): benchproc's residue, as benchstat warns of it.
	Mixed map[string][]string
	// order lists the keys as first seen.
	order []Key
}

// ErrNoResults is reported for a side with not a single result.
var ErrNoResults = errors.New("no benchmark results: want bench.txt files or kbf bench directories")

// Read reads and merges the results at paths: bench.txt files, or kbf
// bench directories (their bench.txt), as many as a CI matrix's shards.
// A value that cannot be a measurement is a located error
// (benchfile.ParseError); shards that do not make one whole benchmark
// (two benchmarks', one twice, one missing) are benchfile.ErrShards, in
// one line. Cancelling ctx ends the reading.
func Read(ctx context.Context, paths ...string) (*Side, error) {
	s := &Side{Samples: map[Key][]float64{}, Acks: map[string]string{}, Interval: map[string]time.Duration{}, Mixed: map[string][]string{}}
	// The residue is every configuration key but the name's and the
	// shard's: results of one benchmark whose residues differ were run
	// differently, while its shards differ in their shard line alone.
	var pp benchproc.ProjectionParser
	if _, err := pp.Parse(".fullname,"+benchfile.ConfigShard, nil); err != nil {
		return nil, err
	}
	residue := pp.Residue()
	residues := map[string]map[benchproc.Key]bool{}
	var names []string
	var origins []benchfile.Origin
	for _, p := range paths {
		files, err := benchfile.Files(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			o, err := benchfile.ReadOrigin(f)
			if err != nil {
				return nil, err
			}
			origins = append(origins, o)
			if err := s.readFile(ctx, f, func(r *benchfile.Result) {
				if residues[r.Name] == nil {
					residues[r.Name] = map[benchproc.Key]bool{}
					names = append(names, r.Name)
				}
				residues[r.Name][residue.Project(r.Bench)] = true
			}); err != nil {
				return nil, err
			}
		}
	}
	if err := benchfile.CheckShards(origins); err != nil {
		return nil, err
	}
	if len(s.order) == 0 {
		return nil, fmt.Errorf("%s: %w", strings.Join(paths, ", "), ErrNoResults)
	}
	for _, name := range names {
		if len(residues[name]) < 2 {
			continue
		}
		keys := make([]benchproc.Key, 0, len(residues[name]))
		for k := range residues[name] {
			keys = append(keys, k)
		}
		for _, f := range benchproc.NonSingularFields(keys) {
			s.Mixed[name] = append(s.Mixed[name], f.Name)
		}
		sort.Strings(s.Mixed[name])
	}
	return s, nil
}

func (s *Side) readFile(ctx context.Context, path string, seen func(*benchfile.Result)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s.Files = append(s.Files, path)
	r := benchfile.NewReader(f, path)
	for n := 0; r.Scan(); n++ {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("read %s: %w", path, err)
			}
		}
		res := r.Result()
		seen(res)
		if res.Acks != "" {
			s.Acks[res.Name] = res.Acks
		}
		if res.ProbeInterval > s.Interval[res.Name] {
			s.Interval[res.Name] = res.ProbeInterval
		}
		for _, v := range res.Values {
			k := Key{res.Name, v.Metric.Unit}
			if _, ok := s.Samples[k]; !ok {
				s.order = append(s.order, k)
			}
			s.Samples[k] = append(s.Samples[k], v.Value)
		}
	}
	return r.Err()
}

// Shared names a file both sides read, or "": a file compared with itself
// shows no change whatever it holds.
func Shared(old, new *Side) string {
	for _, a := range old.Files {
		sa, err := os.Stat(a)
		if err != nil {
			continue
		}
		for _, b := range new.Files {
			if sb, err := os.Stat(b); err == nil && os.SameFile(sa, sb) {
				return a
			}
		}
	}
	return ""
}

// Limit is an absolute bound on a metric's median in the new results.
type Limit struct {
	// Role is "" for every role.
	Role   string
	Metric benchfile.Metric
	Value  float64
}

// ParseLimit reads [ROLE:]METRIC=VALUE, e.g. ack_stall=12s or
// leader:ack_stall=12s; a count takes a plain number.
func ParseLimit(s string) (Limit, error) {
	lhs, val, ok := strings.Cut(s, "=")
	if !ok {
		return Limit{}, fmt.Errorf("limit %q: want [ROLE:]METRIC=VALUE, e.g. leader:ack_stall=12s", s)
	}
	sel, err := ParseSelector(lhs)
	if err != nil {
		return Limit{}, fmt.Errorf("limit %q: %w", s, err)
	}
	l := Limit{Role: sel.Role, Metric: sel.Metric}
	if l.Metric.Seconds {
		d, err := time.ParseDuration(val)
		if err != nil || d <= 0 {
			return Limit{}, fmt.Errorf("limit %q: %q is not a positive duration such as 12s", s, val)
		}
		l.Value = d.Seconds()
	} else {
		n, err := strconv.ParseFloat(val, 64)
		if err != nil || n < 0 {
			return Limit{}, fmt.Errorf("limit %q: %q is not a count", s, val)
		}
		l.Value = n
	}
	return l, nil
}

// Selector names a metric, of one role or of every role: what the gate
// judges when it is told to judge only some (Gate.Metrics).
type Selector struct {
	// Role is "" for every role.
	Role   string
	Metric benchfile.Metric
}

func (s Selector) String() string {
	if s.Role == "" {
		return s.Metric.Name
	}
	return s.Role + ":" + s.Metric.Name
}

// matches reports whether the row of benchmark name and unit is one s
// names.
func (s Selector) matches(k Key) bool {
	return s.Metric.Unit == k.Unit && (s.Role == "" || s.Role == roleOf(k.Name))
}

// ParseSelector reads [ROLE:]METRIC, e.g. from_heartbeat or
// leader:ack_stall.
func ParseSelector(s string) (Selector, error) {
	var sel Selector
	name := s
	if role, metric, ok := strings.Cut(s, ":"); ok {
		if role != benchfile.RoleLeader && role != benchfile.RoleFollower {
			return Selector{}, fmt.Errorf("role %q: want leader or follower", role)
		}
		sel.Role, name = role, metric
	}
	m, ok := benchfile.MetricByName(name)
	if !ok {
		var names []string
		for _, m := range benchfile.Metrics {
			names = append(names, m.Name)
		}
		return Selector{}, fmt.Errorf("no metric %q (want one of %s)", name, strings.Join(names, ", "))
	}
	sel.Metric = m
	return sel, nil
}

// ParsePercent reads a relative change: 10% as 0.1, or a plain fraction
// of at most 1 (0.1). A plain number above 1 is refused rather than read as
// hundreds of percent: "5" meant 5 %, most likely, and would switch the
// gate off.
func ParsePercent(s string) (float64, error) {
	num, pct := strings.CutSuffix(s, "%")
	v, err := strconv.ParseFloat(num, 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%q: want a percentage such as 10%%", s)
	case v < 0:
		return 0, fmt.Errorf("%q: want a percentage of at least 0, such as 10%%", s)
	case pct:
		return v / 100, nil
	case v > 1:
		return 0, fmt.Errorf("%q: a plain number is a fraction (0.05 is 5%%); write %s%% for %s percent", s, num, num)
	}
	return v, nil
}

// Gate is what fails a comparison.
type Gate struct {
	// MaxRegression is the smallest relative growth of a median worth
	// failing for (0.1 for 10 %).
	MaxRegression float64
	// Alpha is the U test's significance level.
	Alpha float64
	// MinChange is the smallest growth of a duration's median that can be
	// a regression, whatever its ratio: a change within the probe's
	// resolution is noise however large its ratio (3 ms against 4.5 ms is
	// +50 %). AutoMinChange takes each benchmark's recorded probe
	// interval, the longer of the two sides', else DefaultMinChange.
	MinChange time.Duration
	// AllowMissing lets a benchmark or metric present on one side only
	// pass; it is listed either way.
	AllowMissing bool
	Limits       []Limit
	// Metrics, when set, are the only metrics whose answers make the
	// verdict: the ones that answer the question asked (from_heartbeat
	// for a session timeout). Every other row is compared and printed,
	// not gated; a lost acknowledged record fails whatever is chosen.
	// Unset, and without All, the gate judges each benchmark's headline
	// stall (Headline).
	Metrics []Selector
	// All gates every metric (kbf compare --metric all) when Metrics is
	// unset.
	All bool
	// perMetric tests each row at Alpha alone, with no correction for
	// the family: the gate as it was, for the tests that show what the
	// correction prevents.
	perMetric bool
}

// AutoMinChange is Gate.MinChange's "the probe interval bench.txt
// recorded".
const AutoMinChange time.Duration = -1

// DefaultMinChange is the floor for a benchmark with no recorded probe
// interval: the probe's default interval.
const DefaultMinChange = 20 * time.Millisecond

// DefaultGate is kbf compare's defaults.
var DefaultGate = Gate{MaxRegression: 0.10, Alpha: 0.05, MinChange: AutoMinChange}

// Validate says what in g is out of range, or nil.
func (g Gate) Validate() error {
	switch {
	case !(g.Alpha > 0 && g.Alpha < 1):
		return fmt.Errorf("alpha %v: want a level between 0 and 1, e.g. 0.05", g.Alpha)
	case !(g.MaxRegression >= 0) || math.IsInf(g.MaxRegression, 0):
		return fmt.Errorf("max regression %v: want a finite fraction of at least 0", g.MaxRegression)
	case g.MinChange < 0 && g.MinChange != AutoMinChange:
		return fmt.Errorf("min change %v: want a duration of at least 0", g.MinChange)
	}
	return nil
}

// Verdict is the outcome of one row or of a whole comparison, worst last.
// The gate has three answers: Same, different (Improvement or
// Regression), and Undecided (Missing is undecided too: nothing to
// compare with); Lost fails whatever the rest says.
type Verdict int

// The verdicts, from best to worst; a comparison's is its worst row's.
const (
	Same        Verdict = iota // no change of the size sought, with the evidence for it
	Improvement                // different: significantly better, beyond the bounds
	Undecided                  // neither different nor same: run more trials
	Missing                    // on one side only: nothing to compare it with
	Regression                 // different: significantly worse beyond the bounds, or a limit passed
	Lost                       // acknowledged records lost under acks=all
)

func (v Verdict) String() string {
	return [...]string{"same", "improvement", "undecided", "missing", "regression", "lost"}[v]
}

// Answer is the verdict as one of the gate's three answers: same,
// different (an improvement, a regression, or a lost record, which fails
// outright) or undecided (Missing too: nothing to compare with).
func (v Verdict) Answer() string {
	switch v {
	case Same:
		return "same"
	case Improvement, Regression, Lost:
		return "different"
	}
	return "undecided"
}

// Row is one benchmark and metric compared.
type Row struct {
	Key
	// Old or New is nil when that side lacks the sample.
	Old, New *benchmath.Summary
	NOld     int
	NNew     int
	// Cmp is benchmath's comparison: the U test's p.
	Cmp *benchmath.Comparison
	// PKS is the Kolmogorov–Smirnov test's p, and P the gate's: the
	// smaller of the two doubled. Both are NaN when not compared.
	PKS, P float64
	// PAdj is P adjusted for the family of rows tested with it (Holm's
	// step-down): a difference needs PAdj under alpha, so that the chance
	// of any false difference among the gated metrics stays at alpha. The
	// gated rows are one family, the rows not gated another; a row whose
	// values are all one value on both sides (no p under 1 is possible)
	// is in none. NaN when not compared.
	PAdj float64
	// Family is how many rows PAdj was adjusted over; 0 in none.
	Family int
	// Sought is the smallest change worth finding, in the metric's unit:
	// --max-regression of the old median, at least --min-change (a
	// count's at least one). SameAbove is the p above which the row is
	// Same: what a change of Sought exceeds in at most SameMiss of
	// comparisons of these sample sizes (1: not at these sizes).
	Sought, SameAbove float64
	// Delta is new/old - 1 of the medians; NaN when not comparable.
	Delta float64
	// MinChange is the floor the row was judged with; zero for a count.
	MinChange time.Duration
	Verdict   Verdict
	// Why says what decided the verdict: the evidence.
	Why string
	// Gated is set when the row's verdict counts in the comparison's:
	// always, unless Gate.Metrics chose others.
	Gated bool
	// Note says why a row that looks worse passes: under the floor, or on
	// one side only and allowed.
	Note string
}

// Compared reports whether both sides had the row's sample.
func (r Row) Compared() bool { return r.Old != nil && r.New != nil }

// Result is a comparison.
type Result struct {
	Gate    Gate
	Rows    []Row
	Verdict Verdict
	// Need is the fewest valid trials a side for a 95 % interval.
	Need int
	// Warnings are one line each: results merged on one side that were
	// run differently.
	Warnings []string
}

// Compare compares new against old under gate g. Cancelling ctx ends it
// between two rows.
func Compare(ctx context.Context, old, new *Side, g Gate) (*Result, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	res := &Result{Gate: g, Need: benchfile.NeedSamples()}
	for _, side := range []struct {
		name string
		s    *Side
	}{{"old", old}, {"new", new}} {
		names := make([]string, 0, len(side.s.Mixed))
		for name := range side.s.Mixed {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %s merges results that differ in %s", side.name, shortName(name), strings.Join(side.s.Mixed[name], ", ")))
		}
	}
	thr := benchmath.DefaultThresholds
	thr.CompareAlpha = g.Alpha
	keys := append([]Key(nil), old.order...)
	for _, k := range new.order {
		if _, ok := old.Samples[k]; !ok {
			keys = append(keys, k)
		}
	}
	head := headlines(keys, old, new)
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
		row := Row{Key: k, Delta: math.NaN(), PKS: math.NaN(), P: math.NaN(), PAdj: math.NaN(), SameAbove: 1}
		var so, sn *benchmath.Sample
		var err error
		if so, row.Old, err = summarize(old.Samples[k], &thr); err != nil {
			return nil, fmt.Errorf("old %s %s: %w", k.Name, k.Unit, err)
		}
		if sn, row.New, err = summarize(new.Samples[k], &thr); err != nil {
			return nil, fmt.Errorf("new %s %s: %w", k.Name, k.Unit, err)
		}
		row.NOld, row.NNew = len(old.Samples[k]), len(new.Samples[k])
		if row.Compared() {
			c := benchmath.AssumeNothing.Compare(so, sn)
			if math.IsNaN(c.P) {
				// The U test's normal approximation (past 50 trials a
				// side) takes the root of a tie correction that rounds
				// below zero when nearly every value ties: no shift of
				// location for it to find. KS still judges.
				c.P = 1
			}
			row.Cmp = &c
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("compare: %w", err)
			}
			_, row.PKS = ksTest(old.Samples[k], new.Samples[k])
			row.P = combinedP(c.P, row.PKS)
			if row.Old.Center != 0 {
				row.Delta = row.New.Center/row.Old.Center - 1
			}
		}
		if m, ok := benchfile.MetricByName(k.Unit); ok && m.Seconds {
			row.MinChange = g.MinChange
			if row.MinChange == AutoMinChange {
				row.MinChange = max(old.Interval[k.Name], new.Interval[k.Name])
				if row.MinChange == 0 {
					row.MinChange = DefaultMinChange
				}
			}
		}
		if row.Compared() {
			row.Sought = g.MaxRegression * math.Abs(row.Old.Center)
			if row.MinChange > 0 {
				row.Sought = max(row.Sought, row.MinChange.Seconds())
			} else if m, ok := benchfile.MetricByName(k.Unit); ok && !m.Seconds {
				row.Sought = max(row.Sought, 1) // a whole record
			}
			row.SameAbove = sameAbove(row.NOld, row.NNew, row.Sought/spread(old.Samples[k], new.Samples[k]))
		}
		row.Gated = g.gates(k, head)
		res.Rows = append(res.Rows, row)
	}
	adjust(res.Rows, old, new, g.perMetric)
	for i := range res.Rows {
		row := &res.Rows[i]
		judge(row, new, g, res.Need)
		if row.Gated || row.Verdict == Lost {
			res.Verdict = max(res.Verdict, row.Verdict)
		}
	}
	for _, sel := range g.Metrics {
		if !slices.ContainsFunc(res.Rows, func(r Row) bool { return sel.matches(r.Key) }) {
			return nil, &NotMeasuredError{sel}
		}
	}
	return res, nil
}

// NotMeasuredError is Compare's error for a gated metric that no result
// has: a gate on it would pass on nothing.
type NotMeasuredError struct{ Selector Selector }

func (e *NotMeasuredError) Error() string {
	return e.Selector.String() + " is in neither side's results"
}

// gates reports whether the row k counts in the verdict; head is each
// benchmark's headline unit (headlines), what is gated by default.
func (g Gate) gates(k Key, head map[string]string) bool {
	switch {
	case len(g.Metrics) > 0:
		return slices.ContainsFunc(g.Metrics, func(s Selector) bool { return s.matches(k) })
	case g.All:
		return true
	}
	return head[k.Name] == k.Unit
}

// The headline stalls: what kbf compare and kbf bench --until-decided gate
// on by default, each benchmark on one (a lost acknowledged record fails
// whatever is gated). A crash's stall from the broker's
// last heartbeat leaves out the phase no change controls (where between
// two heartbeats the crash fell), so identical code answers "same" within
// the trials a gate runs; a benchmark without it (a graceful stop) is
// gated on its ack stall. The sub-phases (detect, elect, client, …) are
// reported beside it, not gated: their spread at tens of milliseconds is
// too wide for the 20 ms a gate seeks.
var (
	HeadlineCrash = metric("from_heartbeat")
	HeadlineStop  = metric("ack_stall")
)

func metric(name string) benchfile.Metric {
	m, ok := benchfile.MetricByName(name)
	if !ok {
		panic("compare: no metric " + name)
	}
	return m
}

// headlines is each benchmark's headline unit among keys: from_heartbeat
// where both sides measured it, else ack_stall (a side without it is no
// crash to compare a crash's stall with).
func headlines(keys []Key, old, new *Side) map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		_, inOld := old.Samples[Key{k.Name, HeadlineCrash.Unit}]
		_, inNew := new.Samples[Key{k.Name, HeadlineCrash.Unit}]
		out[k.Name] = HeadlineStop.Unit
		if inOld && inNew {
			out[k.Name] = HeadlineCrash.Unit
		}
	}
	return out
}

// summarize is benchmath's summary of vals, nil for none. Read refuses
// what is not a measurement; a Side built otherwise is checked here, as a
// NaN sends benchmath's interval search on without end.
func summarize(vals []float64, thr *benchmath.Thresholds) (*benchmath.Sample, *benchmath.Summary, error) {
	if len(vals) == 0 {
		return nil, nil, nil
	}
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("value %v: %w", v, benchfile.ErrNotMeasurement)
		}
	}
	smp := benchmath.NewSample(append([]float64(nil), vals...), thr)
	sum := benchmath.AssumeNothing.Summary(smp, benchfile.Confidence)
	return smp, &sum, nil
}

// judge sets the row's verdict, the worst that applies.
func judge(row *Row, new *Side, g Gate, need int) {
	set := func(v Verdict, why string) {
		if v > row.Verdict {
			row.Verdict, row.Why = v, why
		}
	}
	// evidence says why a row is Same, unless something worse was found.
	evidence := func(why string) {
		if row.Verdict == Same {
			row.Why = why
		}
	}
	m, known := benchfile.MetricByName(row.Unit)
	if known && !m.Seconds && m.Name == "lost_acked" && row.New != nil && new.Acks[row.Name] != "1" {
		var lost float64
		for _, v := range new.Samples[row.Key] {
			lost += v
		}
		if lost > 0 {
			set(Lost, fmt.Sprintf("%.0f acknowledged records lost under acks=all", lost))
			return
		}
	}
	if row.New != nil && known {
		role := roleOf(row.Name)
		for _, l := range g.Limits {
			if l.Metric.Unit == row.Unit && (l.Role == "" || l.Role == role) && row.New.Center > l.Value {
				set(Regression, fmt.Sprintf("median %s over the limit %s", fmtValue(m, row.New.Center), fmtValue(m, l.Value)))
			}
		}
	}
	if !row.Compared() {
		side := "old"
		if row.New != nil {
			side = "new"
		}
		if g.AllowMissing {
			row.Note = "only in " + side + " (allowed)"
		} else {
			set(Missing, "only in "+side)
		}
		return
	}
	// The one rule of sample sizes: neither answer, different or same,
	// is given on fewer than need valid trials a side. With 2 trials a
	// side against 15 the tests' p can fall under alpha, but neither
	// median's interval is known.
	if !enough(row.NOld, row.NNew, need) {
		set(Undecided, tooFew(row.NOld, row.NNew, need))
		return
	}
	// Every kbf metric is better=lower (the reader refuses a file that
	// says otherwise).
	worse := row.New.Center > row.Old.Center
	if row.P < g.Alpha {
		// Values are rounded to the millisecond: compare in whole
		// microseconds so that 20 ms is not 20.000000001 ms.
		change := time.Duration(math.Round((row.New.Center-row.Old.Center)*1e6)) * time.Microsecond
		word, v := "worse", Regression
		if !worse {
			word, v = "better", Improvement
		}
		switch {
		case change == 0:
			// The distributions differ (KS sees a change of spread) but
			// not their medians, which the gate judges.
			row.Note = "medians equal"
		case !math.IsNaN(row.Delta) && math.Abs(row.Delta) <= g.MaxRegression:
			row.Note = fmt.Sprintf("%+.1f%%, within --max-regression %.0f%%", 100*row.Delta, 100*g.MaxRegression)
		case row.MinChange > 0 && change.Abs() <= row.MinChange:
			sign := "+"
			if change < 0 {
				sign = "-"
			}
			row.Note = fmt.Sprintf("%s%v, within --min-change %v (the probe's resolution)", sign, change.Abs(), row.MinChange)
		case !(row.PAdj < g.Alpha):
			// Significant alone, not among the metrics tested with it:
			// of 24 metrics at 0.05 each, about one differs by chance.
			set(Undecided, fmt.Sprintf("p=%.3f < %g alone, but %.3f adjusted for the %d metrics tested with it (Holm); run more trials", row.P, g.Alpha, row.PAdj, row.Family))
			return
		case math.IsNaN(row.Delta):
			set(v, fmt.Sprintf("%s than 0, %s", word, row.significance(g.Alpha)))
			return
		default:
			set(v, fmt.Sprintf("%+.1f%% (more than %.0f%%), %s", 100*row.Delta, 100*g.MaxRegression, row.significance(g.Alpha)))
			return
		}
		// A significant change whose median is within the bounds is the
		// same only if the medians' intervals cannot reach the change
		// sought: a change just over the bound is often measured just
		// under it.
		reach, ok := row.within()
		if ok {
			evidence(fmt.Sprintf("p=%.3f < %g, but the 95%% intervals allow a change of at most %s, within %s", row.P, g.Alpha, fmtValue(m, reach), fmtValue(m, row.Sought)))
			return
		}
		set(Undecided, fmt.Sprintf("p=%.3f < %g, a change within the bounds, but the 95%% intervals allow up to %s, more than %s; run more trials", row.P, g.Alpha, fmtValue(m, reach), fmtValue(m, row.Sought)))
		return
	}
	sought := fmtValue(m, row.Sought)
	if !known {
		sought = strconv.FormatFloat(row.Sought, 'g', 3, 64)
	}
	// "Same" reads the row's own p: the correction guards against false
	// differences, and an adjusted p, larger, would pass a real change
	// more often than SameMiss.
	if row.P > row.SameAbove {
		evidence(fmt.Sprintf("p=%.2f > %.2f, which a change of %s stays under in %.0f%% of comparisons", row.P, row.SameAbove, sought, 100*(1-SameMiss)))
		return
	}
	// The p cannot say "same", but the medians' intervals can: both so
	// narrow that no change they allow reaches the one sought (a metric
	// that barely moves from trial to trial, whose tied values weaken the
	// tests), the same evidence that makes a significant change within
	// the bounds the same.
	if reach, ok := row.within(); ok {
		evidence(fmt.Sprintf("p=%.2f, but the 95%% intervals allow a change of at most %s, within %s", row.P, fmtValue(m, reach), sought))
		return
	}
	if row.SameAbove >= 1 {
		set(Undecided, fmt.Sprintf("p=%.2f: %d and %d trials cannot tell a change of %s from none; run more", row.P, row.NOld, row.NNew, sought))
		return
	}
	set(Undecided, fmt.Sprintf("p=%.2f between %g (different) and %.2f (same for a change of %s); run more trials", row.P, g.Alpha, row.SameAbove, sought))
}

// within is the largest change between the medians that their 95 %
// intervals allow, and whether it is no more than the change sought (an
// interval unknown, infinite, reaches any change). The row is compared.
func (r Row) within() (reach float64, ok bool) {
	reach = max(r.New.Hi-r.Old.Lo, r.Old.Hi-r.New.Lo)
	return reach, reach <= r.Sought
}

// significance says why a different row's p is significant: its own
// p, and the adjusted one when it was tested in a family of several.
func (r Row) significance(alpha float64) string {
	if r.Family > 1 {
		return fmt.Sprintf("p=%.3f, %.3f adjusted for %d metrics (Holm) < %g", r.P, r.PAdj, r.Family, alpha)
	}
	return fmt.Sprintf("p=%.3f < %g", r.P, alpha)
}

// enough reports whether nOld and nNew valid trials are enough for any
// answer: need a side, both sides alike, for "different" as for "same".
func enough(nOld, nNew, need int) bool {
	return nOld >= need && nNew >= need
}

// tooFew says that nOld and nNew valid trials are too few to decide
// anything, and how many more each side short of need must run.
func tooFew(nOld, nNew, need int) string {
	var more []string
	for _, side := range []struct {
		name string
		n    int
	}{{"old", nOld}, {"new", nNew}} {
		if side.n < need {
			more = append(more, fmt.Sprintf("%d more %s", need-side.n, side.name))
		}
	}
	return fmt.Sprintf("%d and %d valid trials: need %d a side for a 95 %% interval; run %s", nOld, nNew, need, strings.Join(more, " and "))
}

// roleOf reads the role=… part of a benchmark name.
func roleOf(name string) string {
	for _, part := range strings.Split(name, "/") {
		if r, ok := strings.CutPrefix(part, "role="); ok {
			return r
		}
	}
	return ""
}

func fmtValue(m benchfile.Metric, v float64) string {
	if m.Seconds {
		if v != 0 && math.Abs(v) < 0.1 {
			return strconv.FormatFloat(v*1000, 'f', 0, 64) + " ms"
		}
		return strconv.FormatFloat(v, 'f', 2, 64) + " s"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Select returns the part of s whose benchmarks rename accepts, each under
// the name rename gives it: the two variants of one kbf bench directory
// made the two sides of a comparison (kbf bench --until-decided), under
// one name so that their rows meet.
func (s *Side) Select(rename func(name string) (string, bool)) *Side {
	out := &Side{Files: s.Files, Samples: map[Key][]float64{}, Acks: map[string]string{}, Interval: map[string]time.Duration{}, Mixed: map[string][]string{}}
	for _, k := range s.order {
		name, ok := rename(k.Name)
		if !ok {
			continue
		}
		nk := Key{name, k.Unit}
		if _, ok := out.Samples[nk]; !ok {
			out.order = append(out.order, nk)
		}
		out.Samples[nk] = append(out.Samples[nk], s.Samples[k]...)
		if a, ok := s.Acks[k.Name]; ok {
			out.Acks[name] = a
		}
		out.Interval[name] = max(out.Interval[name], s.Interval[k.Name])
		if m, ok := s.Mixed[k.Name]; ok {
			out.Mixed[name] = m
		}
	}
	return out
}
