package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestProbeBootstrapFlag(t *testing.T) {
	tests := []struct {
		name string
		args []string
		set  bool
	}{
		{"default addresses", []string{"probe"}, false},
		{"explicit", []string{"probe", "--bootstrap", "10.0.0.1:9092"}, true},
		{"a compose file", []string{"probe", "-f", "shop.yaml"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *probeOptions
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newProbeCmdF(g, func(_ context.Context, o *probeOptions) error { got = o; return nil })
			}, tt.args...)
			if code != exitOK || got == nil {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if got.bootstrapSet != tt.set {
				t.Errorf("bootstrapSet = %v, want %v", got.bootstrapSet, tt.set)
			}
		})
	}
}

func TestProbeFlagsRefused(t *testing.T) {
	code, stderr := runOnly(t, newProbeCmd, "probe", "-f", "shop.yaml", "--bootstrap", "h:1")
	if code != exitUsage || !strings.Contains(stderr, "--bootstrap and --file: give one") {
		t.Errorf("exit %d, stderr %q; want a usage error", code, stderr)
	}
}

func TestProbeRanges(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no duration", []string{"probe", "--duration", "0s"}, "--duration 0s: must be positive"},
		{"duration past a day", []string{"probe", "--duration", "2562047h"}, "--duration 2562047h0m0s: must be positive and at most 24h0m0s"},
		{"interval of a nanosecond", []string{"probe", "--interval", "1ns"}, "--interval 1ns: must be at least 1ms"},
		{"a partition twice", []string{"probe", "--partitions", "1,0,1"}, "--partitions 1,0,1: partition 1 given twice"},
		{"a partition past the bound", []string{"probe", "--partitions", "99999"}, "--partitions 99999: partition 99999: want 0 to 9999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newProbeCmdF(g, func(context.Context, *probeOptions) error { t.Error("ran"); return nil })
			}, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.wantErr) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want one usage line with %q", code, stderr, tt.wantErr)
			}
		})
	}
}

// An --out that cannot be written is found before anything starts: these
// run the real commands, which would need Docker and Kafka past the
// check.
func TestOutNotWritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(file, "run")
	for _, args := range [][]string{
		{"run", "--kill", "sigkill", "--out", out},
		{"probe", "--out", out},
		{"probe", "--bootstrap", "127.0.0.1:1", "--out", out},
	} {
		t.Run(args[0]+" "+args[1], func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, &stdout, &stderr)
			want := "--out " + strconv.Quote(out) + ": " + file + " is not a directory"
			if code != exitUsage || !strings.Contains(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want one usage line with %q", code, stderr.String(), want)
			}
		})
	}
}
