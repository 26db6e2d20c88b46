package bench

import (
	"fmt"
	"runtime/debug"

	"github.com/kbf-project/kbf/analysis"
)

// Outcome is the benchmark's outcome, by the rule of kbf run and kbf
// report (analysis.Outcome), over every trial it kept: nil, or an error
// that wraps the outcome's sentinel (analysis.ErrFindings,
// analysis.ErrNoValidTrial).
func (s *Set) Outcome() error {
	var o analysis.Outcome
	for _, r := range s.Records {
		if r.M == nil {
			o.AddMeasured(r.Trial.ID(), nil, false)
			continue
		}
		o.AddMeasured(r.Trial.ID(), r.M.Findings, r.Valid())
	}
	if err := o.Err(); err != nil {
		return fmt.Errorf("%w (see summary.md and each trial's report)", err)
	}
	return nil
}

// ClientEnv is the configuration lines bench.txt opens with that the
// trials' metadata do not hold: the probe's client and its version, as
// this binary was built with it.
func ClientEnv() Env {
	env := Env{{"client", "franz-go"}}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/twmb/franz-go" {
				env = append(env, [2]string{"client-version", m.Version})
			}
		}
	}
	return env
}
