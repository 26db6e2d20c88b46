package load

import (
	"sync"
	"time"

	"github.com/kbf-project/kbf/results"
)

// event is what happened to a record.
type event int

const (
	evSent event = iota
	evAcked
	evFailed
	evReceived
)

// counter counts the load's records into one-second rows. Each event is
// counted in the second it is counted in, read under the lock, so a second
// is complete once the clock has passed its end: done hands out every such
// second, rows of zeros included, and forgets them. Its memory is the
// seconds not yet handed out.
type counter struct {
	mu    sync.Mutex
	now   func() time.Time
	first time.Time            // the earliest second not yet handed out; zero before any event
	open  []results.LoadSecond // from first, one per second
	total Totals
}

// Totals are a load's counts over its run.
type Totals struct {
	Sent, Acked, Failed, Received int64
	// FirstErr is the first error.
	FirstErr string
}

func newCounter(now func() time.Time) *counter {
	if now == nil {
		now = time.Now
	}
	return &counter{now: now}
}

// start opens the counter's first second at the current time: the rows
// begin there even if nothing happens in it.
func (c *counter) start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first.IsZero() {
		c.first = c.now().Truncate(time.Second)
	}
}

// add counts n records of kind ev now; err is the error of a failure.
func (c *counter) add(ev event, n int64, err string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sec := c.now().Truncate(time.Second)
	if c.first.IsZero() {
		c.first = sec
	}
	if sec.Before(c.first) { // the clock stepped back past a second handed out
		sec = c.first
	}
	i := int(sec.Sub(c.first) / time.Second)
	for len(c.open) <= i {
		c.open = append(c.open, results.LoadSecond{Second: c.first.Add(time.Duration(len(c.open)) * time.Second).UTC()})
	}
	s := &c.open[i]
	switch ev {
	case evSent:
		s.Sent += n
		c.total.Sent += n
	case evAcked:
		s.Acked += n
		c.total.Acked += n
	case evFailed:
		s.Failed += n
		c.total.Failed += n
		if s.Err == "" {
			s.Err = err
		}
		if c.total.FirstErr == "" {
			c.total.FirstErr = err
		}
	case evReceived:
		s.Received += n
		c.total.Received += n
	}
}

// done returns the seconds that ended before now, in order, rows of zeros
// for those nothing happened in, and forgets them; all of them when final.
func (c *counter) done(final bool) []results.LoadSecond {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first.IsZero() {
		return nil
	}
	end := c.now().Truncate(time.Second) // the second under way is not done
	n := int(end.Sub(c.first) / time.Second)
	if final {
		n = max(n, len(c.open))
	}
	if n <= 0 {
		return nil
	}
	out := make([]results.LoadSecond, n)
	for i := range out {
		out[i].Second = c.first.Add(time.Duration(i) * time.Second).UTC()
	}
	copy(out, c.open[:min(n, len(c.open))])
	c.open = c.open[min(n, len(c.open)):]
	c.first = c.first.Add(time.Duration(n) * time.Second)
	return out
}

// totals returns the counts so far.
func (c *counter) totals() Totals {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// pace says how many records to send now, elapsed into a load of rate
// records/s of which scheduled were due before: the schedule is absolute,
// so a late tick sends what it missed, up to one second of the load at
// once; more than that is the generator's own lateness, skipped rather
// than sent late in a burst. It returns the records to send and how many
// are then scheduled.
func pace(rate float64, elapsed time.Duration, scheduled int64) (send, next int64) {
	due := int64(rate * elapsed.Seconds())
	if due <= scheduled {
		return 0, scheduled
	}
	return min(due-scheduled, int64(max(rate, 1))), due
}
