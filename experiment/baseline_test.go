package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

func TestSteady(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	period, bound := 5*time.Second, 200*time.Millisecond
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	healthy := func(p int32) probe.PartitionStats {
		return probe.PartitionStats{Partition: p, LastAck: ago(10 * time.Millisecond), LastRecv: ago(15 * time.Millisecond),
			AckSteadySince: ago(20 * time.Second), RecvSteadySince: ago(20 * time.Second)}
	}
	led := []cluster.Partition{
		{Partition: 0, Leader: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{3, 1, 2}},
		{Partition: 1, Leader: 2, Replicas: []int32{2, 3, 1}, ISR: []int32{2, 3, 1}},
	}
	tests := []struct {
		name  string
		edit  func(st []probe.PartitionStats, parts []cluster.Partition)
		want  string // part of the reason; "" healthy
		wantP int32
	}{
		{name: "healthy", edit: func([]probe.PartitionStats, []cluster.Partition) {}},
		{name: "no ack yet", edit: func(st []probe.PartitionStats, _ []cluster.Partition) { st[1].LastAck = time.Time{} },
			want: "no ack yet", wantP: 1},
		{name: "ack gap now", edit: func(st []probe.PartitionStats, _ []cluster.Partition) { st[0].LastAck = ago(450 * time.Millisecond) },
			want: "no ack for 0.45 s", wantP: 0},
		{name: "ack gap at the bound is steady", edit: func(st []probe.PartitionStats, _ []cluster.Partition) { st[0].LastAck = ago(bound) }},
		{name: "read gap now", edit: func(st []probe.PartitionStats, _ []cluster.Partition) { st[1].LastRecv = ago(time.Second) },
			want: "no read for 1.00 s", wantP: 1},
		{name: "a gap ended inside the period", want: "ack gap of 7.50 s ended 2.00 s ago", wantP: 1,
			edit: func(st []probe.PartitionStats, _ []cluster.Partition) {
				st[1].AckSteadySince, st[1].LastAckGap = ago(2*time.Second), 7500*time.Millisecond
			}},
		{name: "first acks too recent", want: "reads steady for 1.00 s of 5.00 s", wantP: 0,
			edit: func(st []probe.PartitionStats, _ []cluster.Partition) { st[0].RecvSteadySince = ago(time.Second) }},
		{name: "not the preferred leader", want: "led by 3, not its preferred replica", wantP: 1,
			edit: func(_ []probe.PartitionStats, parts []cluster.Partition) { parts[1].Leader = 3 }},
		{name: "no leader", want: "led by -1", wantP: 0,
			edit: func(_ []probe.PartitionStats, parts []cluster.Partition) { parts[0].Leader = -1 }},
		{name: "ISR short", want: "ISR [2 3], not its whole replica set [2 3 1]", wantP: 1,
			edit: func(_ []probe.PartitionStats, parts []cluster.Partition) { parts[1].ISR = []int32{2, 3} }},
		{name: "cluster not described", want: "not described", wantP: 1,
			edit: func(_ []probe.PartitionStats, parts []cluster.Partition) { parts[1].Partition = 7 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := []probe.PartitionStats{healthy(0), healthy(1)}
			parts := append([]cluster.Partition(nil), led...)
			tt.edit(st, parts)
			u := Steady(now, period, bound, st, parts)
			switch {
			case tt.want == "" && u != nil:
				t.Errorf("unhealthy: %v", u)
			case tt.want != "" && u == nil:
				t.Errorf("healthy, want %q", tt.want)
			case tt.want != "" && (u.Partition != tt.wantP || !strings.Contains(u.Why, tt.want)):
				t.Errorf("got %v, want p%d %q", u, tt.wantP, tt.want)
			}
		})
	}
}

