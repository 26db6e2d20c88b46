package results

import (
	"testing"
	"time"
)

func TestHostWindow(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	// Three seconds: the first quiet, the second k2 busy, the third stolen.
	h := &Host{CPUs: 2, Start: t0, Samples: []HostSample{
		{At: t0.Add(time.Second), Self: 100 * time.Millisecond, Nodes: map[string]time.Duration{"k1": 200 * time.Millisecond}},
		{At: t0.Add(2 * time.Second), Self: 100 * time.Millisecond, Nodes: map[string]time.Duration{"k1": 200 * time.Millisecond, "k2": 1600 * time.Millisecond}},
		{At: t0.Add(3 * time.Second), Others: 400 * time.Millisecond, Steal: time.Second},
	}}
	tests := []struct {
		name     string
		from, to time.Time
		ok       bool
		span     time.Duration
		cluster  time.Duration
		busiest  string
		steal    float64 // share of the CPUs
	}{
		{name: "all of it", from: t0, to: t0.Add(3 * time.Second), ok: true, span: 3 * time.Second, cluster: 2 * time.Second, busiest: "k2", steal: 1.0 / 6},
		{name: "the busy second", from: t0.Add(time.Second), to: t0.Add(2 * time.Second), ok: true, span: time.Second, cluster: 1800 * time.Millisecond, busiest: "k2"},
		{name: "halves of two samples", from: t0.Add(1500 * time.Millisecond), to: t0.Add(2500 * time.Millisecond), ok: true, span: time.Second,
			cluster: 900 * time.Millisecond, busiest: "k2", steal: 0.25},
		{name: "past the samples", from: t0.Add(5 * time.Second), to: t0.Add(6 * time.Second)},
		{name: "an empty window", from: t0.Add(time.Second), to: t0.Add(time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, ok := h.Window(tt.from, tt.to)
			if ok != tt.ok {
				t.Fatalf("ok %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if n, _ := l.Busiest(); l.Span != tt.span || l.Cluster != tt.cluster || n != tt.busiest {
				t.Errorf("span %v cluster %v busiest %q, want %v %v %q", l.Span, l.Cluster, n, tt.span, tt.cluster, tt.busiest)
			}
			if got := l.Share(l.Steal); got < tt.steal-1e-9 || got > tt.steal+1e-9 {
				t.Errorf("steal share %.4f, want %.4f", got, tt.steal)
			}
		})
	}
	if _, ok := (&Host{CPUs: 2}).Window(t0, t0.Add(time.Second)); ok {
		t.Error("a host without samples covered a window")
	}
}
