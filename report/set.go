package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/htmlreport"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// The trials of a path, analysed together: what kbf report and kbf plot
// read, the index of a watch's directory, the JSON of several trials, a
// run's summary files and the outcome of them all.

// FaultOutsideError is a fault time given to the analysis (analysis.Options'
// FaultAt) outside the times of a trial's messages: the fault gap would
// run from the last ack to a moment the probe never saw, a number that
// means nothing.
type FaultOutsideError struct {
	At, Start, End time.Time
	// Where is the trial's directory, or "the probe CSV".
	Where string
}

func (e *FaultOutsideError) Error() string {
	return fmt.Sprintf("fault time %s: outside the data of %s, which runs %s ~ %s",
		e.At.UTC().Format(time.RFC3339Nano), e.Where, e.Start.UTC().Format(time.RFC3339Nano), e.End.UTC().Format(time.RFC3339Nano))
}

// All finds and analyses the trials at path, each with the options optFor
// gives it; nothing is written. A trial that cannot be read goes into
// broken and the others are analysed; err is set only when nothing at
// path can be, when ctx is done, or for a fault time outside a trial's
// data (*FaultOutsideError). trials are the analysed trials' files, in
// the same order.
func All(ctx context.Context, path string, optFor func(results.Trial) analysis.Options) (analysed []*analysis.Trial, trials []results.Trial, broken results.BrokenTrials, err error) {
	found, err := results.Find(path)
	if len(found) == 0 {
		return nil, nil, nil, err
	}
	errors.As(err, &broken)
	for _, t := range found {
		opt := optFor(t)
		tr, err := Trial(ctx, t, Options{Report: opt})
		if ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		if err == nil {
			err = tr.Check()
		}
		if err != nil {
			broken = append(broken, err)
			continue
		}
		if err := faultInData(tr, opt.FaultAt); err != nil {
			return nil, nil, nil, err
		}
		analysed = append(analysed, tr)
		trials = append(trials, t)
	}
	if len(analysed) == 0 {
		return nil, nil, nil, broken
	}
	return analysed, trials, broken, nil
}

func faultInData(tr *analysis.Trial, at time.Time) error {
	if at.IsZero() || tr.Gaps == nil || tr.Gaps.Start.IsZero() {
		return nil
	}
	if at.Before(tr.Gaps.Start) || at.After(tr.Gaps.End) {
		return &FaultOutsideError{At: at, Start: tr.Gaps.Start, End: tr.Gaps.End, Where: Where(tr)}
	}
	return nil
}

// Where names a trial as its outcome does: its directory, or "the probe
// CSV" for a bare one.
func Where(tr *analysis.Trial) string {
	if tr.Dir != "" {
		return tr.Dir
	}
	return "the probe CSV"
}

// Outcome is the error a command returns once it has reported the trials
// it could (analysis.Outcome: the one rule of every command's exit status).
func Outcome(analysed []*analysis.Trial, broken results.BrokenTrials) error {
	var o analysis.Outcome
	for _, tr := range analysed {
		o.Add(Where(tr), tr)
	}
	o.Broke(broken...)
	return o.Err()
}

// WatchIndex reports whether path is a watch's directory — incidents in
// it, no trial of another kind, none of them path itself — and, when it
// is, moves what is named as an incident there and is none (a directory
// without meta.json or of another kind, a file) to broken, named, so that
// one odd entry does not turn the index off.
func WatchIndex(path string, analysed []*analysis.Trial, trials []results.Trial, broken results.BrokenTrials) (bool, []*analysis.Trial, []results.Trial, results.BrokenTrials) {
	var keptA []*analysis.Trial
	var keptT []results.Trial
	var odd results.BrokenTrials
	for i, t := range trials {
		switch {
		case filepath.Clean(t.Dir) == filepath.Clean(path) || !strings.HasPrefix(filepath.Base(t.Dir), results.IncidentDirPrefix):
			return false, analysed, trials, broken
		case t.Meta == nil:
			odd = append(odd, fmt.Errorf("%s: no %s: not an incident kbf watch wrote whole", t.Dir, results.MetaFile))
		case t.Meta.Kind != results.KindIncident:
			odd = append(odd, fmt.Errorf("%s: a %s's directory, not an incident", t.Dir, t.Meta.Kind))
		default:
			keptA, keptT = append(keptA, analysed[i]), append(keptT, t)
		}
	}
	if len(keptT) == 0 {
		return false, analysed, trials, broken
	}
	return true, keptA, keptT, append(append(broken, odd...), notDirs(path)...)
}

