package plot

import (
	"time"

	"github.com/kbf-project/kbf/results"
)

// Collector takes a trial's messages as the analysis reads them, so that
// the picture needs no second pass over the probe CSV:
//
//	c := plot.NewCollector()
//	tr, _ := report.Analyze(trial, report.Options{Messages: c.Add})
//	plot.Draw(out, tr, c, plot.Options{})
//
// The x axis' range is known only once the last row is read, so the
// collector keeps, per partition, a fixed number of time slots whose width
// it doubles (merging neighbours) whenever the messages span more: memory is
// bounded by the slots and the partitions, not the rows. At drawing time
// each slot falls into the pixel column of its middle; a slot is at most
// 1/slotsPerColumn of a column wide, so a mark is never more than a pixel
// from where its own send time would put it.
type Collector struct {
	// ref is the first message's send time: slots are counted from it,
	// as durations, so that no time the files may hold overflows.
	ref   time.Time
	width time.Duration // of one slot; 0 before the first message
	base  int64         // the absolute index (time / width) of slot 0
	lo    int64         // the least and greatest absolute index in use
	hi    int64

	parts           map[int32][]bucket
	failed, unacked []int32

	sent, acked, nFailed, nUnack int
	maxLatency                   time.Duration
}

// slots is how many time slots a collector keeps: at least slotsPerColumn
// per pixel column of the widest picture.
const (
	slotsPerColumn = 2
	slots          = slotsPerColumn * MaxWidth
)

// firstWidth is the slot width a collector starts with: finer than any
// message's spacing the probe can be set to.
const firstWidth = time.Millisecond

// NewCollector returns an empty Collector.
func NewCollector() *Collector {
	return &Collector{parts: map[int32][]bucket{}, failed: make([]int32, slots), unacked: make([]int32, slots)}
}

// Add takes one message; m may be reused once Add returns. It allocates
// only for a partition it has not seen and when the span grows.
func (c *Collector) Add(m *results.Message) {
	if c.width == 0 {
		c.width, c.ref = firstWidth, m.Sent
	}
	a := c.fit(m.Sent)
	i := a - c.base
	b := c.parts[m.Partition]
	if b == nil {
		b = make([]bucket, slots)
		c.parts[m.Partition] = b
	}
	c.sent++
	switch {
	case m.Failed():
		c.nFailed++
		c.failed[i]++
		return
	case m.Acked.IsZero():
		c.nUnack++
		c.unacked[i]++
		return
	}
	c.acked++
	lat := m.Acked.Sub(m.Sent)
	c.maxLatency = max(c.maxLatency, lat)
	s := &b[i]
	if s.n == 0 {
		s.lo, s.hi = lat, lat
	} else {
		s.lo, s.hi = min(s.lo, lat), max(s.hi, lat)
	}
	s.n++
}

// fit makes room for time t and returns its absolute slot index.
func (c *Collector) fit(t time.Time) int64 {
	a := floorDiv(int64(t.Sub(c.ref)), int64(c.width))
	for max(c.hi, a)-min(c.lo, a) >= slots {
		c.coarsen()
		a = floorDiv(int64(t.Sub(c.ref)), int64(c.width))
	}
	c.lo, c.hi = min(c.lo, a), max(c.hi, a)
	if c.lo < c.base || c.hi >= c.base+slots {
		c.rebase(c.lo)
	}
	return a
}

// coarsen doubles the slot width, merging each pair of slots.
func (c *Collector) coarsen() {
	oldBase := c.base
	c.width *= 2
	c.base = floorDiv(oldBase, 2)
	c.lo, c.hi = floorDiv(c.lo, 2), floorDiv(c.hi, 2)
	merge := func(n []int32) {
		out := make([]int32, slots)
		for i, v := range n {
			if v != 0 {
				out[floorDiv(oldBase+int64(i), 2)-c.base] += v
			}
		}
		copy(n, out)
	}
	merge(c.failed)
	merge(c.unacked)
	for p, b := range c.parts {
		out := make([]bucket, slots)
		for i, s := range b {
			if s.n == 0 {
				continue
			}
			d := &out[floorDiv(oldBase+int64(i), 2)-c.base]
			if d.n == 0 {
				*d = s
			} else {
				d.lo, d.hi, d.n = min(d.lo, s.lo), max(d.hi, s.hi), d.n+s.n
			}
		}
		c.parts[p] = out
	}
}

// rebase moves the slots so that slot 0 is the absolute index base.
func (c *Collector) rebase(base int64) {
	shift := c.base - base // slots move right by shift
	move := func(n []int32) {
		out := make([]int32, slots)
		for i, v := range n {
			if j := int64(i) + shift; v != 0 && j >= 0 && j < slots {
				out[j] = v
			}
		}
		copy(n, out)
	}
	move(c.failed)
	move(c.unacked)
	for p, b := range c.parts {
		out := make([]bucket, slots)
		for i, s := range b {
			if j := int64(i) + shift; s.n != 0 && j >= 0 && j < slots {
				out[j] = s
			}
		}
		c.parts[p] = out
	}
	c.base = base
}

// mid is the middle of slot i.
func (c *Collector) mid(i int) time.Time {
	return c.ref.Add(time.Duration(c.base+int64(i))*c.width + c.width/2)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
