package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/clusters"
	"github.com/kbf-project/kbf/clusters/remote"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/watch"
)

func init() { commands = append(commands, newWatchCmd) }

type watchOptions struct {
	g       *globals
	flags   probeFlags
	cluster clusterFlags
	k8s     k8sFlags
	opt     watch.Options
	metrics string
	// logs and logsCommand are where a --bootstrap cluster's node logs
	// come from (kbf run --fault external's flags).
	logs, logsCommand string
	// bootstrapSet is true when --bootstrap was given.
	bootstrapSet bool
	quiet        bool
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
(Ctrl-C or SIGTERM: the open incident is written, then kbf exits 0) and finds
each incident: a partition's acks or reads stalled longer than --stall, or a
sign from the cluster's metadata (a broker fenced or gone, a leader moved, an
ISR shrunk), asked for every --poll. Each incident is written to
--out/incident-NNNN as a trial directory (meta.json kind incident) from
--before its first sign to its recovery (every partition steady for
--settle), with the nodes' logs where the cluster gives them, and analysed
as kbf run's trials are: report.txt, report.json, plot.svg, report.html,
the broker named from the evidence. Nothing is faulted or restarted.
A cluster that cannot be probed is tried again, not an error. Restarted on
the same --out, the numbering carries on; --retain keeps the last N, or
those of the last 30d.

--metrics-addr serves Prometheus metrics at /metrics (docs/watch.md).

Without --bootstrap it watches kbf's own cluster (or the cluster of -f FILE);
with --bootstrap whatever answers there; --target k8s a Kafka in Kubernetes.

