package plot

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/internal/moment"
	"github.com/kbf-project/kbf/results"
)

// Font sizes, and the estimate of a sans-serif glyph's width the layout
// uses to keep labels apart: generous, so that labels clear each other in
// the wider fonts (DejaVu Sans) as well as in the narrower (Helvetica).
const (
	titleSize = 16
	textSize  = 12
	labelSize = 11
	tickSize  = 11
	footSize  = 11
	glyph     = 0.6 // average advance, in ems
)

// Vertical spacing, in pixels.
const (
	lineGap  = 18 // between the baselines of title, subtitle and legend lines
	rowH     = 15 // an event label row
	stripH   = 14 // the strip of failed and never-acked marks above the plot
	footGap  = 14 // between footnote lines
	margin   = 12 // the picture's outer margin
	plotLeft = 72 // room for the y tick labels and the axis title
	plotPad  = 28 // right of the plot
)

// textWidth estimates the width of s set at size px.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * glyph
}

// lineStyle is how an event's vertical line is drawn.
type lineStyle int

const (
	solid  lineStyle = iota // the fault
	dashed                  // the controller's detection, a new leader
	dotted                  // the producer learning the new leader
)

// eventLine is a vertical line over the plot and its label.
type eventLine struct {
	at     time.Time
	text   string
	colour string
	style  lineStyle
	bold   bool

	x      float64
	row    int // label row from the top; -1 when the label did not fit
	tx     float64
	anchor string // "start" or "end"
}

// layout is where everything goes, decided before the first row is read:
// the plot's width fixes the pixel columns the rows are bucketed into.
type layout struct {
	width, height int

	title, subtitle string
	titleLines      []string
	subtitleLines   []string
	subtitleTop     float64        // baseline of the first subtitle line
	legend          [][]legendItem // lines of items
	legendTop       float64        // baseline of the first legend line
	rowsTop         float64        // top of the first event label row
	rows            int            // event label rows in use
	stripTop        float64
	left, right     float64 // the plot area
	top, bottom     float64
	foot            []string
	footTop         float64 // baseline of the first footnote line
	panelsTop       float64 // top of the replica panels, under the x axis' title

	cols       int
	start, end time.Time // the x axis' range
	origin     time.Time // x = 0
	lines      []eventLine
	unlabelled int
}

// legendItem is one entry of the legend: a swatch of some kind and a text.
type legendItem struct {
	kind   string // "dot", "cross", "ring", "band"
	colour string
	text   string
}

func newLayout(c *canvas, width, height int) layout {
	tr := c.tr
	g := tr.Gaps
	l := layout{width: width, height: height}
	l.left, l.right = plotLeft, float64(width-plotPad)
	l.cols = int(l.right - l.left)

	l.start, l.end = g.Start, g.End
	if !tr.FaultAt.IsZero() {
		if tr.FaultAt.Before(l.start) {
			l.start = tr.FaultAt
		}
		if tr.FaultAt.After(l.end) {
			l.end = tr.FaultAt
		}
	}
	if !l.end.After(l.start) {
		l.end = l.start.Add(time.Second)
	}
	l.origin = g.Start
	if !tr.FaultAt.IsZero() {
		l.origin = tr.FaultAt
	}

	l.title = titleLine(tr)
	l.subtitle = subtitleLine(tr, c.merged)
	l.legend = wrapLegend(legendItems(tr, c.merged), float64(width-2*margin))
	l.lines = eventLines(tr, c.merged, c.colour)
	l.foot = wrapText(footnote(tr), float64(width-2*margin), footSize)

	// The title and subtitle, wrapped to the width: a bold glyph is wider.
	l.titleLines = wrapText(l.title, float64(width-2*margin)/1.1, titleSize)
	l.subtitleLines = wrapText(l.subtitle, float64(width-2*margin), textSize)
	y := float64(margin + titleSize)
	for range l.titleLines[1:] {
		y += titleSize + 4
	}
	y += lineGap
	l.subtitleTop = y
	y += float64(len(l.subtitleLines)-1) * lineGap
	l.legendTop = y + lineGap
	l.rowsTop = l.legendTop + float64(len(l.legend)-1)*lineGap + 10
	footLines := float64(len(l.foot))
	bottomBlock := 54 + footLines*footGap
	minPlot := max(150, float64(height)*0.38)
	maxRows := int((float64(height) - bottomBlock - l.rowsTop - stripH - 8 - minPlot) / rowH)
	maxRows = max(maxRows, 1)

	// A line off the x axis (a --fault-at far from the probe) is not drawn.
	l.lines = slices.DeleteFunc(l.lines, func(e eventLine) bool { return !l.inRange(e.at) })
	for i := range l.lines {
		l.lines[i].x = l.x(l.lines[i].at)
	}
	l.placeLabels(maxRows)

	l.stripTop = l.rowsTop + float64(l.rows)*rowH + 4
	l.top = l.stripTop + stripH + 4
	l.bottom = float64(height) - bottomBlock
	l.footTop = l.bottom + 54
	// The replica panels go under the x axis' title, the footnote under
	// them: the picture grows by their height.
	if ph := panelsHeight(tr); ph > 0 {
		l.panelsTop = l.bottom + panelsAfter
		l.footTop += ph + 20
		l.height += int(ph) + 20
	}
	return l
}

