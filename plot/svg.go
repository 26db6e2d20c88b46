package plot

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/internal/moment"
)

// Colours. The partitions' are Okabe and Ito's, told apart with the common
// kinds of colour blindness; red is kept for the fault and failures.
var palette = [MaxColours]string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#A6761D"}

const (
	failColour    = "#C8102E"
	unackedColour = "#555555"
	eventColour   = "#333333"
	gridColour    = "#DDDDDD"
	minorColour   = "#F0F0F0"
	textColour    = "#222222"
	quietColour   = "#555555"
	// bandColour shades the ack gaps: grey, because the partitions' gaps
	// overlap and their colours would mix to mud; the brackets below the
	// data carry the partitions' colours.
	bandColour = "#555555"
)

// fontFamily names a sans-serif font a browser and rsvg both have.
const fontFamily = "Helvetica, Arial, DejaVu Sans, sans-serif"

// halo draws a white outline under a label, so it reads over the data.
const halo = ` paint-order="stroke" stroke="#FFFFFF" stroke-width="3" stroke-linejoin="round"`

// colour is partition p's colour.
func (c *canvas) colour(p int32) string { return palette[c.index[p]] }

// num writes a coordinate with one decimal.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func esc(s string) string { return xmlEscaper.Replace(s) }

// render writes the picture. The y scale is known only now, after the last
// row.
func (c *canvas) render(w io.Writer) error {
	l := &c.l
	ys := yScale{top: niceTop(c.maxLatency), yTop: l.top, yBase: l.bottom}
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }

	p("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="plot-title plot-desc" font-family="%s" font-size="%d" fill="%s">`+"\n",
		l.width, l.height, l.width, l.height, fontFamily, textSize, textColour)
	p("<title id=\"plot-title\">%s</title>\n", esc(l.title))
	p("<desc id=\"plot-desc\">%s</desc>\n", esc(c.describe()))
	p("<rect width=\"%d\" height=\"%d\" fill=\"#FFFFFF\"/>\n", l.width, l.height)

	// Heading and legend.
	for i, line := range l.titleLines {
		p("<text x=\"%d\" y=\"%d\" font-size=\"%d\" font-weight=\"bold\">%s</text>\n",
			margin, margin+titleSize+i*(titleSize+4), titleSize, esc(line))
	}
	for i, line := range l.subtitleLines {
		p("<text x=\"%d\" y=\"%s\" fill=\"%s\">%s</text>\n", margin, num(l.subtitleTop+float64(i*lineGap)), quietColour, esc(line))
	}
	c.writeLegend(p)

	// Grid, bands, then the data over them.
	c.writeGrid(p, ys)
	c.writeBands(p)
	p("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%d\" fill=\"#F4F4F4\"/>\n", num(l.left), num(l.stripTop), num(l.right-l.left), stripH)
	p("<text x=\"%s\" y=\"%s\" font-size=\"10\" text-anchor=\"end\" fill=\"%s\">not acked</text>\n",
		num(l.left-6), num(l.stripTop+stripH-3), quietColour)
	c.writeData(bw, ys)
	c.writeMarks(p)
	c.writeEvents(p)
	c.writeGapBrackets(p)
	p("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" stroke=\"#888888\"/>\n",
		num(l.left), num(l.top), num(l.right-l.left), num(l.bottom-l.top))

	// Axes' titles and the footnote.
	xTitle := "seconds since the first send"
	if !c.tr.FaultAt.IsZero() {
		xTitle = "seconds since " + faultName(c.tr)
	}
	switch {
	case l.unlabelled == 1:
		xTitle += "; 1 event label left out for room"
	case l.unlabelled > 1:
		xTitle += fmt.Sprintf("; %d event labels left out for room", l.unlabelled)
	}
	p("<text x=\"%s\" y=\"%s\" text-anchor=\"middle\">%s</text>\n", num((l.left+l.right)/2), num(l.bottom+36), esc(xTitle))
	my := (l.top + l.bottom) / 2
	p("<text x=\"16\" y=\"%s\" text-anchor=\"middle\" transform=\"rotate(-90 16 %s)\">ack latency (log scale)</text>\n",
		num(my), num(my))
	c.writeReplicas(p)
	for i, line := range l.foot {
		p("<text x=\"%d\" y=\"%s\" font-size=\"%d\" fill=\"%s\">%s</text>\n", margin, num(l.footTop+float64(i*footGap)),
			footSize, quietColour, esc(line))
	}
	p("</svg>\n")
	return bw.Flush()
}

