package plot

import (
	"time"

	"github.com/kbf-project/kbf/results"
)

// Collector takes a trial's messages as the analysis reads them, so that
// the picture needs no second pass over the probe CSV:
//
//	c := plot.NewCollector()
//	tr, _ := analysis.Analyze(trial, analysis.Options{Messages: c.Add})
//	plot.Draw(out, tr, c, plot.Options{})
//
// The x axis' range is known only once the last row is read, so the
// collector keeps a fixed number of time slots whose width it doubles
// (merging neighbours) whenever the messages span more: per partition up to
// MaxColours partitions, and past them, as the picture draws them, all
// partitions in one series. Memory is bounded by the slots, not by the
// rows or the partitions. At drawing time
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

	// parts are the slots by partition; once more than MaxColours
	// partitions are seen, every partition's messages are in merged.
	parts           map[int32][]bucket
	merged          []bucket
	seen            map[int32]struct{}
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
	return &Collector{parts: map[int32][]bucket{}, seen: map[int32]struct{}{}, failed: make([]int32, slots), unacked: make([]int32, slots)}
}

// slotsOf returns the slots that take partition p's messages.
func (c *Collector) slotsOf(p int32) []bucket {
	if c.merged != nil {
		c.seen[p] = struct{}{}
		return c.merged
	}
	if b := c.parts[p]; b != nil {
		return b
	}
	c.seen[p] = struct{}{}
	if len(c.seen) <= MaxColours {
		b := make([]bucket, slots)
		c.parts[p] = b
		return b
	}
	// One partition too many to draw in a colour each: the picture draws
	// them as one series, and so the collector keeps them.
	c.merged = make([]bucket, slots)
	for _, b := range c.parts {
		for i, s := range b {
			c.merged[i].merge(s)
		}
	}
	c.parts = nil
	return c.merged
}

// Add takes one message; m may be reused once Add returns. It allocates
// only for a partition it has not seen and when the span grows.
func (c *Collector) Add(m *results.Message) {
	if c.width == 0 {
		c.width, c.ref = firstWidth, m.Sent
	}
	a := c.fit(m.Sent)
	i := a - c.base
	b := c.slotsOf(m.Partition)
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
	b[i].merge(bucket{lo: lat, hi: lat, n: 1})
}

// merge adds the latencies of s to b.
func (b *bucket) merge(s bucket) {
	switch {
	case s.n == 0:
	case b.n == 0:
		*b = s
	default:
		b.lo, b.hi, b.n = min(b.lo, s.lo), max(b.hi, s.hi), b.n+s.n
	}
}

// series are the collector's slots, by partition, or with more than
// MaxColours partitions all of them together under partition -1.
func (c *Collector) series() map[int32][]bucket {
	if c.merged != nil {
		return map[int32][]bucket{-1: c.merged}
	}
	return c.parts
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
	c.eachSeries(func(b []bucket) {
		out := make([]bucket, slots)
		for i, s := range b {
			out[floorDiv(oldBase+int64(i), 2)-c.base].merge(s)
		}
		copy(b, out)
	})
}

// eachSeries calls f with each series' slots, which f may change in place.
func (c *Collector) eachSeries(f func([]bucket)) {
	for _, b := range c.series() {
		f(b)
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
	c.eachSeries(func(b []bucket) {
		out := make([]bucket, slots)
		for i, s := range b {
			if j := int64(i) + shift; s.n != 0 && j >= 0 && j < slots {
				out[j] = s
			}
		}
		copy(b, out)
	})
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
