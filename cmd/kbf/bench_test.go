package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/bench/trialrun"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/platform"
)

func TestBenchFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bench.yaml")
	if err := os.WriteFile(file, []byte(bench.Example), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("trials: 0\nscenarios: [{name: a, fault: sigkill}]\n"), 0o644)
	two := filepath.Join(dir, "two.yaml")
	os.WriteFile(two, []byte("trials: 2\nscenarios: [{name: a, fault: sigkill}, {name: b, fault: sigterm}]\n"), 0o644)
	tests := []struct {
		name    string
		args    []string
		check   func(t *testing.T, f *bench.File, o *benchOptions)
		wantErr string
	}{
		{name: "one scenario from the flags", args: []string{"bench", "--kill", "sigkill", "--trials", "4", "--acks", "1"},
			check: func(t *testing.T, f *bench.File, o *benchOptions) {
				s := f.Scenarios[0]
				if f.Trials != 4 || s.Name != "sigkill" || s.Fault != "sigkill" || s.Acks != "1" {
					t.Errorf("file %+v", f)
				}
			}},
		{name: "cluster flags without a file", args: []string{"bench", "--kill", "sigkill", "--config", "broker.session.timeout.ms=8000", "--brokers", "4"},
			check: func(t *testing.T, f *bench.File, o *benchOptions) {
				s := f.Scenarios[0]
				if s.Brokers != 4 || len(s.Config) != 1 || s.Config[0] != "broker.session.timeout.ms=8000" || s.Compose != "" {
					t.Errorf("scenario %+v", s)
				}
			}},
		{name: "config with a file", args: []string{"bench", file, "--config", "a.b=1"}, wantErr: "--config: FILE says it"},
		{name: "bad config", args: []string{"bench", "--kill", "sigkill", "--config", "nothing"}, wantErr: `--config "nothing"`},
		{name: "a file", args: []string{"bench", file, "--shard", "2/3"}, check: func(t *testing.T, f *bench.File, o *benchOptions) {
			if len(f.Scenarios) != 3 || o.budget.Shard != "2/3" {
				t.Errorf("file %+v, shard %s", f, o.budget.Shard)
			}
		}},
		{name: "neither", args: []string{"bench"}, wantErr: "a scenario FILE or --kill is required"},
		{name: "both", args: []string{"bench", file, "--kill", "sigkill"}, wantErr: "--kill: FILE says it"},
		{name: "trials over a file's", args: []string{"bench", file, "--trials", "3"}, check: func(t *testing.T, f *bench.File, o *benchOptions) {
			if f.Trials != 3 {
				t.Errorf("trials %d, want 3", f.Trials)
			}
		}},
		{name: "fresh with a file", args: []string{"bench", file, "--fresh"}, wantErr: "--fresh: FILE says it"},
		{name: "two files", args: []string{"bench", file, file}, wantErr: "at most one FILE"},
		{name: "bad shard", args: []string{"bench", "--kill", "sigkill", "--shard", "0/2"}, wantErr: `--shard "0/2"`},
		{name: "zero trials", args: []string{"bench", "--kill", "sigkill", "--trials", "0"}, wantErr: "--trials 0"},
		{name: "a billion trials", args: []string{"bench", "--kill", "sigkill", "--trials", "1000000000"}, wantErr: "--trials 1000000000: want 1 to 1000"},
		{name: "a billion trials over a file's", args: []string{"bench", file, "--trials", "1000000000"}, wantErr: "--trials 1000000000: want 1 to 1000"},
		{name: "negative replica interval", args: []string{"bench", "--kill", "sigkill", "--replica-interval", "-1s"}, wantErr: "--replica-interval -1s"},
		{name: "interval of a nanosecond", args: []string{"bench", "--kill", "sigkill", "--interval", "1ns"}, wantErr: "--interval 1ns: must be at least 1ms"},
		{name: "bad acks", args: []string{"bench", "--kill", "sigkill", "--acks", "0"}, wantErr: `acks "0"`},
		{name: "fault after the end", args: []string{"bench", "--kill", "sigkill", "--duration", "5s", "--fault-after", "6s"}, wantErr: "--fault-after"},
		{name: "missing file", args: []string{"bench", filepath.Join(dir, "nope.yaml")}, wantErr: "nope.yaml"},
		{name: "bad file", args: []string{"bench", bad}, wantErr: "bad.yaml: no trials: say how many"},
		{name: "no trials at once", args: []string{"bench", file, "--parallel", "0"}, wantErr: "--parallel 0: want 1 to 4"},
		{name: "parallel and clusters", args: []string{"bench", file, "--parallel", "2", "--clusters", "3"}, wantErr: "--parallel 2 keeps a cluster for each trial running; --clusters is for trials one at a time"},
		{name: "until decided: the file's trials as the budget, and --settle 5s", args: []string{"bench", file, "--until-decided"}, check: func(t *testing.T, f *bench.File, o *benchOptions) {
			if f.Trials != 6 || o.run.Base.Trial.Settle != 5*time.Second || o.budget.Gate.Alpha != 0.01 || o.budget.Gate.MaxRegression != 0.1 {
				t.Errorf("trials %d, settle %v, gate %+v", f.Trials, o.run.Base.Trial.Settle, o.budget.Gate)
			}
		}},
		{name: "until decided without a file: a budget of 15", args: []string{"bench", "--kill", "sigkill", "--until-decided"}, check: func(t *testing.T, f *bench.File, o *benchOptions) {
			if f.Trials != 15 {
				t.Errorf("trials %d, want 15", f.Trials)
			}
		}},
		{name: "until decided: --trials 1", args: []string{"bench", file, "--until-decided", "--trials", "1"}, wantErr: "--trials 1: --until-decided needs at least 6 valid trials a side"},
		{name: "until decided: --trials 5 without a file", args: []string{"bench", "--kill", "sigkill", "--until-decided", "--trials", "5"}, wantErr: "--trials 5: --until-decided needs at least 6"},
		{name: "until decided: a file's trials: 2", args: []string{"bench", two, "--until-decided"}, wantErr: "trials 2: --until-decided takes it as the most valid trials a side runs, and needs at least 6"},
		{name: "a file's trials: 2 over --trials 8", args: []string{"bench", two, "--until-decided", "--trials", "8"}, check: func(t *testing.T, f *bench.File, o *benchOptions) {
			if f.Trials != 8 {
				t.Errorf("trials %d, want 8", f.Trials)
			}
		}},
		{name: "until decided: --trials, --settle and --max-regression given", args: []string{"bench", file, "--until-decided", "--trials", "8", "--settle", "0", "--max-regression", "5%"}, check: func(t *testing.T, f *bench.File, o *benchOptions) {
			if f.Trials != 8 || o.run.Base.Trial.Settle != 0 || o.budget.Gate.MaxRegression != 0.05 {
				t.Errorf("trials %d, settle %v, gate %+v", f.Trials, o.run.Base.Trial.Settle, o.budget.Gate)
			}
		}},
		{name: "settle on by default", args: []string{"bench", file}, check: func(t *testing.T, f *bench.File, o *benchOptions) {
			if o.run.Base.Trial.Settle != experiment.DefaultSettle {
				t.Errorf("settle %v, want %v", o.run.Base.Trial.Settle, experiment.DefaultSettle)
			}
		}},
		{name: "until decided sharded", args: []string{"bench", file, "--until-decided", "--shard", "1/2"}, wantErr: "--shard 1/2: --until-decided runs the whole benchmark"},
		{name: "until decided: max regression of 5", args: []string{"bench", file, "--until-decided", "--max-regression", "5"}, wantErr: "--max-regression"},
		{name: "until decided on chosen metrics", args: []string{"bench", file, "--until-decided", "--metric", "from_heartbeat", "--metric", "leader:ack_stall"}, check: func(t *testing.T, f *bench.File, o *benchOptions) {
			if len(o.budget.Gate.Metrics) != 2 || o.budget.Gate.Metrics[0].String() != "from_heartbeat" || o.budget.Gate.Metrics[1].String() != "leader:ack_stall" {
				t.Errorf("gated on %v", o.budget.Gate.Metrics)
			}
		}},
		{name: "until decided on no metric", args: []string{"bench", file, "--until-decided", "--metric", "heartbeat"}, wantErr: `--metric "heartbeat": no metric`},
		{name: "metric without the gate", args: []string{"bench", file, "--metric", "from_heartbeat"}, wantErr: "--metric gates --until-decided"},
		{name: "max regression without the gate", args: []string{"bench", file, "--max-regression", "5%"}, wantErr: "--max-regression gates --until-decided"},
		{name: "negative settle", args: []string{"bench", "--kill", "sigkill", "--settle", "-1s"}, wantErr: "--settle -1s"},
		{name: "an external fault from the flags", args: []string{"bench", "--kill", "external", "--bootstrap", "b1:9092,b2:9092", "--on-ready", "./kill.sh", "--heal-margin", "2s", "--logs-command", "cat {id}.log"},
			check: func(t *testing.T, f *bench.File, o *benchOptions) {
				s := f.Scenarios[0]
				if s.Fault != "external" || len(s.Bootstrap) != 2 || s.OnReady != "./kill.sh" || s.HealMargin != 2*time.Second || s.LogsCommand != "cat {id}.log" || s.Broker != "" {
					t.Errorf("scenario %+v", s)
				}
			}},
		{name: "an external fault from the flags with nothing to inject", args: []string{"bench", "--kill", "external", "--bootstrap", "b1:9092"},
			wantErr: "on_ready: fault external needs a command"},
		{name: "an external fault's flag with a file", args: []string{"bench", file, "--on-ready", "./kill.sh"}, wantErr: "--on-ready: FILE says it"},
		{name: "a bootstrap with a fault kbf makes", args: []string{"bench", "--kill", "sigkill", "--bootstrap", "b1:9092"}, wantErr: "fault sigkill: kbf cannot inject into a cluster it reaches by --bootstrap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *bench.File
			var opts *benchOptions
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newBenchCmdF(g, func(_ context.Context, o *benchOptions) error {
					f, err := o.benchFile()
					got, opts = f, o
					return err
				})
			}, tt.args...)
			if tt.wantErr != "" {
				if code != exitUsage || !strings.Contains(stderr, tt.wantErr) || strings.Count(stderr, "\n") != 1 {
					t.Errorf("exit %d, stderr %q; want one usage line with %q", code, stderr, tt.wantErr)
				}
				return
			}
			if code != exitOK || got == nil {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			tt.check(t, got, opts)
		})
	}
}

