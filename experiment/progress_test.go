package experiment

import (
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/probe"
)

func TestProgressLine(t *testing.T) {
	start := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	now := start.Add(12 * time.Second)
	stats := []probe.PartitionStats{
		{Partition: 0, LastAck: now.Add(-8100 * time.Millisecond)},
		{Partition: 1, LastAck: now.Add(-20 * time.Millisecond), Failed: 2},
		{Partition: 2},
	}
	tests := []struct {
		name    string
		phase   string
		end     time.Time
		want    []string
		notWant []string
	}{
		{"time left while probing", "probing", start.Add(30 * time.Second),
			[]string{"probing", " 12.0s", " 18.0s left", "p0 ack age 8.10s", "p1 ack age 0.02s (2 failed)", "p2 ack age -"}, nil},
		{"nothing left after the end, never negative", "recovery", start.Add(10 * time.Second),
			[]string{"recovery", "  0.0s left"}, []string{"-2.0s"}},
		{"no end known", "probing", time.Time{},
			[]string{"probing", "p0 ack age 8.10s"}, []string{"left"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := progressLine(tt.phase, now, start, tt.end, stats)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("progress line %q does not hold %q", got, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("progress line %q holds %q", got, w)
				}
			}
			if strings.Contains(got, "\n") {
				t.Errorf("progress line %q is more than one line", got)
			}
		})
	}
}

// TestProgressLineMany: past progressPartitions the line gives the ack
// ages' spread, whatever the partitions, and the bound is the reports'.
func TestProgressLineMany(t *testing.T) {
	if progressPartitions != analysis.Condense {
		t.Errorf("progress condenses past %d partitions, the reports past %d", progressPartitions, analysis.Condense)
	}
	start := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	now := start.Add(12 * time.Second)
	var stats []probe.PartitionStats
	for p := range int32(1000) {
		s := probe.PartitionStats{Partition: p, LastAck: now.Add(-time.Duration(p) * time.Millisecond)}
		switch p {
		case 17:
			s.LastAck = now.Add(-9 * time.Second)
		case 18:
			s.LastAck = time.Time{}
		case 19:
			s.Failed = 4
		}
		stats = append(stats, s)
	}
	got := progressLine("probing", now, start, start.Add(30*time.Second), stats)
	for _, w := range []string{"1000 partitions: ack age median 0.50s, oldest 9.00s (p17)", "1 not acked yet", "4 failed"} {
		if !strings.Contains(got, w) {
			t.Errorf("progress line %q does not hold %q", got, w)
		}
	}
	if len(got) > 160 || strings.Contains(got, "p999") {
		t.Errorf("progress line %q is not bounded", got)
	}
}

func TestProgressNoAckYet(t *testing.T) {
	start := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	stats := make([]probe.PartitionStats, 4000)
	for i := range stats {
		stats[i].Partition = int32(i)
	}
	got := progressLine("probing", start.Add(5*time.Second), start, time.Time{}, stats)
	if !strings.HasSuffix(got, "4000 partitions: 4000 not acked yet") {
		t.Errorf("progress line %q", got)
	}
	var ps []int32
	for p := range int32(4000) {
		ps = append(ps, p)
	}
	if got := partitionsText(ps); got != "4000 of them, 0 to 3999" {
		t.Errorf("partitions %q", got)
	}
	if got := partitionsText(ps[:3]); got != "[0 1 2]" {
		t.Errorf("partitions %q", got)
	}
}
