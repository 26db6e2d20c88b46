package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/report"
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

// reportPath reports every trial at path that can be read
// (report.Report), a --fault-at outside a trial's data a usage error.
func reportPath(ctx context.Context, w io.Writer, path string, o reportOptions) error {
	opt := report.ReportOptions{Report: analysis.Options{Window: o.window}, Text: textReport,
		JSON: o.format == "json", Explain: o.explain, HTML: o.html}
	if o.faultAt != "" {
		opt.Report.FaultAt, _ = results.ParseTime(o.faultAt) // checked before
	}
	return faultAtUsage(report.Report(ctx, w, path, opt))
}

// faultAtUsage turns a --fault-at outside a trial's data into the usage
// error it is: one line, exit 2.
func faultAtUsage(err error) error {
	var fo *report.FaultOutsideError
	if !errors.As(err, &fo) {
		return err
	}
	return usagef("--fault-at %s: outside the data of %s, which runs %s ~ %s; give a time within it",
		fo.At.UTC().Format(time.RFC3339Nano), fo.Where, fo.Start.UTC().Format(time.RFC3339Nano),
		fo.End.UTC().Format(time.RFC3339Nano))
}
