package trialrun

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/results"
)

// command is c's flags parsed from args, over base's options.
func command(t *testing.T, args ...string) *Command {
	t.Helper()
	c := &Command{Base: base()}
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	c.Cluster.AddFlags(fs, true)
	c.Clients.AddFlags(fs)
	c.Load.AddFlags(fs)
	c.External.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCommandExperiment: the trial's options are the flags' over the
// base, each fault's own settings only for that fault, a default
// directory named for the fault.
func TestCommandExperiment(t *testing.T) {
	tests := []struct {
		name  string
		kill  results.FaultKind
		args  []string
		check func(t *testing.T, c *Command)
	}{
		{"defaults", results.FaultSIGKILL, nil, func(t *testing.T, c *Command) {
			e := c.Experiment()
			if len(e.Clients) != 1 || e.Clients[0] != clients.FranzGo || e.Load != nil || e.Probe.Security != nil || e.Disk.Delay != 0 {
				t.Errorf("options %+v", e)
			}
			if !regexp.MustCompile(`^kbf-runs/\d{8}-\d{6}-sigkill$`).MatchString(e.Out) {
				t.Errorf("out %q, want a new directory named for the fault", e.Out)
			}
		}},
		{"out, clients and load given", results.FaultSIGKILL, []string{"--clients", "franz-go,librdkafka", "--load", "10/s"}, func(t *testing.T, c *Command) {
			c.Base.Trial.Out = "here"
			e := c.Experiment()
			if e.Out != "here" || len(e.Clients) != 2 || e.Load == nil {
				t.Errorf("out %q, clients %v, load %+v", e.Out, e.Clients, e.Load)
			}
		}},
		{"disk-slow's delay for disk-slow", results.FaultKind("disk-slow"), nil, func(t *testing.T, c *Command) {
			c.Base.DiskDelay = 200 * time.Millisecond
			if d := c.Experiment().Disk; d.Delay != 200*time.Millisecond {
				t.Errorf("disk %+v", d)
			}
		}},
		{"no disk delay for a kill", results.FaultSIGKILL, nil, func(t *testing.T, c *Command) {
			c.Base.DiskDelay = 200 * time.Millisecond
			if d := c.Experiment().Disk; d.Delay != 0 {
				t.Errorf("disk %+v", d)
			}
		}},
		{"external's options", results.FaultExternal, []string{"--bootstrap", "b1:9092", "--ready-file", "r", "--heal-margin", "2s"}, func(t *testing.T, c *Command) {
			if x := c.Experiment().External; x.ReadyFile != "r" || x.Margin != 2*time.Second {
				t.Errorf("external %+v", x)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := command(t, tc.args...)
			c.Base.Trial.Kill = tc.kill
			tc.check(t, c)
		})
	}
}

// TestCommandTrials: each trial of a benchmark starts from the base with
// the trial's options and the clients as given, the base unchanged.
func TestCommandTrials(t *testing.T) {
	c := command(t, "--clients", "franz-go,java", "--client-set", "java:linger.ms=5")
	b := c.Trials()
	if b.Clients != "franz-go,java" || len(b.ClientSet) != 1 || len(b.Trial.Clients) != 2 || b.Trial.Out == "" {
		t.Errorf("trials start from %+v", b)
	}
	if c.Base.Clients != "" || c.Base.Trial.Out != "" {
		t.Errorf("the base changed: %+v", c.Base)
	}
}

// TestCommandSpec: the cluster is where the flags say it lives.
func TestCommandSpec(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		target  string
		want    string
		wantErr bool
	}{
		{"kbf's cluster", []string{"--brokers", "5"}, TargetDocker, "docker", false},
		{"a cluster at --bootstrap", []string{"--bootstrap", "b1:9092"}, TargetDocker, "remote", false},
		{"kubernetes", []string{"--bootstrap", "b1:9092"}, TargetK8s, "k8s", false},
		{"a cluster flag kbf cannot use", []string{"--brokers", "0"}, TargetDocker, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := command(t, tc.args...)
			c.Base.K8s.Target, c.Base.Log = tc.target, &bytes.Buffer{}
			s, err := c.Spec()
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			var got string
			switch {
			case s.K8s != nil:
				got = "k8s"
			case s.Remote != nil:
				got = "remote"
			case s.Docker != nil:
				got = "docker"
				if s.Docker.Brokers != 5 || s.Docker.Lead != "k1" {
					t.Errorf("kbf's cluster %+v: want 5 brokers, k1 leading partition 0", *s.Docker)
				}
			}
			if got != tc.want {
				t.Errorf("spec %s, want %s", got, tc.want)
			}
		})
	}
}
