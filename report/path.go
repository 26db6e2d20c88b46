package report

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/htmlreport"
	"github.com/kbf-project/kbf/plot"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// What kbf report and kbf plot do with a path: every trial there that can
// be read analysed and printed or drawn, then the outcome of them all.

// ReportOptions are how the trials of a path are reported.
type ReportOptions struct {
	// Report are the analysis's options, the same for every trial.
	Report analysis.Options
	// Text is how a trial's text is written.
	Text render.TextOptions
	// JSON writes the trials as JSON (WriteJSON) rather than text.
	JSON bool
	// Explain writes each trial's full report rather than its digest.
	Explain bool
	// HTML also writes report.html: the trial's, the run's, or a watch's
	// index page.
	HTML bool
}

// Report reports every trial at path that can be read on w, and a summary
// when there are several, then returns the broken trials' errors and the
// audit's findings (Outcome), so one broken trial does not hide the
// others. A fault time outside a trial's data is a *FaultOutsideError.
func Report(ctx context.Context, w io.Writer, path string, o ReportOptions) error {
	analysed, trials, broken, err := All(ctx, path, func(results.Trial) analysis.Options { return o.Report })
	if err != nil {
		return err
	}
	watching, analysed, trials, broken := WatchIndex(path, analysed, trials, broken)
	switch {
	case o.HTML && watching:
		err = WriteIndexPage(path, analysed, broken)
	case o.HTML:
		err = htmlreport.WriteFile(ctx, htmlreport.Dest(path, trials), trials, analysed)
	}
	if err != nil {
		return err
	}
	switch {
	case o.JSON:
		err = WriteJSON(w, analysed, broken)
	case watching && !o.Explain:
		err = writeIncidents(w, path, analysed, broken)
	default:
		err = writeText(w, path, analysed, broken, o)
	}
	if err != nil {
		return err
	}
	return Outcome(analysed, broken)
}

// writeIncidents writes a watch's directory: one line per incident.
func writeIncidents(w io.Writer, path string, analysed []*analysis.Trial, broken results.BrokenTrials) error {
	if err := render.WriteIncidents(w, path, analysed, broken); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\neach incident in full: kbf report %s\n", filepath.Join(path, results.IncidentDirPrefix+"NNNN"))
	return err
}

// writeText writes the trials as text: for several, the summary first,
// then each trial, its digest or (Explain) its full report.
func writeText(w io.Writer, path string, analysed []*analysis.Trial, broken results.BrokenTrials, o ReportOptions) error {
	if len(analysed) > 1 {
		if len(broken) > 0 {
			fmt.Fprintf(w, "summary of the %d trials that could be read; %d could not\n", len(analysed), len(broken))
		}
		if err := render.WriteSummaryText(w, analysis.Summarize(analysed)); err != nil {
			return err
		}
	}
	write := o.Text.WriteDigest
	if o.Explain {
		write = o.Text.WriteText
	}
	for i, tr := range analysed {
		if i > 0 || len(analysed) > 1 {
			fmt.Fprintln(w)
		}
		if err := write(w, tr); err != nil {
			return err
		}
	}
	if !o.Explain {
		fmt.Fprintf(w, "\nwhy, phase by phase, with the evidence: kbf report --explain %s\n", path)
	}
	return nil
}

// PlotOptions are how the trials of a path are drawn.
type PlotOptions struct {
	// Out is the file to draw into, "-" for w; "" for each trial's
	// plot.svg (beside a bare probe CSV, the CSV's name with .svg).
	Out  string
	Plot plot.Options
}

// ManyTrialsError is a single file to draw into (PlotOptions.Out) given
// for a path that holds several trials.
type ManyTrialsError struct {
	Path   string
	Trials int
}

func (e *ManyTrialsError) Error() string {
	return fmt.Sprintf("%s holds %d trials, and one file holds one picture", e.Path, e.Trials)
}

// Plot draws every trial at path that can be read, each into its own file
// unless o.Out says otherwise, and prints the files' paths on w; then it
// returns the broken trials' errors and the audit's findings, as Report
// does. Each picture takes its messages as the analysis reads them: the
// probe CSV is read once.
func Plot(ctx context.Context, w io.Writer, path string, o PlotOptions) error {
	cols := map[string]*plot.Collector{}
	analysed, trials, broken, err := All(ctx, path, func(t results.Trial) analysis.Options {
		col := plot.NewCollector()
		cols[t.Probe] = col
		return analysis.Options{Messages: col.Add}
	})
	if err != nil {
		return err
	}
	if o.Out != "" && len(trials)+len(broken) > 1 {
		return &ManyTrialsError{Path: path, Trials: len(trials) + len(broken)}
	}
	for i, t := range trials {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := drawTo(w, t, analysed[i], cols[t.Probe], o); err != nil {
			return err
		}
	}
	return Outcome(analysed, broken)
}

// drawTo draws one trial where o says and, into a file, prints its path.
func drawTo(w io.Writer, t results.Trial, tr *analysis.Trial, col *plot.Collector, o PlotOptions) error {
	dst := o.Out
	if dst == "" {
		dst = PlotPath(t)
	}
	if dst == "-" {
		return plot.Draw(w, tr, col, o.Plot)
	}
	if err := results.WriteFileAtomic(dst, func(f io.Writer) error { return plot.Draw(f, tr, col, o.Plot) }); err != nil {
		return fmt.Errorf("plot %s: %w", dst, err)
	}
	_, err := fmt.Fprintln(w, dst)
	return err
}

// PlotPath is plot.svg in the trial's directory; beside a bare probe CSV,
// the CSV's name with .svg.
func PlotPath(t results.Trial) string {
	if t.Dir != "" {
		return t.Path(results.PlotFile)
	}
	return strings.TrimSuffix(t.Probe, filepath.Ext(t.Probe)) + ".svg"
}
