package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/experiment"
)

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(t *testing.T, o *runOptions)
		wantErr string // part of stderr when the exit code must be exitUsage
	}{
		{name: "defaults", args: []string{"run", "--kill", "sigkill"}, check: func(t *testing.T, o *runOptions) {
			if o.Base.Trial.Broker != "k1" || o.Base.Trial.Duration != 30*time.Second || o.Base.Trial.FaultAfter != 8*time.Second || o.Base.Trial.Repeat != 1 {
				t.Errorf("options %+v", o)
			}
			c := o.Base.Trial.Probe
			if c.Acks != "all" || c.Interval != 20*time.Millisecond || c.Topic != "orders" {
				t.Errorf("probe config %+v", c)
			}
		}},
		{name: "cluster flags", args: []string{"run", "--kill", "sigkill", "--brokers", "5", "--config", "c1:broker.session.timeout.ms=4000",
			"--broker", "k5"},
			check: func(t *testing.T, o *runOptions) {
				opts, err := o.Cluster.Options()
				if err != nil || opts.Brokers != 5 || len(opts.Config) != 1 || opts.Config[0].Node != "c1" || o.Base.Trial.Broker != "k5" {
					t.Errorf("cluster options %+v, %v", opts, err)
				}
			}},
		{name: "a compose file", args: []string{"run", "--kill", "sigkill", "-f", "shop.yaml", "--project-name", "shop", "--broker", "kafka-1"},
			check: func(t *testing.T, o *runOptions) {
				opts, err := o.Cluster.Options()
				if err != nil || opts.File != "shop.yaml" || opts.ProjectName != "shop" || opts.Brokers != 0 {
					t.Errorf("cluster options %+v, %v", opts, err)
				}
			}},
		{name: "file and brokers", args: []string{"run", "--kill", "sigkill", "-f", "shop.yaml", "--brokers", "4"},
			wantErr: "--brokers, --controllers and --combined shape the embedded cluster"},
		{name: "config past Kafka's limits", args: []string{"run", "--kill", "sigkill", "--config", "broker.session.timeout.ms=3000", "--config", "broker.heartbeat.interval.ms=2000"},
			wantErr: "--config broker.heartbeat.interval.ms=2000 with broker.session.timeout.ms=3000: broker.heartbeat.interval.ms must be at most half broker.session.timeout.ms"},
		{name: "bad config", args: []string{"run", "--kill", "sigkill", "--config", "nokey"}, wantErr: "want KEY=VALUE or NODE:KEY=VALUE"},
		{name: "external on a remote cluster", args: []string{"run", "--fault", "external", "--bootstrap", "b1:9092,b2:9092", "--ready-file", "r", "--on-ready", "true", "--heal-margin", "2s"},
			check: func(t *testing.T, o *runOptions) {
				e := o.Experiment().External
				if len(o.External.Bootstrap) != 2 || e.ReadyFile != "r" || e.OnReady != "true" || e.Margin != 2*time.Second {
					t.Errorf("external options %+v, bootstrap %v", e, o.External.Bootstrap)
				}
			}},
		{name: "another fault on a remote cluster", args: []string{"run", "--fault", "pause", "--bootstrap", "b1:9092"},
			wantErr: "fault pause: kbf cannot inject into a cluster it reaches by --bootstrap"},
		{name: "a ready file with a fault kbf makes", args: []string{"run", "--fault", "sigkill", "--ready-file", "r"},
			wantErr: "--logs, --logs-command, --ready-file, --on-ready and --heal-margin are --fault external's"},
		{name: "a logs command", args: []string{"run", "--fault", "external", "--bootstrap", "b1:9092", "--on-ready", "true", "--logs-command", "kubectl logs -n kafka my-kafka-{id} --since-time={since}"},
			check: func(t *testing.T, o *runOptions) {
				if o.External.LogsCommand != "kubectl logs -n kafka my-kafka-{id} --since-time={since}" {
					t.Errorf("logs command %q", o.External.LogsCommand)
				}
			}},
		{name: "a logs command with a placeholder kbf does not know", args: []string{"run", "--fault", "external", "--bootstrap", "b1:9092", "--logs-command", "kubectl logs {pod}"},
			wantErr: "--logs-command: {pod}: no such placeholder"},
		{name: "a logs command naming no node", args: []string{"run", "--fault", "external", "--bootstrap", "b1:9092", "--logs-command", "cat server.log"},
			wantErr: "--logs-command: names no node"},
		{name: "logs and a logs command", args: []string{"run", "--fault", "external", "--bootstrap", "b1:9092", "--logs", ".", "--logs-command", "cat {id}.log"},
			wantErr: "--logs and --logs-command: give one"},
		{name: "logs that are not a directory", args: []string{"run", "--fault", "external", "--bootstrap", "b1:9092", "--logs", "no-such-dir"},
			wantErr: "--logs no-such-dir: not a directory"},
		{name: "a negative heal margin on a remote cluster", args: []string{"run", "--fault", "external", "--bootstrap", "b1:9092", "--heal-margin", "-1s"},
			wantErr: "--heal-margin -1s: must not be negative"},
		{name: "a heal margin with a fault kbf makes", args: []string{"run", "--fault", "sigkill", "--heal-margin", "2s"},
			wantErr: "are --fault external's"},
		{name: "acks 1 and repeat", args: []string{"run", "--kill", "sigterm", "--acks", "1", "--repeat", "3", "--broker", "k2"},
			check: func(t *testing.T, o *runOptions) {
				c := o.Base.Trial.Probe
				if o.Base.Trial.Kill != "sigterm" || o.Base.Trial.Repeat != 3 || o.Base.Trial.Broker != "k2" || c.Acks != "1" {
					t.Errorf("options %+v acks %s", o, c.Acks)
				}
			}},
		{name: "baseline", args: []string{"run", "--kill", "sigkill", "--baseline", "2s", "--baseline-gap", "300ms", "--baseline-timeout", "10s"},
			check: func(t *testing.T, o *runOptions) {
				b := o.Experiment().Baseline
				if b.Period != 2*time.Second || b.Gap != 300*time.Millisecond || b.Timeout != 10*time.Second {
					t.Errorf("baseline %+v", b)
				}
			}},
		{name: "baseline defaults", args: []string{"run", "--kill", "sigkill"},
			check: func(t *testing.T, o *runOptions) {
				if b := o.Experiment().Baseline; b != experiment.DefaultBaseline {
					t.Errorf("baseline %+v, want %+v", b, experiment.DefaultBaseline)
				}
			}},
		{name: "negative baseline", args: []string{"run", "--kill", "sigkill", "--baseline", "-1s"}, wantErr: "--baseline -1s"},
		{name: "negative baseline gap", args: []string{"run", "--kill", "sigkill", "--baseline-gap", "-1s"}, wantErr: "--baseline-gap"},
		{name: "no kill", args: []string{"run"}, wantErr: "--fault is required (or --kill)"},
		{name: "unknown kill", args: []string{"run", "--kill", "sighup"}, wantErr: `"sighup" is not a fault`},
		{name: "two faults", args: []string{"run", "--fault", "isolate", "--kill", "sigkill"}, wantErr: "--fault and --kill name one fault"},
		{name: "fault after the end", args: []string{"run", "--kill", "sigkill", "--duration", "5s", "--fault-after", "5s"}, wantErr: "--fault-after"},
		{name: "return after the end", args: []string{"run", "--fault", "two-brokers", "--duration", "20s", "--fault-after", "5s", "--return-after", "15s"}, wantErr: "--return-after"},
		{name: "return after a kill", args: []string{"run", "--kill", "sigkill", "--duration", "20s", "--return-after", "2s"}, wantErr: "cannot be undone while probing"},
		{name: "zero repeat", args: []string{"run", "--kill", "sigkill", "--repeat", "0"}, wantErr: "--repeat 0"},
		{name: "bad acks", args: []string{"run", "--kill", "sigkill", "--acks", "0"}, wantErr: `acks "0"`},
		{name: "bad duration", args: []string{"run", "--kill", "sigkill", "--duration", "soon"}, wantErr: "invalid argument"},
		{name: "clients", args: []string{"run", "--kill", "sigkill", "--clients", "franz-go,librdkafka,java", "--client-set", "java:retry.backoff.ms=50"},
			check: func(t *testing.T, o *runOptions) {
				e := o.Experiment()
				if len(e.Clients) != 3 || e.Clients[2] != clients.Java || e.ClientSettings[clients.Java]["retry.backoff.ms"] != "50" {
					t.Errorf("clients %v, settings %v", e.Clients, e.ClientSettings)
				}
			}},
		{name: "clients default", args: []string{"run", "--kill", "sigkill"},
			check: func(t *testing.T, o *runOptions) {
				if e := o.Experiment(); len(e.Clients) != 1 || e.Clients[0] != clients.FranzGo {
					t.Errorf("clients %v, want franz-go alone", e.Clients)
				}
			}},
		{name: "kip951 off", args: []string{"run", "--kill", "sigterm", "--kip951=false"},
			check: func(t *testing.T, o *runOptions) {
				if c := o.Base.Trial.Probe; !c.NoKIP951 {
					t.Error("--kip951=false left KIP-951 on")
				}
			}},
		{name: "kip951 default on", args: []string{"run", "--kill", "sigterm"},
			check: func(t *testing.T, o *runOptions) {
				if c := o.Base.Trial.Probe; c.NoKIP951 {
					t.Error("KIP-951 off by default")
				}
			}},
		{name: "kip951 not a bool", args: []string{"run", "--kill", "sigterm", "--kip951=maybe"}, wantErr: "want true or false"},
		{name: "unknown client", args: []string{"run", "--kill", "sigkill", "--clients", "franz-go,sarama"}, wantErr: `unknown client "sarama"`},
		{name: "client-set for a client not chosen", args: []string{"run", "--kill", "sigkill", "--client-set", "java:linger.ms=5"}, wantErr: "java is not in --clients"},
		{name: "client-set without a value", args: []string{"run", "--kill", "sigkill", "--clients", "java", "--client-set", "java:linger.ms"}, wantErr: "want CLIENT:KEY=VALUE"},
		{name: "stray argument", args: []string{"run", "--kill", "sigkill", "k1"}, wantErr: "unexpected argument"},
		{name: "interval of a nanosecond", args: []string{"run", "--kill", "sigkill", "--interval", "1ns"}, wantErr: "--interval 1ns: must be at least 1ms"},
		{name: "duration past a day", args: []string{"run", "--kill", "sigkill", "--duration", "2562047h"}, wantErr: "--duration 2562047h0m0s: must be positive and at most 24h0m0s"},
		{name: "a partition twice", args: []string{"run", "--kill", "sigkill", "--partitions", "0,0"}, wantErr: "--partitions 0,0: partition 0 given twice"},
		{name: "a partition past the bound", args: []string{"run", "--kill", "sigkill", "--partitions", "99999"}, wantErr: "--partitions 99999: partition 99999: want 0 to 9999"},
		{name: "negative replica interval", args: []string{"run", "--kill", "sigkill", "--replica-interval", "-1s"}, wantErr: "--replica-interval -1s: must not be negative"},
		{name: "a billion trials", args: []string{"run", "--kill", "sigkill", "--repeat", "1000000000"}, wantErr: "--repeat 1000000000: want 1 to 1000"},
		{name: "bad last step", args: []string{"run", "--fault", "last-replica", "--last-step", "pause"}, wantErr: `--last-step "pause": want sigkill or sigterm`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *runOptions
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newRunCmdF(g, func(_ context.Context, o *runOptions) error { got = o; return nil })
			}, tt.args...)
			if tt.wantErr != "" {
				checkUsageError(t, code, stderr, tt.wantErr, got != nil)
				return
			}
			if code != exitOK || got == nil {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			tt.check(t, got)
		})
	}
}

