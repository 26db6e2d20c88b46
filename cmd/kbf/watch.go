package main

import (
	"context"
	"errors"
	"net"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/watch"
	"github.com/kbf-project/kbf/watch/watchrun"
)

func init() { commands = append(commands, newWatchCmd) }

// watchOptions are kbf watch's flags, bound into the options of the
// package that runs it (watchrun.Command), and --metrics-addr.
type watchOptions struct {
	g *globals
	watchrun.Command
	metrics string
	// metricsLn is --metrics-addr's listener, taken before the cluster is
	// reached.
	metricsLn net.Listener
	quiet     bool
}

func newWatchCmd(g *globals) *cobra.Command {
	return newWatchCmdF(g, runWatch)
}

func newWatchCmdF(g *globals, runF func(context.Context, *watchOptions) error) *cobra.Command {
	o := &watchOptions{g: g}
	o.Watch = watch.Defaults
	o.Watch.Version, o.Watch.Command = version, append([]string{"kbf"}, os.Args[1:]...)
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Probe a cluster until stopped, and write each incident as a trial",
		Long: `watch runs kbf's probe against a running cluster until it is stopped
(Ctrl-C, SIGTERM or SIGHUP: the open incident is written from what was
recorded, within 10 s whatever the cluster does, then kbf exits 0) and
finds each incident: a partition's acks or reads stalled longer than
--stall, or a sign from the cluster's metadata (a broker fenced or gone, a
leader moved, an ISR shrunk), asked for every --poll. Each incident is
written to --out/incident-NNNN as a trial directory (meta.json kind
incident) from --before its first sign to its recovery (every partition
steady for --settle), with the nodes' logs where the cluster gives them,
and analysed as kbf run's trials are: report.txt, report.json, plot.svg,
report.html, the broker named from the evidence. Nothing is faulted or
restarted. A cluster that cannot be reached or probed is tried again every
5 s, not an error. Restarted on the same --out, the numbering carries on;
--retain keeps the last N, or those of the last 30d.

--metrics-addr serves Prometheus metrics at /metrics (docs/watch.md).

Without --bootstrap it watches kbf's own cluster (or the cluster of -f FILE);
with --bootstrap whatever answers there; --target k8s a Kafka in Kubernetes.

` + exitHelp(exitOK, exitError, exitUsage),
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.BootstrapSet = cmd.Flags().Changed("bootstrap")
			if err := o.validate(); err != nil {
				return err
			}
			if err := o.listenMetrics(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	o.Probe.AddFlags(f, true)
	o.Cluster.AddFlags(f, false)
	o.Cluster.AddSecurityFlags(f, g.errOut)
	o.K8s.AddFlags(f)
	registerQuiet(f, &o.quiet)
	o.Watch.AddFlags(f)
	platform.AddLogsFlags(f, &o.Logs, &o.LogsCommand, "with --bootstrap", " after each incident", "the incident's window start")
	f.StringVar(&o.metrics, "metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics, e.g. 127.0.0.1:9464 (default off)")
	return wrapHelp(cmd)
}

// validate checks every flag before the cluster is reached: a flag kbf
// cannot use is exit 2 at once, never found out once the cluster answers.
func (o *watchOptions) validate() error {
	if err := checkBootstrap(&o.Cluster, o.BootstrapSet, o.Probe.Bootstrap); err != nil {
		return err
	}
	if err := flagError(o.CheckLogs()); err != nil {
		return err
	}
	if err := flagError(o.K8s.CheckTarget()); err != nil {
		return err
	}
	if _, err := o.Cluster.Options(); err != nil {
		return usage(err)
	}
	if _, err := o.Cluster.Security(); err != nil {
		return usage(err)
	}
	if err := watch.CheckMetricsAddr(o.metrics); err != nil {
		return usageError{err}
	}
	if err := flagError(o.CheckProbe()); err != nil {
		return err
	}
	opt := o.Options()
	if err := opt.Validate(); err != nil {
		return usageError{err}
	}
	if o.K8s.On() {
		if err := platform.CheckKubeconfig(o.K8s.Kubeconfig); err != nil {
			return usageError{err}
		}
	}
	if err := watch.CheckOut(o.Watch.Out); err != nil {
		return usageError{err}
	}
	return nil
}

// listenMetrics takes --metrics-addr's port before the cluster is
// reached: a port in use or a host that is not this machine's is exit 2.
func (o *watchOptions) listenMetrics() error {
	ln, err := watch.ListenMetrics(o.metrics)
	if err != nil {
		return usageError{err}
	}
	o.metricsLn = ln
	return nil
}

// spec is the cluster watched (watchrun.Command.Spec).
func (o *watchOptions) spec() (platform.Spec, error) { return o.Spec(o.g.errOut) }

// runWatch watches until ctx ends or a stop signal comes, analysing each
// incident as kbf run analyses a trial (watchrun.Watch); stopped, it
// exits 0, or 1 when the open incident could not be written.
func runWatch(ctx context.Context, o *watchOptions) error {
	ctx, stopSignals := signal.NotifyContext(ctx, watch.StopSignals...)
	defer stopSignals()
	rep := experiment.NewTerm(o.g.errOut, o.quiet, "")
	defer rep.Clear()
	w := &watchrun.Watch{Opt: o.Options(), Metrics: o.metricsLn, Term: rep, Text: textReport,
		Open:  func(ctx context.Context) (cluster.Cluster, error) { return openCluster(ctx, o.spec) },
		Final: func(err error) bool { return errors.As(err, new(usageError)) }}
	err := w.Run(ctx)
	if ferr := (*watch.FlagError)(nil); errors.As(err, &ferr) {
		return usageError{err}
	}
	return err
}
