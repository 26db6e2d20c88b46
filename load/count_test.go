package load

import (
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// clock is a settable clock for the counter.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestCounterSeconds(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	c := &clock{t0.Add(300 * time.Millisecond)}
	n := newCounter(c.now)
	n.start()
	n.add(evSent, 3, "")
	n.add(evAcked, 2, "")
	c.t = t0.Add(1200 * time.Millisecond)
	n.add(evFailed, 1, "NOT_ENOUGH_REPLICAS")
	n.add(evFailed, 1, "a later error")
	if got := n.done(false); len(got) != 1 || got[0] != (results.LoadSecond{Second: t0, Sent: 3, Acked: 2}) {
		t.Fatalf("first second: %+v", got)
	}
	// Nothing in the third second, then a read in the fourth: the third is
	// a row of zeros, the fourth is not over yet.
	c.t = t0.Add(3500 * time.Millisecond)
	n.add(evReceived, 5, "")
	got := n.done(false)
	want := []results.LoadSecond{
		{Second: t0.Add(time.Second), Failed: 2, Err: "NOT_ENOUGH_REPLICAS"},
		{Second: t0.Add(2 * time.Second)},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("seconds 2 and 3: got %+v, want %+v", got, want)
	}
	if got := n.done(false); len(got) != 0 {
		t.Fatalf("handed out twice: %+v", got)
	}
	got = n.done(true)
	if len(got) != 1 || got[0] != (results.LoadSecond{Second: t0.Add(3 * time.Second), Received: 5}) {
		t.Fatalf("final: %+v", got)
	}
	tot := n.totals()
	if tot != (Totals{Sent: 3, Acked: 2, Failed: 2, Received: 5, FirstErr: "NOT_ENOUGH_REPLICAS"}) {
		t.Fatalf("totals %+v", tot)
	}
}

func TestCounterStartsAtStart(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	c := &clock{t0.Add(100 * time.Millisecond)}
	n := newCounter(c.now)
	n.start()
	c.t = t0.Add(2100 * time.Millisecond) // nothing happened: two rows of zeros
	got := n.done(false)
	if len(got) != 2 || got[0].Second != t0 || got[1].Second != t0.Add(time.Second) || got[0].Sent+got[1].Sent != 0 {
		t.Fatalf("got %+v", got)
	}
	if n.done(true) != nil && len(n.done(true)) != 0 {
		t.Fatal("rows after the final")
	}
}

func TestCounterClockBack(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	c := &clock{t0.Add(1500 * time.Millisecond)}
	n := newCounter(c.now)
	n.add(evSent, 1, "")
	c.t = t0.Add(2100 * time.Millisecond)
	n.done(false)
	c.t = t0.Add(900 * time.Millisecond) // stepped back
	n.add(evAcked, 1, "")
	got := n.done(true)
	if len(got) != 1 || got[0].Second != t0.Add(2*time.Second) || got[0].Acked != 1 {
		t.Fatalf("an event from before the seconds handed out: %+v", got)
	}
}

func TestPace(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rate      float64
		elapsed   time.Duration
		scheduled int64
		send      int64
		next      int64
	}{
		{"on time", 5000, 10 * time.Millisecond, 0, 50, 50},
		{"nothing due", 5000, 10 * time.Millisecond, 50, 0, 50},
		{"a late tick sends what it missed", 5000, 30 * time.Millisecond, 50, 100, 150},
		{"at most a second at once", 100, 5 * time.Second, 0, 100, 500},
		{"slow rate", 0.5, 3 * time.Second, 1, 0, 1},
		{"slow rate, due", 0.5, 4 * time.Second, 1, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			send, next := pace(tc.rate, tc.elapsed, tc.scheduled)
			if send != tc.send || next != tc.next {
				t.Errorf("pace(%v, %v, %d) = %d, %d; want %d, %d", tc.rate, tc.elapsed, tc.scheduled, send, next, tc.send, tc.next)
			}
		})
	}
}
