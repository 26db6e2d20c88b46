package htmlreport

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/kbf-project/kbf/results"
)

// Buckets bound the points a lane keeps. The trial's span is cut into
// Buckets columns, about a pixel each at the page's width, and each column
// keeps the messages with the least and the largest ack latency and the
// least and the largest receive latency: the envelope a chart draws, at
// most 4 × Buckets points however long the trial. A stall (the ack or
// receive gap at the fault) gets StallBuckets columns of its own, so that
// at 20 ms a send every message of a stall up to 80 s is kept, and a longer
// one is still drawn at a finer grain than the rest.
const (
	Buckets      = 1200
	StallBuckets = 4096
)

// pt is one message as a lane keeps it; times are Unix nanoseconds, 0 when
// absent.
type pt struct {
	seq, offset           int64
	sent, acked, received int64
}

func (p *pt) ack() int64 {
	if p.acked == 0 {
		return -1
	}
	return p.acked - p.sent
}

func (p *pt) recv() int64 {
	if p.received == 0 {
		return -1
	}
	return p.received - p.sent
}

// bucket keeps the four extreme messages of a column. Of equal latencies it
// keeps the first as the least and the last as the largest, so a flat run
// is drawn from end to end.
type bucket struct {
	ackLo, ackHi, recvLo, recvHi pt
	hasAck, hasRecv              bool
}

func (b *bucket) add(p *pt) {
	if a := p.ack(); a >= 0 {
		if !b.hasAck {
			b.ackLo, b.ackHi, b.hasAck = *p, *p, true
		} else if a < b.ackLo.ack() {
			b.ackLo = *p
		} else if a >= b.ackHi.ack() {
			b.ackHi = *p
		}
	}
	if r := p.recv(); r >= 0 {
		if !b.hasRecv {
			b.recvLo, b.recvHi, b.hasRecv = *p, *p, true
		} else if r < b.recvLo.recv() {
			b.recvLo = *p
		} else if r >= b.recvHi.recv() {
			b.recvHi = *p
		}
	}
}

func (b *bucket) points(out []pt) []pt {
	if b.hasAck {
		out = append(out, b.ackLo, b.ackHi)
	}
	if b.hasRecv {
		out = append(out, b.recvLo, b.recvHi)
	}
	return out
}

// grid is a row of buckets over [from, to].
type grid struct {
	from, to int64
	b        []bucket
}

func newGrid(from, to time.Time, n int) grid {
	f, t := from.UnixNano(), to.UnixNano()
	if t <= f {
		t = f + 1
	}
	return grid{from: f, to: t, b: make([]bucket, n)}
}

// add files p by its send time; false when it falls outside the grid.
func (g *grid) add(p *pt) bool {
	if g.b == nil || p.sent < g.from || p.sent > g.to {
		return false
	}
	g.addClamped(p)
	return true
}

// addClamped files p by its send time, in the first or last bucket when it
// falls outside the grid: the trial's span ends when the run stopped
// watching, and messages the probe drained after it are still drawn.
func (g *grid) addClamped(p *pt) {
	i := int(float64(p.sent-g.from) / float64(g.to-g.from) * float64(len(g.b)))
	g.b[max(0, min(i, len(g.b)-1))].add(p)
}

// laneBuilder gathers one partition's points.
type laneBuilder struct {
	all, stall grid
	messages   int
}

// downsampler streams a probe CSV into one laneBuilder per partition, or,
// for a trial drawn as a heat map, into the map's builder alone: its lanes
// only count their messages.
type downsampler struct {
	lanes map[int32]*laneBuilder
	heat  *heatBuilder
}

// errUnknownPartition is reported for a probe row whose partition the
// analysis did not count: the CSV is not the one the trial was analysed
// from.
var errUnknownPartition = errors.New("partition not in the trial's report")

// interval is a time span, for the stalls the downsampler keeps whole.
type interval struct{ from, to time.Time }

// newDownsampler lays out the grids: the trial's span for every partition,
// and each partition's stall, when it has one; with heat, none.
func newDownsampler(from, to time.Time, stalls map[int32]interval, partitions []int32, heat *heatBuilder) *downsampler {
	d := &downsampler{lanes: map[int32]*laneBuilder{}, heat: heat}
	for _, p := range partitions {
		lb := &laneBuilder{}
		d.lanes[p] = lb
		if heat != nil {
			continue
		}
		lb.all = newGrid(from, to, Buckets)
		if s, ok := stalls[p]; ok {
			lb.stall = newGrid(s.from, s.to, StallBuckets)
		}
	}
	return d
}

// read decodes the probe CSV r, handing each row to its lane.
func (d *downsampler) read(r io.Reader, name string) error {
	dec := results.NewDecoder(r, name)
	var m results.Message
	for {
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		lb := d.lanes[m.Partition]
		if lb == nil {
			return fmt.Errorf("message p%d seq %d: %w", m.Partition, m.Seq, errUnknownPartition)
		}
		lb.messages++
		if d.heat != nil {
			d.heat.add(&m)
			continue
		}
		p := pt{seq: m.Seq, offset: m.Offset, sent: m.Sent.UnixNano(), acked: unixOrZero(m.Acked), received: unixOrZero(m.Received)}
		if !lb.stall.add(&p) {
			lb.all.addClamped(&p)
		}
	}
}

func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// points returns the lane's kept messages in send order, each once, as
// columns relative to origin.
func (lb *laneBuilder) points(origin time.Time) points {
	var kept []pt
	for _, g := range []*grid{&lb.all, &lb.stall} {
		for i := range g.b {
			kept = g.b[i].points(kept)
		}
	}
	slices.SortFunc(kept, func(a, b pt) int {
		if a.sent != b.sent {
			return cmp.Compare(a.sent, b.sent)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	kept = slices.CompactFunc(kept, func(a, b pt) bool { return a.seq == b.seq && a.sent == b.sent })
	o := origin.UnixNano()
	ps := points{
		X:      make([]float64, len(kept)),
		Seq:    make([]int64, len(kept)),
		Offset: make([]int64, len(kept)),
		Ack:    make(column, len(kept)),
		Recv:   make(column, len(kept)),
	}
	for i, p := range kept {
		ps.X[i] = round(float64(p.sent-o)/1e9, 1e6)
		ps.Seq[i] = p.seq
		ps.Offset[i] = p.offset
		ps.Ack[i] = latencyMs(p.ack())
		ps.Recv[i] = latencyMs(p.recv())
	}
	return ps
}

// latencyMs is d nanoseconds in milliseconds to the microsecond; NaN for
// an absent latency (written as null).
func latencyMs(d int64) float64 {
	if d < 0 {
		return math.NaN()
	}
	return round(float64(d)/1e6, 1e3)
}

// round rounds v to 1/per: the page draws and shows times to the
// microsecond, which keeps the embedded data small.
func round(v, per float64) float64 { return math.Round(v*per) / per }

// points are a lane's kept messages as columns, the shape the chart library
// takes: X is the send time in seconds since the origin, Ack and Recv the
// ack and receive latencies in milliseconds (null when absent). Offset is
// -1 for a message never acked.
type points struct {
	X      []float64 `json:"x"`
	Seq    []int64   `json:"seq"`
	Offset []int64   `json:"offset"`
	Ack    column    `json:"ack_ms"`
	Recv   column    `json:"recv_ms"`
}

// column is a series with gaps: NaN is written as null.
type column []float64

// MarshalJSON writes the column with null for NaN, which JSON cannot hold.
func (c column) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+8*len(c))
	b = append(b, '[')
	for i, v := range c {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(v) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	return append(b, ']'), nil
}