type printf func(format string, a ...any)

func (c *canvas) writeLegend(p printf) {
	l := &c.l
	for k, line := range l.legend {
		y := l.legendTop + float64(k*lineGap)
		x := float64(margin)
		for _, it := range line {
			cx, cy := x+5, y-4
			switch it.kind {
			case "dot":
				p("<circle cx=\"%s\" cy=\"%s\" r=\"5\" fill=\"%s\"/>", num(cx), num(cy), it.colour)
			case "cross":
				writeCross(p, cx, cy, it.colour)
			case "ring":
				writeRing(p, cx, cy, it.colour)
			case "band":
				p("<rect x=\"%s\" y=\"%s\" width=\"11\" height=\"11\" fill=\"%s\" fill-opacity=\"0.3\"/>", num(x), num(cy-5.5), it.colour)
			}
			p("<text x=\"%s\" y=\"%s\">%s</text>\n", num(x+16), num(y), esc(it.text))
			x += legendItemWidth(it) + legendSep
		}
	}
}

func writeCross(p printf, x, y float64, colour string) {
	p("<path d=\"M%s %sl7 7m0 -7l-7 7\" stroke=\"%s\" stroke-width=\"2\" fill=\"none\"/>", num(x-3.5), num(y-3.5), colour)
}

func writeRing(p printf, x, y float64, colour string) {
	p("<circle cx=\"%s\" cy=\"%s\" r=\"3.5\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>", num(x), num(y), colour)
}

// writeGrid draws the y axis' decades and the x axis' ticks.
func (c *canvas) writeGrid(p printf, ys yScale) {
	l := &c.l
	p("<g stroke-width=\"1\">\n")
	for d := time.Millisecond; d <= ys.top; d *= 10 {
		for m := time.Duration(2); m < 10; m++ {
			if v := d * m; v < ys.top {
				p("<path d=\"M%s %sH%s\" stroke=\"%s\"/>\n", num(l.left), num(ys.y(v)), num(l.right), minorColour)
			}
		}
	}
	for d := time.Millisecond; d <= ys.top; d *= 10 {
		p("<path d=\"M%s %sH%s\" stroke=\"%s\"/>\n", num(l.left), num(ys.y(d)), num(l.right), gridColour)
	}
	step := tickStep(l.end.Sub(l.start), l.right-l.left)
	first := int64(math.Ceil(float64(l.start.Sub(l.origin)) / float64(step)))
	last := int64(math.Floor(float64(l.end.Sub(l.origin)) / float64(step)))
	for k := first; k <= last; k++ {
		x := l.x(l.origin.Add(time.Duration(k) * step))
		p("<path d=\"M%s %sV%s\" stroke=\"%s\"/>\n", num(x), num(l.top), num(l.bottom), gridColour)
	}
	p("</g>\n")

	p("<g font-size=\"%d\" fill=\"%s\">\n", tickSize, quietColour)
	for d := time.Millisecond; d <= ys.top; d *= 10 {
		p("<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n", num(l.left-6), num(ys.y(d)+4), latencyLabel(d))
	}
	if !isDecade(ys.top) {
		p("<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n", num(l.left-6), num(ys.y(ys.top)+4), latencyLabel(ys.top))
	}
	for k := first; k <= last; k++ {
		x := l.x(l.origin.Add(time.Duration(k) * step))
		p("<text x=\"%s\" y=\"%s\" text-anchor=\"middle\">%s</text>\n", num(x), num(l.bottom+16), secondsLabel(time.Duration(k)*step, step))
	}
	p("</g>\n")
}

// tickStep is the least of a list of round steps that puts ticks at least
// 70 px apart over a span drawn width px wide.
func tickStep(span time.Duration, width float64) time.Duration {
	steps := []time.Duration{
		100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
		time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
		time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
	}
	for _, s := range steps {
		if float64(s)/float64(span)*width >= 70 {
			return s
		}
	}
	return steps[len(steps)-1] * time.Duration(1+span/(steps[len(steps)-1]*10))
}

