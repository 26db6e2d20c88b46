package main

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

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/htmlreport"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

func init() { commands = append(commands, newReportCmd) }

type reportOptions struct {
	format  string
	faultAt string
	window  time.Duration
	html    bool
	explain bool
}

func newReportCmd(g *globals) *cobra.Command {
	return newReportCmdF(g, func(ctx context.Context, o *reportOptions, path string) error {
		return reportPath(ctx, g.out, path, *o)
	})
}

func newReportCmdF(g *globals, runF func(context.Context, *reportOptions, string) error) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report PATH",
		Short: "Report a run: gaps, stalls in phases, integrity, timeline",
		Long: `report reads a probe CSV, a trial directory or a run directory of trials and
prints a table, one row per partition: what the faulted broker was to it, the
ack and receive stalls, the stall's phases and the audit's counts; then each
distinct cause once, with the partitions it applies to, and the verdict. For a
run of several trials, a summary of ranges comes first. --explain prints the
full report instead: the gaps at the fault and elsewhere, each phase's
evidence and explanation, the integrity check and the timeline. It needs
neither Docker nor Kafka.

In a run directory a trial that cannot be read is named on standard error and
the others are still reported.

` + exitHelp(exitOK, exitError, exitUsage, exitFindings, exitNoValid, exitCanceled) + `

Every trial that can be read is reported whatever the status.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("report takes one PATH: a probe CSV, a trial directory or a run directory")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.format != "text" && o.format != "json" {
				return usagef("--output %q: want text or json", o.format)
			}
			if o.window < 0 {
				return usagef("--window %v: must not be negative", o.window)
			}
			if o.faultAt != "" {
				at, err := results.ParseTime(o.faultAt)
				if err != nil {
					return usagef("--fault-at: %v", err)
				}
				if at.Before(results.EarliestTime) || at.After(results.LatestTime) {
					return usagef("--fault-at %s: not a time a trial ran at; want one between %d and %d",
						o.faultAt, results.EarliestTime.Year(), results.LatestTime.Year())
				}
			}
			return runF(cmd.Context(), o, args[0])
		},
	}
	cmd.Flags().StringVarP(&o.format, "output", "o", "text", "text or json")
	cmd.Flags().StringVar(&o.faultAt, "fault-at", "", "fault time (RFC 3339), overriding the recorded one")
	cmd.Flags().BoolVar(&o.explain, "explain", false, "the full report of each trial (report.txt): the gaps, every phase's evidence and explanation, the integrity check and the timeline, in place of the table")
	cmd.Flags().BoolVar(&o.html, "html", false, "also write report.html, a page that opens offline: in the trial's directory, or one for the run in the run's")
	cmd.Flags().DurationVar(&o.window, "window", 0, "how long after the fault a gap may begin and still be the fault's (default 1s)")
	return cmd
}

// reportPath reports every trial at path that can be read, and a summary
// when there are several; then it returns the broken trials' errors and
// the audit's findings, so one broken trial does not hide the others.
func reportPath(ctx context.Context, w io.Writer, path string, o reportOptions) error {
	opt := report.Options{Window: o.window}
	if o.faultAt != "" {
		opt.FaultAt, _ = results.ParseTime(o.faultAt)
	}
	analysed, trials, broken, err := analyseAll(ctx, path, func(results.Trial) report.Options { return opt })
	if err != nil {
		return err
	}
	watching, analysed, trials, broken := watchIndex(path, analysed, trials, broken)
	switch {
	case o.html && watching:
		if err := writeIndexPage(path, analysed, broken); err != nil {
			return err
		}
	case o.html:
		if err := htmlreport.WriteFile(ctx, htmlreport.Dest(path, trials), trials, analysed); err != nil {
			return err
		}
	}
	if o.format == "json" {
		if err := writeJSONReport(w, analysed, broken); err != nil {
			return err
		}
		return outcome(analysed, broken)
	}
	// A watch's directory: one line per incident.
	if !o.explain && o.format == "text" && watching {
		if err := render.WriteIncidents(w, path, analysed, broken); err != nil {
			return err
		}
		fmt.Fprintf(w, "\neach incident in full: kbf report %s\n", filepath.Join(path, results.IncidentDirPrefix+"NNNN"))
		return outcome(analysed, broken)
	}
	// Several trials: the summary first, the answer, then each trial.
	if len(analysed) > 1 {
		if len(broken) > 0 {
			fmt.Fprintf(w, "summary of the %d trials that could be read; %d could not\n", len(analysed), len(broken))
		}
		if err := render.WriteSummaryText(w, report.Summarize(analysed)); err != nil {
			return err
		}
	}
	for i, tr := range analysed {
		if i > 0 || len(analysed) > 1 {
			fmt.Fprintln(w)
		}
		write := textReport.WriteDigest
		if o.explain {
			write = textReport.WriteText
		}
		if err := write(w, tr); err != nil {
			return err
		}
	}
	if !o.explain {
		fmt.Fprintf(w, "\nwhy, phase by phase, with the evidence: kbf report --explain %s\n", path)
	}
	return outcome(analysed, broken)
}

// writeIndexPage writes a watch's directory's page (report.html there): the
// index's table, each incident linked to its own page where it has one.
func writeIndexPage(dir string, analysed []*report.Trial, broken results.BrokenTrials) error {
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

// watchIndex reports whether path is a watch's directory — incidents in
// it, no trial of another kind, none of them path itself — and, when it
// is, moves what is named as an incident there and is none (a directory
// without meta.json or of another kind, a file) to broken, named, so that
// one odd entry does not turn the index off.
func watchIndex(path string, analysed []*report.Trial, trials []results.Trial, broken results.BrokenTrials) (bool, []*report.Trial, []results.Trial, results.BrokenTrials) {
	var keptA []*report.Trial
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

// analyseAll finds and analyses the trials at path, each with the options
// optFor gives it. A trial that cannot be read goes into broken and the
// others are analysed; err is set only when nothing at path can be, when
// ctx is done, or for a --fault-at outside a trial's data. trials are the
// analysed trials' files, in the same order.
func analyseAll(ctx context.Context, path string, optFor func(results.Trial) report.Options) (analysed []*report.Trial, trials []results.Trial, broken results.BrokenTrials, err error) {
	found, err := results.Find(path)
	if len(found) == 0 {
		return nil, nil, nil, err
	}
	errors.As(err, &broken)
	for _, t := range found {
		opt := optFor(t)
		tr, err := analysis.Trial(ctx, t, analysis.Options{Report: opt})
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

// faultInData refuses a --fault-at outside the times of the trial's
// messages: the fault gap would run from the last ack to a moment the probe
// never saw, a number that means nothing.
func faultInData(tr *report.Trial, at time.Time) error {
	if at.IsZero() || tr.Gaps == nil || tr.Gaps.Start.IsZero() {
		return nil
	}
	if at.Before(tr.Gaps.Start) || at.After(tr.Gaps.End) {
		return usagef("--fault-at %s: outside the data of %s, which runs %s ~ %s; give a time within it",
			at.UTC().Format(time.RFC3339Nano), where(tr), tr.Gaps.Start.UTC().Format(time.RFC3339Nano),
			tr.Gaps.End.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

func where(tr *report.Trial) string {
	if tr.Dir != "" {
		return tr.Dir
	}
	return "the probe CSV"
}

// outcome is the error a command returns once it has reported the trials
// it could (report.Outcome: the one rule of every command's exit status).
func outcome(analysed []*report.Trial, broken results.BrokenTrials) error {
	var o report.Outcome
	for _, tr := range analysed {
		o.Add(where(tr), tr)
	}
	o.Broke(broken...)
	return o.Err()
}

func writeJSONReport(w io.Writer, trials []*report.Trial, broken results.BrokenTrials) error {
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
	if err := render.WriteSummaryJSON(w, report.Summarize(trials)); err != nil {
		return err
	}
	// The trials that could not be read, each with why, so a reader of
	// the JSON alone knows the summary is of fewer.
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
