package bench

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/kbf-project/kbf/benchfile"
	"github.com/kbf-project/kbf/results"
)

// Variant is a scenario with its sweep, if any, fixed at one value: what
// the trials of one sample share.
type Variant struct {
	Scenario Scenario
	// Key and Value are the sweep's setting and value; empty without one.
	Key, Value string
}

// Name is the variant in a benchmark name: scenario=NAME, then KEY=VALUE
// for a sweep.
func (v Variant) Name() string {
	n := "scenario=" + v.Scenario.Name
	if v.Key != "" {
		n += "/" + v.Key + "=" + v.Value
	}
	return n
}

// Dir is the variant's directory inside the benchmark's: the scenario's
// name, then the sweep's value. Characters that CI artifact stores refuse
// (':') are left out.
func (v Variant) Dir() string {
	if v.Key == "" {
		return v.Scenario.Name
	}
	return strings.NewReplacer(":", "_").Replace(v.Scenario.Name + "-" + v.Key + "=" + v.Value)
}

// Resolved returns the scenario the runner runs for this variant: the
// sweep's value added to its config or client settings.
func (v Variant) Resolved() Scenario {
	s := v.Scenario
	s.Sweep = nil
	if v.Key == "" {
		return s
	}
	if flag, ok := strings.CutPrefix(v.Key, ClientPrefix); ok {
		c := make(map[string]string, len(s.Client)+1)
		for k, val := range s.Client {
			c[k] = val
		}
		c[flag] = v.Value
		s.Client = c
		return s
	}
	s.Config = append(append([]string(nil), s.Config...), v.Key+"="+v.Value)
	return s
}

// Variants returns every scenario's variants, in file order.
func (f *File) Variants() []Variant {
	var out []Variant
	for _, s := range f.Scenarios {
		if s.Sweep == nil {
			out = append(out, Variant{Scenario: s})
			continue
		}
		for _, val := range s.Sweep.Values {
			out = append(out, Variant{Scenario: s, Key: s.Sweep.Key, Value: val})
		}
	}
	return out
}

// Trial is one planned trial.
type Trial struct {
	// Index is the trial's place in the whole benchmark's plan, from 0;
	// Shard picks trials by it.
	Index   int
	Variant Variant
	// Rep numbers the variant's trials from 1, across shards, so the
	// directories of several shards can be put side by side.
	Rep int
}

// ID names the trial uniquely within the plan.
func (t Trial) ID() string { return t.Variant.Dir() + "/" + results.TrialDir(t.Rep) }

// Dir is the trial's directory relative to the benchmark's.
func (t Trial) Dir() string { return filepath.Join(t.Variant.Dir(), results.TrialDir(t.Rep)) }

// Plan returns the benchmark's trials interleaved round by round — every
// variant's first trial, then every variant's second — so that the drift
// of a shared machine over the benchmark falls on all variants alike
// rather than on whichever ran last.
func (f *File) Plan() []Trial {
	vs := f.Variants()
	var out []Trial
	for rep := 1; rep <= f.Trials; rep++ {
		for _, v := range vs {
			out = append(out, Trial{Index: len(out), Variant: v, Rep: rep})
		}
	}
	return out
}

// trial is variant vi's trial rep, with the index Plan gives it (for
// a rep beyond Trials, that Plan would give it with more).
func (f *File) trial(vs []Variant, vi, rep int) Trial {
	return Trial{Index: (rep-1)*len(vs) + vi, Variant: vs[vi], Rep: rep}
}

// trialByID is the trial whose ID is id, if a variant of f has it.
func (f *File) trialByID(id string) (Trial, bool) {
	vdir, tdir := path.Split(id)
	var rep int
	if _, err := fmt.Sscanf(tdir, results.TrialDirPrefix+"%d", &rep); err != nil || rep < 1 {
		return Trial{}, false
	}
	vs := f.Variants()
	for i, v := range vs {
		if v.Dir()+"/" == vdir {
			return f.trial(vs, i, rep), true
		}
	}
	return Trial{}, false
}

// Shard is a slice of a plan: the I-th of N, from 1.
type Shard struct{ I, N int }

// All is the whole plan.
var All = Shard{1, 1}

// ParseShard reads I/N.
func ParseShard(s string) (Shard, error) {
	i, n, err := benchfile.ParseShard(s)
	if err != nil {
		return Shard{}, err
	}
	return Shard{i, n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Pick returns the shard's trials. The plan is dealt out round-robin, a
// round (every variant's next trial) after another, each round starting
// step shards on from the one before: each shard gets within about a
// round of an equal share, in plan order, and a variant's trials move from
// shard to shard, so that one machine's drift does not fall on one variant
// only. step is the variants' count where that already moves them (a plain
// deal), else the next count that does: with as many shards as variants a
// plain deal would give each shard one variant, and with one variant in
// two shards a deal shifted by one every round would give one shard all.
func (s Shard) Pick(plan []Trial) []Trial {
	if s.N <= 1 {
		return plan
	}
	vars := map[string]bool{}
	for _, t := range plan {
		vars[t.Variant.Dir()] = true
	}
	v := len(vars)
	step := v
	for gcd(step, s.N) != 1 {
		step++
	}
	var out []Trial
	for _, t := range plan {
		round := t.Rep - 1
		vi := t.Index - round*v // the trial's place in its round
		if (vi+round*step)%s.N == s.I-1 {
			out = append(out, t)
		}
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
