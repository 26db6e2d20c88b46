package bench

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/kbf-project/kbf/results"
)

// SweepPlotFile names a sweep's SVG, per scenario and role.
func SweepPlotFile(scenario, role string) string {
	return "sweep-" + scenario + "-" + role + ".svg"
}

// sweep is one swept scenario's groups, in the order of its values.
type sweep struct {
	Scenario Scenario
	Groups   []group
}

func (s *Set) sweeps() []sweep {
	var out []sweep
	idx := map[string]int{}
	for _, g := range s.groups(s.variants()) {
		if g.V.Key == "" {
			continue
		}
		i, ok := idx[g.V.Scenario.Name]
		if !ok {
			i = len(out)
			idx[g.V.Scenario.Name] = i
			out = append(out, sweep{Scenario: g.V.Scenario})
		}
		out[i].Groups = append(out[i].Groups, g)
	}
	return out
}

// sweepMarkdown adds a table per swept scenario and role: each value's
// median and interval of every metric in seconds.
func (s *Set) sweepMarkdown(b *bytes.Buffer) {
	for _, sw := range s.sweeps() {
		for _, role := range []string{RoleLeader, RoleFollower} {
			cols := sweepMetrics(sw, role)
			if len(cols) == 0 {
				continue
			}
			fmt.Fprintf(b, "\n## sweep %s: %s, %s partitions (median [95 %% interval], s)\n\n| %s |", sw.Scenario.Name, sw.Scenario.Sweep.Key, role, sw.Scenario.Sweep.Key)
			for _, m := range cols {
				fmt.Fprintf(b, " %s |", m.Name)
			}
			fmt.Fprintf(b, " n |\n|---|%s---:|\n", strings.Repeat("---:|", len(cols)))
			for _, g := range sw.Groups {
				by := map[string]stat{}
				n := 0
				for _, st := range g.stats(role) {
					by[st.Metric.Unit] = st
					n = max(n, len(st.Values))
				}
				fmt.Fprintf(b, "| %s |", g.V.Value)
				for _, m := range cols {
					st, ok := by[m.Unit]
					switch {
					case !ok:
						b.WriteString(" – |")
					case interval(st.Summary.Lo, st.Summary.Hi):
						fmt.Fprintf(b, " %s [%s, %s] |", num(st.Summary.Center), num(st.Summary.Lo), num(st.Summary.Hi))
					default:
						fmt.Fprintf(b, " %s |", num(st.Summary.Center))
					}
				}
				fmt.Fprintf(b, " %d |\n", n)
			}
			fmt.Fprintf(b, "\n![%s %s](%s)\n", sw.Scenario.Name, role, SweepPlotFile(sw.Scenario.Name, role))
		}
	}
}

// sweepMetrics are the metrics in seconds that some value of sw measured
// for role.
func sweepMetrics(sw sweep, role string) []Metric {
	seen := map[string]bool{}
	for _, g := range sw.Groups {
		for _, st := range g.stats(role) {
			seen[st.Metric.Unit] = true
		}
	}
	var out []Metric
	for _, m := range Metrics {
		if m.Seconds && seen[m.Unit] {
			out = append(out, m)
		}
	}
	return out
}

func (s *Set) writeSweeps(dir string) error {
	for _, sw := range s.sweeps() {
		for _, role := range []string{RoleLeader, RoleFollower} {
			if len(sweepMetrics(sw, role)) == 0 {
				continue
			}
			path := filepath.Join(dir, SweepPlotFile(sw.Scenario.Name, role))
			if err := results.WriteFileAtomic(path, func(w io.Writer) error { return drawSweep(w, sw, role) }); err != nil {
				return fmt.Errorf("sweep plot %s: %w", path, err)
			}
		}
	}
	return nil
}

// errPoints are medians with their intervals, as plotter.YErrorBars wants.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// drawSweep draws each metric's median against the swept value, with its
// 95 % interval as an error bar (none where the trials are too few). The
// values are placed by number when every one is a number, else evenly.
func drawSweep(w io.Writer, sw sweep, role string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s partitions, median and 95 %% interval", sw.Scenario.Name, role)
	p.X.Label.Text = sw.Scenario.Sweep.Key
	p.Y.Label.Text = "seconds"
	xs := make([]float64, len(sw.Groups))
	numeric := true
	for i, g := range sw.Groups {
		v, err := strconv.ParseFloat(g.V.Value, 64)
		if err != nil {
			numeric = false
		}
		xs[i] = v
	}
	ticks := make([]plot.Tick, len(sw.Groups))
	for i, g := range sw.Groups {
		if !numeric {
			xs[i] = float64(i)
		}
		ticks[i] = plot.Tick{Value: xs[i], Label: g.V.Value}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Legend.Top = true
	for i, m := range sweepMetrics(sw, role) {
		var pts errPoints
		for gi, g := range sw.Groups {
			for _, st := range g.stats(role) {
				if st.Metric.Unit != m.Unit {
					continue
				}
				c := st.Summary.Center
				e := struct{ Low, High float64 }{}
				if interval(st.Summary.Lo, st.Summary.Hi) {
					e.Low, e.High = c-st.Summary.Lo, st.Summary.Hi-c
				}
				pts.XYs = append(pts.XYs, plotter.XY{X: xs[gi], Y: c})
				pts.YErrors = append(pts.YErrors, e)
			}
		}
		if len(pts.XYs) == 0 {
			continue
		}
		line, marks, err := plotter.NewLinePoints(pts.XYs)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		marks.Color = plotutil.Color(i)
		marks.Shape = plotutil.Shape(i)
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return err
		}
		bars.Color = plotutil.Color(i)
		p.Add(line, marks, bars)
		p.Legend.Add(m.Name, line, marks)
	}
	if p.Y.Min > 0 && !math.IsInf(p.Y.Min, 0) {
		p.Y.Min = 0 // a stall's scale starts at no stall
	}
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, "svg")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}
