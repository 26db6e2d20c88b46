package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

func init() { commands = append(commands, newReportCmd) }

type reportOptions struct {
	format  string
	faultAt string
	window  time.Duration
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
prints, per partition, the ack and receive gaps at the fault and elsewhere,
each stall split into phases, the integrity check and the timeline; for a run
of several trials, a summary of ranges. It needs neither Docker nor Kafka.`,
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
			if o.faultAt != "" {
				if _, err := results.ParseTime(o.faultAt); err != nil {
					return usagef("--fault-at: %v", err)
				}
			}
			return runF(cmd.Context(), o, args[0])
		},
	}
	cmd.Flags().StringVarP(&o.format, "output", "o", "text", "text or json")
	cmd.Flags().StringVar(&o.faultAt, "fault-at", "", "fault time (RFC 3339), overriding the recorded one")
	cmd.Flags().DurationVar(&o.window, "window", 0, "how long after the fault a gap may begin and still be the fault's (default 1s)")
	return cmd
}

// reportPath reports every trial at path, and a summary when there are
// several.
func reportPath(_ context.Context, w io.Writer, path string, o reportOptions) error {
	trials, err := results.Find(path)
	if err != nil {
		return err
	}
	opt := report.Options{Window: o.window}
	if o.faultAt != "" {
		opt.FaultAt, _ = results.ParseTime(o.faultAt)
	}
	var analysed []*report.Trial
	for _, t := range trials {
		tr, err := report.Analyze(t, opt)
		if err != nil {
			return err
		}
		if err := tr.Check(); err != nil {
			return err
		}
		analysed = append(analysed, tr)
	}
	if o.format == "json" {
		return writeJSONReport(w, analysed)
	}
	for i, tr := range analysed {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := textReport.WriteText(w, tr); err != nil {
			return err
		}
	}
	if len(analysed) > 1 {
		fmt.Fprintln(w)
		return report.WriteSummaryText(w, report.Summarize(analysed))
	}
	return nil
}

func writeJSONReport(w io.Writer, trials []*report.Trial) error {
	if len(trials) == 1 {
		return report.WriteJSON(w, trials[0])
	}
	fmt.Fprintln(w, "{\"trials\": [")
	for i, tr := range trials {
		if i > 0 {
			fmt.Fprintln(w, ",")
		}
		if err := report.WriteJSON(w, tr); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "], \"summary\":")
	if err := report.WriteSummaryJSON(w, report.Summarize(trials)); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "}")
	return err
}
