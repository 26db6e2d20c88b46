package trialrun

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/results"
)

func TestScenarioFromFlags(t *testing.T) {
	cases := []struct {
		name                 string
		kill                 results.FaultKind
		args                 []string
		brokers, controllers int
	}{
		{name: "kbf's cluster, its default size", kill: results.FaultSIGKILL, brokers: 3, controllers: 1},
		{name: "kbf's cluster, resized", kill: results.FaultSIGKILL, args: []string{"--brokers", "5"}, brokers: 5, controllers: 1},
		{name: "external, no size asked", kill: results.FaultExternal},
		{name: "external, a size asked", kill: results.FaultExternal, args: []string{"--brokers", "4"}, brokers: 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var cl compose.Flags
			fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
			cl.AddFlags(fs, true)
			if err := fs.Parse(append(c.args, "--config", "num.io.threads=4")); err != nil {
				t.Fatal(err)
			}
			o := &Options{}
			o.Trial.Kill = c.kill
			o.Trial.Probe.Acks = "all"
			s, err := o.Scenario(&cl, External{Bootstrap: []string{"h:9092"}, Logs: "/logs"}, true)
			if err != nil {
				t.Fatal(err)
			}
			if s.Fault != string(c.kill) || s.Brokers != c.brokers || s.Controllers != c.controllers || !s.Fresh || s.Acks != "all" {
				t.Errorf("scenario %+v", s)
			}
			if len(s.Config) != 1 || len(s.Bootstrap) != 1 || s.Logs != "/logs" {
				t.Errorf("config %q, bootstrap %q, logs %q", s.Config, s.Bootstrap, s.Logs)
			}
		})
	}
	var cl compose.Flags
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	cl.AddFlags(fs, true)
	if err := fs.Parse([]string{"--project-name", "p"}); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Options{}).Scenario(&cl, External{}, false); err == nil {
		t.Error("a project without its file made a scenario")
	}
}