` + exitHelp(exitOK, exitError, exitUsage),
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.bootstrapSet = cmd.Flags().Changed("bootstrap")
			if err := o.cluster.checkBootstrap(o.bootstrapSet, o.flags.config().Bootstrap); err != nil {
				return err
			}
			if err := o.validateLogs(); err != nil {
				return err
			}
			if err := o.k8s.validateWatch(); err != nil {
				return err
			}
			if _, err := o.cluster.options(); err != nil {
				return err
			}
			if _, err := o.cluster.security(); err != nil {
				return err
			}
			if o.metrics != "" {
				if _, _, err := net.SplitHostPort(o.metrics); err != nil {
					return usagef("--metrics-addr %s: want host:port, e.g. 127.0.0.1:9464", o.metrics)
				}
			}
			opt := o.options()
			if err := opt.Probe.Validate(); err != nil {
				return usagef("probe: %v", err)
			}
			if err := opt.Validate(); err != nil {
				return usageError{err}
			}
			return runF(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	o.flags.register(f, true)
	o.cluster.register(f, false)
	o.cluster.registerSecurity(f, g.errOut)
	o.k8s.register(f)
	registerQuiet(f, &o.quiet)
	f.DurationVar(&o.opt.Stall, "stall", o.opt.Stall, "a partition's acks or reads stopped for longer than this is an incident")
	f.DurationVar(&o.opt.Before, "before", o.opt.Before, "how much of the probe's records before an incident's first sign its directory keeps")
	f.DurationVar(&o.opt.Settle, "settle", o.opt.Settle, "an incident has recovered once every partition has acked and been read steadily this long")
	f.DurationVar(&o.opt.Poll, "poll", o.opt.Poll, "how often the cluster's metadata is asked for")
	f.DurationVar(&o.opt.Longest, "longest", o.opt.Longest, "an incident open this long is written as it is, to bound memory")
	f.Var(&retainFlag{&o.opt.Retain}, "retain", "keep the last N incidents (50), or those of the last DURATION (72h, 30d); default all")
	f.StringVar(&o.opt.Out, "out", "kbf-watch", "the watch's directory: incident-0001, incident-0002, …")
	f.StringVar(&o.logs, "logs", "", "with --bootstrap: a directory with one folder per node, named by its node id, holding its log files")
	f.StringVar(&o.logsCommand, "logs-command", "", "with --bootstrap: a shell command that prints one node's log, run for each node after each incident with {id}, {host} and {since} (the incident's window start, RFC 3339) replaced, e.g. 'kubectl logs -n kafka my-kafka-{id} --since-time={since}'")
	f.StringVar(&o.metrics, "metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics, e.g. 127.0.0.1:9464 (default off)")
	return wrapHelp(cmd)
}

// validateWatch holds --target's flags to what a watch uses: no broker is
// faulted, so none is named.
func (k *k8sFlags) validateWatch() error {
	switch {
	case k.target != targetDocker && k.target != targetK8s:
		return usagef("--target %s: want %s or %s", k.target, targetDocker, targetK8s)
	case !k.on() && (k.namespace != "" || k.kubeconfig != "" || k.selector != "" || k.netImage != ""):
		return usagef("--namespace, --kubeconfig, --selector and --net-image are --target k8s's")
	}
	return nil
}

// validateLogs holds --logs and --logs-command to a --bootstrap cluster
// (kbf's own and Kubernetes' logs are read from the engine and the API)
// and checks them as kbf run does.
func (o *watchOptions) validateLogs() error {
	if o.logs == "" && o.logsCommand == "" {
		return nil
	}
	if !o.bootstrapSet || o.k8s.on() {
		return usagef("--logs and --logs-command are for a --bootstrap cluster: kbf reads its own cluster's and Kubernetes' logs itself")
	}
	e := externalFlags{logs: o.logs, logsCommand: o.logsCommand}
	return e.validate(results.FaultExternal)
}

// options are the watch's options from the flags.
func (o *watchOptions) options() watch.Options {
	opt := o.opt
	opt.Probe = o.flags.config()
	opt.Probe.Security, _ = o.cluster.security() // checked before
	opt.Version, opt.Command = version, append([]string{"kbf"}, os.Args[1:]...)
	return opt
}

// clusterSpec is the cluster watched, as kbf probe's is, or Kubernetes'.
func (o *watchOptions) clusterSpec() (clusters.Spec, error) {
	opt := o.options()
	switch {
	case o.k8s.on():
		var bs []string
		if o.bootstrapSet {
			bs = opt.Probe.Bootstrap
		}
		return o.k8s.spec(bs, "", results.FaultExternal, opt.Probe.Security, o.g.errOut), nil
	case o.bootstrapSet:
		return clusters.Spec{Remote: &remote.Options{Bootstrap: opt.Probe.Bootstrap, Security: opt.Probe.Security,
			Logs: o.logs, LogsCommand: o.logsCommand}}, nil
	}
	return o.cluster.existing()
}

// runWatch watches until ctx ends, analysing each incident as kbf run
// analyses a trial; stopped, it exits 0.
func runWatch(ctx context.Context, o *watchOptions) error {
	opt := o.options()
	t, err := openCluster(ctx, o.clusterSpec)
	if err != nil {
		return err
	}
	defer t.Close()
	rep := newReporter(o.g.errOut, o.quiet)
	defer rep.clear()
	m := watch.NewMetrics()
	if o.metrics != "" {
		ln, err := net.Listen("tcp", o.metrics)
		if err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry}))
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		rep.Say("metrics at http://" + ln.Addr().String() + "/metrics")
	}
	w := &watch.Watcher{Opt: opt, Target: t, Metrics: m, Reporter: rep,
		Recorded: func(ctx context.Context, dir string, _ *watch.Incident) error {
			tr, err := analyseRecorded(ctx, dir)
			if err != nil {
				return err
			}
			phases, beyond := map[string]time.Duration{}, map[string]time.Duration{}
			for _, st := range tr.Stalls {
				for _, ph := range st.Phases {
					phases[ph.Name] = max(phases[ph.Name], ph.Duration)
					if ph.Bound.Stated {
						beyond[ph.Name] = max(beyond[ph.Name], ph.Bound.Excess)
					}
				}
			}
			m.LastPhases(phases, beyond)
			var b bytesWriter
			if err := textReport.WriteDigest(&b, tr); err == nil {
				rep.Say(string(b))
			}
			return nil
		}}
	if t.Observer() == nil {
		// The cluster's view asked of its brokers, as --bootstrap's is:
		// a broker fenced or gone is seen, not only leaders and ISRs.
		if r, err := remote.New(ctx, remote.Options{Bootstrap: t.Bootstrap(), Security: opt.Probe.Security}); err == nil {
			defer r.Close()
			w.Observer = r
		} else {
			rep.Say(fmt.Sprintf("the brokers' view not asked (%v): leaders and ISRs only", err))
		}
	}
	err = w.Run(ctx)
	if err != nil && errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// bytesWriter collects what is written to it.
type bytesWriter []byte

func (b *bytesWriter) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }

// retainFlag is --retain: a count of incidents or an age.
type retainFlag struct{ r *watch.Retention }

func (f *retainFlag) String() string {
	if f.r == nil || *f.r == (watch.Retention{}) {
		return ""
	}
	return f.r.String()
}

func (f *retainFlag) Set(s string) error {
	r, err := watch.ParseRetention(s)
	if err != nil {
		return err
	}
	*f.r = r
	return nil
}

func (f *retainFlag) Type() string { return "N|AGE" }