// TestBenchRunnerOptions checks the adapter to kbf run's trial protocol:
// the scenario's settings over the command's flags, through kbf run's own
// flags, and what the protocol cannot do refused in one line.
func TestBenchRunnerOptions(t *testing.T) {
	var base *benchOptions
	runOnly(t, func(g *globals) *cobra.Command {
		return newBenchCmdF(g, func(_ context.Context, o *benchOptions) error { base = o; return nil })
	}, "bench", "--kill", "sigkill", "--interval", "50ms", "--duration", "20s")
	if base == nil {
		t.Fatal("no options")
	}
	r := trialrun.New(base.run.Trials())
	tests := []struct {
		name    string
		s       bench.Scenario
		check   func(t *testing.T, o experiment.Options)
		wantErr string
	}{
		{name: "the flags' settings", s: bench.Scenario{Fault: "sigterm"}, check: func(t *testing.T, o experiment.Options) {
			c := o.Probe
			if o.Kill != "sigterm" || o.Duration != 20*time.Second || o.Broker != "k1" || c.Interval != 50*time.Millisecond || c.Acks != "all" || o.Repeat != 1 {
				t.Errorf("options %+v", o)
			}
		}},
		{name: "the scenario's over them", s: bench.Scenario{Fault: "pause", Broker: "k2", Duration: 40 * time.Second, FaultAfter: 10 * time.Second,
			Acks: "1", Interval: 10 * time.Millisecond, Client: map[string]string{"retry-backoff": "250ms"}},
			check: func(t *testing.T, o experiment.Options) {
				c := o.Probe
				if o.Kill != "pause" || o.Broker != "k2" || o.Duration != 40*time.Second || o.FaultAfter != 10*time.Second ||
					c.Acks != "1" || c.Interval != 10*time.Millisecond || c.RetryBackoff != 250*time.Millisecond {
					t.Errorf("options %+v", o)
				}
				// The command's own settings are left as they were.
				if bc := base.run.Base.Trial.Probe; bc.Interval != 50*time.Millisecond || bc.RetryBackoff == 250*time.Millisecond {
					t.Errorf("the scenario changed the command's probe settings: %+v", bc)
				}
			}},
		{name: "a hiccup", s: bench.Scenario{Fault: "pause", ReturnAfter: 2 * time.Second},
			check: func(t *testing.T, o experiment.Options) {
				if o.Kill != "pause" || o.ReturnAfter != 2*time.Second {
					t.Errorf("options %+v, want a pause undone after 2s", o)
				}
			}},
		{name: "unknown fault", s: bench.Scenario{Fault: "netsplit"}, wantErr: `fault "netsplit"`},
		{name: "config", s: bench.Scenario{Fault: "sigkill", Config: []string{"broker.session.timeout.ms=6000", "c1:broker.heartbeat.interval.ms=1000"}},
			check: func(t *testing.T, o experiment.Options) {
				opts, err := dockerOpts(r.ClusterOptions(bench.Scenario{Config: []string{"broker.session.timeout.ms=6000", "c1:broker.heartbeat.interval.ms=1000"}}, o, nil))
				if err != nil || len(opts.Config) != 2 || opts.Config[1].Node != "c1" || opts.Config[0].Value != "6000" || opts.DiskLimits != nil {
					t.Errorf("cluster options %+v, %v", opts, err)
				}
			}},
		{name: "disk-full gets its tmpfs", s: bench.Scenario{Fault: "disk-full", Broker: "k2"},
			check: func(t *testing.T, o experiment.Options) {
				opts, err := dockerOpts(r.ClusterOptions(bench.Scenario{}, o, nil))
				if err != nil || opts.DiskLimits["k2"] != "128m" || opts.Lead != "k2" {
					t.Errorf("cluster options %+v, %v", opts, err)
				}
			}},
		{name: "a Kafka version: the local build, else the public image", s: bench.Scenario{Fault: "sigkill", KafkaVersion: "4.0.2"},
			check: func(t *testing.T, o experiment.Options) {
				for _, tt := range []struct {
					s     bench.Scenario
					local bool
					want  string
				}{
					{bench.Scenario{KafkaVersion: "4.0.2"}, true, "kbf/kafka:4.0.2"},
					{bench.Scenario{KafkaVersion: "4.0.2"}, false, "apache/kafka:4.0.2"},
					{bench.Scenario{Image: "mine/kafka:dev"}, true, "mine/kafka:dev"},
					{bench.Scenario{}, true, base.run.Base.Image},
				} {
					asked := ""
					opts, err := dockerOpts(r.ClusterOptions(tt.s, o, func(img string) bool { asked = img; return tt.local }))
					if err != nil || opts.Image != tt.want {
						t.Errorf("%+v (here: %v): image %q, want %q (%v)", tt.s, tt.local, opts.Image, tt.want, err)
					}
					if tt.s.KafkaVersion != "" && asked != "kbf/kafka:"+tt.s.KafkaVersion {
						t.Errorf("asked whether %q is here", asked)
					}
				}
			}},
		{name: "bad config", s: bench.Scenario{Fault: "sigkill", Config: []string{"=1"}}, wantErr: "not a Kafka property name"},
		{name: "missing compose file", s: bench.Scenario{Fault: "sigkill", Compose: filepath.Join(t.TempDir(), "mine.yaml")}, wantErr: "mine.yaml"},
		{name: "compose and brokers", s: bench.Scenario{Fault: "sigkill", Compose: "mine.yaml", Brokers: 5}, wantErr: "the file says what the cluster is"},
		{name: "two controllers", s: bench.Scenario{Fault: "sigkill", Controllers: 2}, wantErr: "controllers 2: want 1 or 3"},
		{name: "fresh", s: bench.Scenario{Fault: "sigkill", Fresh: true}, check: func(t *testing.T, o experiment.Options) {}},
		{name: "the faulted broker leads partition 0, as in kbf run", s: bench.Scenario{Fault: "sigkill", Broker: "k3"},
			check: func(t *testing.T, o experiment.Options) {
				if opts, err := dockerOpts(r.ClusterOptions(bench.Scenario{}, o, nil)); err != nil || opts.Lead != "k3" {
					t.Errorf("cluster options lead %q, %v: want k3", opts.Lead, err)
				}
			}},
		{name: "unknown client setting", s: bench.Scenario{Fault: "sigkill", Client: map[string]string{"lingr": "1ms"}}, wantErr: "client lingr: no such probe setting"},
		{name: "bad client value", s: bench.Scenario{Fault: "sigkill", Client: map[string]string{"linger": "soon"}}, wantErr: "client linger"},
		{name: "client interval too short", s: bench.Scenario{Fault: "sigkill", Client: map[string]string{"interval": "1ns"}}, wantErr: "interval 1ns: must be at least 1ms"},
		{name: "fault after the end", s: bench.Scenario{Fault: "sigkill", Duration: 5 * time.Second}, wantErr: "fault_after 8s"},
		{name: "clients and their settings", s: bench.Scenario{Fault: "sigterm", Clients: []string{"franz-go", "librdkafka", "java"},
			Client:         map[string]string{"kip951": "false"},
			ClientSettings: map[string]map[string]string{"java": {"retry.backoff.ms": "50"}, "librdkafka": {"socket.timeout.ms": "5000"}}},
			check: func(t *testing.T, e experiment.Options) {
				if len(e.Clients) != 3 || e.ClientSettings["java"]["retry.backoff.ms"] != "50" || e.ClientSettings["librdkafka"]["socket.timeout.ms"] != "5000" || !e.Probe.NoKIP951 {
					t.Errorf("clients %v, settings %v, kip951 off %v", e.Clients, e.ClientSettings, e.Probe.NoKIP951)
				}
				if len(base.run.Clients.Set) != 0 {
					t.Errorf("the scenario changed the command's client settings: %v", base.run.Clients.Set)
				}
			}},
		{name: "a setting of a client not chosen", s: bench.Scenario{Fault: "sigkill", ClientSettings: map[string]map[string]string{"java": {"linger.ms": "1"}}},
			wantErr: "java is not in --clients"},
		{name: "unknown client", s: bench.Scenario{Fault: "sigkill", Clients: []string{"sarama"}}, wantErr: `unknown client "sarama"`},
		{name: "an external fault", s: bench.Scenario{Fault: "external", Bootstrap: []string{"b1:9092"}, OnReady: "./kill.sh", Dir: "/scenarios", HealMargin: 3 * time.Second,
			LogsCommand: "kubectl logs my-kafka-{id}", CommandConfig: saslProps(t)},
			check: func(t *testing.T, o experiment.Options) {
				e := o.External
				if o.Kill != "external" || e.OnReady != "./kill.sh" || e.Dir != "/scenarios" || e.Margin != 3*time.Second || o.Probe.Security == nil {
					t.Errorf("options %+v, external %+v", o, e)
				}
				if len(base.run.External.Bootstrap) != 0 {
					t.Errorf("the scenario changed the command's flags: %+v", base.run.External)
				}
			}},
		{name: "an external fault's logs command naming no node", s: bench.Scenario{Fault: "external", Bootstrap: []string{"b1:9092"}, OnReady: "x", LogsCommand: "cat server.log"},
			wantErr: "logs_command: names no node"},
		{name: "an external fault's logs not a directory", s: bench.Scenario{Fault: "external", Bootstrap: []string{"b1:9092"}, OnReady: "x", Logs: filepath.Join(t.TempDir(), "none")},
			wantErr: "not a directory"},
		{name: "an external fault's options checked as kbf run's", s: bench.Scenario{Fault: "external", Bootstrap: []string{"b1:9092"}, OnReady: "x", Client: map[string]string{"interval": "1ns"}},
			wantErr: "interval 1ns: must be at least 1ms"},
		{name: "an external fault on the Kubernetes target", s: bench.Scenario{Fault: "external", Target: "k8s", Namespace: "kafka", Bootstrap: []string{"b1:9092"}, OnReady: "x"},
			wantErr: "fault external with target k8s: an external fault reaches its cluster by bootstrap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.Check(tt.s)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Errorf("error %v, want one line with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			o, err := r.Experiment(tt.s)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, o)
		})
	}
}