func isDecade(d time.Duration) bool {
	for v := time.Millisecond; v <= d; v *= 10 {
		if v == d {
			return true
		}
	}
	return false
}

// latencyLabel writes a tick's latency: "1 ms", "100 ms", "1 s", "20 s".
func latencyLabel(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// secondsLabel writes a tick's time from the origin: "0", "+5 s", "−10 s";
// in minutes when the step is a minute or more.
func secondsLabel(d, step time.Duration) string {
	if d == 0 {
		return "0"
	}
	var s string
	switch {
	case step >= time.Minute:
		s = fmt.Sprintf("%+d min", int64(d/time.Minute))
	case step >= time.Second:
		s = fmt.Sprintf("%+d s", int64(d/time.Second))
	default:
		s = fmt.Sprintf("%+.1f s", d.Seconds())
	}
	return strings.Replace(s, "-", "−", 1)
}

// writeBands shades each partition's ack gap at the fault.
func (c *canvas) writeBands(p printf) {
	l := &c.l
	if c.tr.FaultAt.IsZero() {
		return
	}
	opacity := 0.07
	if c.merged {
		// Overlapping bands darken where more partitions stalled.
		opacity = max(0.02, 0.3/float64(len(c.tr.Gaps.Partitions)))
	}
	for _, gp := range c.tr.Gaps.Partitions {
		g := gp.Ack.Fault
		if g == nil {
			continue
		}
		x0, x1 := l.x(g.Start), l.x(g.End)
		p("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" fill-opacity=\"%s\"/>\n",
			num(x0), num(l.top), num(max(x1-x0, 1)), num(l.bottom-l.top), bandColour,
			strconv.FormatFloat(opacity, 'f', 3, 64))
	}
}

// writeData draws each series as one path: a short vertical bar per pixel
// column, from the column's least to its largest latency. The first
// partition is drawn last, so it is on top.
func (c *canvas) writeData(bw *bufio.Writer, ys yScale) {
	l := &c.l
	for s := len(c.series) - 1; s >= 0; s-- {
		fmt.Fprintf(bw, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" stroke-opacity=\"0.75\" d=\"", palette[s])
		for col, b := range c.series[s] {
			if b.n == 0 {
				continue
			}
			x := l.left + float64(col) + 0.5
			y0, y1 := ys.y(b.hi), ys.y(b.lo)
			if y1-y0 < 2 {
				m := (y0 + y1) / 2
				y0, y1 = m-1, m+1
			}
			fmt.Fprintf(bw, "M%s %sV%s", num(x), num(y0), num(y1))
		}
		bw.WriteString("\"/>\n")
	}
}

// markCell is how many pixel columns share one failed or never-acked mark.
const markCell = 6

// writeMarks draws failed sends and never-acked messages in the strip.
func (c *canvas) writeMarks(p printf) {
	l := &c.l
	y := l.stripTop + stripH/2
	for c0 := 0; c0 < l.cols; c0 += markCell {
		var failed, unacked int32
		for i := c0; i < min(c0+markCell, l.cols); i++ {
			failed += c.failed[i]
			unacked += c.unacked[i]
		}
		x := l.left + float64(c0) + markCell/2
		if unacked > 0 {
			writeRing(p, x, y, unackedColour)
		}
		if failed > 0 {
			writeCross(p, x, y, failColour)
		}
	}
	p("\n")
}

// writeEvents draws the event lines and their labels.
func (c *canvas) writeEvents(p printf) {
	l := &c.l
	for _, e := range l.lines {
		top := l.stripTop
		if e.row >= 0 {
			top = l.rowBaseline(e.row) - 10
		}
		attrs := ""
		width := "1.3"
		switch e.style {
		case solid:
			width = "2"
		case dashed:
			attrs = ` stroke-dasharray="6 3"`
		case dotted:
			width, attrs = "1.6", ` stroke-dasharray="1.5 3"`
		}
		p("<path d=\"M%s %sV%s\" stroke=\"%s\" stroke-width=\"%s\"%s/>\n", num(e.x), num(top), num(l.bottom), e.colour, width, attrs)
	}
	for _, e := range l.lines {
		if e.row < 0 || e.text == "" {
			continue
		}
		weight := ""
		if e.bold {
			weight = ` font-weight="bold"`
		}
		p("<text x=\"%s\" y=\"%s\" font-size=\"%d\" text-anchor=\"%s\" fill=\"%s\"%s%s>%s</text>\n",
			num(e.tx), num(l.rowBaseline(e.row)), labelSize, e.anchor, e.colour, weight, halo, esc(e.text))
	}
}

// writeGapBrackets marks each partition's ack gap at the fault with a
// bracket along the bottom of the plot and its length: the stall in
// seconds, where the eye looks for it.
func (c *canvas) writeGapBrackets(p printf) {
	l := &c.l
	if c.tr.FaultAt.IsZero() {
		return
	}
	type bracket struct {
		start, end time.Time
		colour     string
		text       string
	}
	var bs []bracket
	if c.merged {
		var lo, hi time.Duration
		var start, end time.Time
		n := 0
		for _, gp := range c.tr.Gaps.Partitions {
			if g := gp.Ack.Fault; g != nil {
				d := g.Duration()
				if n == 0 {
					lo, hi, start, end = d, d, g.Start, g.End
				}
				lo, hi = min(lo, d), max(hi, d)
				start, end = moment.Earlier(start, g.Start), moment.Later(end, g.End)
				n++
			}
		}
		if n > 0 {
			bs = append(bs, bracket{start, end, eventColour,
				fmt.Sprintf("ack gaps %s (%s)", secondsRange(lo, hi), partitions(n))})
		}
	} else {
		for _, gp := range c.tr.Gaps.Partitions {
			if g := gp.Ack.Fault; g != nil {
				text := fmt.Sprintf("p%d gap %s", gp.Partition, seconds(g.Duration()))
				switch {
				case g.Open && g.Start.After(c.tr.FaultAt):
					text = fmt.Sprintf("p%d no ack again to the end, ≥ %s", gp.Partition, seconds(g.Duration()))
				case g.Open:
					text = fmt.Sprintf("p%d no ack after the fault, ≥ %s", gp.Partition, seconds(g.Duration()))
				}
				bs = append(bs, bracket{g.Start, g.End, c.colour(gp.Partition), text})
			}
		}
	}
	for i, b := range bs {
		y := l.bottom - 8 - float64(len(bs)-1-i)*20
		x0, x1 := l.x(b.start), l.x(b.end)
		p("<path d=\"M%s %sv8M%s %sH%sM%s %sv8\" stroke=\"%s\" stroke-width=\"1.5\" fill=\"none\"/>\n",
			num(x0), num(y-4), num(x0), num(y), num(x1), num(x1), num(y-4), b.colour)
		tx, anchor := x0+3, "start"
		if tx+textWidth(b.text, textSize)*1.1 > l.right {
			tx, anchor = x1-3, "end"
		}
		p("<text x=\"%s\" y=\"%s\" text-anchor=\"%s\" font-weight=\"bold\" fill=\"%s\"%s>%s</text>\n",
			num(tx), num(y-6), anchor, b.colour, halo, esc(b.text))
	}
}

// describe is the picture in words, for <desc>: what a screen reader says
// and what a search finds.
func (c *canvas) describe() string {
	tr := c.tr
	l := &c.l
	var b strings.Builder
	b.WriteString("Ack latency (acked minus sent) of each probe message, on a log scale, against its send time in seconds")
	if tr.FaultAt.IsZero() {
		b.WriteString(" since the first send. ")
	} else {
		fmt.Fprintf(&b, " since the fault, %s at %s UTC. ", faultName(tr), tr.FaultAt.UTC().Format("15:04:05.000"))
	}
	b.WriteString(strings.ToUpper(l.subtitle[:1]) + l.subtitle[1:] + ". ")
	fmt.Fprintf(&b, "Largest ack latency %s. %d sent, %d acked, %d failed, %d never acked.",
		seconds(c.maxLatency), c.sent, c.acked, c.nFailed, c.nUnack)
	var events []string
	for _, e := range l.lines {
		if e.text != "" {
			events = append(events, e.text)
		}
	}
	if len(events) > 0 {
		b.WriteString(" Events: " + strings.Join(events, "; ") + ".")
	}
	return b.String()
}
