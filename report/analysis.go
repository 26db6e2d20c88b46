// Package report analyses one trial directory and writes what kbf keeps
// beside it: report.txt, report.json, plot.svg and report.html. It is the one
// place a trial is analysed, for kbf run and kbf bench after the run side
// (package experiment) has recorded it, and for kbf report and kbf plot,
// which read it back later: each trial is analysed once, its probe.csv read
// once, the pictures fed from that one read.
//
// It reads the files of package results and writes files beside them; it
// imports the analysis (package analysis) and the renderers, never Docker or Kafka.
package report

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/htmlreport"
	"github.com/kbf-project/kbf/plot"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// Files says which of a trial directory's derived files Trial (re)writes.
type Files struct {
	Text bool // report.txt, the full report
	JSON bool // report.json
	Plot bool // plot.svg
	HTML bool // report.html
}

// Recorded are the files kbf run and kbf bench write beside a trial they
// ran.
var Recorded = Files{Text: true, JSON: true, Plot: true, HTML: true}

// Options are how a trial is analysed and what is written of it.
type Options struct {
	// Report are the analysis's own options; a Messages function there is
	// fed beside the pictures'.
	Report analysis.Options
	// Text is how report.txt is written.
	Text render.TextOptions
	// Write are the files written into the trial's directory; none for a
	// probe CSV, which has no directory.
	Write Files
}

// Trial analyses t and writes the files o.Write names into its directory.
// What cannot be written is an error; the analysis is returned with it.
func Trial(ctx context.Context, t results.Trial, o Options) (*analysis.Trial, error) {
	ropt := o.Report
	var col *plot.Collector
	if o.Write.Plot && t.Dir != "" {
		col = plot.NewCollector()
		ropt.Messages = fanOut(o.Report.Messages, col.Add)
	}
	tr, err := analysis.AnalyzeContext(ctx, t, ropt)
	if err != nil {
		return nil, err
	}
	if t.Dir == "" {
		return tr, nil
	}
	write := func(name string, draw func(io.Writer) error) error {
		if err := results.WriteFileAtomic(t.Path(name), draw); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	if o.Write.Text {
		if err := write(results.ReportFile, func(w io.Writer) error { return o.Text.WriteText(w, tr) }); err != nil {
			return tr, err
		}
	}
	if o.Write.JSON {
		if err := write(results.ReportJSON, func(w io.Writer) error { return render.WriteJSON(w, tr) }); err != nil {
			return tr, err
		}
	}
	if col != nil {
		if err := write(results.PlotFile, func(w io.Writer) error { return plot.Draw(w, tr, col, plot.Options{}) }); err != nil {
			return tr, err
		}
	}
	if o.Write.HTML {
		if err := write(results.ReportHTML, func(w io.Writer) error { return Page(w, tr) }); err != nil {
			return tr, err
		}
	}
	return tr, nil
}

// Page writes an analysed trial's page. Its lanes keep every point of a
// stall, whose bounds the analysis decides, so it reads the trial's
// probe.csv again once the analysis is done rather than holding every row
// through it.
func Page(w io.Writer, tr *analysis.Trial) error {
	f, err := os.Open(filepath.Join(tr.Dir, results.ProbeFile))
	if err != nil {
		return err
	}
	defer f.Close()
	rv, err := htmlreport.ReadReplicas(filepath.Join(tr.Dir, results.ReplicasFile), tr)
	if err != nil {
		return err
	}
	return htmlreport.WriteTrial(w, htmlreport.TrialPage{Report: tr, Probe: f, ProbeName: f.Name(), Replicas: rv})
}

// fanOut is a Messages function that hands each row to every non-nil f.
func fanOut(fs ...func(*results.Message)) func(*results.Message) {
	return func(m *results.Message) {
		for _, f := range fs {
			if f != nil {
				f(m)
			}
		}
	}
}
