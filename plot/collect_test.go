package plot

import (
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestCollector: messages out of order and over spans that make the
// collector coarsen and move its slots are all kept, each within one slot
// of its send time.
func TestCollector(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		at   []time.Duration // send times from t0, in the order added
	}{
		{"in order", []time.Duration{0, time.Second, 2 * time.Second}},
		{"earlier than the first", []time.Duration{time.Minute, 0, 30 * time.Second}},
		{"an hour, back and forth", []time.Duration{30 * time.Minute, 0, time.Hour, 45 * time.Minute, -time.Hour}},
		{"two hundred years", []time.Duration{0, 200 * 365 * 24 * time.Hour, time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector()
			for i, d := range tc.at {
				m := results.Message{Partition: int32(i % 2), Sent: t0.Add(d), Acked: t0.Add(d + time.Duration(i+1)*time.Millisecond)}
				c.Add(&m)
			}
			n := 0
			var hi time.Duration
			for _, b := range c.series() {
				for _, s := range b {
					n += int(s.n)
					if s.n > 0 {
						hi = max(hi, s.hi)
					}
				}
			}
			if n != len(tc.at) || c.acked != n {
				t.Errorf("%d messages in the slots, %d counted; want %d", n, c.acked, len(tc.at))
			}
			if want := time.Duration(len(tc.at)) * time.Millisecond; hi != want || c.maxLatency != want {
				t.Errorf("largest latency %v (%v), want %v", hi, c.maxLatency, want)
			}
			// Every send time falls within one slot width of a slot that
			// holds a message.
			for _, d := range tc.at {
				at := t0.Add(d)
				found := false
				for _, b := range c.series() {
					for i, s := range b {
						if s.n > 0 && (c.mid(i).Sub(at)).Abs() <= c.width {
							found = true
						}
					}
				}
				if !found {
					t.Errorf("no slot near %v (width %v)", at, c.width)
				}
			}
		})
	}
}