func TestReportFlags(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no path", []string{"report"}, "one PATH"},
		{"two paths", []string{"report", "a", "b"}, "one PATH"},
		{"bad output", []string{"report", "x", "-o", "yaml"}, `--output "yaml"`},
		{"bad fault time", []string{"report", "x", "--fault-at", "3am"}, "--fault-at"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newReportCmdF(g, func(context.Context, *reportOptions, string) error { called = true; return nil })
			}, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.wantErr) || called {
				t.Errorf("exit %d, stderr %q, called %v; want usage error with %q", code, stderr, called, tt.wantErr)
			}
		})
	}
}

// checkUsageError checks a command line was refused as a usage error: exit
// code 2, one line naming the mistake, and the command's work not begun.
func checkUsageError(t *testing.T, code int, stderr, want string, ran bool) {
	t.Helper()
	if code != exitUsage || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want exit %d and one line with %q", code, stderr, exitUsage, want)
	}
	if ran {
		t.Error("runF called on bad input")
	}
}

func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		name   string
		err    func(cancel context.CancelFunc) error // what the run returns
		want   int
		stderr string
	}{
		{name: "done", err: func(context.CancelFunc) error { return nil }, want: exitOK},
		{name: "interrupted", want: exitCanceled, stderr: "interrupted",
			err: func(cancel context.CancelFunc) error { cancel(); return fmt.Errorf("trial 1: %w", context.Canceled) }},
		{name: "findings", want: exitFindings, stderr: "acknowledged records were lost",
			err: func(context.CancelFunc) error {
				return fmt.Errorf("%w: acknowledged records were lost", analysis.ErrFindings)
			}},
		{name: "results directory in use", want: exitUsage, stderr: "choose another --out",
			err: func(context.CancelFunc) error {
				return usageError{fmt.Errorf("x %w; choose another --out", experiment.ErrDirInUse)}
			}},
		{name: "no valid trial", want: exitNoValid, stderr: "no trial was valid",
			err: func(context.CancelFunc) error {
				return fmt.Errorf("%w: 1 of 1 trials not valid", analysis.ErrNoValidTrial)
			}},
		{name: "trial failed", want: exitError, stderr: "trial 1: inject",
			err: func(context.CancelFunc) error { return errors.New("trial 1: inject sigkill into k1: boom") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := commands
			t.Cleanup(func() { commands = saved })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			commands = []func(*globals) *cobra.Command{func(g *globals) *cobra.Command {
				return newRunCmdF(g, func(context.Context, *runOptions) error { return tt.err(cancel) })
			}}
			var out, errOut bytes.Buffer
			code := run(ctx, []string{"run", "--kill", "sigkill"}, &out, &errOut)
			if code != tt.want || !strings.Contains(errOut.String(), tt.stderr) || strings.Count(errOut.String(), "\n") > 1 {
				t.Errorf("exit %d, stderr %q; want exit %d and one line with %q", code, errOut.String(), tt.want, tt.stderr)
			}
		})
	}
}

