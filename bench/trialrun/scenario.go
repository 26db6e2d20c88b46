package trialrun

import (
	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/results"
)

// Scenario is the one scenario kbf bench makes of kbf run's flags when it
// is given no FILE: o's fault and probe settings, the cluster cl names
// (for --fault external its size a default, not asked for, unless given),
// the cluster e reaches, and fresh for a fresh cluster every trial. An
// error is cl's (compose.Flags.Options).
func (o *Options) Scenario(cl *compose.Flags, e External, fresh bool) (bench.Scenario, error) {
	c := o.Trial.Probe
	opts, err := cl.Options()
	if err != nil {
		return bench.Scenario{}, err
	}
	s := bench.Scenario{Fault: string(o.Trial.Kill), Acks: c.Acks, Interval: c.Interval, Fresh: fresh,
		Compose: opts.File, ProjectName: opts.ProjectName, Brokers: opts.Brokers, Controllers: opts.Controllers, Config: cl.Config,
		Bootstrap: e.Bootstrap, Logs: e.Logs, LogsCommand: e.LogsCommand, OnReady: e.OnReady, ReadyFile: e.ReadyFile, HealMargin: e.Margin}
	if o.Trial.Kill == results.FaultExternal {
		// The embedded cluster's size is a default here, not asked for:
		// only a size given is refused.
		if !cl.Given("brokers") {
			s.Brokers = 0
		}
		if !cl.Given("controllers") {
			s.Controllers = 0
		}
	}
	return s, nil
}