// x is the horizontal position of time t, clamped to the plot.
func (l *layout) x(t time.Time) float64 {
	return l.left + l.frac(t)*float64(l.cols)
}

// col is the pixel column of time t.
func (l *layout) col(t time.Time) int {
	c := int(l.frac(t) * float64(l.cols))
	return min(max(c, 0), l.cols-1)
}

func (l *layout) frac(t time.Time) float64 {
	f := float64(t.Sub(l.start)) / float64(l.end.Sub(l.start))
	return min(max(f, 0), 1)
}

// inRange reports whether t falls on the x axis.
func (l *layout) inRange(t time.Time) bool { return !t.Before(l.start) && !t.After(l.end) }

// placeLabels gives each event line's label a row, the highest where it
// neither overlaps a label in that row, nor is crossed by the line of a
// label above it, nor has its own line cross a label below it.
//
// A label goes right of its line, or left where it would run off the
// picture. Lines close together (a cluster: the detection, the new leaders
// and the producer learning them come within a few pixels) are labelled
// all on one side, else a label on one side would be crossed by a line
// whose label is on the other; the labels of a cluster set right of their
// lines go from the earliest down, those set left from the latest down, so
// that each line starts above the labels its neighbours set beside it.
func (l *layout) placeLabels(maxRows int) {
	type span struct {
		lo, hi, x float64
		row       int
	}
	var placed []span
	const pad = 8        // between labels in a row
	const clusterPx = 40 // lines closer than this form a cluster
	width := func(e *eventLine) float64 {
		w := textWidth(e.text, labelSize)
		if e.bold {
			w *= 1.1
		}
		return w
	}
	place := func(e *eventLine, left bool) {
		w := width(e)
		lo, hi, anchor, tx := e.x+4, e.x+4+w, "start", e.x+4
		if left {
			lo, hi, anchor, tx = e.x-4-w, e.x-4, "end", e.x-4
		}
		for r := 0; r < maxRows; r++ {
			ok := true
			for _, p := range placed {
				switch {
				case p.row == r && lo < p.hi+pad && hi > p.lo-pad:
					ok = false
				case p.row < r && p.x >= lo-3 && p.x <= hi+3:
					ok = false
				case p.row > r && e.x >= p.lo-3 && e.x <= p.hi+3:
					ok = false
				}
			}
			if ok {
				e.row, e.tx, e.anchor = r, tx, anchor
				placed = append(placed, span{lo, hi, e.x, r})
				l.rows = max(l.rows, r+1)
				return
			}
		}
		l.unlabelled++
	}
	// The lines are in time order, so in x order.
	for i := 0; i < len(l.lines); {
		j := i + 1
		for j < len(l.lines) && l.lines[j].x-l.lines[j-1].x < clusterPx {
			j++
		}
		cluster := l.lines[i:j]
		left := false
		for k := range cluster {
			cluster[k].row = -1
			if cluster[k].text != "" && cluster[k].x+4+width(&cluster[k]) > float64(l.width-margin) {
				left = true
			}
		}
		for k := range cluster {
			e := &cluster[k]
			if left {
				e = &cluster[len(cluster)-1-k]
			}
			if e.text != "" {
				place(e, left)
			}
		}
		i = j
	}
}

// rowBaseline is the baseline of label row r.
func (l *layout) rowBaseline(r int) float64 { return l.rowsTop + float64(r)*rowH + 11 }