func TestRunExperimentOptions(t *testing.T) {
	var got *runOptions
	code, stderr := runOnly(t, func(g *globals) *cobra.Command {
		return newRunCmdF(g, func(_ context.Context, o *runOptions) error { got = o; return nil })
	}, "run", "--kill", "sigterm", "--grace", "5s", "--repeat", "2", "--out", "x", "--partitions", "1", "--recovery-timeout", "1m")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	o := got.Experiment()
	if o.Kill != "sigterm" || o.Grace != 5*time.Second || o.Repeat != 2 || o.Out != "x" || o.RecoveryTimeout != time.Minute ||
		len(o.Probe.Partitions) != 1 || o.Probe.Partitions[0] != 1 || o.Version != version {
		t.Errorf("options %+v", o)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("the flags' options are refused: %v", err)
	}
}

// TestHelp checks the help of the commands that use Kafka's terms: each
// term said is explained, the exit codes stated, and lines fit 80 columns.
func TestHelp(t *testing.T) {
	explained := map[string]string{
		"ISR":              "in-sync replicas",
		"ELR":              "eligible leader",
		"high watermark":   "The high\nwatermark is",
		"leader epoch":     "The leader epoch counts",
		"preferred leader": "The preferred leader is",
		"acks":             "acks is how many replicas",
	}
	for _, c := range []struct {
		name string
		add  func(*globals) *cobra.Command
	}{{"run", newRunCmd}, {"up", newUpCmd}, {"status", newStatusCmd}, {"down", newDownCmd}, {"probe", newProbeCmd}} {
		t.Run(c.name, func(t *testing.T) {
			saved := commands
			t.Cleanup(func() { commands = saved })
			commands = []func(*globals) *cobra.Command{c.add}
			var out, errOut bytes.Buffer
			if code := run(context.Background(), []string{c.name, "--help"}, &out, &errOut); code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			help := out.String()
			long, _, _ := strings.Cut(help, "Usage:")
			for term, says := range explained {
				if strings.Contains(long, term) && !strings.Contains(help, says) {
					t.Errorf("the help uses %s without saying what it is (%q)", term, says)
				}
			}
			if !strings.Contains(help, "Exit status:") || !strings.Contains(help, "130  interrupted") {
				t.Error("the help does not state the exit codes")
			}
			for i, line := range strings.Split(help, "\n") {
				if n := utf8.RuneCountInString(line); n > 80 {
					t.Errorf("line %d is %d columns: %q", i+1, n, line)
				}
			}
			if strings.Count(help, "--partitions") > 0 && strings.Contains(help, "(default [])") {
				t.Error("--partitions shows two defaults")
			}
		})
	}
}

// TestClusterSpecShaped: kbf's Docker cluster is shaped for the faulted
// broker (it leads partition 0; a disk-full's gets the tmpfs), and for none
// when --broker names the group's coordinator, found only at the fault.
func TestClusterSpecShaped(t *testing.T) {
	for _, c := range []struct {
		broker, lead string
		disks        map[string]string
	}{
		{broker: "k2", lead: "k2", disks: map[string]string{"k2": "128m"}},
		{broker: experiment.BrokerCoordinator},
	} {
		t.Run(c.broker, func(t *testing.T) {
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newRunCmdF(g, func(_ context.Context, o *runOptions) error {
					o.Base.Trial.Broker = c.broker // past validate, which wants a group for the coordinator
					s, err := o.Spec()
					if err != nil {
						return err
					}
					s = s.Shaped() // as platform.Open makes it
					if s.Docker == nil || s.Docker.Lead != c.lead || fmt.Sprint(s.Docker.DiskLimits) != fmt.Sprint(c.disks) {
						t.Errorf("spec %+v: want lead %q, tmpfs %v", s.Docker, c.lead, c.disks)
					}
					return nil
				})
			}, "run", "--fault", "disk-full", "--broker", "k2")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
		})
	}
}
