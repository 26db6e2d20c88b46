package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/kbf-project/kbf/compose"
	"net"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/bench/trialrun"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/watch"
)

func init() { commands = append(commands, newWatchCmd) }

type watchOptions struct {
	g       *globals
	flags   probe.Config
	cluster compose.Flags
	k8s     trialrun.K8s
	opt     watch.Options
	metrics string
	// logs and logsCommand are where a --bootstrap cluster's node logs
	// come from (kbf run --fault external's flags).
	logs, logsCommand string
	// bootstrapSet is true when --bootstrap was given.
	bootstrapSet bool
	// metricsLn is --metrics-addr's listener, taken before the cluster is
	// reached.
	metricsLn net.Listener
	quiet     bool
}

func newWatchCmd(g *globals) *cobra.Command {
	return newWatchCmdF(g, runWatch)
}

func newWatchCmdF(g *globals, runF func(context.Context, *watchOptions) error) *cobra.Command {
	o := &watchOptions{g: g, opt: watch.Defaults}
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
			o.bootstrapSet = cmd.Flags().Changed("bootstrap")
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
	o.flags.AddFlags(f, true)
	o.cluster.AddFlags(f, false)
	o.cluster.AddSecurityFlags(f, g.errOut)
	o.k8s.AddFlags(f)
	registerQuiet(f, &o.quiet)
	o.opt.AddFlags(f)
	platform.AddLogsFlags(f, &o.logs, &o.logsCommand, "with --bootstrap", " after each incident", "the incident's window start")
	f.StringVar(&o.metrics, "metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics, e.g. 127.0.0.1:9464 (default off)")
	return wrapHelp(cmd)
}

