//go:build integration

// These tests run the hiccups besides a pause against the real cluster in
// Docker, one at a time:
//
//	KBF_IMAGE=kbf/kafka:4.3.1 go test -tags integration -p 1 ./cmd/kbf/ -run TestIntegrationHiccup -v
//
// packet-loss needs root (nsenter, iptables), as the network faults do.

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/results"
)

// TestIntegrationHiccupStarve starves k1 to 0.05 CPU for 2 s with the
// probe running: the engine confirms the quota, kbf gives the CPU back
// 2 s later, the report's hiccup line says so, and k1's container has no
// quota left.
func TestIntegrationHiccupStarve(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tr := stepsTrial(ctx, t, nil, "--fault", "cpu-starve", "--return-after", "2s", "--duration", "30s")
	f := tr.Meta.Fault
	if f.Kind != results.FaultCPUStarve || f.CPUs != 0.05 || f.Starved.IsZero() || f.Returned.Before(f.Starved.Add(2*time.Second)) {
		t.Fatalf("fault %+v: want k1 starved to 0.05 CPU, confirmed, given back 2 s later", f)
	}
	if h := tr.Hiccup; h == nil || !strings.HasPrefix(h.String(), "k1 starved to 0.05 CPU for 2.") {
		t.Fatalf("hiccup %v", h)
	}
	cl, err := compose.New(compose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ci, err := cl.Docker().ContainerInspect(ctx, cl.ContainerName("k1"))
	if err != nil {
		t.Fatal(err)
	}
	if q := ci.HostConfig.CPUQuota; q > 0 {
		t.Errorf("k1's CPU quota %d after the trial: want none", q)
	}
}

// TestIntegrationHiccupLoss drops 30 % of k1's packets for 2 s: the rules
// are confirmed in place, removed 2 s later, and the hiccup line says so.
func TestIntegrationHiccupLoss(t *testing.T) {
	if err := (chaos.Nsenter{}).Check(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tr := stepsTrial(ctx, t, nil, "--fault", "packet-loss", "--loss", "30%", "--return-after", "2s", "--duration", "30s")
	f := tr.Meta.Fault
	if f.Kind != results.FaultPacketLoss || f.Loss != 0.3 || f.Cut.IsZero() || f.Returned.Before(f.Cut.Add(2*time.Second)) {
		t.Fatalf("fault %+v: want 30%% of k1's packets dropped, confirmed, mended 2 s later", f)
	}
	if h := tr.Hiccup; h == nil || !strings.HasPrefix(h.String(), "k1 losing 30% of its packets for 2.") {
		t.Fatalf("hiccup %v", h)
	}
}