// trialName is the trial directory's own name: never the path to it, which
// would put the machine's directories in the picture.
func trialName(dir string) string {
	if dir == "" {
		return "probe"
	}
	name := filepath.Base(dir)
	if name == "." || name == ".." || name == string(filepath.Separator) {
		if abs, err := filepath.Abs(dir); err == nil {
			name = filepath.Base(abs)
		}
	}
	return name
}

// faultName is the fault as its line's label says it: "SIGKILL k1".
func faultName(tr *analysis.Trial) string {
	if tr.Meta == nil || tr.Meta.Fault == nil {
		return "fault"
	}
	f := tr.Meta.Fault
	s := "fault"
	if f.Kind != "" {
		s = f.Kind.Signal()
	}
	if f.Broker != "" {
		s += " " + f.Broker
	}
	if f.Escalated {
		s += " (escalated to SIGKILL)"
	}
	return s
}

func titleLine(tr *analysis.Trial) string {
	parts := []string{trialName(tr.Dir)}
	if !tr.FaultAt.IsZero() {
		parts = append(parts, faultName(tr)+" at "+tr.FaultAt.UTC().Format("2006-01-02 15:04:05.000")+" UTC")
	} else {
		parts = append(parts, "no fault")
	}
	if m := tr.Meta; m != nil {
		if m.Cluster.KafkaVersion != "" {
			parts = append(parts, "Kafka "+m.Cluster.KafkaVersion)
		}
		if m.Probe.Topic != "" {
			parts = append(parts, "topic "+m.Probe.Topic)
		}
	}
	return strings.Join(parts, " · ")
}

// subtitleLine says in words what the picture shows in lines: the ack gap
// of each partition at the fault.
func subtitleLine(tr *analysis.Trial, merged bool) string {
	g := tr.Gaps
	if tr.FaultAt.IsZero() {
		var best time.Duration
		var bp int32 = -1
		for _, p := range g.Partitions {
			if p.Ack.Longest != nil && p.Ack.Longest.Duration() > best {
				best, bp = p.Ack.Longest.Duration(), p.Partition
			}
		}
		if bp < 0 {
			return "ack latency of every message; no fault recorded"
		}
		return fmt.Sprintf("ack latency of every message; no fault recorded; longest ack gap %s (p%d)", seconds(best), bp)
	}
	var parts []string
	var lo, hi time.Duration
	n := 0
	for _, p := range g.Partitions {
		f := p.Ack.Fault
		if f == nil {
			continue
		}
		d := f.Duration()
		if n == 0 || d < lo {
			lo = d
		}
		hi = max(hi, d)
		n++
		s := fmt.Sprintf("p%d %s", p.Partition, seconds(d))
		switch {
		case f.Open && f.Start.After(g.FaultAt):
			s = fmt.Sprintf("p%d ≥ %s (no ack again to the end)", p.Partition, seconds(d))
		case f.Open:
			s = fmt.Sprintf("p%d ≥ %s (no ack after the fault)", p.Partition, seconds(d))
		}
		parts = append(parts, s)
	}
	switch {
	case n == 0:
		return "ack latency of every message; no ack gap at the fault"
	case merged:
		return fmt.Sprintf("ack gaps at the fault: %s across %s", secondsRange(lo, hi), partitions(n))
	}
	return "ack gaps at the fault: " + strings.Join(parts, ", ")
}

// roleText says what the faulted broker was to a partition, as the
// analysis decided it once for every renderer (a partition that did not
// stall has its role too).
func roleText(tr *analysis.Trial, p int32) string {
	if tr.Meta == nil || tr.Meta.Fault == nil {
		return ""
	}
	b := tr.Meta.Fault.Broker
	switch tr.Role(p) {
	case results.RoleLed:
		return b + " led it"
	case results.RoleFollowed:
		return b + " followed"
	}
	return "not on " + b
}

func legendItems(tr *analysis.Trial, merged bool) []legendItem {
	var items []legendItem
	if merged {
		items = append(items, legendItem{"dot", palette[0],
			fmt.Sprintf("all %d partitions, in one colour (more than %d)", len(tr.Gaps.Partitions), MaxColours)})
	} else {
		for i, p := range tr.Gaps.Partitions {
			text := fmt.Sprintf("p%d", p.Partition)
			if r := roleText(tr, p.Partition); r != "" {
				text += " (" + r + ")"
			}
			items = append(items, legendItem{"dot", palette[i], text})
		}
	}
	failed, unacked := 0, 0
	for _, p := range tr.Gaps.Partitions {
		failed += p.Failed
		unacked += p.NeverAcked
	}
	items = append(items,
		legendItem{"cross", failColour, fmt.Sprintf("failed send (%d)", failed)},
		legendItem{"ring", unackedColour, fmt.Sprintf("never acked (%d)", unacked)})
	if !tr.FaultAt.IsZero() {
		items = append(items, legendItem{"band", bandColour, "ack gap at the fault"})
	}
	return items
}

