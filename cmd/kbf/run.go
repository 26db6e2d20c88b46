package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/bench/trialrun"
	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/clusters"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/internal/regfile"
	"github.com/kbf-project/kbf/load"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

func init() { commands = append(commands, newRunCmd) }

// runOptions are kbf run's flags, bound straight into the options of the
// packages that do the work: base.Trial is the trial's experiment options
// (and base what every trial of kbf bench and kbf tune starts from, a
// scenario's settings over it); the rest are the flags that become
// options only once checked (the cluster, the clients, the load, where
// the cluster lives).
type runOptions struct {
	g        *globals
	base     trialrun.Options
	cluster  clusterFlags
	clients  clients.Flags
	load     load.Flags
	external externalFlags // external.go
	k8s      k8sFlags      // k8s.go
	quiet    bool
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

--broker coordinator faults whichever broker coordinates the probe's
consumer group (--consumer group) at the moment of the fault, as
FindCoordinator answers then; the cluster is shaped for no broker, so the
coordinator leads partition 0 only by chance. Every fault that takes a
broker takes it but last-replica; a disk-full needs every broker's log
directory to be a tmpfs. The report says which broker it was and how it
was found, and for every trial with a group whether its coordinator was the
faulted broker.

` + helpISR + "\n\n" + helpPreferred + "\n\n" + helpAcks + `

` + exitHelp(exitOK, exitError, exitUsage, exitFindings, exitNoValid, exitCanceled),
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.base.BrokerSet = cmd.Flags().Changed("broker")
			o.external.bootstrapSet = cmd.Flags().Changed("bootstrap")
			if err := partnerConfig(cmd.Flags(), &o.base.Trial.Probe, &o.load); err != nil {
				return err
			}
			if err := o.validate(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.base.Trial.Probe.AddFlags(cmd.Flags(), false)
	o.cluster.register(cmd.Flags(), true)
	o.cluster.registerSecurity(cmd.Flags(), g.errOut)
	o.clients.AddFlags(cmd.Flags())
	o.load.AddFlags(cmd.Flags())
	f := cmd.Flags()
	o.registerTrial(f, "")
	o.external.register(f)
	o.k8s.register(f)
	e := &o.base.Trial
	f.DurationVar(&e.ReturnAfter, "return-after", 0, "how long a pause or a cut lasts (pause, isolate, isolate-controller, isolate-clients, controller-pause): undone then with the probe still running, a hiccup of that length (default: until recovery); two-brokers: when, after the fault, the second broker is started again (default half the time left after the fault), the first returning in recovery")
	f.StringVar((*string)(&e.LastStep), "last-step", "sigkill", "last-replica: how the leader, the last replica in the ISR, is stopped: sigkill or sigterm")
	f.IntVar(&e.Repeat, "repeat", 1, "number of trials")
	registerOut(f, &e.Out, "results directory (default kbf-runs/<time>-<kill>)")
	return wrapHelp(cmd)
}

// validate checks what only the command line can get wrong (the fault
// missing, the cluster's and the clients' flags), then the experiment's
// options, the one place they are checked.
func (o *runOptions) validate() error {
	if o.base.Trial.Kill == "" {
		return usagef("--fault is required (or --kill): %s", faultNames())
	}
	if _, err := o.cluster.options(); err != nil {
		return err
	}
	if _, _, err := o.clients.Parse(); err != nil {
		return usageError{err}
	}
	if _, err := loadConfig(&o.load); err != nil {
		return err
	}
	if err := validateDisk(&o.base); err != nil { // diskflags.go
		return err
	}
	if err := o.k8s.validate(o.base.Trial.Kill, o.base.BrokerSet); err != nil {
		return err
	}
	// With --target k8s, --bootstrap is the Kubernetes target's first
	// address, not a remote cluster's.
	if err := o.external.validate(o.base.Trial.Kill); err != nil && !o.k8s.on() {
		return err
	}
	e := o.experimentOptions()
	return flagError(e.Validate())
}

// flagError turns the experiment's refusal of an option, or of a fault the
// cluster cannot do, into a usage error naming the flag; other errors pass
// as they are.
func flagError(err error) error {
	var bad *experiment.InvalidOption
	switch {
	case err == nil:
		return nil
	case errors.As(err, &bad):
		return usagef("--%s %s: %s", strings.ReplaceAll(bad.Name, "_", "-"), bad.Value, bad.Why)
	case errors.Is(err, cluster.ErrUnsupported), errors.Is(err, experiment.ErrDirInUse), errors.Is(err, experiment.ErrInvalidOption):
		return usageError{err}
	}
	return err
}

// experimentOptions are the trial's options: those the flags are bound
// to, and those of the flags validate checks.
func (o *runOptions) experimentOptions() experiment.Options {
	e := o.base.Trial
	e.Clients, e.ClientSettings, _ = o.clients.Parse() // validated
	e.Load, _ = loadConfig(&o.load)                    // validated
	e.Probe.Security, _ = o.cluster.security()         // validated
	e.Disk = trialrun.Disk(e.Kill, o.base.DiskDelay, o.base.BrokersLost)
	e.External = o.external.options()
	if e.Out == "" {
		e.Out = defaultOut(string(e.Kill))
	}
	e.Version, e.Command = version, append([]string{"kbf"}, os.Args[1:]...)
	return e
}

// trialOptions are what each trial of kbf bench and kbf tune starts from:
// the flags, and how kbf shows a trial's progress and report.
func (o *runOptions) trialOptions() trialrun.Options {
	b := o.base
	b.Trial = o.experimentOptions()
	b.Clients, b.ClientSet = o.clients.List, o.clients.Set
	k := o.k8s
	b.K8s = trialrun.K8s{Target: k.target, Namespace: k.namespace, Kubeconfig: k.kubeconfig, Selector: k.selector, NetImage: k.netImage}
	b.Offline = func(c *compose.Options) { withOffline(c, o.g) }
	b.Reporter = func(prefix string) experiment.Reporter { return newLaneReporter(o.g.errOut, o.quiet, prefix) }
	b.Text, b.Log = textReport, o.g.errOut
	return b
}

// clusterSpec is where the flags say the cluster lives: a Kafka in
// Kubernetes (--target k8s), a cluster reached by --bootstrap, else kbf's
// Docker cluster shaped for the fault (trialrun.Options.DockerSpec).
func (o *runOptions) clusterSpec() (clusters.Spec, error) {
	e := o.experimentOptions()
	switch {
	case o.k8s.on():
		return o.k8s.spec(o.external.bootstrap, leadOf(e.Broker), e.Kill, e.Probe.Security, o.g.errOut), nil
	case len(o.external.bootstrap) > 0:
		return o.external.remote(e.Probe.Security), nil
	}
	opts, err := o.cluster.options()
	if err != nil {
		return clusters.Spec{}, err
	}
	opts.Image = o.base.Image
	b := o.trialOptions()
	return b.DockerSpec(opts, e), nil
}

// leadOf is the broker the cluster is shaped for (trialrun.Lead).
func leadOf(broker string) string { return trialrun.Lead(broker) }

// openCluster opens the cluster spec names; a compose file or a kubeconfig
// kbf cannot use is a usage error.
func openCluster(ctx context.Context, spec func() (clusters.Spec, error)) (cluster.Cluster, error) {
	s, err := spec()
	if err != nil {
		return nil, err
	}
	c, err := clusters.Open(ctx, s)
	if errors.Is(err, compose.ErrInvalid) || errors.Is(err, regfile.ErrNotRegular) {
		return nil, usageError{err}
	}
	return c, err
}

func runTrials(ctx context.Context, o *runOptions) error {
	if names, _, _ := o.clients.Parse(); len(names) > 0 { // validated
		if err := clients.CheckBuilt(names); err != nil {
			return err
		}
	}
	t, err := openCluster(ctx, o.clusterSpec)
	if err != nil {
		return err
	}
	defer t.Close()
	rep := newReporter(o.g.errOut, o.quiet)
	defer rep.clear()
	opt := o.experimentOptions()
	r := newRunner(opt, t, rep)
	reports := &analysis.Run{Out: o.g.out, Say: rep.Say, Text: textReport}
	if err := flagError(r.Run(ctx, reports.Recorded)); err != nil {
		return err
	}
	return reports.Done(opt.Out)
}

// newRunner is the trial protocol of kbf run and kbf probe on target t
// (trialrun.NewExperiment).
func newRunner(opt experiment.Options, t cluster.Cluster, rep experiment.Reporter) *experiment.Runner {
	return trialrun.NewExperiment(opt, t, rep)
}

// analyseRecorded analyses a trial the runner has just recorded in dir,
// once, and writes its reports beside it (analysis.JustRecorded).
func analyseRecorded(ctx context.Context, dir string) (*report.Trial, error) {
	return analysis.JustRecorded(ctx, dir, textReport)
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
	e, b := &o.base.Trial, &o.base
	f.Var(faultFlag{&e.Kill}, "fault", "the fault: "+faultHelp+over("fault"))
	f.Var(faultFlag{&e.Kill}, "kill", "the same as --fault, its short form for sigkill, sigterm and pause")
	registerQuiet(f, &o.quiet)
	f.DurationVar(&e.ReplicaInterval, "replica-interval", 100*time.Millisecond, "how often the replica view (replicas.csv) asks each broker for its replicas' LEO and the HW; 0 turns it off")
	f.StringVar(&e.Broker, "broker", "k1", "the broker to fault, by service name; coordinator: the consumer group's coordinator at the fault (needs --consumer group)"+over("broker"))
	f.DurationVar(&e.Duration, "duration", 30*time.Second, "the longest each trial probes (see --settle)"+over("duration"))
	f.BoolVar(&e.Failback, "failback", false, "once probing after the fault is over, bring the broker back with the probe running: its restart, its catching up and the preferred leader election, then --failback-for more; the report shows the failback's stall and its tail latency against the baseline's"+over("failback"))
	f.DurationVar(&e.FailbackAfter, "failback-for", 0, "with --failback: how long to probe on after the preferred leader election (default 1m0s)")
	f.DurationVar(&e.Settle, "settle", experiment.DefaultSettle, "end probing this long after the fault's consequence (the broker out of every ISR) and every probed partition acking and reading steadily again; 0 probes for all of --duration"+over("settle"))
	f.DurationVar(&e.FaultAfter, "fault-after", 8*time.Second, "when, after the probe starts, the fault is injected"+over("fault_after"))
	compose.AddImageFlag(f, &b.Image)
	f.DurationVar(&e.Grace, "grace", 120*time.Second, "sigterm: how long the broker may take to stop before it is SIGKILLed")
	f.DurationVar(&e.RecoveryTimeout, "recovery-timeout", 3*time.Minute, "how long recovery may take")
	f.StringVar(&b.DiskSize, "disk-size", "128m", "disk-full: the size of the tmpfs the faulted broker's log directory is given (and the fault fills)")
	registerDisk(f, b) // diskflags.go
	d := experiment.DefaultBaseline
	f.DurationVar(&e.Baseline.Period, "baseline", d.Period, "how long every partition must ack and read steadily before the fault")
	f.DurationVar(&e.Baseline.Gap, "baseline-gap", d.Gap, "the longest ack or read gap that is steady (default max(10 × --interval, 200ms))")
	f.DurationVar(&e.Baseline.Timeout, "baseline-timeout", d.Timeout, "how long past --fault-after to wait for a healthy baseline")
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
	"until recovery, or for --return-after), isolate (every network link cut, the process running), " +
	"isolate-controller (cut from the controller quorum only), isolate-clients " +
	"(cut from the clients only), isolate-replication (cut from the other brokers only: " +
	"acks=all waits until an ISR shrinks after replica.lag.time.max.ms); the network faults need root; " +
	"two-brokers (the broker and the next SIGKILLed, the second started again after --return-after), " +
	"rolling (every broker stopped gracefully and started in turn, the next once every ISR is full; the probe runs on 10 s after the roll), " +
	"controller-kill and controller-pause (the quorum's active controller killed, or frozen until recovery; needs --controllers 3), " +
	"last-replica (partition 0's followers stopped one by one, then its leader by --last-step, then the followers started, then the leader), " +
	"disk-full (the broker's log directory, a tmpfs of --disk-size, filled until writes fail; recovery restarts it on an empty one), " +
	"disk-slow (every write and fsync into the broker's log directory waits --disk-delay), " +
	"disk-error (the broker's log directory answers EIO), " +
	"power-loss (what the broker, or with --brokers-lost all-replicas every broker, wrote and did not fsync is lost, then it is killed; recovery starts it on what was synced); " +
	"the three disk faults serve the log directory through a FUSE layer and need root on the Docker host"
