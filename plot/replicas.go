package plot

import (
	"fmt"
	"strings"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/internal/moment"
)

// The replica view's panels: under the latency plot, one panel per
// partition with each replica's log end offset and the high watermark as
// lines on the same time axis, as the report read them from replicas.csv —
// the dead follower's LEO stopping, the HW held, the new leader's LEO taking
// over; the HW's line broken while the partition had no leader.

const (
	panelH      = 90 // a partition's replica panel
	panelGap    = 26 // above each panel: its title
	maxPanels   = MaxColours
	hwColour    = "#000000" // a leader that is not among the LEOs' brokers
	panelsAfter = 54        // below the plot area: the x axis' labels and title
)

// replicaPanels returns the partitions whose replicas are drawn.
func replicaPanels(tr *analysis.Trial) []analysis.PartitionReplicas {
	if tr.Replicas == nil {
		return nil
	}
	var out []analysis.PartitionReplicas
	for _, p := range tr.Replicas.Partitions {
		if len(p.LEOs) > 0 || len(p.HWs) > 0 {
			out = append(out, p)
		}
	}
	if len(out) > maxPanels {
		out = out[:maxPanels]
	}
	return out
}

// panelsHeight is the room the replica panels take.
func panelsHeight(tr *analysis.Trial) float64 {
	return float64(len(replicaPanels(tr)) * (panelH + panelGap))
}

// writeReplicas draws the replica panels from l.panelsTop down.
func (c *canvas) writeReplicas(p printf) {
	l := &c.l
	for i, pr := range replicaPanels(c.tr) {
		top := l.panelsTop + float64(i*(panelH+panelGap)) + panelGap
		bottom := top + panelH
		lo, hi := int64(-1), int64(-1)
		from, to := c.zoom(pr.Partition)
		widen := func(xs []analysis.ReplicaOffset) {
			for _, x := range xs {
				if x.Time.Before(from) || x.Time.After(to) {
					continue
				}
				if lo < 0 || x.Offset < lo {
					lo = x.Offset
				}
				if x.Offset > hi {
					hi = x.Offset
				}
			}
		}
		for _, s := range pr.LEOs {
			widen(s.Points)
		}
		widen(pr.HWs)
		var legend []string
		for j, s := range pr.LEOs {
			legend = append(legend, fmt.Sprintf("broker %d %s", s.Broker, colourName(j)))
		}
		p("<text x=\"%s\" y=\"%s\">p%d replicas, offsets %d–%d (zoomed to the fault's stall): LEO dashed, HW solid as each leader answered; %s</text>\n",
			num(l.left), num(top-6), pr.Partition, max(lo, 0), max(hi, 0), esc(strings.Join(legend, ", ")))
		p("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%d\" fill=\"none\" stroke=\"#888888\"/>\n",
			num(l.left), num(top), num(l.right-l.left), panelH)
		clip := fmt.Sprintf("replicas-p%d", pr.Partition)
		p("<clipPath id=\"%s\"><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%d\"/></clipPath>\n<g clip-path=\"url(#%s)\">\n",
			clip, num(l.left), num(top), num(l.right-l.left), panelH, clip)
		if !c.tr.FaultAt.IsZero() && l.inRange(c.tr.FaultAt) {
			x := l.x(c.tr.FaultAt)
			p("<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#C00000\"/>\n", num(x), num(top), num(x), num(bottom))
		}
		if hi <= lo {
			hi = lo + 1
		}
		y := func(o int64) float64 { return bottom - 3 - float64(o-lo)/float64(hi-lo)*(panelH-6) }
		colour := map[int32]string{}
		for j, s := range pr.LEOs {
			colour[s.Broker] = palette[j%len(palette)]
			writeSteps(p, l, s.Points, y, colour[s.Broker], "1.4", "4 2")
		}
		// The HW as each broker answered it as leader: a leader cut from
		// the controller goes on answering its own, held, beside the new
		// leader's.
		byBroker := map[int32][]analysis.ReplicaOffset{}
		var order []int32
		for _, x := range pr.HWs {
			if _, ok := byBroker[x.Broker]; !ok {
				order = append(order, x.Broker)
			}
			byBroker[x.Broker] = append(byBroker[x.Broker], x)
		}
		for _, b := range order {
			col, ok := colour[b]
			if !ok {
				col = hwColour
			}
			for _, run := range splitAt(byBroker[b], pr.Leaderless) {
				writeSteps(p, l, run, y, col, "2", "")
			}
		}
		p("</g>\n")
	}
}

// splitAt cuts offsets sorted by time where a time without a leader began
// between two of them: the HW is unknown there, and its line breaks rather
// than run flat across.
func splitAt(xs []analysis.ReplicaOffset, none []analysis.Leaderless) [][]analysis.ReplicaOffset {
	var runs [][]analysis.ReplicaOffset
	from := 0
	for i := 1; i < len(xs); i++ {
		for _, n := range none {
			if n.From.After(xs[i-1].Time) && !n.From.After(xs[i].Time) {
				runs = append(runs, xs[from:i])
				from = i
				break
			}
		}
	}
	return append(runs, xs[from:])
}

// zoom is the time the replica panel of partition p scales its offsets
// to: from a second before the fault to two after its ack gap at the
// fault, where the report found one; the whole trial otherwise.
func (c *canvas) zoom(p int32) (time.Time, time.Time) {
	l := &c.l
	F := c.tr.FaultAt
	if F.IsZero() {
		return l.start, l.end
	}
	for _, gp := range c.tr.Gaps.Partitions {
		if g := gp.Ack.Fault; gp.Partition == p && g != nil {
			return moment.Earlier(F, g.Start).Add(-time.Second), g.End.Add(2 * time.Second)
		}
	}
	return F.Add(-time.Second), F.Add(10 * time.Second)
}

var colourNames = [MaxColours]string{"blue", "orange", "green", "pink", "sky blue", "brown"}

func colourName(i int) string { return colourNames[i%len(colourNames)] }

// writeSteps draws offsets as a step line, one point per pixel column (the
// last there), so a long trial stays a small file.
func writeSteps(p printf, l *layout, xs []analysis.ReplicaOffset, y func(int64) float64, colour, width, dash string) {
	var b strings.Builder
	lastCol, n := -1, 0
	for i, x := range xs {
		if !l.inRange(x.Time) {
			continue
		}
		col := l.col(x.Time)
		if col == lastCol && i+1 < len(xs) && l.inRange(xs[i+1].Time) && l.col(xs[i+1].Time) == col {
			continue
		}
		px, py := l.x(x.Time), y(x.Offset)
		if n == 0 {
			fmt.Fprintf(&b, "M%s %s", num(px), num(py))
		} else {
			fmt.Fprintf(&b, "H%sV%s", num(px), num(py))
		}
		lastCol = col
		n++
	}
	if n == 0 {
		return
	}
	dashAttr := ""
	if dash != "" {
		dashAttr = fmt.Sprintf(" stroke-dasharray=\"%s\"", dash)
	}
	p("<path fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s d=\"%s\"/>\n", colour, width, dashAttr, b.String())
}
