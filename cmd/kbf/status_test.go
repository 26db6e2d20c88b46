package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

func TestStatusFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		topics  []string
		timeout time.Duration
		wantErr string
	}{
		{name: "defaults", args: []string{"status"}, timeout: 30 * time.Second},
		{name: "topics", args: []string{"status", "--topic", "orders,single", "--timeout", "5s"},
			topics: []string{"orders", "single"}, timeout: 5 * time.Second},
		{name: "topic twice", args: []string{"status", "--topic", "a", "--topic", "b"},
			topics: []string{"a", "b"}, timeout: 30 * time.Second},
		{name: "empty topic", args: []string{"status", "--topic", "a,"}, wantErr: "--topic: a topic name must not be empty"},
		{name: "zero timeout", args: []string{"status", "--timeout", "0s"}, wantErr: "--timeout 0s: must be positive"},
		{name: "argument", args: []string{"status", "orders"}, wantErr: `unexpected argument "orders"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *statusOptions
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newStatusCmdF(g, func(_ context.Context, o *statusOptions) error { got = o; return nil })
			}, tt.args...)
			if tt.wantErr != "" {
				if code != exitUsage || !strings.Contains(stderr, tt.wantErr) || got != nil {
					t.Errorf("exit %d, stderr %q, ran %v; want %d and %q", code, stderr, got != nil, exitUsage, tt.wantErr)
				}
				return
			}
			if code != exitOK || got == nil || got.timeout != tt.timeout || !slices.Equal(got.topics, tt.topics) {
				t.Errorf("exit %d, stderr %q, options %+v; want topics %v timeout %v", code, stderr, got, tt.topics, tt.timeout)
			}
		})
	}
}
