package gaps

import (
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestLag: the records of each second of sending, those never acked, and
// the longest wait for an ack, whatever order the messages come in.
func TestLag(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	r := NewReport(Options{})
	add := func(p int32, sent, acked time.Duration, failed bool) {
		m := &results.Message{Partition: p, Sent: t0.Add(sent), Offset: -1}
		if acked >= 0 {
			m.Acked = t0.Add(acked)
		}
		if failed {
			m.Err = "boom"
		}
		r.Add(m)
	}
	add(0, 1500*time.Millisecond, 1600*time.Millisecond, false)
	add(1, 100*time.Millisecond, 900*time.Millisecond, false)
	add(0, 200*time.Millisecond, -1, false)
	add(1, 1700*time.Millisecond, -1, true) // failed: not pending
	add(0, 1900*time.Millisecond, -1, false)
	add(1, 300*time.Millisecond, 400*time.Millisecond, false)
	r.Close()
	want := []LagSecond{
		{From: t0, Sent: 3, Pending: 1, MaxLatency: 800 * time.Millisecond},
		{From: t0.Add(time.Second), Sent: 3, Pending: 1, MaxLatency: 100 * time.Millisecond},
	}
	if len(r.Lag) != len(want) {
		t.Fatalf("lag %+v, want %+v", r.Lag, want)
	}
	for i := range want {
		if r.Lag[i] != want[i] {
			t.Errorf("second %d: %+v, want %+v", i, r.Lag[i], want[i])
		}
	}
}
