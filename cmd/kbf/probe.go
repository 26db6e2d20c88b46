package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/probe"
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

` + helpAcks + "\n\n" + helpISR + "\n\n" + exitHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.duration <= 0 {
				return usagef("--duration %v: must be positive", o.duration)
			}
			o.bootstrapSet = cmd.Flags().Changed("bootstrap")
			if o.bootstrapSet && o.cluster.file != "" {
				return usagef("--bootstrap and --file: give one (the file says where its brokers are)")
			}
			if _, err := o.cluster.options(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.flags.register(cmd.Flags(), true)
	o.cluster.register(cmd.Flags(), false)
	registerQuiet(cmd.Flags(), &o.quiet)
	cmd.Flags().DurationVar(&o.duration, "duration", 30*time.Second, "how long to send")
	cmd.Flags().StringVar(&o.out, "out", "", "results directory (default kbf-runs/<time>-probe)")
	return wrapHelp(cmd)
}

func runProbe(ctx context.Context, o *probeOptions) error {
	cfg, err := o.flags.config()
	if err != nil {
		return err
	}
	if !o.bootstrapSet {
		// kbf's own cluster, on the ports its compose file publishes: make
		// sure it is kbf's, not another cluster that holds those ports.
		opts, err := o.cluster.options()
		if err != nil {
			return err
		}
		opts.Topics = []compose.Topic{}
		c, err := compose.New(opts)
		if err != nil {
			return err
		}
		defer c.Close()
		cfg.Bootstrap = c.Bootstrap()
		cctx, cancel := context.WithTimeout(ctx, clusterIDTimeout)
		err = checkOwnCluster(cctx, c.Admin().ClusterID, c.ClusterID(), cfg.Bootstrap)
		cancel()
		if err != nil {
			return err
		}
	}
	if o.out == "" {
		o.out = defaultOut("probe")
	}
	rec, err := experiment.NewRecorder(o.out)
	if errors.Is(err, experiment.ErrDirInUse) {
		return usageError{err}
	} else if err != nil {
		return err
	}
	defer rec.Close()
	p, err := probe.New(ctx, cfg, rec.Output())
	if err != nil {
		rec.Discard()
		return fmt.Errorf("probe: %w (is the cluster up? kbf up starts it)", err)
	}
	defer p.Close()
	if err := rec.SetMeta(experiment.NewMeta("probe", version, append([]string{"kbf"}, os.Args[1:]...), p)); err != nil {
		return err
	}
	rep := newReporter(o.g.errOut, o.quiet)
	rep.Say(fmt.Sprintf("probing %s partitions %v every %v for %v into %s",
		cfg.Topic, p.Config().Partitions, cfg.Interval, o.duration, o.out))

	runCtx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	progCtx, stopProg := context.WithCancel(ctx)
	start := time.Now()
	progDone := make(chan struct{})
	go func() {
		defer close(progDone)
		experiment.Watch(progCtx, rep, func() string { return "probing" }, p, start, func() time.Time { return start.Add(o.duration) })
	}()
	stats, runErr := p.Run(runCtx)
	stopProg()
	<-progDone
	rep.clear()
	experiment.SetProbeResult(rec.Meta, stats)
	rec.Meta.Ended = time.Now().UTC()
	if ctx.Err() != nil {
		rec.Meta.Notes = append(rec.Meta.Notes, "interrupted after "+time.Since(start).Round(time.Millisecond).String())
	}
	if err := errors.Join(runErr, rec.Save(), rec.Close()); err != nil {
		return err
	}
	if ctx.Err() != nil {
		rep.Say("interrupted: what was measured is in " + o.out)
	}
	return reportPath(ctx, o.g.out, o.out, reportOptions{format: "text"})
}

// checkOwnCluster checks that the brokers at addrs report the cluster id
// want (from idOf), so that kbf never measures a stranger's cluster that
// happens to hold its ports. An empty want checks nothing.
func checkOwnCluster(ctx context.Context, idOf func(context.Context) (string, error), want string, addrs []string) error {
	if want == "" {
		return nil
	}
	got, err := idOf(ctx)
	if err != nil {
		return fmt.Errorf("probe: no broker answers on %s (%w): is the cluster up? kbf up starts it",
			strings.Join(addrs, ","), err)
	}
	if got != want {
		return fmt.Errorf("probe: the brokers on %s are cluster %s, not kbf's (%s): pass --bootstrap to probe that cluster anyway, or free the ports for kbf up",
			strings.Join(addrs, ","), got, want)
	}
	return nil
}

// noArgs refuses positional arguments with a usage error.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}
