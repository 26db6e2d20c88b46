package gaps

import (
	"cmp"
	"slices"
	"time"

	"github.com/kbf-project/kbf/results"
)

// Longer collects, per partition, every ack gap and every receive gap
// longer than a bound: all the stalls of a trial, where a Report keeps only
// the one at the fault and the longest elsewhere. A fault of several steps
// needs them all, to say which step each stall followed.
//
// Like a Report it is built one message at a time, in any order, and
// streams: it keeps the gaps over the bound, never the times. That is
// exact, for a time that comes late can only split the gap it falls in,
// and a gap no longer than the bound only splits into pieces no longer
// than it, so every gap over the bound is always among those kept.
//
// A partition's last gap, from its last ack (receive) to the run's end, is
// kept Open when it is over the bound. A partition has no gap before its
// first time: there is no fault to start one from.
type Longer struct {
	// Bound is how long a gap must exceed to be kept; End closes the last
	// gaps (zero: the latest time seen).
	Bound time.Duration
	End   time.Time
	// Partitions are, after Close, sorted by partition.
	Partitions []LongerPartition

	series map[int32]*longerSeries
	max    int64 // the latest time seen, in Unix ns
	seen   bool
}

// LongerPartition is one partition's gaps over the bound, in time order.
type LongerPartition struct {
	Partition int32
	Ack       []Gap
	Receive   []Gap
}

type longerSeries struct {
	acks, recvs longTracker
}

// NewLonger returns an empty Longer keeping the gaps longer than bound,
// the last of them closed at end (zero: the latest time seen).
func NewLonger(bound time.Duration, end time.Time) *Longer {
	return &Longer{Bound: bound, End: end, series: map[int32]*longerSeries{}}
}

// Add counts one message's ack and receive times. Add must not be called
// after Close.
func (l *Longer) Add(m *results.Message) {
	s := l.series[m.Partition]
	if s == nil {
		s = &longerSeries{}
		l.series[m.Partition] = s
	}
	bound := int64(l.Bound)
	for _, c := range []struct {
		t  time.Time
		tr *longTracker
	}{{m.Acked, &s.acks}, {m.Received, &s.recvs}} {
		if c.t.IsZero() {
			continue
		}
		t := c.t.UnixNano()
		c.tr.add(t, bound)
		if !l.seen || t > l.max {
			l.max, l.seen = t, true
		}
	}
}

// Close closes each partition's last gap at End and fills Partitions. It
// may be called more than once.
func (l *Longer) Close() {
	if l.series == nil {
		return
	}
	end := l.max
	if !l.End.IsZero() {
		end = l.End.UnixNano()
	}
	bound := int64(l.Bound)
	for p, s := range l.series {
		l.Partitions = append(l.Partitions, LongerPartition{Partition: p,
			Ack: s.acks.gaps(end, bound), Receive: s.recvs.gaps(end, bound)})
	}
	slices.SortFunc(l.Partitions, func(a, b LongerPartition) int { return cmp.Compare(a.Partition, b.Partition) })
	l.series = nil
}

// longTracker keeps the gaps over a bound between the times added so far,
// sorted by start; they never overlap.
type longTracker struct {
	n        int
	min, max int64
	spans    []span
}

func (lt *longTracker) add(t, bound int64) {
	lt.n++
	switch {
	case lt.n == 1:
		lt.min, lt.max = t, t
	case t > lt.max:
		if t-lt.max > bound {
			lt.spans = append(lt.spans, span{start: lt.max, end: t})
		}
		lt.max = t
	case t < lt.min:
		if lt.min-t > bound {
			lt.spans = slices.Insert(lt.spans, 0, span{start: t, end: lt.min})
		}
		lt.min = t
	default:
		lt.split(t, bound)
	}
}

// split records t, within [min, max]: the kept gap it falls strictly
// inside, if any, becomes the pieces of it still over the bound.
func (lt *longTracker) split(t, bound int64) {
	i, _ := slices.BinarySearchFunc(lt.spans, t, func(s span, t int64) int { return cmp.Compare(s.start, t) })
	if i == 0 || lt.spans[i-1].end <= t {
		return // in a gap under the bound, or a time seen before
	}
	s := lt.spans[i-1]
	var pieces []span
	if t-s.start > bound {
		pieces = append(pieces, span{start: s.start, end: t})
	}
	if s.end-t > bound {
		pieces = append(pieces, span{start: t, end: s.end})
	}
	lt.spans = slices.Replace(lt.spans, i-1, i, pieces...)
}

// gaps returns the kept gaps, and the last one, to end, when it is over
// the bound.
func (lt *longTracker) gaps(end, bound int64) []Gap {
	out := make([]Gap, 0, len(lt.spans)+1)
	for _, s := range lt.spans {
		out = append(out, *s.gap())
	}
	if lt.n > 0 && end-lt.max > bound {
		out = append(out, *span{start: lt.max, end: end, open: true}.gap())
	}
	return out
}
