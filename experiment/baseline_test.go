package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/chaos"
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
	led := []Partition{
		{Partition: 0, Leader: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{3, 1, 2}},
		{Partition: 1, Leader: 2, Replicas: []int32{2, 3, 1}, ISR: []int32{2, 3, 1}},
	}
	tests := []struct {
		name  string
		edit  func(st []probe.PartitionStats, parts []Partition)
		want  string // part of the reason; "" healthy
		wantP int32
	}{
		{name: "healthy", edit: func([]probe.PartitionStats, []Partition) {}},
		{name: "no ack yet", edit: func(st []probe.PartitionStats, _ []Partition) { st[1].LastAck = time.Time{} },
			want: "no ack yet", wantP: 1},
		{name: "ack gap now", edit: func(st []probe.PartitionStats, _ []Partition) { st[0].LastAck = ago(450 * time.Millisecond) },
			want: "no ack for 0.45 s", wantP: 0},
		{name: "ack gap at the bound is steady", edit: func(st []probe.PartitionStats, _ []Partition) { st[0].LastAck = ago(bound) }},
		{name: "read gap now", edit: func(st []probe.PartitionStats, _ []Partition) { st[1].LastRecv = ago(time.Second) },
			want: "no read for 1.00 s", wantP: 1},
		{name: "a gap ended inside the period", want: "ack gap of 7.50 s ended 2.00 s ago", wantP: 1,
			edit: func(st []probe.PartitionStats, _ []Partition) {
				st[1].AckSteadySince, st[1].LastAckGap = ago(2*time.Second), 7500*time.Millisecond
			}},
		{name: "first acks too recent", want: "reads steady for 1.00 s of 5.00 s", wantP: 0,
			edit: func(st []probe.PartitionStats, _ []Partition) { st[0].RecvSteadySince = ago(time.Second) }},
		{name: "not the preferred leader", want: "led by 3, not its preferred replica", wantP: 1,
			edit: func(_ []probe.PartitionStats, parts []Partition) { parts[1].Leader = 3 }},
		{name: "no leader", want: "led by -1", wantP: 0,
			edit: func(_ []probe.PartitionStats, parts []Partition) { parts[0].Leader = -1 }},
		{name: "ISR short", want: "ISR [2 3], not its whole replica set [2 3 1]", wantP: 1,
			edit: func(_ []probe.PartitionStats, parts []Partition) { parts[1].ISR = []int32{2, 3} }},
		{name: "cluster not described", want: "not described", wantP: 1,
			edit: func(_ []probe.PartitionStats, parts []Partition) { parts[1].Partition = 7 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := []probe.PartitionStats{healthy(0), healthy(1)}
			parts := append([]Partition(nil), led...)
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
	r, _, rep := newRunner(t, w, chaos.SigKill)
	r.Opt.Baseline.Timeout = 10 * time.Millisecond
	err := r.Run(context.Background())
	if !errors.Is(err, ErrNoValidTrial) {
		t.Fatalf("error %v, want ErrNoValidTrial (exit 6)", err)
	}
	if got, want := w.log(), "up probe logs-c1 logs-k1 readback plot"; got != want {
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
	moved := []Partition{
		{Partition: 0, Leader: 2, Replicas: []int32{1, 2, 3}, ISR: []int32{2, 3}},
		{Partition: 1, Leader: 2, Replicas: []int32{2, 3, 1}, ISR: []int32{2, 3, 1}},
	}
	w.parts = moved
	// The cluster heals once it has been asked for the baseline.
	asked := 0
	r, _, rep := newRunner(t, w, chaos.SigKill)
	cl := &healing{world: w, after: 2, asked: &asked}
	r.Target = cl
	tr, err := r.Trial(context.Background(), 1, filepath.Join(r.Opt.Out, results.TrialDir(1)))
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

func (h *healing) Partitions(ctx context.Context, topic string) ([]Partition, error) {
	*h.asked++
	if *h.asked > h.after {
		h.world.mu.Lock()
		h.world.parts = nil
		h.world.mu.Unlock()
	}
	return h.world.Partitions(ctx, topic)
}
