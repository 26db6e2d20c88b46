package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(t *testing.T, o *runOptions)
		wantErr string // part of stderr when the exit code must be exitUsage
	}{
		{name: "defaults", args: []string{"run", "--kill", "sigkill"}, check: func(t *testing.T, o *runOptions) {
			if o.broker != "k1" || o.duration != 30*time.Second || o.faultAfter != 8*time.Second || o.repeat != 1 {
				t.Errorf("options %+v", o)
			}
			c, err := o.flags.config()
			if err != nil || c.Acks != "all" || c.Interval != 20*time.Millisecond || c.Topic != "orders" {
				t.Errorf("probe config %+v, %v", c, err)
			}
		}},
		{name: "acks 1 and repeat", args: []string{"run", "--kill", "sigterm", "--acks", "1", "--repeat", "3", "--broker", "k2"},
			check: func(t *testing.T, o *runOptions) {
				c, _ := o.flags.config()
				if o.kill != "sigterm" || o.repeat != 3 || o.broker != "k2" || c.Acks != "1" {
					t.Errorf("options %+v acks %s", o, c.Acks)
				}
			}},
		{name: "no kill", args: []string{"run"}, wantErr: "--kill is required"},
		{name: "unknown kill", args: []string{"run", "--kill", "sighup"}, wantErr: `--kill "sighup"`},
		{name: "fault after the end", args: []string{"run", "--kill", "sigkill", "--duration", "5s", "--fault-after", "5s"}, wantErr: "--fault-after"},
		{name: "zero repeat", args: []string{"run", "--kill", "sigkill", "--repeat", "0"}, wantErr: "--repeat 0"},
		{name: "bad acks", args: []string{"run", "--kill", "sigkill", "--acks", "0"}, wantErr: `acks "0"`},
		{name: "bad duration", args: []string{"run", "--kill", "sigkill", "--duration", "soon"}, wantErr: "invalid argument"},
		{name: "stray argument", args: []string{"run", "--kill", "sigkill", "k1"}, wantErr: "unexpected argument"},
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