// TestBenchRefusesWhatRunRefuses puts the same impossible trials to kbf
// run (up to the call that would bring the cluster up) and to kbf bench:
// both refuse each, for the same reason, before anything starts.
func TestBenchRefusesWhatRunRefuses(t *testing.T) {
	tests := []struct {
		name    string
		args    []string // kbf run's
		s       bench.Scenario
		wantErr string
	}{
		{name: "controller-kill with one controller", args: []string{"--fault", "controller-kill"},
			s: bench.Scenario{Fault: "controller-kill"}, wantErr: "needs a quorum of three dedicated controllers, the cluster has 1"},
		{name: "controller-pause with one controller", args: []string{"--fault", "controller-pause", "--controllers", "1"},
			s: bench.Scenario{Fault: "controller-pause", Controllers: 1}, wantErr: "needs a quorum of three dedicated controllers"},
		{name: "a broker the cluster lacks", args: []string{"--kill", "sigkill", "--broker", "k9"},
			s: bench.Scenario{Fault: "sigkill", Broker: "k9"}, wantErr: "broker k9: not a broker of the cluster (k1 k2 k3)"},
		{name: "the controller as the broker", args: []string{"--kill", "sigkill", "--broker", "c1"},
			s: bench.Scenario{Fault: "sigkill", Broker: "c1"}, wantErr: "broker c1: not a broker of the cluster (k1 k2 k3)"},
		// The embedded cluster's topics need three brokers: compose says
		// so before the fault's own check can.
		{name: "two-brokers with two brokers", args: []string{"--fault", "two-brokers", "--brokers", "2"},
			s: bench.Scenario{Fault: "two-brokers", Brokers: 2}, wantErr: "replication factor 3 needs 3 brokers, there are 2"},
		{name: "disk-full's broker not a broker", args: []string{"--fault", "disk-full", "--broker", "k7"},
			s: bench.Scenario{Fault: "disk-full", Broker: "k7"}, wantErr: "no Kafka node k7"},
		{name: "the group's coordinator with no group", args: []string{"--kill", "sigkill", "--broker", "coordinator"},
			s: bench.Scenario{Fault: "sigkill", Broker: "coordinator"}, wantErr: "broker coordinator: needs --consumer group, the group whose coordinator to fault"},
		{name: "a transaction's coordinator", args: []string{"--fault", "rolling", "--broker", "txn-coordinator"},
			s: bench.Scenario{Fault: "rolling", Broker: "txn-coordinator"}, wantErr: "broker txn-coordinator: needs --producer transactional, the transactional id whose coordinator to fault"},
		{name: "interval of a nanosecond", args: []string{"--kill", "sigkill", "--interval", "1ns"},
			s: bench.Scenario{Fault: "sigkill", Interval: time.Nanosecond}, wantErr: "interval 1ns: must be at least 1ms"},
		{name: "a session shorter than two heartbeats", args: []string{"--kill", "sigkill", "--config", "broker.session.timeout.ms=3000"},
			s: bench.Scenario{Fault: "sigkill", Config: []string{"broker.session.timeout.ms=3000"}}, wantErr: "broker.heartbeat.interval.ms must be at most half broker.session.timeout.ms"},
		{name: "duration beyond a day", args: []string{"--kill", "sigkill", "--duration", "2562047h"},
			s: bench.Scenario{Fault: "sigkill", Duration: 2562047 * time.Hour}, wantErr: "must be positive and at most 24h0m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// kbf run, with runTrials' first steps: the check comes before
			// the cluster is brought up, so no Docker is needed to see it.
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newRunCmdF(g, func(ctx context.Context, o *runOptions) error {
					tg, err := openCluster(ctx, o.Spec)
					if err != nil {
						return err
					}
					defer tg.Close()
					o.Base.Trial.Out = t.TempDir()
					return flagError(trialrun.NewExperiment(o.Experiment(), tg, nil).Check())
				})
			}, append([]string{"run"}, tt.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tt.wantErr) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("kbf run: exit %d, stderr %q; want one usage line with %q", code, stderr, tt.wantErr)
			}
			// kbf bench: the same reason, before anything is written.
			var base *benchOptions
			runOnly(t, func(g *globals) *cobra.Command {
				return newBenchCmdF(g, func(_ context.Context, o *benchOptions) error { base = o; return nil })
			}, "bench", "--kill", "sigkill")
			out := filepath.Join(t.TempDir(), "bench")
			s := tt.s
			s.Name = "impossible"
			b := &bench.Bench{File: &bench.File{Trials: 1, Scenarios: []bench.Scenario{s}}, Dir: out, Runner: trialrun.New(base.run.Trials())}
			_, err := b.Run(context.Background())
			var refused *bench.RefusedError
			if !errors.As(err, &refused) || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Errorf("kbf bench: %v; want a refusal with %q", err, tt.wantErr)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("kbf bench made %s before refusing: %v", out, err)
			}
		})
	}
}

