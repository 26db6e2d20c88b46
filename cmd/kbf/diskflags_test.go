package main

import (
	"context"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/platform"
)

func TestDiskFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(t *testing.T, o *runOptions)
		wantErr string
	}{
		{name: "disk-slow", args: []string{"run", "--fault", "disk-slow", "--disk-delay", "200ms"}, check: func(t *testing.T, o *runOptions) {
			if d := o.Experiment().Disk; d.Delay != 200*time.Millisecond || d.AllReplicas {
				t.Errorf("disk options %+v", d)
			}
			spec, err := o.Spec()
			spec = spec.Shaped()
			if err != nil || spec.Docker == nil || len(spec.Docker.FaultDisks) != 1 {
				t.Fatalf("cluster spec %+v, %v; want k1 on a FUSE layer", spec, err)
			}
			if _, ok := spec.Docker.FaultDisks["k1"]; !ok {
				t.Errorf("fault disks %v, want k1's", spec.Docker.FaultDisks)
			}
		}},
		{name: "power-loss of every replica", args: []string{"run", "--fault", "power-loss", "--brokers-lost", "all-replicas"}, check: func(t *testing.T, o *runOptions) {
			if !o.Experiment().Disk.AllReplicas {
				t.Error("all-replicas not passed on")
			}
			spec, err := o.Spec()
			if err != nil || spec.Docker == nil {
				t.Fatal(err)
			}
			if _, ok := spec.Shaped().Docker.FaultDisks[platform.AllBrokers]; !ok {
				t.Errorf("fault disks %v, want every broker's", spec.Docker.FaultDisks)
			}
		}},
		{name: "disk-error on a compose file leaves its disks", args: []string{"run", "--fault", "disk-error", "-f", "shop.yaml", "--broker", "kafka-1"}, check: func(t *testing.T, o *runOptions) {
			spec, err := o.Spec()
			spec = spec.Shaped()
			if err != nil || spec.Docker == nil || spec.Docker.FaultDisks != nil {
				t.Errorf("cluster spec %+v, %v; want no FUSE layer on a user's file", spec, err)
			}
		}},
		{name: "disk-slow without a delay", args: []string{"run", "--fault", "disk-slow"}, wantErr: "--fault disk-slow needs --disk-delay"},
		{name: "a negative delay", args: []string{"run", "--fault", "disk-slow", "--disk-delay", "-1s"}, wantErr: "--fault disk-slow needs --disk-delay"},
		{name: "a delay past a minute", args: []string{"run", "--fault", "disk-slow", "--disk-delay", "2m"}, wantErr: "--disk-delay 2m0s: at most 1m"},
		{name: "a delay for another fault", args: []string{"run", "--fault", "sigkill", "--disk-delay", "200ms"}, wantErr: "--disk-delay is disk-slow's, not sigkill's"},
		{name: "brokers lost, a number", args: []string{"run", "--fault", "power-loss", "--brokers-lost", "2"}, wantErr: `--brokers-lost "2": want 1 or all-replicas`},
		{name: "brokers lost for another fault", args: []string{"run", "--fault", "disk-error", "--brokers-lost", "all-replicas"}, wantErr: "--brokers-lost all-replicas is power-loss's, not disk-error's"},
		{name: "every replica of a role", args: []string{"run", "--fault", "power-loss", "--brokers-lost", "all-replicas", "--consumer", "group", "--broker", "coordinator"},
			wantErr: "a power-loss of every replica takes every broker"},
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

func TestBenchDiskFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"brokers lost, a number", []string{"bench", "--kill", "power-loss", "--brokers-lost", "3"}, `--brokers-lost "3": want 1 or all-replicas`},
		{"a delay past a minute, with a file", []string{"bench", "scenarios.yaml", "--disk-delay", "5m"}, "--disk-delay 5m0s: at most 1m"},
		{"disk-slow without a delay", []string{"bench", "--kill", "disk-slow"}, "--disk-delay 0s: disk-slow needs a positive delay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			called := false
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newBenchCmdF(g, func(context.Context, *benchOptions) error { called = true; return nil })
			}, tc.args...)
			checkUsageError(t, code, stderr, tc.want, called)
		})
	}
}
