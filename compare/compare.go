// Package compare reads two sets of kbf bench results (bench.txt, in the Go
// benchmark format) and compares them per benchmark and metric with
// golang.org/x/perf's benchmath — medians, 95 % intervals and a
// Mann–Whitney U test, the statistics benchstat uses — then applies a gate:
// a regression is a change both larger than the smallest worth failing for
// and significant; too few samples is its own verdict, saying how many are
// needed; an absolute limit or a lost acknowledged record under acks=all
// fails outright.
package compare

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"github.com/kbf-project/kbf/bench"
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
	Acks  map[string]string
	Units benchfmt.UnitMetadataMap
	// order lists the keys as first seen.
	order []Key
}

// ErrNoResults is reported for a side with not a single result.
var ErrNoResults = errors.New("no benchmark results: want bench.txt files or kbf bench directories")

// Read reads and merges the results at paths: bench.txt files, or kbf
// bench directories (their bench.txt), as many as a CI matrix's shards.
func Read(paths ...string) (*Side, error) {
	s := &Side{Samples: map[Key][]float64{}, Acks: map[string]string{}, Units: benchfmt.UnitMetadataMap{}}
	for _, p := range paths {
		files, err := benchFiles(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if err := s.readFile(f); err != nil {
				return nil, err
			}
		}
	}
	if len(s.order) == 0 {
		return nil, fmt.Errorf("%s: %w", strings.Join(paths, ", "), ErrNoResults)
	}
	return s, nil
}

// benchFiles resolves a path to the bench.txt files it stands for: the file
// itself, a kbf bench directory's, or, for a directory without one, those
// of its subdirectories — where a CI job downloads its matrix's shards.
func benchFiles(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		return []string{p}, nil // readFile says what is wrong
	}
	own := filepath.Join(p, bench.TextFile)
	if _, err := os.Stat(own); err == nil {
		return []string{own}, nil
	}
	subs, err := filepath.Glob(filepath.Join(p, "*", bench.TextFile))
	if err != nil {
		return nil, err
	}
	if len(subs) == 0 {
		return []string{own}, nil
	}
	sort.Strings(subs)
	return subs, nil
}

func (s *Side) readFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such file (kbf bench writes %s into its --out directory)", path, bench.TextFile)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	s.Files = append(s.Files, path)
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return rec
		case *benchfmt.Result:
			name := string(rec.Name.Full())
			if a := rec.GetConfig("acks"); a != "" {
				s.Acks[name] = a
			}
			for _, v := range rec.Values {
				k := Key{name, v.Unit}
				if _, ok := s.Samples[k]; !ok {
					s.order = append(s.order, k)
				}
				s.Samples[k] = append(s.Samples[k], v.Value)
			}
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for k, u := range r.Units() {
		s.Units[k] = u
	}
	return nil
}

// Limit is an absolute bound on a metric's median in the new results.
type Limit struct {
	// Role is "" for every role.
	Role   string
	Metric bench.Metric
	Value  float64
}

