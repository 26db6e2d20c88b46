// Package plot draws a trial as an SVG picture: each message's ack latency
// over time, per partition, with the fault, the stalls and the timeline's key
// events.
//
// It draws what the report analysed (a *analysis.Trial: the gaps, the stalls'
// boundaries, the metadata) and the messages a Collector took while the
// report read the probe CSV, so the file is read once:
//
//	c := plot.NewCollector()
//	tr, _ := analysis.Analyze(trial, analysis.Options{Messages: c.Add})
//	plot.Draw(out, tr, c, plot.Options{})
//
// It decides nothing the report has decided: each line is one of
// tr.Boundaries, labelled by its kind.
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
// Rows are not kept. The Collector keeps a fixed number of time slots
// holding the least and the largest latency and a count, per partition up
// to MaxColours and past them one series for all, and the picture one
// bucket per pixel column, so a file of any length and any number of
// partitions is drawn in memory bounded by the picture's width.
package plot

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kbf-project/kbf/analysis"
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

// WriteSVG draws the trial tr as an SVG document on w, reading its probe
// CSV, the file tr was analysed from, once, row by row; a malformed row
// stops the drawing with the decoder's *results.ParseError. Nothing is
// written to w before the whole file has been read, so a bad file leaves w
// empty. Where the analysis reads the file anyway, a Collector spares the
// second pass (Draw).
func WriteSVG(w io.Writer, tr *analysis.Trial, probeCSV io.Reader, opt Options) error {
	if err := opt.check(); err != nil {
		return err
	}
	if tr.Gaps == nil || tr.Gaps.Sent == 0 || tr.Gaps.Start.IsZero() {
		return analysis.ErrNoMessages
	}
	if opt.Source == "" {
		opt.Source = results.ProbeFile
	}
	dec := results.NewDecoder(probeCSV, opt.Source)
	if tr.Meta != nil {
		dec.Partitions = tr.Meta.PartitionSet()
	}
	col := NewCollector()
	var m results.Message
	for {
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		col.Add(&m)
	}
	return Draw(w, tr, col, opt)
}

// Draw draws the trial tr as an SVG document on w from the messages col
// took while tr was analysed.
func Draw(w io.Writer, tr *analysis.Trial, col *Collector, opt Options) error {
	if err := opt.check(); err != nil {
		return err
	}
	if opt.Width == 0 {
		opt.Width = DefaultWidth
	}
	if opt.Height == 0 {
		opt.Height = DefaultHeight
	}
	if tr.Gaps == nil || tr.Gaps.Sent == 0 || tr.Gaps.Start.IsZero() {
		return analysis.ErrNoMessages
	}
	c := newCanvas(tr, opt.Width, opt.Height)
	if err := c.fill(col); err != nil {
		return err
	}
	return c.render(w)
}

// check refuses a size out of bounds; zero means the default.
func (opt Options) check() error {
	if w := opt.Width; w != 0 && (w < MinWidth || w > MaxWidth) {
		return fmt.Errorf("width %d: %w (%d–%d)", w, ErrSize, MinWidth, MaxWidth)
	}
	if h := opt.Height; h != 0 && (h < MinHeight || h > MaxHeight) {
		return fmt.Errorf("height %d: %w (%d–%d)", h, ErrSize, MinHeight, MaxHeight)
	}
	return nil
}

// bucket is what a pixel column keeps of the messages sent in it.
type bucket struct {
	lo, hi time.Duration // the least and the largest ack latency
	n      int32         // acked messages; 0 means lo and hi are unset
}

// canvas lays the picture out from the trial, then takes the probe's
// messages one at a time into per-column buckets.
type canvas struct {
	tr *analysis.Trial
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

func newCanvas(tr *analysis.Trial, width, height int) *canvas {
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

// errUnknownPartition is reported for a message whose partition the trial's
// report did not count: the probe CSV is not the one the trial was analysed
// from.
var errUnknownPartition = errors.New("partition not in the trial's report")

// fill takes the collector's slots into the picture's columns, each slot
// into the column of its middle.
func (c *canvas) fill(col *Collector) error {
	for p := range col.seen {
		if _, ok := c.index[p]; !ok {
			return fmt.Errorf("messages of p%d: %w", p, errUnknownPartition)
		}
	}
	if col.width == 0 {
		return nil
	}
	cols := make([]int, slots)
	for i := range cols {
		cols[i] = c.l.col(col.mid(i))
	}
	for p, slots := range col.series() {
		// The collector merges its series only when the picture does
		// (more than MaxColours partitions): then every one is series 0.
		series := c.series[c.index[p]]
		for i, s := range slots {
			series[cols[i]].merge(s)
		}
	}
	for i := range cols {
		c.failed[cols[i]] += col.failed[i]
		c.unacked[cols[i]] += col.unacked[i]
	}
	c.sent, c.acked, c.nFailed, c.nUnack, c.maxLatency = col.sent, col.acked, col.nFailed, col.nUnack, col.maxLatency
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
