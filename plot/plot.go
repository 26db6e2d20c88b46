// Package plot draws a trial as an SVG picture: each message's ack latency
// over time, per partition, with the fault, the stalls and the timeline's key
// events.
//
// It reads what the report already analysed (a *report.Trial: the gaps, the
// stalls split into phases, the metadata) and the trial's probe CSV once
// more, streamed:
//
//	tr, _ := report.Analyze(trial, report.Options{})
//	f, _ := os.Open(trial.Probe)
//	plot.WriteSVG(out, tr, f, plot.Options{Source: trial.Probe})
//
// # The picture
//
// The x axis is time in seconds from the fault (from the first send when the
// trial has none); each message is drawn at its send time. The y axis is its
// ack latency, acked − sent, on a log scale from 1 ms to the largest. Up to
// MaxColours partitions get a colour each; more share one. Failed sends are
// red crosses in a strip above the plot and messages never acked (in flight
// when the probe stopped) open circles there. Over the data: a solid line at
// the fault, dashed lines where the controller detected it, where each
// partition's new leader (or smaller ISR) took over and where the producer
// learnt of it, and a translucent band over each partition's ack gap at the
// fault.
//
// # Memory
//
// Rows are not kept. Each partition has one bucket per pixel column of the
// plot, holding the least and the largest latency and a count, so a file of
// any length is drawn in memory proportional to the picture's width.
package plot

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

// The picture's size in pixels: the defaults, and the bounds Options must
// keep within so that the labels fit and the file stays small.
const (
	DefaultWidth  = 1200
	DefaultHeight = 720
	MinWidth      = 640
	MaxWidth      = 8000
	MinHeight     = 480
	MaxHeight     = 4000
)

// MaxColours is the most partitions drawn in a colour each; with more, every
// partition is drawn in one colour and the legend says so.
const MaxColours = 6

// Options set the picture's size and how the probe CSV is named in errors.
type Options struct {
	// Width and Height are the picture's size in pixels; zero means
	// DefaultWidth, DefaultHeight.
	Width, Height int
	// Source names the probe CSV in errors; "" means results.ProbeFile.
	Source string
}

// ErrSize is reported for a Width or Height outside its bounds.
var ErrSize = errors.New("picture size out of bounds")

// ErrNoMessages is reported for a trial whose report counted no message.
var ErrNoMessages = errors.New("no messages to plot")

// WriteSVG draws the trial tr as an SVG document on w. probeCSV is the
// trial's probe CSV, the file tr was analysed from; it is read once, row by
// row, and a malformed row stops the drawing with the decoder's
// *results.ParseError. Nothing is written to w before the whole file has
// been read, so a bad file leaves w empty.
func WriteSVG(w io.Writer, tr *report.Trial, probeCSV io.Reader, opt Options) error {
	if opt.Width == 0 {
		opt.Width = DefaultWidth
	}
	if opt.Height == 0 {
		opt.Height = DefaultHeight
	}
	if opt.Width < MinWidth || opt.Width > MaxWidth {
		return fmt.Errorf("width %d: %w (%d–%d)", opt.Width, ErrSize, MinWidth, MaxWidth)
	}
	if opt.Height < MinHeight || opt.Height > MaxHeight {
		return fmt.Errorf("height %d: %w (%d–%d)", opt.Height, ErrSize, MinHeight, MaxHeight)
	}
	if tr.Gaps == nil || tr.Gaps.Sent == 0 || tr.Gaps.Start.IsZero() {
		return ErrNoMessages
	}
	if opt.Source == "" {
		opt.Source = results.ProbeFile
	}
	c := newCanvas(tr, opt.Width, opt.Height)
	dec := results.NewDecoder(probeCSV, opt.Source)
	if tr.Meta != nil {
		dec.Partitions = tr.Meta.PartitionSet()
	}
	var m results.Message
	for {
		err := dec.Decode(&m)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := c.add(&m); err != nil {
			return err
		}
	}
	return c.render(w)
}

// bucket is what a pixel column keeps of the messages sent in it.
type bucket struct {
	lo, hi time.Duration // the least and the largest ack latency
	n      int32         // acked messages; 0 means lo and hi are unset
}

// canvas lays the picture out from the trial, then takes the probe's
// messages one at a time into per-column buckets.
type canvas struct {
	tr *report.Trial
	l  layout

	// index maps a partition to its series; with more than MaxColours
	// partitions, every partition maps to series 0.
	index  map[int32]int
	series [][]bucket // by series, then pixel column
	merged bool

	// failed and unacked count failed and never-acked messages by
	// pixel column, all partitions together.
	failed, unacked []int32

	maxLatency                   time.Duration
	sent, acked, nFailed, nUnack int
}

func newCanvas(tr *report.Trial, width, height int) *canvas {
	c := &canvas{tr: tr, index: map[int32]int{}}
	parts := tr.Gaps.Partitions
	c.merged = len(parts) > MaxColours
	n := len(parts)
	if c.merged {
		n = 1
	}
	for i, p := range parts {
		if c.merged {
			i = 0
		}
		c.index[p.Partition] = i
	}
	c.l = newLayout(c, width, height)
	cols := c.l.cols
	c.series = make([][]bucket, n)
	for i := range c.series {
		c.series[i] = make([]bucket, cols)
	}
	c.failed = make([]int32, cols)
	c.unacked = make([]int32, cols)
	return c
}

// ErrUnknownPartition is reported for a message whose partition the trial's
// report did not count: the probe CSV is not the one the trial was analysed
// from.
var ErrUnknownPartition = errors.New("partition not in the trial's report")

// add takes one message into its column. It allocates nothing.
func (c *canvas) add(m *results.Message) error {
	s, ok := c.index[m.Partition]
	if !ok {
		return fmt.Errorf("message p%d seq %d: %w", m.Partition, m.Seq, ErrUnknownPartition)
	}
	c.sent++
	col := c.l.col(m.Sent)
	switch {
	case m.Failed():
		c.nFailed++
		c.failed[col]++
		return nil
	case m.Acked.IsZero():
		c.nUnack++
		c.unacked[col]++
		return nil
	}
	c.acked++
	lat := m.Acked.Sub(m.Sent)
	c.maxLatency = max(c.maxLatency, lat)
	b := &c.series[s][col]
	if b.n == 0 {
		b.lo, b.hi = lat, lat
	} else {
		b.lo, b.hi = min(b.lo, lat), max(b.hi, lat)
	}
	b.n++
	return nil
}

// points counts the non-empty buckets: what the picture holds of the rows.
func (c *canvas) points() int {
	n := 0
	for _, s := range c.series {
		for _, b := range s {
			if b.n > 0 {
				n++
			}
		}
	}
	return n
}
