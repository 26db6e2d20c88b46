package htmlreport

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

//go:embed assets/uPlot.iife.min.js
var uplotJS string

//go:embed assets/uPlot.min.css
var uplotCSS string

//go:embed assets/page.js
var pageJS string

//go:embed assets/page.css
var pageCSS string

// errEmpty is reported for a run without a trial or a benchmark without a
// metric.
var errEmpty = errors.New("nothing to draw")

// WriteTrial writes one trial's page on w. The probe CSV is read once, row
// by row; nothing is written before it has been read whole, so a bad file
// leaves w empty.
func WriteTrial(w io.Writer, in TrialPage) error {
	tm, err := buildTrial(in)
	if err != nil {
		return err
	}
	return writePage(w, &page{Kind: "trial", Title: "kbf: " + tm.Name, Trials: []trialModel{*tm}})
}

// WriteRun writes one page for the trials of a run: each trial's lanes,
// and per partition the trials overlaid on time since their faults.
func WriteRun(w io.Writer, in RunPage) error {
	pg, err := buildRun(in)
	if err != nil {
		return err
	}
	return writePage(w, pg)
}

// WriteBench writes a benchmark's page.
func WriteBench(w io.Writer, in BenchPage) error {
	pg, err := buildBench(in)
	if err != nil {
		return err
	}
	return writePage(w, pg)
}

func buildTrial(in TrialPage) (*trialModel, error) {
	return buildTrialAs(in, in.Report != nil && in.Report.Condensed())
}

// buildTrialAs builds the trial's model, drawn as a heat map when heat is
// set.
func buildTrialAs(in TrialPage, heat bool) (*trialModel, error) {
	if in.Report == nil {
		return nil, fmt.Errorf("trial page: no report: %w", errEmpty)
	}
	a, err := fromReport(in.Report, in.Client)
	if err != nil {
		return nil, err
	}
	name := in.ProbeName
	if name == "" {
		name = results.ProbeFile
	}
	if in.Probe == nil {
		return nil, fmt.Errorf("trial page %s: no probe CSV", a.model.Name)
	}
	var hb *heatBuilder
	if heat {
		hb = newHeatBuilder(in.Report, a.to)
	}
	d := newDownsampler(a.from, a.to, a.stalls, a.partitions, hb)
	if err := d.read(in.Probe, name); err != nil {
		return nil, err
	}
	m := a.model
	for i := range m.Lanes {
		lb := d.lanes[m.Lanes[i].Partition]
		m.Lanes[i].Messages = lb.messages
		if hb == nil {
			m.Lanes[i].Points = lb.points(m.Origin)
		}
	}
	if hb != nil {
		m.Heat = hb.build(in.Report, m.Lanes, a.from, a.to, m.Origin)
	}
	switch {
	case in.Replicas != nil && hb != nil:
		// A chart a partition is what the heat map replaces.
		m.Notes = append(m.Notes, fmt.Sprintf("the replica view is not drawn for %d partitions: %s holds it", len(m.Lanes), results.ReplicasFile))
	case in.Replicas != nil:
		m.Replicas = replicaSets(in.Replicas, &m, a.leaderless)
	}
	if m.Txn != nil {
		since := func(t time.Time) float64 { return round(t.Sub(m.Origin).Seconds(), 1e6) }
		m.Txn.setCommits(in.Report.Txn.Events(), since, a.from, a.to)
	}
	if m.Group != nil && in.GroupEvents != nil {
		since := func(t time.Time) float64 { return round(t.Sub(m.Origin).Seconds(), 1e6) }
		if err := m.Group.readCommits(in.GroupEvents, in.GroupEventsName, since, a.from, a.to); err != nil {
			return nil, err
		}
	}
	return &m, nil
}

func buildRun(in RunPage) (*page, error) {
	if len(in.Trials) == 0 {
		return nil, fmt.Errorf("run page: %w", errEmpty)
	}
	pg := &page{Kind: "run", Title: in.Title}
	if pg.Title == "" {
		pg.Title = fmt.Sprintf("kbf: %d trials", len(in.Trials))
	}
	clients := map[string]bool{}
	var reports []*analysis.Trial
	for _, t := range in.Trials {
		reports = append(reports, t.Report)
		tm, err := buildTrial(t)
		if err != nil {
			return nil, err
		}
		pg.Trials = append(pg.Trials, *tm)
		clients[tm.Client] = true
	}
	pg.Summary = summaryFigures(reports)
	// Every partition of any trial gets a lane, in partition order, with
	// the trials that probed it.
	var parts []int32
	for _, tm := range pg.Trials {
		for _, l := range tm.Lanes {
			if !slices.Contains(parts, l.Partition) {
				parts = append(parts, l.Partition)
			}
		}
	}
	slices.Sort(parts)
	for _, p := range parts {
		ol := overlayLane{Partition: p}
		for i, tm := range pg.Trials {
			if tm.Heat != nil {
				continue // its lanes have no points to overlay
			}
			for _, l := range tm.Lanes {
				if l.Partition != p {
					continue
				}
				label := tm.Name
				if len(clients) > 1 {
					label += " (" + tm.Client + ")"
				}
				ol.Series = append(ol.Series, overlaySeries{Label: label, Trial: i, Client: tm.Client, Stall: l.Stall})
			}
		}
		if len(ol.Series) > 0 {
			pg.Overlay = append(pg.Overlay, ol)
		}
	}
	return pg, nil
}