func TestBaselineNeverHealthy(t *testing.T) {
	w := newWorld()
	w.stats = func(now time.Time) []probe.PartitionStats {
		return []probe.PartitionStats{{Partition: 0, LastAck: now, LastRecv: now}, {Partition: 1}}
	}
	r, _, rep := newRunner(t, w, results.FaultSIGKILL)
	r.Opt.Baseline.Timeout = 10 * time.Millisecond
	err := runAnalysed(context.Background(), r)
	if !errors.Is(err, analysis.ErrNoValidTrial) {
		t.Fatalf("error %v, want ErrNoValidTrial (exit 6)", err)
	}
	if got, want := w.log(), "up probe logs-c1 logs-k1 readback"; got != want {
		t.Errorf("calls:\n got %s\nwant %s (no fault, nothing to undo)", got, want)
	}
	if !strings.Contains(rep.String(), "baseline: waiting: p1 no ack yet") {
		t.Errorf("progress does not say why it waits:\n%s", rep)
	}
	m, err := results.ReadMeta(filepath.Join(r.Opt.Out, results.TrialDir(1)))
	if err != nil {
		t.Fatal(err)
	}
	if m.Fault != nil || m.Baseline == nil || m.Baseline.Unhealthy != "p1 no ack yet" || !m.Baseline.Healthy.IsZero() {
		t.Errorf("fault %+v, baseline %+v", m.Fault, m.Baseline)
	}
}

func TestBaselineWaitsForLeaders(t *testing.T) {
	w := newWorld()
	moved := []cluster.Partition{
		{Partition: 0, Leader: 2, Replicas: []int32{1, 2, 3}, ISR: []int32{2, 3}},
		{Partition: 1, Leader: 2, Replicas: []int32{2, 3, 1}, ISR: []int32{2, 3, 1}},
	}
	w.parts = moved
	// The cluster heals once it has been asked for the baseline.
	asked := 0
	r, _, rep := newRunner(t, w, results.FaultSIGKILL)
	cl := &healing{world: w, after: 2, asked: &asked}
	r.Target = cl
	tr, err := analysed(context.Background(), r, 1, filepath.Join(r.Opt.Out, results.TrialDir(1)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.log(), "inject") {
		t.Fatalf("no fault once healthy: %s", w.log())
	}
	b := tr.Meta.Baseline
	if b == nil || b.Healthy.IsZero() || len(b.Waited) == 0 || !strings.Contains(b.Waited[0], "p0 led by 2") {
		t.Errorf("baseline %+v", b)
	}
	if !strings.Contains(rep.String(), "baseline: waiting: p0 led by 2") {
		t.Errorf("progress:\n%s", rep)
	}
	if tr.Verdict == nil || tr.Verdict.Status != verdict.Valid {
		t.Errorf("verdict %v", tr.Verdict)
	}
}

// healing is a cluster whose partitions are healthy from the after-th
// time they are described.
type healing struct {
	*world
	after int
	asked *int
}

func (h *healing) Partitions(ctx context.Context, topic string) ([]cluster.Partition, error) {
	*h.asked++
	if *h.asked > h.after {
		h.world.mu.Lock()
		h.world.parts = nil
		h.world.mu.Unlock()
	}
	return h.world.Partitions(ctx, topic)
}

// cpuSamples is a 2-CPU host whose cluster used the given shares of both
// CPUs, a second each, the last ending at end; k2 used most of it.
func cpuSamples(end time.Time, shares ...float64) *results.Host {
	start := end.Add(-time.Duration(len(shares)) * time.Second)
	h := &results.Host{CPUs: 2, Start: start}
	for i, f := range shares {
		cpu := time.Duration(f * float64(2*time.Second))
		h.Samples = append(h.Samples, results.HostSample{At: start.Add(time.Duration(i+1) * time.Second),
			Nodes: map[string]time.Duration{"k2": cpu * 3 / 4, "k1": cpu / 4}})
	}
	return h
}

func TestSettling(t *testing.T) {
	end := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		shares []float64
		want   string // "" when settled
		share  float64
	}{
		{name: "not measured", want: ""},
		{name: "too few samples to say", shares: []float64{0.99, 0.98}, want: ""},
		{name: "quiet", shares: []float64{0.9, 0.9, 0.9, 0.2, 0.2, 0.2}, share: 0.2},
		{name: "busy at a steady rate", shares: []float64{0.8, 0.8, 0.8, 0.8, 0.8, 0.8}, share: 0.8},
		{name: "a plateau on saturated CPUs is no rest", shares: []float64{0.96, 0.96, 0.96, 0.96, 0.96, 0.96}, share: 0.96,
			want: "the cluster's CPU is settling (k2 72 % over the last 3 s; the cluster 96 % of the CPUs, 96 % the 3 s before)"},
		{name: "warming up, falling", shares: []float64{0.99, 0.98, 0.97, 0.9, 0.85, 0.8}, share: 0.85,
			want: "the cluster's CPU is settling (k2 64 % over the last 3 s; the cluster 85 % of the CPUs, 98 % the 3 s before)"},
		{name: "busy with only 3 s to go by", shares: []float64{0.99, 0.98, 0.97}, share: 0.98,
			want: "the cluster's CPU is settling (k2 74 % over the last 3 s; the cluster 98 % of the CPUs)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := cpuSamples(end, tt.shares...)
			why, share := settling(h)
			if why != tt.want {
				t.Errorf("settling = %q, want %q", why, tt.want)
			}
			if tt.share != 0 && (share < tt.share-0.001 || share > tt.share+0.001) {
				t.Errorf("share %.3f, want %.3f", share, tt.share)
			}
		})
	}
}