// legendItemWidth is an item's width: swatch, gap, text.
func legendItemWidth(it legendItem) float64 { return 16 + textWidth(it.text, textSize) }

const legendSep = 22 // between legend items

func wrapLegend(items []legendItem, width float64) [][]legendItem {
	var lines [][]legendItem
	var cur []legendItem
	used := 0.0
	for _, it := range items {
		w := legendItemWidth(it)
		if len(cur) > 0 && used+legendSep+w > width {
			lines = append(lines, cur)
			cur, used = nil, 0
		}
		if len(cur) > 0 {
			used += legendSep
		}
		cur = append(cur, it)
		used += w
	}
	return append(lines, cur)
}

// footnote says how the probe ran and how to read the marks.
func footnote(tr *analysis.Trial) string {
	var b strings.Builder
	if m := tr.Meta; m != nil {
		p := m.Probe
		fmt.Fprintf(&b, "Probe: topic %s, %d partitions, one record per partition every %v, acks=%s", p.Topic,
			len(tr.Gaps.Partitions), p.Interval, p.Acks)
		if v := p.Client["client"]; v != "" {
			fmt.Fprintf(&b, ", %s", v)
		}
		b.WriteString(". ")
	}
	g := tr.Gaps
	acked := 0
	for _, p := range g.Partitions {
		acked += p.Acked
	}
	fmt.Fprintf(&b, "%d sent, %d acked, %d failed. ", g.Sent, acked, g.Failed)
	b.WriteString("Each mark is a message at its send time, as high as its ack latency (acked − sent); " +
		"where one pixel column holds several, a bar from the least to the largest.")
	return b.String()
}