// TestBenchParallelRefuses: with --parallel, a scenario on a cluster kbf
// cannot make once per lane is refused before anything is written.
func TestBenchParallelRefuses(t *testing.T) {
	compose := filepath.Join(t.TempDir(), "compose.yaml")
	os.WriteFile(compose, []byte("services: {}\n"), 0o644)
	for _, s := range []bench.Scenario{
		{Name: "user", Fault: "sigkill", Compose: compose},
		{Name: "ext", Fault: bench.FaultExternal, Bootstrap: []string{"127.0.0.1:9092"}},
	} {
		var base *benchOptions
		runOnly(t, func(g *globals) *cobra.Command {
			return newBenchCmdF(g, func(_ context.Context, o *benchOptions) error { base = o; return nil })
		}, "bench", "--kill", "sigkill")
		out := filepath.Join(t.TempDir(), "bench")
		opt := base.run.Trials()
		opt.Parallel = 2
		r := trialrun.New(opt)
		b := &bench.Bench{File: &bench.File{Trials: 1, Scenarios: []bench.Scenario{s}}, Dir: out, Runner: r, Parallel: 2}
		_, err := b.Run(context.Background())
		var refused *bench.RefusedError
		if !errors.As(err, &refused) || !strings.Contains(err.Error(), "--parallel 2: this scenario runs on") {
			t.Errorf("%s: %v; want a refusal of --parallel", s.Name, err)
		}
		if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: kbf bench made %s before refusing: %v", s.Name, out, err)
		}
	}
}

