package bench

import (
	"fmt"
	"path/filepath"
	"sort"

	"golang.org/x/perf/benchmath"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

// Env is configuration lines for bench.txt, in order: key, value.
type Env [][2]string

// Record is one trial of the benchmark, done.
type Record struct {
	Trial Trial
	Took  string
	// M is nil when the trial failed or could not be read; Reason says why.
	M      *Measurement
	Reason string
}

// Valid reports whether the record counts.
func (r Record) Valid() bool { return r.M != nil && r.M.Valid }

// Set is a benchmark's finished trials, which the writers render.
type Set struct {
	Env   Env
	Cores int
	// Shard is the slice of the plan this set is, and Plan the plan's
	// hash, the same for every shard: bench.txt opens with them when the
	// benchmark is cut in several, so kbf compare can tell its shards
	// whole, overlapping or missing.
	Shard Shard
	Plan  string
	// Records are in the order the trials finished.
	Records []Record
	// Gate is kbf bench --until-decided's answer, once given; GateNames
	// are the variants compared, A then B.
	Gate      *Decided
	GateNames [2]string
}

func (s *Set) add(t Trial, d Done, dir string) { s.addAnalysed(t, d, dir, nil) }

// addAnalysed adds a trial the runner has just analysed (tr), or, with tr
// nil, one measured from its directory.
func (s *Set) addAnalysed(t Trial, d Done, dir string, tr *analysis.Trial) {
	r := Record{Trial: t}
	measure := func() (*Measurement, error) {
		if tr != nil {
			return MeasureTrial(filepath.Join(dir, t.Dir()), tr), nil
		}
		return Measure(filepath.Join(dir, t.Dir()))
	}
	switch {
	case d.Error != "":
		r.Reason = "failed: " + d.Error
	default:
		m, err := measure()
		if err != nil {
			r.Reason = "unreadable: " + err.Error()
			break
		}
		r.M = m
		if !m.Valid {
			r.Reason = m.Reason
		}
	}
	r.Reason = results.MaskLine(r.Reason) // an error may quote a setting
	s.Records = append(s.Records, r)
}

// group is one variant's records.
type group struct {
	V       Variant
	Records []Record
}

// groups returns the records by variant in file order, each in rep order:
// the order the writers list them, whatever order they ran in.
func (s *Set) groups(variants []Variant) []group {
	by := map[string]*group{}
	var out []*group
	for _, v := range variants {
		g := &group{V: v}
		by[v.Dir()] = g
		out = append(out, g)
	}
	for _, r := range s.Records {
		g := by[r.Trial.Variant.Dir()]
		if g == nil {
			g = &group{V: r.Trial.Variant}
			by[r.Trial.Variant.Dir()] = g
			out = append(out, g)
		}
		g.Records = append(g.Records, r)
	}
	var res []group
	for _, g := range out {
		sort.SliceStable(g.Records, func(i, j int) bool { return g.Records[i].Trial.Rep < g.Records[j].Trial.Rep })
		if len(g.Records) > 0 {
			res = append(res, *g)
		}
	}
	return res
}

// variants are the variants the records come from, in plan order.
func (s *Set) variants() []Variant {
	seen := map[string]bool{}
	var vs []Variant
	recs := append([]Record(nil), s.Records...)
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Trial.Index < recs[j].Trial.Index })
	for _, r := range recs {
		if d := r.Trial.Variant.Dir(); !seen[d] {
			seen[d] = true
			vs = append(vs, r.Trial.Variant)
		}
	}
	return vs
}

// stat is one metric's sample over one variant's valid trials, one role.
type stat struct {
	Metric  Metric
	Values  []float64 // as measured, sorted
	Summary benchmath.Summary
}

// stats returns the metrics of role over g's valid trials, in Metrics order.
func (g group) stats(role string) []stat {
	var out []stat
	for _, m := range Metrics {
		var vals []float64
		for _, r := range g.Records {
			if !r.Valid() {
				continue
			}
			if v, ok := r.M.Roles[role][m.Unit]; ok {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			continue
		}
		smp := benchmath.NewSample(vals, &benchmath.DefaultThresholds)
		out = append(out, stat{Metric: m, Values: smp.Values, Summary: benchmath.AssumeNothing.Summary(smp, Confidence)})
	}
	return out
}

// valid counts g's valid trials.
func (g group) valid() int {
	n := 0
	for _, r := range g.Records {
		if r.Valid() {
			n++
		}
	}
	return n
}

// roles are the roles g's valid trials measured, leader first.
func (g group) roles() []string {
	var out []string
	for _, role := range []string{RoleLeader, RoleFollower} {
		for _, r := range g.Records {
			if r.Valid() && r.M.Roles[role] != nil {
				out = append(out, role)
				break
			}
		}
	}
	return out
}

func secs(v float64) string { return fmt.Sprintf("%.2f", v) }