// wrapText breaks s into lines no wider than width at size px.
func wrapText(s string, width float64, size float64) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(s) {
		if cur.Len() > 0 && textWidth(cur.String()+" "+word, size) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// eventLines are the fault and the stalls' phase boundaries, in time order,
// as the report decided them (analysis.Trial.Boundaries): a line per
// boundary, labelled by its kind. With more than MaxColours partitions,
// each kind of boundary gets one label for all its lines.
func eventLines(tr *analysis.Trial, merged bool, colour func(int32) string) []eventLine {
	if tr.FaultAt.IsZero() {
		return nil
	}
	F := tr.FaultAt
	broker := "the broker"
	if tr.Meta != nil && tr.Meta.Fault != nil {
		broker = tr.Meta.Fault.Broker
	}
	// The fault's line is the one the picture measures from, so it is
	// drawn even where the report split no stall (a --fault-at).
	lines := []eventLine{{at: F, text: faultName(tr), colour: failColour, style: solid, bold: true}}

	type group struct {
		first, last time.Time
		n           int
	}
	groups := map[string]*group{}
	var keys []string
	for _, bd := range tr.Boundaries {
		var text string
		style := dashed
		switch bd.Kind {
		case analysis.BoundaryFault:
			continue
		case analysis.BoundaryFenced:
			lines = append(lines, eventLine{at: bd.Time, text: broker + " fenced " + since(bd.Time, F), colour: eventColour, style: dashed})
			continue
		case analysis.BoundaryNewIncarnation:
			lines = append(lines, eventLine{at: bd.Time, text: broker + " registered again " + since(bd.Time, F), colour: eventColour, style: dashed})
			continue
		case analysis.BoundaryControlledShutdown:
			lines = append(lines, eventLine{at: bd.Time, text: broker + " controlled shutdown " + since(bd.Time, F), colour: eventColour, style: dashed})
			continue
		case analysis.BoundaryQuorumLeader:
			lines = append(lines, eventLine{at: bd.Time, text: fmt.Sprintf("node %d leads the quorum %s", bd.Broker, since(bd.Time, F)), colour: eventColour, style: dashed})
			continue
		case analysis.BoundaryShutdownGranted:
			lines = append(lines, eventLine{at: bd.Time, text: broker + " shutdown granted " + since(bd.Time, F), colour: eventColour, style: dashed})
			continue
		case analysis.BoundaryProducerLearned:
			style = dotted
			text = fmt.Sprintf("p%d producer learns", bd.Partition)
			if bd.Broker >= 0 {
				text += fmt.Sprintf(" leader %d", bd.Broker)
			}
		case analysis.BoundaryNewLeader:
			text = fmt.Sprintf("p%d new leader", bd.Partition)
			if bd.Broker >= 0 {
				text += fmt.Sprintf(" %d", bd.Broker)
			}
		case analysis.BoundaryISRShrunk:
			text = fmt.Sprintf("p%d ISR without %s", bd.Partition, broker)
		case analysis.BoundaryFollowerReturned:
			text = fmt.Sprintf("p%d %s follows again", bd.Partition, broker)
		default:
			continue
		}
		if !merged {
			lines = append(lines, eventLine{at: bd.Time, text: text + " " + since(bd.Time, F), colour: colour(bd.Partition), style: style})
			continue
		}
		// One label per kind, on the kind's first line; the others go
		// unlabelled.
		key := string(bd.Kind)
		gr := groups[key]
		if gr == nil {
			gr = &group{first: bd.Time, last: bd.Time}
			groups[key] = gr
			keys = append(keys, key)
		}
		gr.first, gr.last = moment.Earlier(gr.first, bd.Time), moment.Later(gr.last, bd.Time)
		gr.n++
		lines = append(lines, eventLine{at: bd.Time, colour: palette[0], style: style})
	}
	names := map[string]string{
		string(analysis.BoundaryNewLeader):        "new leaders",
		string(analysis.BoundaryISRShrunk):        "ISRs without " + broker,
		string(analysis.BoundaryProducerLearned):  "producer learns new leaders",
		string(analysis.BoundaryFollowerReturned): broker + " follows again",
	}
	for _, key := range keys {
		gr := groups[key]
		when := since(gr.first, F)
		if gr.last.After(gr.first) {
			when += " to " + since(gr.last, F)
		}
		text := fmt.Sprintf("%s %s (%s)", names[key], when, partitions(gr.n))
		for i := range lines {
			if lines[i].text == "" && lines[i].at.Equal(gr.first) && lines[i].style == styleOf(key) {
				lines[i].text = text
				break
			}
		}
	}
	slices.SortStableFunc(lines, func(a, b eventLine) int { return a.at.Compare(b.at) })
	// Unlabelled lines of a merged picture: one per time is enough.
	return slices.CompactFunc(lines, func(a, b eventLine) bool {
		return a.text == "" && b.text == "" && a.at.Equal(b.at) && a.style == b.style
	})
}

func partitions(n int) string {
	if n == 1 {
		return "1 partition"
	}
	return fmt.Sprintf("%d partitions", n)
}

func styleOf(key string) lineStyle {
	if key == string(analysis.BoundaryProducerLearned) {
		return dotted
	}
	return dashed
}

// since writes t relative to F, "+8.42 s".
func since(t, F time.Time) string {
	return fmt.Sprintf("%+.2f s", t.Sub(F).Seconds())
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// secondsRange writes lo to hi, "0.27 to 1.06 s", or one number when they
// round alike.
func secondsRange(lo, hi time.Duration) string {
	a, b := fmt.Sprintf("%.2f", lo.Seconds()), fmt.Sprintf("%.2f", hi.Seconds())
	if a == b {
		return a + " s"
	}
	return a + " to " + b + " s"
}

// yScale maps a latency to a height on a log scale from 1 ms to top.
type yScale struct {
	top         time.Duration
	yTop, yBase float64
}

// niceTop is the least of 1, 2 and 5 times a power of ten, in
// milliseconds, that is at least d and at least 10 ms.
func niceTop(d time.Duration) time.Duration {
	d = max(d, 10*time.Millisecond)
	for p := time.Millisecond; p < 1e6*time.Second; p *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if p*m >= d {
				return p * m
			}
		}
	}
	return 1e6 * time.Second
}

func (s yScale) y(d time.Duration) float64 {
	d = min(max(d, time.Millisecond), s.top)
	f := math.Log10(float64(d)/float64(time.Millisecond)) / math.Log10(float64(s.top)/float64(time.Millisecond))
	return s.yBase - f*(s.yBase-s.yTop)
}
