package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// stranger is a probe-only target whose brokers are not its own.
type stranger struct{ At }

func (stranger) Identify(context.Context) error {
	return errors.New("the brokers are cluster X, not kbf's")
}

func TestProbeOnly(t *testing.T) {
	tests := []struct {
		name      string
		target    Reachable
		bootstrap []string // the options'
		want      string   // the error; "" for none
		calls     string   // what the fake world saw
		wantAddrs []string // the probe's bootstrap
	}{
		{name: "the target's addresses", target: At{"10.0.0.1:9092"}, calls: "probe", wantAddrs: []string{"10.0.0.1:9092"}},
		{name: "the options' addresses first", target: At{"10.0.0.1:9092"}, bootstrap: []string{"h:1"}, calls: "probe", wantAddrs: []string{"h:1"}},
		{name: "another cluster", target: stranger{At{"10.0.0.1:9092"}}, want: "the brokers are cluster X, not kbf's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			var addrs []string
			newProbe := func(ctx context.Context, cfg probe.Config, out probe.Output) (Probe, error) {
				addrs = cfg.Bootstrap
				return w.newProbe(ctx, cfg, out)
			}
			cfg := probe.Defaults()
			cfg.Bootstrap = tt.bootstrap
			out := filepath.Join(t.TempDir(), "probe")
			p := &ProbeOnly{Opt: ProbeOptions{Duration: 10 * time.Millisecond, Out: out, Probe: cfg, Version: "test"}, Target: tt.target, NewProbe: newProbe}
			err := p.Run(context.Background())
			if tt.want != "" {
				if err == nil || err.Error() != tt.want {
					t.Fatalf("Run: %v, want %q", err, tt.want)
				}
				if _, err := os.Stat(out); err == nil {
					t.Error("a refused probe left its directory behind")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.log() != tt.calls || strings.Join(addrs, ",") != strings.Join(tt.wantAddrs, ",") {
				t.Errorf("calls %q, addresses %v; want %q, %v", w.log(), addrs, tt.calls, tt.wantAddrs)
			}
			m, err := results.ReadMeta(out)
			if err != nil {
				t.Fatal(err)
			}
			if m.Kind != "probe" || m.Ended.IsZero() || m.Probe.LongestSendGap != 42*time.Millisecond {
				t.Errorf("meta %+v: want a probe's, ended, with the probe's result", m)
			}
		})
	}
}