func buildBench(in BenchPage) (*page, error) {
	if len(in.Metrics) == 0 {
		return nil, fmt.Errorf("bench page: %w", errEmpty)
	}
	b := &benchModel{}
	for _, m := range in.Metrics {
		st := scenarioStats{Scenario: m.Scenario, Values: m.Values, Median: m.Median, Low: m.Low, High: m.High, X: m.SweepValue}
		i := slices.IndexFunc(b.Distributions, func(d distribution) bool { return d.Metric == m.Metric && d.Unit == m.Unit })
		if i < 0 {
			b.Distributions = append(b.Distributions, distribution{Metric: m.Metric, Unit: m.Unit})
			i = len(b.Distributions) - 1
		}
		b.Distributions[i].Scenarios = append(b.Distributions[i].Scenarios, st)
		if m.Sweep == "" {
			continue
		}
		j := slices.IndexFunc(b.Sweeps, func(s sweep) bool { return s.Sweep == m.Sweep && s.Metric == m.Metric && s.Unit == m.Unit })
		if j < 0 {
			b.Sweeps = append(b.Sweeps, sweep{Sweep: m.Sweep, Metric: m.Metric, Unit: m.Unit})
			j = len(b.Sweeps) - 1
		}
		b.Sweeps[j].Points = append(b.Sweeps[j].Points, st)
	}
	for i := range b.Sweeps {
		slices.SortStableFunc(b.Sweeps[i].Points, func(x, y scenarioStats) int {
			switch {
			case x.X < y.X:
				return -1
			case x.X > y.X:
				return 1
			}
			return 0
		})
	}
	title := in.Title
	if title == "" {
		title = "kbf bench"
	}
	return &page{Kind: "bench", Title: title, Bench: b}, nil
}

// replicaSets groups the replica view by partition: one LEO series per
// broker and one HW series, in seconds since the trial's origin. Samples
// outside the trial's lanes are left out. While a partition had no leader
// (leaderless) the HW is unknown: the HW series has a gap (-1) at every
// LEO sample then, so the chart breaks its line there rather than draw it
// across, while the LEO lines go on.
func replicaSets(v *ReplicaView, m *trialModel, leaderless map[int32][]interval) []replicaSet {
	var out []replicaSet
	for _, l := range m.Lanes {
		rs := replicaSet{Partition: l.Partition}
		series := map[string]int{}
		addTo := func(label string, t float64, off int64) {
			i, ok := series[label]
			if !ok {
				i = len(rs.Series)
				series[label] = i
				rs.Series = append(rs.Series, offsetSeries{Label: label})
			}
			rs.Series[i].T = append(rs.Series[i].T, t)
			rs.Series[i].Offset = append(rs.Series[i].Offset, off)
		}
		for _, s := range v.Samples {
			if s.Partition != l.Partition {
				continue
			}
			t := round(s.Time.Sub(m.Origin).Seconds(), 1e6)
			if s.LEO >= 0 {
				addTo("LEO broker "+strconv.Itoa(int(s.Broker)), t, s.LEO)
			}
			switch {
			case s.HW >= 0:
				addTo("HW", t, s.HW)
			case s.LEO >= 0 && within(leaderless[l.Partition], s.Time):
				addTo("HW", t, -1)
			}
		}
		if len(rs.Series) > 0 {
			slices.SortStableFunc(rs.Series, func(a, b offsetSeries) int { return strings.Compare(a.Label, b.Label) })
			out = append(out, rs)
		}
	}
	return out
}

// within reports whether t falls in one of ivs, [from, to).
func within(ivs []interval, t time.Time) bool {
	for _, iv := range ivs {
		if !t.Before(iv.from) && t.Before(iv.to) {
			return true
		}
	}
	return false
}

// dataJSON encodes the page model as the page embeds it. encoding/json
// escapes <, > and &, so the data cannot close its script element.
func dataJSON(pg *page) ([]byte, error) {
	b, err := json.Marshal(pg)
	if err != nil {
		return nil, fmt.Errorf("encode page data: %w", err)
	}
	return b, nil
}

func writePage(w io.Writer, pg *page) error {
	data, err := dataJSON(pg)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	// No request may leave the page: everything is inlined, and the policy
	// says so to the browser as well.
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n", html.EscapeString(pg.Title))
	b.WriteString("<style>\n" + uplotCSS + "\n" + pageCSS + "\n</style>\n</head>\n<body>\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n<div id=\"kbf-page\"><noscript>This page draws its charts with JavaScript.</noscript></div>\n", html.EscapeString(pg.Title))
	b.WriteString("<script type=\"application/json\" id=\"kbf-data\">")
	b.Write(data)
	b.WriteString("</script>\n<script>\n" + uplotJS + "\n</script>\n<script>\n" + pageJS + "\n</script>\n</body>\n</html>\n")
	_, err = w.Write(b.Bytes())
	return err
}
