package main

import (
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/clusters/docker"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
)

func init() { commands = append(commands, newProbeCmd) }

type probeOptions struct {
	g        *globals
	flags    probeFlags
	cluster  clusterFlags
	duration time.Duration
	out      string
	// bootstrapSet is true when --bootstrap was given: the probe then
	// probes what it is told, whoever's cluster it is.
	bootstrapSet bool
	quiet        bool
}

// clusterIDTimeout bounds the question of whose cluster answers.
const clusterIDTimeout = 15 * time.Second

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

` + helpAcks + "\n\n" + helpISR + "\n\n" + exitPlain,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.bootstrapSet = cmd.Flags().Changed("bootstrap")
			if o.bootstrapSet && o.cluster.file != "" {
				return usagef("--bootstrap and --file: give one (the file says where its brokers are)")
			}
			if o.bootstrapSet {
				if err := checkBootstrap(o.flags.config().Bootstrap); err != nil {
					return err
				}
			}
			if _, err := o.cluster.options(); err != nil {
				return err
			}
			e := o.experimentOptions()
			if err := flagError(e.Validate()); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.flags.register(cmd.Flags(), true)
	o.cluster.register(cmd.Flags(), false)
	o.cluster.registerSecurity(cmd.Flags(), g.errOut)
	registerQuiet(cmd.Flags(), &o.quiet)
	cmd.Flags().DurationVar(&o.duration, "duration", 30*time.Second, "how long to send")
	cmd.Flags().StringVar(&o.out, "out", "", "results directory (default kbf-runs/<time>-probe)")
	return wrapHelp(cmd)
}

// probeOptions' experiment options: the probe's settings and where the
// trial goes.
func (o *probeOptions) experimentOptions() experiment.ProbeOptions {
	cfg := o.flags.config()
	cfg.Security, _ = o.cluster.security() // checked before
	if !o.bootstrapSet {
		cfg.Bootstrap = nil // the cluster's own addresses
	}
	out := o.out
	if out == "" {
		out = defaultOut("probe")
	}
	return experiment.ProbeOptions{Duration: o.duration, Out: out, Probe: cfg, Version: version, Command: append([]string{"kbf"}, os.Args[1:]...)}
}

func runProbe(ctx context.Context, o *probeOptions) error {
	opt := o.experimentOptions()
	var t experiment.Reachable = experiment.At(opt.Probe.Bootstrap)
	if !o.bootstrapSet {
		// kbf's own cluster, on the ports its compose file publishes: the
		// target makes sure it is kbf's, not another cluster that holds
		// those ports.
		opts, err := o.cluster.options()
		if err != nil {
			return err
		}
		opts.Topics = []compose.Topic{}
		dt, err := docker.New(opts)
		if err != nil {
			return err
		}
		defer dt.Close()
		t = identifyWithin{dt, clusterIDTimeout}
	}
	rep := newReporter(o.g.errOut, o.quiet)
	err := (&experiment.ProbeOnly{Opt: opt, Target: t, Reporter: rep}).Run(ctx)
	rep.clear()
	if err != nil {
		return flagError(err)
	}
	return reportPath(ctx, o.g.out, opt.Out, reportOptions{format: "text"})
}

// identifyWithin bounds the question of whose cluster answers.
type identifyWithin struct {
	experiment.Reachable
	limit time.Duration
}

func (t identifyWithin) Identify(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, t.limit)
	defer cancel()
	return t.Reachable.Identify(ctx)
}

// noArgs refuses positional arguments with a usage error.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}