// notDirs names the entries of a watch's directory named as incidents
// that are not directories.
func notDirs(path string) results.BrokenTrials {
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil
	}
	var odd results.BrokenTrials
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), results.IncidentDirPrefix) {
			continue
		}
		p := filepath.Join(path, e.Name())
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			odd = append(odd, fmt.Errorf("%s: not a directory, not an incident", p))
		}
	}
	return odd
}

// WriteIndexPage writes a watch's directory's page (report.html there):
// the index's table, each incident linked to its own page where it has
// one.
func WriteIndexPage(dir string, analysed []*analysis.Trial, broken results.BrokenTrials) error {
	p := htmlreport.IndexPage{Title: fmt.Sprintf("kbf watch: %s", dir), Heads: render.IncidentHeads}
	for _, tr := range analysed {
		row := htmlreport.IndexRow{Cells: render.IncidentCells(tr)}
		if _, err := os.Stat(filepath.Join(tr.Dir, results.ReportHTML)); err == nil {
			row.Link = filepath.Join(filepath.Base(tr.Dir), results.ReportHTML)
		}
		p.Rows = append(p.Rows, row)
	}
	for _, err := range broken {
		p.NotRead = append(p.NotRead, err.Error())
	}
	return htmlreport.WriteIndex(filepath.Join(dir, results.ReportHTML), p)
}

// WriteJSON writes the trials as JSON: one trial's report.json alone,
// else {"trials": [...], "summary": ..., "broken": [{"error": ...}]}, the
// trials that could not be read each with why, so a reader of the JSON
// alone knows the summary is of fewer.
func WriteJSON(w io.Writer, trials []*analysis.Trial, broken results.BrokenTrials) error {
	if len(trials) == 1 && len(broken) == 0 {
		return render.WriteJSON(w, trials[0])
	}
	fmt.Fprintln(w, "{\"trials\": [")
	for i, tr := range trials {
		if i > 0 {
			fmt.Fprintln(w, ",")
		}
		if err := render.WriteJSON(w, tr); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "], \"summary\":")
	if err := render.WriteSummaryJSON(w, analysis.Summarize(trials)); err != nil {
		return err
	}
	type brokenTrial struct {
		Error string `json:"error"`
	}
	bs := make([]brokenTrial, len(broken))
	for i, err := range broken {
		bs[i].Error = err.Error()
	}
	b, err := json.Marshal(bs)
	if err != nil {
		return fmt.Errorf("encode broken trials: %w", err)
	}
	_, err = fmt.Fprintf(w, ", \"broken\": %s}\n", b)
	return err
}

// WriteSummary writes the summary of a run's trials (analysis.Summarize)
// into its directory out: summary.txt and summary.json.
func WriteSummary(out string, s *analysis.Summary) error {
	if err := results.WriteFileAtomic(filepath.Join(out, results.SummaryFile), func(f io.Writer) error { return render.WriteSummaryText(f, s) }); err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(out, results.SummaryJSON), func(f io.Writer) error { return render.WriteSummaryJSON(f, s) })
}

// JustRecorded analyses a trial the run side has just recorded in dir, once,
// and writes its report.txt (as text says), report.json, plot.svg and
// report.html beside it.
func JustRecorded(ctx context.Context, dir string, text render.TextOptions) (*analysis.Trial, error) {
	found, err := results.Find(dir)
	if err != nil {
		return nil, err
	}
	return Trial(ctx, found[0], Options{Text: text, Write: Recorded})
}