// benchTxt writes a bench.txt of n trials of one scenario's leader ack
// stall, each value times k, with lost records on the last.
func benchTxt(t *testing.T, name string, n int, k float64, lost int) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("Unit ack-stall-sec better=lower\nUnit lost-acked-records better=lower\nacks: all\n\n")
	for i := range n {
		l := 0
		if i == n-1 {
			l = lost
		}
		fmt.Fprintf(&b, "BenchmarkFailover/scenario=sigkill/role=leader 1 %.3f ack-stall-sec %d lost-acked-records\n", k*(7.4+0.45*float64(i)), l)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompareExit(t *testing.T) {
	old := benchTxt(t, "old.txt", 6, 1, 0)
	shard1, shard2 := benchTxt(t, "s1.txt", 3, 1, 0), benchTxt(t, "s2.txt", 3, 1, 0)
	md := filepath.Join(t.TempDir(), "summary.md")
	tests := []struct {
		name string
		args []string
		want int
		line string // in stderr
	}{
		{"equal, too spread for 6 to say same", []string{"compare", old, benchTxt(t, "new.txt", 6, 1, 0)}, exitTooFew, "verdict: undecided"},
		{"shifted 50 %", []string{"compare", old, benchTxt(t, "new.txt", 6, 1.5, 0)}, exitRegress, "verdict: different: regression"},
		{"shifted 50 %, no fail", []string{"compare", "--no-fail", old, benchTxt(t, "new.txt", 6, 1.5, 0)}, exitOK, ""},
		{"over a limit", []string{"compare", "--limit", "leader:ack_stall=8s", old, benchTxt(t, "new.txt", 6, 1, 0)}, exitRegress, "verdict: different: regression"},
		{"3 a side", []string{"compare", shard1, benchTxt(t, "new.txt", 3, 1.02, 0)}, exitTooFew, "at least 6 valid trials a side (3 more old, 3 more new)"},
		{"15 against 2 at +50 %", []string{"compare", benchTxt(t, "old15.txt", 15, 1, 0), benchTxt(t, "new.txt", 2, 1.5, 0)}, exitTooFew, "at least 6 valid trials a side (4 more new)"},
		{"shards merged", []string{"compare", shard1 + "," + shard2, benchTxt(t, "new.txt", 6, 1, 0)}, exitTooFew, "verdict: undecided"},
		{"a lost record", []string{"compare", old, benchTxt(t, "new.txt", 6, 1, 1)}, exitFindings, "acknowledged records lost"},
		{"markdown", []string{"compare", "--markdown", md, old, benchTxt(t, "new.txt", 6, 1.5, 0)}, exitRegress, "verdict: different: regression"},
		{"one side", []string{"compare", old}, exitUsage, "OLD and NEW"},
		{"bad regression", []string{"compare", "--max-regression", "lots", old, old}, exitUsage, "--max-regression"},
		{"bad alpha", []string{"compare", "--alpha", "5", old, old}, exitUsage, "--alpha 5"},
		{"bad limit", []string{"compare", "--limit", "stall=1s", old, old}, exitUsage, `no metric "stall"`},
		{"bad output", []string{"compare", "-o", "html", old, old}, exitUsage, `--output "html"`},
		{"missing", []string{"compare", old, filepath.Join(t.TempDir(), "nope.txt")}, exitError, "new: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), tt.args, &out, &errOut)
			if code != tt.want || !strings.Contains(errOut.String(), tt.line) || tt.line != "" && strings.Count(errOut.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit %d and one line with %q", code, errOut.String(), tt.want, tt.line)
			}
			if tt.want != exitUsage && tt.want != exitError && !strings.Contains(out.String(), "verdict:") {
				t.Errorf("no comparison printed:\n%s", out.String())
			}
		})
	}
	if b, err := os.ReadFile(md); err != nil || !strings.Contains(string(b), "| benchmark |") {
		t.Errorf("--markdown wrote %q, %v", b, err)
	}
}