// ParseLimit reads [ROLE:]METRIC=VALUE, e.g. ack_stall=12s or
// leader:ack_stall=12s; a count takes a plain number.
func ParseLimit(s string) (Limit, error) {
	lhs, val, ok := strings.Cut(s, "=")
	if !ok {
		return Limit{}, fmt.Errorf("limit %q: want [ROLE:]METRIC=VALUE, e.g. leader:ack_stall=12s", s)
	}
	var l Limit
	if role, metric, ok := strings.Cut(lhs, ":"); ok {
		if role != bench.RoleLeader && role != bench.RoleFollower {
			return Limit{}, fmt.Errorf("limit %q: role %q: want leader or follower", s, role)
		}
		l.Role, lhs = role, metric
	}
	m, ok := bench.MetricByName(lhs)
	if !ok {
		var names []string
		for _, m := range bench.Metrics {
			names = append(names, m.Name)
		}
		return Limit{}, fmt.Errorf("limit %q: no metric %q (want one of %s)", s, lhs, strings.Join(names, ", "))
	}
	l.Metric = m
	if m.Seconds {
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

// ParsePercent reads 10% (or 0.1) as 0.1.
func ParsePercent(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q: want a percentage such as 10%%", s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

// Gate is what fails a comparison.
type Gate struct {
	// MaxRegression is the smallest relative growth of a median worth
	// failing for (0.1 for 10 %).
	MaxRegression float64
	// Alpha is the U test's significance level.
	Alpha  float64
	Limits []Limit
}

// DefaultGate is kbf compare's defaults.
var DefaultGate = Gate{MaxRegression: 0.10, Alpha: 0.05}

// Verdict is the outcome of one row or of a whole comparison, worst last.
type Verdict int

// The verdicts, from best to worst; a comparison's is its worst row's.
const (
	None       Verdict = iota // nothing regressed
	TooFew                    // too few samples to conclude
	Regression                // a significant change beyond the bound, or a limit passed
	Lost                      // acknowledged records lost under acks=all
)

func (v Verdict) String() string {
	return [...]string{"none", "too few", "regression", "lost"}[v]
}

// Row is one benchmark and metric compared.
type Row struct {
	Key
	// Old or New is nil when that side lacks the sample.
	Old, New *benchmath.Summary
	NOld     int
	NNew     int
	Cmp      *benchmath.Comparison
	// Delta is new/old - 1 of the medians; NaN when not comparable.
	Delta   float64
	Verdict Verdict
	// Why says what decided the verdict, for every verdict but None.
	Why string
}

// Result is a comparison.
type Result struct {
	Gate    Gate
	Rows    []Row
	Verdict Verdict
	// Need is the fewest valid trials a side for a 95 % interval.
	Need int
}

// Compare compares new against old under gate g.
func Compare(old, new *Side, g Gate) *Result {
	res := &Result{Gate: g, Need: bench.NeedSamples()}
	thr := benchmath.DefaultThresholds
	thr.CompareAlpha = g.Alpha
	keys := append([]Key(nil), old.order...)
	for _, k := range new.order {
		if _, ok := old.Samples[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		row := Row{Key: k, Delta: math.NaN()}
		var so, sn *benchmath.Sample
		if v, ok := old.Samples[k]; ok {
			so = benchmath.NewSample(append([]float64(nil), v...), &thr)
			sum := benchmath.AssumeNothing.Summary(so, bench.Confidence)
			row.Old, row.NOld = &sum, len(v)
		}
		if v, ok := new.Samples[k]; ok {
			sn = benchmath.NewSample(append([]float64(nil), v...), &thr)
			sum := benchmath.AssumeNothing.Summary(sn, bench.Confidence)
			row.New, row.NNew = &sum, len(v)
		}
		if so != nil && sn != nil {
			c := benchmath.AssumeNothing.Compare(so, sn)
			row.Cmp = &c
			if row.Old.Center != 0 {
				row.Delta = row.New.Center/row.Old.Center - 1
			}
		}
		judge(&row, new, g, res.Need)
		res.Rows = append(res.Rows, row)
		res.Verdict = max(res.Verdict, row.Verdict)
	}
	return res
}

// judge sets the row's verdict, the worst that applies.
func judge(row *Row, new *Side, g Gate, need int) {
	set := func(v Verdict, why string) {
		if v > row.Verdict {
			row.Verdict, row.Why = v, why
		}
	}
	m, known := bench.MetricByName(row.Unit)
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
	if row.Old == nil || row.New == nil {
		return
	}
	lower := new.Units.GetBetter(row.Unit) <= 0 // kbf's units are all better=lower
	worse := row.New.Center > row.Old.Center
	if !lower {
		worse = row.New.Center < row.Old.Center
	}
	beyond := worse && (math.IsNaN(row.Delta) || math.Abs(row.Delta) > g.MaxRegression)
	if beyond && row.Cmp.P < g.Alpha {
		set(Regression, fmt.Sprintf("%+.1f%% (more than %.0f%%), p=%.3f < %g", 100*row.Delta, 100*g.MaxRegression, row.Cmp.P, g.Alpha))
		return
	}
	if row.NOld < need || row.NNew < need {
		set(TooFew, fmt.Sprintf("%d and %d valid trials: need %d a side for a 95 %% interval", row.NOld, row.NNew, need))
	}
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

func fmtValue(m bench.Metric, v float64) string {
	if m.Seconds {
		return strconv.FormatFloat(v, 'f', 2, 64) + " s"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
