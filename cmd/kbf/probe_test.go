package main

import (
	"context"
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