// TestBaselineWaitsForTheClusterCPU runs the baseline against a cluster
// whose CPU is still falling: it says so while it waits, and when the
// timeout comes with the acks steady the fault goes ahead, the record
// saying why.
func TestBaselineWaitsForTheClusterCPU(t *testing.T) {
	for _, tt := range []struct {
		name      string
		shares    []float64
		unsettled bool
	}{
		{"settled", []float64{0.9, 0.9, 0.9, 0.3, 0.3, 0.3}, false},
		{"still falling", []float64{0.99, 0.98, 0.97, 0.9, 0.85, 0.8}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			r, _, rep := newRunner(t, w, results.FaultSIGKILL)
			r.Opt.Baseline.Timeout = 300 * time.Millisecond
			p, err := w.newProbe(context.Background(), r.Opt.Probe, probe.Output{Messages: &strings.Builder{}})
			if err != nil {
				t.Fatal(err)
			}
			h := cpuSamples(time.Now(), tt.shares...)
			m := &hostMeter{cpus: 2, start: hostSample{at: h.Start}, samples: h.Samples}
			tr := &trial{r: r, o: &r.Opt, p: p, host: m, ctx: context.Background()}
			b, err := tr.waitHealthy(context.Background(), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if b.Healthy.IsZero() || b.Unhealthy != "" {
				t.Fatalf("baseline %+v: the fault should go ahead", b)
			}
			if got := b.Unsettled != ""; got != tt.unsettled {
				t.Errorf("unsettled %q, want it %v", b.Unsettled, tt.unsettled)
			}
			said := strings.Contains(rep.String(), "baseline: waiting: the cluster's CPU is settling (k2 64 % over the last 3 s")
			if said != tt.unsettled || tt.unsettled && !strings.Contains(rep.String(), "the fault goes ahead") {
				t.Errorf("progress:\n%s", rep)
			}
			if tt.unsettled && (len(b.Waited) == 0 || !strings.Contains(b.Waited[0], "the cluster's CPU is settling")) {
				t.Errorf("waited %q", b.Waited)
			}
			if b.ClusterCPU < 0.29 {
				t.Errorf("cluster CPU %.2f not recorded", b.ClusterCPU)
			}
		})
	}
}