// TestBenchExternalFile: an external scenario's bad fields are each a line
// naming the file, exit 2, before anything is written.
func TestBenchExternalFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ext.yaml")
	os.WriteFile(file, []byte("trials: 2\nscenarios:\n  - {name: ext, fault: external, brokers: 5}\n"), 0o644)
	out := filepath.Join(dir, "out")
	code, stderr := runOnly(t, newBenchCmd, "bench", file, "--out", out)
	want := []string{"bootstrap: fault external needs", "on_ready: fault external needs", "brokers: kbf does not run"}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != exitUsage || len(lines) != len(want) {
		t.Fatalf("exit %d, stderr %q; want %d usage lines", code, stderr, len(want))
	}
	for i, w := range want {
		if !strings.Contains(lines[i], file+`: scenario "ext": `+w) {
			t.Errorf("line %d %q, want the file, the scenario and %q", i, lines[i], w)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("kbf bench made %s before refusing: %v", out, err)
	}
}

// TestCompareInterruptedLarge checks that kbf compare of large files answers
// an interrupt: exit 130, not a comparison run to its end first.
func TestCompareInterruptedLarge(t *testing.T) {
	old, new := benchTxt(t, "old.txt", 100_000, 1, 0), benchTxt(t, "new.txt", 100_000, 1.01, 0)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	done := make(chan int, 1)
	var errOut bytes.Buffer
	go func() { done <- run(ctx, []string{"compare", old, new}, &bytes.Buffer{}, &errOut) }()
	select {
	case code := <-done:
		if code != exitCanceled {
			t.Errorf("exit %d, stderr %q; want %d", code, errOut.String(), exitCanceled)
		}
	case <-time.After(time.Minute):
		t.Fatal("still comparing a minute after the interrupt")
	}
}

// TestBenchManyScenariosBadLast checks that a benchmark of 10,000
// scenarios whose last is wrong is refused, in one line, before any
// trial: every scenario is checked first, each against a cluster model
// that scenarios of one cluster share.
func TestBenchManyScenariosBadLast(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
	var b strings.Builder
	b.WriteString("trials: 2\nscenarios:\n")
	for i := range 9999 {
		fmt.Fprintf(&b, "  - name: s%d\n    fault: sigkill\n", i)
	}
	b.WriteString("  - name: bad\n    fault: sigkill\n    controllers: 2\n")
	file := filepath.Join(t.TempDir(), "bench.yaml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var errOut bytes.Buffer
	code := run(context.Background(), []string{"bench", file, "--out", out}, &bytes.Buffer{}, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), `scenario "bad": controllers 2`) || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want %d and one line about scenario bad", code, errOut.String(), exitUsage)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused benchmark wrote %s (%v)", out, err)
	}
}

// dockerOpts are the compose options of a Docker cluster's spec, shaped
// for its fault as platform.Open makes it.
func dockerOpts(s platform.Spec, err error) (compose.Options, error) {
	if err != nil || s.Docker == nil {
		return compose.Options{}, err
	}
	return *s.Shaped().Docker, nil
}
