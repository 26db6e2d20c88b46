package watchrun

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/bench/trialrun"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/watch"
)

// command is kbf watch's flags as the command binds them, by hand: args
// are pairs of a flag's name and its value.
func command(t *testing.T, args ...string) *Command {
	t.Helper()
	c := &Command{Watch: watch.Defaults, Probe: probe.Defaults(), K8s: trialrun.K8s{Target: trialrun.TargetDocker}}
	for i := 0; i+1 < len(args); i += 2 {
		switch v := args[i+1]; args[i] {
		case "--bootstrap":
			c.Probe.Bootstrap, c.BootstrapSet = []string{v}, true
		case "--target":
			c.K8s.Target = v
		case "--logs":
			c.Logs = v
		case "--logs-command":
			c.LogsCommand = v
		case "--partitions":
			for _, p := range strings.Split(v, ",") {
				n, err := strconv.Atoi(p)
				if err != nil {
					t.Fatal(err)
				}
				c.Probe.Partitions = append(c.Probe.Partitions, int32(n))
			}
		default:
			t.Fatalf("no flag %s here", args[i])
		}
	}
	return c
}

// TestCommandCheck: node logs only for a cluster at --bootstrap, and the
// probe's settings checked as kbf probe's, each refused as a flag.
func TestCommandCheck(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(c *Command) error
		want  string
	}{
		{"no logs", nil, (*Command).CheckLogs, ""},
		{"logs of kbf's own cluster", []string{"--logs", "."}, (*Command).CheckLogs, "--logs and --logs-command are for a --bootstrap cluster"},
		{"logs of Kubernetes'", []string{"--target", "k8s", "--bootstrap", "b1:9092", "--logs", "."}, (*Command).CheckLogs, "--logs and --logs-command are for a --bootstrap cluster"},
		{"logs of a cluster at --bootstrap", []string{"--bootstrap", "b1:9092", "--logs", "."}, (*Command).CheckLogs, ""},
		{"both logs", []string{"--bootstrap", "b1:9092", "--logs", ".", "--logs-command", "cat {id}.log"}, (*Command).CheckLogs, "--logs and --logs-command: give one"},
		{"the probe's defaults", nil, (*Command).CheckProbe, ""},
		{"a partition given twice", []string{"--partitions", "1,1"}, (*Command).CheckProbe, "partitions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check(command(t, tc.args...))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want))):
				t.Errorf("error %v, want %q", err, tc.want)
			case tc.want != "" && !errors.Is(err, experiment.ErrInvalidOption):
				t.Errorf("error %v is not a flag refused (experiment.ErrInvalidOption)", err)
			}
		})
	}
}

// TestCommandSpec: the cluster watched is where the flags say, the
// watch's options carry the probe's settings.
func TestCommandSpec(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"kbf's own", nil, "docker"},
		{"a cluster at --bootstrap", []string{"--bootstrap", "b1:9092", "--logs-command", "cat {id}.log"}, "remote"},
		{"Kubernetes", []string{"--target", "k8s"}, "k8s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := command(t, tc.args...)
			s, err := c.Spec(&bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			var got string
			switch {
			case s.Docker != nil:
				got = "docker"
			case s.Remote != nil:
				got = "remote"
				if s.Remote.Bootstrap[0] != "b1:9092" || s.Remote.LogsCommand != "cat {id}.log" {
					t.Errorf("remote %+v", *s.Remote)
				}
			case s.K8s != nil:
				got = "k8s"
				if len(s.K8s.Options.Bootstrap) != 0 || s.K8s.Options.Fault != results.FaultExternal {
					t.Errorf("kubernetes %+v: no bootstrap given, a fault nobody injects", s.K8s.Options)
				}
			}
			if got != tc.want {
				t.Errorf("spec %s, want %s", got, tc.want)
			}
			if opt := c.Options(); opt.Probe.Topic != c.Probe.Topic || opt.Stall != watch.Defaults.Stall {
				t.Errorf("options %+v", opt)
			}
		})
	}
}
