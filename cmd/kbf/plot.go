package main

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/plot"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

func init() { commands = append(commands, newPlotCmd) }

type plotOptions struct {
	out           string // "" for each trial's plot.svg, "-" for stdout
	width, height int
}

func newPlotCmd(g *globals) *cobra.Command {
	return newPlotCmdF(g, func(ctx context.Context, o *plotOptions, path string) error {
		return plotPath(ctx, g.out, path, *o)
	})
}

func newPlotCmdF(g *globals, runF func(context.Context, *plotOptions, string) error) *cobra.Command {
	o := &plotOptions{}
	cmd := &cobra.Command{
		Use:   "plot PATH",
		Short: "Draw a trial as an SVG picture: ack latency over time, the fault, the stalls",
		Long: `plot reads a trial directory (or a run directory of trials, or a probe CSV) and
draws each trial as an SVG picture: every message's ack latency against its
send time, per partition, on a log scale, with the fault, the controller's
detection, the new leaders, the producer learning them, and each partition's
ack gap at the fault. It writes <trial>/plot.svg and prints its path; --out
names another file, or - for standard output. It needs neither Docker nor
Kafka. In a run directory a trial that cannot be read is named on standard
error and the others are still drawn.

` + exitHelp(exitOK, exitError, exitUsage, exitFindings, exitNoValid, exitCanceled) + `

The pictures are written whatever the status.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("plot takes one PATH: a trial directory, a run directory or a probe CSV")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.width < plot.MinWidth || o.width > plot.MaxWidth {
				return usagef("--width %d: want %d to %d pixels", o.width, plot.MinWidth, plot.MaxWidth)
			}
			if o.height < plot.MinHeight || o.height > plot.MaxHeight {
				return usagef("--height %d: want %d to %d pixels", o.height, plot.MinHeight, plot.MaxHeight)
			}
			if cmd.Flags().Changed("out") && o.out == "" {
				return usagef("--out: want a file name, or - for standard output")
			}
			return runF(cmd.Context(), o, args[0])
		},
	}
	registerOut(cmd.Flags(), &o.out, "write the picture here (- for standard output) instead of <trial>/plot.svg")
	cmd.Flags().IntVar(&o.width, "width", plot.DefaultWidth, "picture width in pixels")
	cmd.Flags().IntVar(&o.height, "height", plot.DefaultHeight, "picture height in pixels")
	return cmd
}

// plotPath draws every trial at path that can be read (report.Plot).
func plotPath(ctx context.Context, w io.Writer, path string, o plotOptions) error {
	err := report.Plot(ctx, w, path, report.PlotOptions{Out: o.out, Plot: plot.Options{Width: o.width, Height: o.height}})
	if me := (*report.ManyTrialsError)(nil); errors.As(err, &me) {
		return usagef("--out %s: %v; leave --out out to write each trial's %s", o.out, me, results.PlotFile)
	}
	return faultAtUsage(err)
}
