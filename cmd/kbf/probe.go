package main

import (
	"context"
	"github.com/kbf-project/kbf/compose"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/bench/trialrun"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/load"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

func init() { commands = append(commands, newProbeCmd) }

type probeOptions struct {
	g        *globals
	flags    probe.Config
	cluster  compose.Flags
	duration time.Duration
	out      string
	// bootstrapSet is true when --bootstrap was given: the probe then
	// probes what it is told, whoever's cluster it is.
	bootstrapSet bool
	quiet        bool
	load         load.Flags
}

func newProbeCmd(g *globals) *cobra.Command {
	return newProbeCmdF(g, runProbe)
}

func newProbeCmdF(g *globals, runF func(context.Context, *probeOptions) error) *cobra.Command {
	o := &probeOptions{g: g}
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "Probe a running cluster with no fault, and report its gaps",
		Long: `probe sends one acks=all record per partition every --interval and reads them
back, for --duration, against a running cluster (kbf up), with no fault. It
writes probe.csv, client.log and meta.json to --out and prints the longest
ack and receive gaps per partition.

Without --bootstrap it probes kbf's own cluster (or the cluster of -f FILE),
on the ports it publishes, and first checks that the brokers there report
the cluster id its nodes were formatted with (CLUSTER_ID): another cluster
on those ports is refused. With --bootstrap it probes whatever answers
there.

` + helpAcks + "\n\n" + helpISR + "\n\n" + exitHelp(exitOK, exitError, exitUsage, exitFindings, exitNoValid, exitCanceled),
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.bootstrapSet = cmd.Flags().Changed("bootstrap")
			if err := partnerConfig(cmd.Flags(), &o.flags, &o.load); err != nil {
				return err
			}
			if err := checkBootstrap(&o.cluster, o.bootstrapSet, o.flags.Bootstrap); err != nil {
				return err
			}
			if _, err := o.cluster.Options(); err != nil {
				return usage(err)
			}
			if _, err := loadConfig(&o.load); err != nil {
				return err
			}
			e := o.experimentOptions()
			if err := flagError(e.Validate()); err != nil {
				return err
			}
			// Before the cluster is contacted: --bootstrap's is when
			// opened.
			if err := flagError(experiment.Writable(e.Out)); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.flags.AddFlags(cmd.Flags(), true)
	o.cluster.AddFlags(cmd.Flags(), false)
	o.cluster.AddSecurityFlags(cmd.Flags(), g.errOut)
	registerQuiet(cmd.Flags(), &o.quiet)
	o.load.AddFlags(cmd.Flags())
	cmd.Flags().DurationVar(&o.duration, "duration", 30*time.Second, "how long to send")
	registerOut(cmd.Flags(), &o.out, "results directory (default kbf-runs/<time>-probe)")
	return wrapHelp(cmd)
}

// probeOptions' experiment options: a trial with no fault, the probe's
// settings, and where the trial goes.
func (o *probeOptions) experimentOptions() experiment.Options {
	cfg := o.flags
	cfg.Security, _ = o.cluster.Security() // checked before
	if !o.bootstrapSet {
		cfg.Bootstrap = nil // the cluster's own addresses
	}
	out := o.out
	if out == "" {
		out = trialrun.DefaultOut("probe")
	}
	ld, _ := loadConfig(&o.load) // checked before
	return experiment.Options{Kill: experiment.NoFault, Duration: o.duration, Repeat: 1, Out: out, Probe: cfg, Load: ld,
		Version: version, Command: append([]string{"kbf"}, os.Args[1:]...)}
}

// clusterSpec is the cluster probed: whatever answers at --bootstrap, else
// kbf's own cluster (or -f FILE's) on the ports it publishes, which the
// trial first makes sure is kbf's, not another cluster that holds those
// ports.
func (o *probeOptions) clusterSpec(cfg probe.Config) (platform.Spec, error) {
	if o.bootstrapSet {
		return platform.Spec{Remote: &platform.RemoteOptions{Bootstrap: cfg.Bootstrap, Security: cfg.Security}}, nil
	}
	return platform.Running(&o.cluster)
}

// runProbe runs the trial with no fault through kbf run's runner, then
// reports it. Ctrl-C ends probing early and keeps what was measured, which
// is reported still.
func runProbe(ctx context.Context, o *probeOptions) error {
	opt := o.experimentOptions()
	t, err := openCluster(ctx, func() (platform.Spec, error) { return o.clusterSpec(opt.Probe) })
	if err != nil {
		return err
	}
	defer t.Close()
	rep := experiment.NewTerm(o.g.errOut, o.quiet, "")
	err = trialrun.NewExperiment(opt, t, rep).Trial(ctx, 0, opt.Out)
	rep.Clear()
	if err != nil && ctx.Err() == nil {
		return flagError(err)
	}
	if ctx.Err() != nil {
		if _, serr := os.Stat(filepath.Join(opt.Out, results.MetaFile)); serr != nil {
			return ctx.Err() // interrupted before anything was measured
		}
		rep.Say("interrupted: what was measured is in " + opt.Out)
		ctx = context.WithoutCancel(ctx)
	}
	return reportPath(ctx, o.g.out, opt.Out, reportOptions{format: "text"})
}

// noArgs refuses positional arguments with a usage error.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}
