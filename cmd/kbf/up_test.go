package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/compose"
)

// runOnly runs the kbf command line with add as the only command, and
// returns the exit code and what went to stderr.
func runOnly(t *testing.T, add func(*globals) *cobra.Command, args ...string) (int, string) {
	t.Helper()
	saved := commands
	commands = []func(*globals) *cobra.Command{add}
	t.Cleanup(func() { commands = saved })
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return code, errOut.String()
}

func TestUpFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(t *testing.T, o *upOptions)
		wantErr string // part of stderr when the exit code must be exitUsage
	}{
		{
			name: "defaults",
			args: []string{"up"},
			check: func(t *testing.T, o *upOptions) {
				if o.up.Image != "" || o.up.Timeout != 3*time.Minute {
					t.Errorf("image %q timeout %v", o.up.Image, o.up.Timeout)
				}
				ts := o.up.Topics()
				want := compose.DefaultTopics()
				if len(ts) != 2 || ts[0].Name != want[0].Name || ts[0].Partitions != want[0].Partitions ||
					ts[0].ReplicationFactor != want[0].ReplicationFactor || ts[0].MinInsync != want[0].MinInsync ||
					ts[1].Name != want[1].Name || ts[1].Partitions != 1 || ts[1].ReplicationFactor != 1 ||
					!slices.EqualFunc(ts[1].Assignment([]int32{1, 2, 3}), [][]int32{{1}}, slices.Equal) {
					t.Errorf("topics %+v, want %+v", ts, want)
				}
			},
		},
		{
			name: "every flag",
			args: []string{"up", "--image", "kbf/kafka:4.3.1", "--topic", "t", "--partitions", "6",
				"--replication-factor", "2", "--min-insync", "1", "--single-topic", "s", "--timeout", "90s"},
			check: func(t *testing.T, o *upOptions) {
				ts := o.up.Topics()
				if o.up.Image != "kbf/kafka:4.3.1" || o.up.Timeout != 90*time.Second || len(ts) != 2 ||
					ts[0].Name != "t" || ts[0].Partitions != 6 || ts[0].ReplicationFactor != 2 || ts[0].MinInsync != 1 ||
					ts[1].Name != "s" {
					t.Errorf("options %+v, topics %+v", o, ts)
				}
			},
		},
		{
			name: "no single topic",
			args: []string{"up", "--single-topic", ""},
			check: func(t *testing.T, o *upOptions) {
				if ts := o.up.Topics(); len(ts) != 1 || ts[0].Name != "orders" {
					t.Errorf("topics %+v, want orders only", ts)
				}
			},
		},
		{name: "zero partitions", args: []string{"up", "--partitions", "0"}, wantErr: "topic orders: 0 partitions: want at least 1"},
		{name: "partitions past the bound", args: []string{"up", "--partitions", "2000000000"}, wantErr: "topic orders: 2000000000 partitions: want at most 10000"},
		{name: "negative partitions", args: []string{"up", "--partitions", "-5"}, wantErr: "topic orders: -5 partitions: want at least 1"},
		{name: "partitions not a number", args: []string{"up", "--partitions", "three"}, wantErr: "--partitions"},
		{name: "rf above brokers", args: []string{"up", "--replication-factor", "4"},
			wantErr: "topic orders: replication factor 4 needs 4 brokers, there are 3"},
		{name: "rf 0", args: []string{"up", "--replication-factor", "0"}, wantErr: "replication factor 0: want at least 1"},
		{name: "min insync above rf", args: []string{"up", "--replication-factor", "2", "--min-insync", "3"},
			wantErr: "min.insync.replicas 3: want 1 to the replication factor 2"},
		{name: "negative min insync", args: []string{"up", "--min-insync", "-1"}, wantErr: "min.insync.replicas -1"},
		{name: "empty topic", args: []string{"up", "--topic", ""}, wantErr: "a topic needs a name"},
		{name: "same topics", args: []string{"up", "--single-topic", "orders"}, wantErr: `--single-topic "orders": must differ from --topic`},
		{name: "empty image", args: []string{"up", "--image", ""}, wantErr: "--image: must not be empty"},
		{name: "zero timeout", args: []string{"up", "--timeout", "0s"}, wantErr: "--timeout 0s: must be positive"},
		{name: "bad timeout", args: []string{"up", "--timeout", "soon"}, wantErr: "--timeout"},
		{name: "argument", args: []string{"up", "now"}, wantErr: `unexpected argument "now"`},
		{name: "unknown flag", args: []string{"up", "--nodes", "5"}, wantErr: "unknown flag: --nodes"},
		{
			name: "cluster shape and settings",
			args: []string{"up", "--brokers", "5", "--controllers", "3", "--config", "broker.session.timeout.ms=4000",
				"--config", "c2:broker.heartbeat.interval.ms=1000"},
			check: func(t *testing.T, o *upOptions) {
				opts, err := o.cluster.Options()
				want := []compose.Setting{{Key: "broker.session.timeout.ms", Value: "4000"},
					{Node: "c2", Key: "broker.heartbeat.interval.ms", Value: "1000"}}
				if err != nil || opts.Brokers != 5 || opts.Controllers != 3 || !slices.Equal(opts.Config, want) {
					t.Errorf("options %+v, %v; want 5 brokers, 3 controllers, %v", opts, err, want)
				}
			},
		},
		{name: "two controllers", args: []string{"up", "--controllers", "2"}, wantErr: "--controllers 2: want 1 or 3"},
		{name: "config without value", args: []string{"up", "--config", "broker.session.timeout.ms"},
			wantErr: "want KEY=VALUE or NODE:KEY=VALUE"},
		{name: "config on no such node", args: []string{"up", "--config", "k7:log.retention.ms=1"}, wantErr: "no node k7 (nodes: c1 k1 k2 k3)"},
		{name: "config of the shape", args: []string{"up", "--config", "node.id=3"}, wantErr: "node.id is part of the cluster's shape"},
		{name: "file and brokers", args: []string{"up", "-f", "compose.yaml", "--brokers", "4"},
			wantErr: "--brokers, --controllers and --combined shape the embedded cluster"},
		{name: "combined and controllers", args: []string{"up", "--combined", "--controllers", "3"},
			wantErr: "--combined and --controllers: with --combined the brokers are the controllers"},
		{name: "combined, even brokers", args: []string{"up", "--combined", "--brokers", "4"},
			wantErr: "--combined with --brokers 4: the brokers are the quorum, so want an odd number"},
		{name: "missing file", args: []string{"up", "-f", "no-such-compose.yaml"}, wantErr: "no-such-compose.yaml"},
		{name: "project name without file", args: []string{"up", "--project-name", "x"}, wantErr: "--project-name: only with --file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *upOptions
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newUpCmdF(g, func(_ context.Context, o *upOptions) error { got = o; return nil })
			}, tt.args...)
			if tt.wantErr != "" {
				if code != exitUsage || !strings.Contains(stderr, tt.wantErr) {
					t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.wantErr)
				}
				if got != nil {
					t.Errorf("ran despite the usage error")
				}
				return
			}
			if code != exitOK || got == nil {
				t.Fatalf("exit %d, stderr %q; want it to run", code, stderr)
			}
			tt.check(t, got)
		})
	}
}

func TestDownFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		timeout time.Duration
		wantErr string
	}{
		{name: "defaults", args: []string{"down"}, timeout: time.Minute},
		{name: "timeout", args: []string{"down", "--timeout", "5m"}, timeout: 5 * time.Minute},
		{name: "negative timeout", args: []string{"down", "--timeout", "-1s"}, wantErr: "--timeout -1s: must be positive"},
		{name: "argument", args: []string{"down", "all"}, wantErr: `unexpected argument "all"`},
		{name: "file", args: []string{"down", "-f", "shop.yaml", "--project-name", "shop"}, timeout: time.Minute},
		{name: "project without file", args: []string{"down", "--project-name", "shop"}, wantErr: "--project-name: only with --file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *downOptions
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newDownCmdF(g, func(_ context.Context, o *downOptions) error { got = o; return nil })
			}, tt.args...)
			if tt.wantErr != "" {
				if code != exitUsage || !strings.Contains(stderr, tt.wantErr) || got != nil {
					t.Errorf("exit %d, stderr %q, ran %v; want %d and %q", code, stderr, got != nil, exitUsage, tt.wantErr)
				}
				return
			}
			if code != exitOK || got == nil || got.timeout != tt.timeout {
				t.Errorf("exit %d, stderr %q, options %+v; want timeout %v", code, stderr, got, tt.timeout)
			}
		})
	}
}