// validate checks every flag before the cluster is reached: a flag kbf
// cannot use is exit 2 at once, never found out once the cluster answers.
func (o *watchOptions) validate() error {
	if err := checkBootstrap(&o.cluster, o.bootstrapSet, o.flags.Bootstrap); err != nil {
		return err
	}
	if err := o.validateLogs(); err != nil {
		return err
	}
	if err := flagError(o.k8s.CheckTarget()); err != nil {
		return err
	}
	if _, err := o.cluster.Options(); err != nil {
		return usage(err)
	}
	if _, err := o.cluster.Security(); err != nil {
		return usage(err)
	}
	if err := watch.CheckMetricsAddr(o.metrics); err != nil {
		return usageError{err}
	}
	opt := o.options()
	// The probe's flags are checked as kbf probe's are (partitions given
	// twice or out of range, the interval's floor, the probe's own rules).
	probeOnly := experiment.Options{Kill: experiment.NoFault, Duration: time.Second, Probe: opt.Probe}
	if err := flagError(probeOnly.Validate()); err != nil {
		return err
	}
	if err := opt.Validate(); err != nil {
		return usageError{err}
	}
	if o.k8s.On() {
		if err := platform.CheckKubeconfig(o.k8s.Kubeconfig); err != nil {
			return usageError{err}
		}
	}
	if err := watch.CheckOut(o.opt.Out); err != nil {
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

// validateLogs holds --logs and --logs-command to a --bootstrap cluster
// (kbf's own and Kubernetes' logs are read from the engine and the API)
// and checks them as kbf run does.
func (o *watchOptions) validateLogs() error {
	if o.logs == "" && o.logsCommand == "" {
		return nil
	}
	if !o.bootstrapSet || o.k8s.On() {
		return usagef("--logs and --logs-command are for a --bootstrap cluster: kbf reads its own cluster's and Kubernetes' logs itself")
	}
	return flagError(trialrun.CheckLogs(o.logs, o.logsCommand))
}

// options are the watch's options from the flags.
func (o *watchOptions) options() watch.Options {
	opt := o.opt
	opt.Probe = o.flags
	opt.Probe.Security, _ = o.cluster.Security() // checked before
	opt.Version, opt.Command = version, append([]string{"kbf"}, os.Args[1:]...)
	return opt
}

// clusterSpec is the cluster watched, as kbf probe's is, or Kubernetes'.
func (o *watchOptions) clusterSpec() (platform.Spec, error) {
	opt := o.options()
	switch {
	case o.k8s.On():
		var bs []string
		if o.bootstrapSet {
			bs = opt.Probe.Bootstrap
		}
		return o.k8s.Spec(bs, "", results.FaultExternal, opt.Probe.Security, o.g.errOut), nil
	case o.bootstrapSet:
		return platform.Spec{Remote: &platform.RemoteOptions{Bootstrap: opt.Probe.Bootstrap, Security: opt.Probe.Security,
			Logs: o.logs, LogsCommand: o.logsCommand}}, nil
	}
	return existingSpec(&o.cluster)
}

// runWatch watches until ctx ends or a stop signal comes, analysing each
// incident as kbf run analyses a trial; stopped, it exits 0, or 1 when
// the open incident could not be written.
func runWatch(ctx context.Context, o *watchOptions) error {
	ctx, stopSignals := signal.NotifyContext(ctx, watch.StopSignals...)
	defer stopSignals()
	if o.metricsLn != nil {
		defer o.metricsLn.Close()
	}
	opt := o.options()
	rep := experiment.NewTerm(o.g.errOut, o.quiet, "")
	defer rep.Clear()
	t, err := openWatched(ctx, o, rep, opt.Retry)
	if err != nil || t == nil {
		return err
	}
	defer watch.CloseWithin(watch.CloseTimeout, func() { _ = t.Close() })
	m := watch.NewMetrics()
	if o.metricsLn != nil {
		defer watch.ServeMetrics(o.metricsLn, m)()
		rep.Say("metrics at http://" + o.metricsLn.Addr().String() + "/metrics")
	}
	w := &watch.Watcher{Opt: opt, Target: t, Metrics: m, Reporter: rep, Recorded: recordedBy(m, rep)}
	if t.Observer() == nil {
		// The cluster's view asked of its brokers, as --bootstrap's is:
		// a broker fenced or gone is seen, not only leaders and ISRs.
		if r, err := platform.Open(ctx, platform.Spec{Remote: &platform.RemoteOptions{Bootstrap: t.Bootstrap(), Security: opt.Probe.Security}}); err == nil {
			defer watch.CloseWithin(watch.CloseTimeout, func() { _ = r.Close() })
			w.Observer = r.Observer()
		} else if ctx.Err() == nil {
			rep.Say(fmt.Sprintf("the brokers' view not asked (%v): leaders and ISRs only", err))
		}
	}
	err = w.Run(ctx)
	if ferr := (*watch.FlagError)(nil); errors.As(err, &ferr) {
		return usageError{err}
	}
	return err
}

// openWatched opens the watched cluster, tried again every retry until it
// answers (watch.Open); a flag kbf cannot use is refused at once.
func openWatched(ctx context.Context, o *watchOptions, rep *experiment.Term, retry time.Duration) (cluster.Cluster, error) {
	open := func(ctx context.Context) (cluster.Cluster, error) { return openCluster(ctx, o.clusterSpec) }
	usage := func(err error) bool { return errors.As(err, new(usageError)) }
	return watch.Open(ctx, open, retry, usage, rep.Say)
}

// recordedBy analyses each incident the watch writes, as kbf run its
// trials, says its digest and sets the metrics' last phases.
func recordedBy(m *watch.Metrics, rep *experiment.Term) watch.Recorded {
	return func(ctx context.Context, dir string, _ *watch.Incident) error {
		tr, err := report.JustRecorded(ctx, dir, textReport)
		if err != nil {
			return err
		}
		phases, beyond := tr.LongestPhases()
		m.LastPhases(phases, beyond)
		var b strings.Builder
		if err := textReport.WriteDigest(&b, tr); err == nil {
			rep.Say(b.String())
		}
		return nil
	}
}
