package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/htmlreport"
	"github.com/kbf-project/kbf/plot"
	"github.com/kbf-project/kbf/replicas"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

func init() { commands = append(commands, newRunCmd) }

type runOptions struct {
	g       *globals
	flags   probeFlags
	kill    results.FaultKind
	cluster clusterFlags
	// replicaInterval is how often the replica view samples; 0: never.
	replicaInterval time.Duration
	broker          string
	duration        time.Duration
	faultAfter      time.Duration
	returnAfter     time.Duration
	lastStep        string
	repeat          int
	out             string
	image           string
	grace           time.Duration
	timeout         time.Duration
	baseline        experiment.Baseline
	quiet           bool
	clients         clientFlags
	// diskSize is the size of the tmpfs a disk-full fault fills.
	diskSize string
}

func newRunCmd(g *globals) *cobra.Command { return newRunCmdF(g, runTrials) }

func newRunCmdF(g *globals, runF func(context.Context, *runOptions) error) *cobra.Command {
	o := &runOptions{g: g}
	cmd := &cobra.Command{
		Use:   "run --kill sigkill|sigterm|pause",
		Short: "Run the experiment: probe, kill a broker, recover, report",
		Long: `run makes sure the cluster is up with every ISR full, starts the probe, and
after --fault-after kills (sigkill), gracefully stops (sigterm) or freezes
(pause, as a long garbage collection would) a broker. It keeps probing to the
end of --duration, then restores the cluster: restarts (or unpauses) the
broker, waits until every ISR is full, runs a preferred leader election and
checks the leaders are back. It reads every probed partition back, writes
each trial to its own directory and prints the report; with --repeat, a
summary of the valid trials. Ctrl-C in any phase undoes the fault and keeps
what was measured.

The fault waits for a healthy baseline: every probed partition acked and read
for --baseline with no gap longer than --baseline-gap, each led by its
preferred replica with its whole replica set in the ISR. kbf says why it
waits; after --baseline-timeout the trial is recorded invalid and the fault
is not injected. Each report ends its heading with a verdict: valid, suspect
(the probe stalled in the window that decides the stall, or the host was
overloaded) or invalid (no healthy baseline, the fault not confirmed).

The cluster is kbf's own, resized with --brokers and --controllers, or the
one of -f FILE, your own compose file (--broker then names one of its
services); --config KEY=VALUE or NODE:KEY=VALUE sets a Kafka property, as
kbf up does. The faulted broker always leads partition 0 of the topic.

` + helpISR + "\n\n" + helpPreferred + "\n\n" + helpAcks + `

Exit status:
  0    every trial ran and no acknowledged record was lost, duplicated or
       reordered
  1    a trial could not run (one line says why)
  2    the command line is wrong
  3    the audit found acknowledged records lost, duplicated or reordered
  6    every trial ran but none was valid (each report's verdict says why)
  130  interrupted (the fault undone, what was measured kept)`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.flags.register(cmd.Flags(), false)
	o.cluster.register(cmd.Flags(), true)
	o.clients.register(cmd.Flags())
	f := cmd.Flags()
	o.registerTrial(f, "")
	f.DurationVar(&o.returnAfter, "return-after", 0, "two-brokers: when, after the fault, the second broker is started again (default half the time left after the fault); the first returns in recovery")
	f.StringVar(&o.lastStep, "last-step", "sigkill", "last-replica: how the leader, the last replica in the ISR, is stopped: sigkill or sigterm")
	f.IntVar(&o.repeat, "repeat", 1, "number of trials")
	f.StringVar(&o.out, "out", "", "results directory (default kbf-runs/<time>-<kill>)")
	return wrapHelp(cmd)
}

func (o *runOptions) validate() error {
	switch {
	case o.kill == "":
		return usagef("--fault is required (or --kill): %s", faultNames())
	case o.duration <= 0:
		return usagef("--duration %v: must be positive", o.duration)
	case o.faultAfter < 0 || o.faultAfter >= o.duration:
		return usagef("--fault-after %v: must be within --duration %v", o.faultAfter, o.duration)
	case o.returnAfter < 0 || (o.returnAfter > 0 && o.returnAfter >= o.duration-o.faultAfter):
		return usagef("--return-after %v: must be within the %v left after --fault-after", o.returnAfter, o.duration-o.faultAfter)
	case o.lastStep != string(chaos.SigKill) && o.lastStep != string(chaos.SigTerm):
		return usagef("--last-step %q: want sigkill or sigterm", o.lastStep)
	case o.repeat < 1:
		return usagef("--repeat %d: must be at least 1", o.repeat)
	case o.grace <= 0:
		return usagef("--grace %v: must be positive", o.grace)
	case o.timeout <= 0:
		return usagef("--recovery-timeout %v: must be positive", o.timeout)
	case o.baseline.Period < 0:
		return usagef("--baseline %v: must not be negative", o.baseline.Period)
	case o.baseline.Gap < 0:
		return usagef("--baseline-gap %v: must not be negative", o.baseline.Gap)
	case o.baseline.Timeout < 0:
		return usagef("--baseline-timeout %v: must not be negative", o.baseline.Timeout)
	}
	if _, err := o.cluster.options(); err != nil {
		return err
	}
	if _, _, err := o.clients.parse(); err != nil {
		return err
	}
	_, err := o.flags.config()
	return err
}

// experimentOptions turns the flags into the experiment's options.
func (o *runOptions) experimentOptions() experiment.Options {
	cfg, _ := o.flags.config() // validated
	names, settings, _ := o.clients.parse()
	out := o.out
	if out == "" {
		out = defaultOut(string(o.kill))
	}
	return experiment.Options{
		Kill:            o.kill,
		Broker:          o.broker,
		Duration:        o.duration,
		FaultAfter:      o.faultAfter,
		ReturnAfter:     o.returnAfter,
		LastStep:        results.FaultKind(o.lastStep),
		Repeat:          o.repeat,
		Out:             out,
		Grace:           o.grace,
		RecoveryTimeout: o.timeout,
		Baseline:        o.baseline,
		Probe:           cfg,
		Clients:         names,
		ClientSettings:  settings,
		Version:         version,
		Command:         append([]string{"kbf"}, os.Args[1:]...),
	}
}

func runTrials(ctx context.Context, o *runOptions) error {
	if names, _, _ := o.clients.parse(); len(names) > 0 { // validated
		if err := checkBuilt(names); err != nil {
			return err
		}
	}
	opts, err := o.cluster.options()
	if err != nil {
		return err
	}
	// The faulted broker leads partition 0 of the probed topic, however
	// many brokers there are.
	opts.Image, opts.Lead = o.image, o.broker
	limitDisk(&opts, o)
	withOffline(&opts, o.g)
	cl, err := compose.New(opts)
	if errors.Is(err, compose.ErrInvalid) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	defer cl.Close()
	if o.kill == chaos.IsolateController && len(cl.Services()) == len(cl.Brokers()) {
		return usagef("--fault %s: the cluster has no dedicated controller to cut the broker from", o.kill)
	}
	if o.kill.Controller() && len(cl.Services())-len(cl.Brokers()) < 3 {
		return usagef("--fault %s: needs a quorum of three dedicated controllers (--controllers 3)", o.kill)
	}
	if o.kill.MultiStep() && len(cl.Brokers()) < 3 {
		return usagef("--fault %s: needs at least 3 brokers (kbf up --brokers 3)", o.kill)
	}
	if _, ok := cl.Brokers()[o.broker]; !ok {
		return usagef("--broker %q: not a broker of the cluster (%v)", o.broker, cl.BrokerServices())
	}
	rep := newReporter(o.g.errOut, o.quiet)
	defer rep.clear()
	r := newRunner(o, cl, stdoutLogs{newInjector(cl), cl}, o.g.out, rep)
	if err := r.Run(ctx); errors.Is(err, experiment.ErrDirInUse) {
		return usageError{err}
	} else {
		return err // ErrFindings is errFindings
	}
}

// newInjector injects faults into cl's containers, disk-full ones too.
func newInjector(cl *compose.Cluster) *chaos.Injector {
	return chaos.New(cl.Docker(), cl.ContainerName).WithDisk(cl.Exec, cl.LogDir)
}

// limitDisk gives the broker of a disk-full fault a log directory of its
// own size, which the fault fills; the other faults' clusters have none.
func limitDisk(opts *compose.Options, o *runOptions) {
	if o.kill == chaos.DiskFull {
		opts.DiskLimits = map[string]string{o.broker: o.diskSize}
	}
}

// stdoutLogs collects the logs of a node that logs only to its standard
// output (a user's compose file with the official image's default) from
// that output, split by logger; the others' from their log files.
type stdoutLogs struct {
	*chaos.Injector
	cl *compose.Cluster
}

func (i stdoutLogs) CollectLogs(ctx context.Context, service string, since time.Time, dst string) error {
	err := i.Injector.CollectLogs(ctx, service, since, dst)
	if !i.cl.LogsToStdout(service) {
		return err
	}
	// No log4j configuration is given, so the image's own decides: the
	// official image's sends everything to the standard output, an image
	// with Kafka's distribution configuration writes the controller's and
	// the state changes' loggers to their files only. The files win where
	// they hold those loggers' lines.
	if err == nil && (nonEmpty(filepath.Join(dst, results.ControllerLog)) || nonEmpty(filepath.Join(dst, results.StateChangeLog))) {
		return nil
	}
	return i.cl.CollectOutput(ctx, service, dst)
}

func nonEmpty(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Size() > 0
}

// composeCluster adapts compose's cluster to what the experiment asks of
// one.
type composeCluster struct{ *compose.Cluster }

func (c composeCluster) Up(ctx context.Context) (experiment.UpInfo, error) {
	up, err := c.Cluster.Up(ctx)
	if err != nil {
		return experiment.UpInfo{}, err
	}
	return experiment.UpInfo{Reused: up.Reused, Took: up.Took}, nil
}

// ActiveController names the controller leading the metadata quorum.
func (c composeCluster) ActiveController(ctx context.Context) (string, int32, int32, error) {
	id, epoch, err := c.Admin().QuorumLeader(ctx)
	if err != nil {
		return "", 0, 0, err
	}
	svc, ok := c.Service(id)
	if !ok {
		return "", id, epoch, fmt.Errorf("the quorum's leader, node %d, is no service of the cluster", id)
	}
	return svc, id, epoch, nil
}

// Rejoined reports whether controller id has caught up with the quorum's
// leader since since, as the leader describes the quorum.
func (c composeCluster) Rejoined(ctx context.Context, id int32, since time.Time) (bool, string, error) {
	q, err := c.Admin().DescribeQuorum(ctx)
	if err != nil {
		return false, "", err
	}
	ok, where := q.CaughtUpSince(id, since)
	return ok, where, nil
}

func (c composeCluster) EnsurePreferred(ctx context.Context) error {
	_, err := c.Cluster.EnsurePreferred(ctx)
	return err
}

func (c composeCluster) Partitions(ctx context.Context, topic string) ([]experiment.Partition, error) {
	parts, err := c.Cluster.Describe(ctx, topic)
	if err != nil {
		return nil, err
	}
	out := make([]experiment.Partition, 0, len(parts))
	for _, p := range parts {
		if p.Topic != topic {
			continue
		}
		out = append(out, experiment.Partition{Partition: p.Partition, Leader: p.Leader, Replicas: p.Replicas, ISR: p.ISR})
	}
	return out, nil
}

// newRunner is the trial protocol of kbf run and kbf bench on a compose
// cluster, writing reports to out.
func newRunner(o *runOptions, cl *compose.Cluster, inj experiment.Injector, out io.Writer, rep experiment.Reporter) *experiment.Runner {
	r := &experiment.Runner{
		Opt:      o.experimentOptions(),
		Cluster:  composeCluster{cl},
		Faults:   inj,
		Drawings: trialDrawings,
		Text:     textReport,
		Out:      out,
		Reporter: rep,
	}
	if o.replicaInterval > 0 {
		r.NewSampler = func(ctx context.Context, bootstrap []string, topic string, parts []int32, w io.Writer) (experiment.Sampler, error) {
			return replicas.New(ctx, replicas.Config{Bootstrap: bootstrap, Topic: topic, Partitions: parts, Interval: o.replicaInterval}, w)
		}
	}
	return r
}

// trialDrawings are the pictures kbf run draws beside each trial's report.
func trialDrawings() map[string]experiment.Drawing {
	return map[string]experiment.Drawing{
		results.PlotFile:   svgDrawing{plot.NewCollector()},
		results.ReportHTML: htmlDrawing{},
	}
}

// htmlDrawing is report.html. Its lanes keep every point of a stall, whose
// bounds the analysis decides, so it reads the trial's probe.csv again once
// the analysis is done rather than holding every row through it.
type htmlDrawing struct{}

func (htmlDrawing) Add(*results.Message) {}

func (htmlDrawing) Draw(w io.Writer, tr *report.Trial) error {
	f, err := os.Open(filepath.Join(tr.Dir, results.ProbeFile))
	if err != nil {
		return err
	}
	defer f.Close()
	rv, err := htmlreport.ReadReplicas(filepath.Join(tr.Dir, results.ReplicasFile))
	if err != nil {
		return err
	}
	return htmlreport.WriteTrial(w, htmlreport.TrialPage{Report: tr, Probe: f, ProbeName: f.Name(), Replicas: rv})
}

// svgDrawing is plot.svg, drawn from the rows its collector took.
type svgDrawing struct{ col *plot.Collector }

func (d svgDrawing) Add(m *results.Message) { d.col.Add(m) }

func (d svgDrawing) Draw(w io.Writer, tr *report.Trial) error {
	return drawTrial(w, tr, d.col, plot.Options{})
}

// registerTrial adds the flags of one trial, which kbf run and kbf bench
// share; scenario says, for kbf bench, what a scenario's own setting does
// to the flag.
func (o *runOptions) registerTrial(f *pflag.FlagSet, scenario string) {
	over := func(key string) string {
		if scenario == "" {
			return ""
		}
		return " (a scenario's " + key + ": " + scenario + ")"
	}
	f.Var(faultFlag{&o.kill}, "fault", "the fault: "+faultHelp+over("fault"))
	f.Var(faultFlag{&o.kill}, "kill", "the same as --fault, its short form for sigkill, sigterm and pause")
	registerQuiet(f, &o.quiet)
	f.DurationVar(&o.replicaInterval, "replica-interval", 100*time.Millisecond, "how often the replica view (replicas.csv) asks each broker for its replicas' LEO and the HW; 0 turns it off")
	f.StringVar(&o.broker, "broker", "k1", "the broker to fault, by service name"+over("broker"))
	f.DurationVar(&o.duration, "duration", 30*time.Second, "how long each trial probes"+over("duration"))
	f.DurationVar(&o.faultAfter, "fault-after", 8*time.Second, "when, after the probe starts, the fault is injected"+over("fault_after"))
	f.StringVar(&o.image, "image", "", "Kafka image (default $KBF_IMAGE or apache/kafka:4.3.1)")
	f.DurationVar(&o.grace, "grace", 120*time.Second, "sigterm: how long the broker may take to stop before it is SIGKILLed")
	f.DurationVar(&o.timeout, "recovery-timeout", 3*time.Minute, "how long recovery may take")
	f.StringVar(&o.diskSize, "disk-size", "128m", "disk-full: the size of the tmpfs the faulted broker's log directory is given (and the fault fills)")
	b := experiment.DefaultBaseline
	f.DurationVar(&o.baseline.Period, "baseline", b.Period, "how long every partition must ack and read steadily before the fault")
	f.DurationVar(&o.baseline.Gap, "baseline-gap", b.Gap, "the longest ack or read gap that is steady (default max(10 × --interval, 200ms))")
	f.DurationVar(&o.baseline.Timeout, "baseline-timeout", b.Timeout, "how long past --fault-after to wait for a healthy baseline")
}

// faultFlag is --fault (and --kill): one of the fault kinds results knows.
type faultFlag struct{ k *results.FaultKind }

func (f faultFlag) String() string {
	if f.k == nil {
		return ""
	}
	return string(*f.k)
}

func (f faultFlag) Type() string { return "fault" }

func (f faultFlag) Set(v string) error {
	k := results.FaultKind(v)
	if !k.Known() {
		return fmt.Errorf("%q is not a fault: want %s", v, faultNames())
	}
	if *f.k != "" && *f.k != k {
		return fmt.Errorf("%q: the fault is already %s (--fault and --kill name one fault)", v, *f.k)
	}
	*f.k = k
	return nil
}

func faultNames() string {
	var names []string
	for _, k := range results.FaultKinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

// faultHelp says what each fault does, for --fault's help.
const faultHelp = "sigkill (process killed), sigterm (graceful stop), pause (process frozen " +
	"until recovery), isolate (every network link cut, the process running), " +
	"isolate-controller (cut from the controller quorum only), isolate-clients " +
	"(cut from the clients only); the network faults need root; " +
	"two-brokers (the broker and the next SIGKILLed, the second started again after --return-after), " +
	"rolling (every broker stopped gracefully and started in turn, the next once every ISR is full; the probe runs on 10 s after the roll), " +
	"controller-kill and controller-pause (the quorum's active controller killed, or frozen until recovery; needs --controllers 3), " +
	"last-replica (partition 0's followers stopped one by one, then its leader by --last-step, then the followers started, then the leader), " +
	"disk-full (the broker's log directory, a tmpfs of --disk-size, filled until writes fail; recovery restarts it on an empty one)"
