package main

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/bench/trialrun"
	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/internal/regfile"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/report"
)

func init() { commands = append(commands, newRunCmd) }

// runOptions are kbf run's flags, bound straight into the options of the
// packages that do the work (trialrun.Command): Base.Trial is the trial's
// experiment options, and Base what every trial of kbf bench and kbf tune
// starts from.
type runOptions struct {
	g *globals
	trialrun.Command
	quiet bool
}

// newRunOptions are kbf run's options before the flags: how kbf records
// itself in a trial and shows a trial's progress and report.
func newRunOptions(g *globals) *runOptions {
	o := &runOptions{g: g}
	o.Base.Trial.Version, o.Base.Trial.Command = version, append([]string{"kbf"}, os.Args[1:]...)
	o.Base.Offline = func(c *compose.Options) { c.WithOffline(g.errOut) }
	o.Base.Reporter = func(prefix string) experiment.Reporter { return experiment.NewTerm(g.errOut, o.quiet, prefix) }
	o.Base.Text, o.Base.Log = textReport, g.errOut
	return o
}

func newRunCmd(g *globals) *cobra.Command { return newRunCmdF(g, runTrials) }

func newRunCmdF(g *globals, runF func(context.Context, *runOptions) error) *cobra.Command {
	o := newRunOptions(g)
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
			o.Base.BrokerSet = cmd.Flags().Changed("broker")
			o.External.BootstrapSet = cmd.Flags().Changed("bootstrap")
			if err := partnerConfig(cmd.Flags(), &o.Base.Trial.Probe, &o.Load); err != nil {
				return err
			}
			if err := o.validate(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.Base.Trial.Probe.AddFlags(cmd.Flags(), false)
	o.Cluster.AddFlags(cmd.Flags(), true)
	o.Cluster.AddSecurityFlags(cmd.Flags(), g.errOut)
	o.Clients.AddFlags(cmd.Flags())
	o.Load.AddFlags(cmd.Flags())
	f := cmd.Flags()
	o.Base.AddFlags(f, "")
	registerQuiet(f, &o.quiet)
	o.External.AddFlags(f)
	o.Base.K8s.AddFlags(f)
	e := &o.Base.Trial
	f.DurationVar(&e.ReturnAfter, "return-after", 0, "how long a pause, a cut, a starved CPU or a packet loss lasts (pause, isolate, isolate-controller, isolate-clients, controller-pause, cpu-starve, packet-loss): undone then with the probe still running, a hiccup of that length (default: until recovery); two-brokers: when, after the fault, the second broker is started again (default half the time left after the fault), the first returning in recovery")
	f.StringVar((*string)(&e.LastStep), "last-step", "sigkill", "last-replica: how the leader, the last replica in the ISR, is stopped: sigkill or sigterm")
	f.IntVar(&e.Repeat, "repeat", 1, "number of trials")
	registerOut(f, &e.Out, "results directory (default kbf-runs/<time>-<kill>)")
	return wrapHelp(cmd)
}

// validate checks what only the command line can get wrong (the fault
// missing, the cluster's and the clients' flags), then the experiment's
// options, the one place they are checked.
func (o *runOptions) validate() error {
	if o.Base.Trial.Kill == "" {
		return usagef("--fault is required (or --kill): %s", trialrun.FaultNames())
	}
	if _, err := o.Cluster.Options(); err != nil {
		return usage(err)
	}
	if _, _, err := o.Clients.Parse(); err != nil {
		return usageError{err}
	}
	if _, err := loadConfig(&o.Load); err != nil {
		return err
	}
	if err := flagError(o.Base.CheckFlags(&o.External)); err != nil {
		return err
	}
	e := o.Experiment()
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

// openCluster opens the cluster spec names; a spec that cannot be made, a
// compose file or a kubeconfig kbf cannot use is a usage error.
func openCluster(ctx context.Context, spec func() (platform.Spec, error)) (cluster.Cluster, error) {
	s, err := spec()
	if err != nil {
		return nil, usage(err)
	}
	c, err := platform.Open(ctx, s)
	if errors.Is(err, compose.ErrInvalid) || errors.Is(err, regfile.ErrNotRegular) {
		return nil, usageError{err}
	}
	return c, err
}

func runTrials(ctx context.Context, o *runOptions) error {
	if names, _, _ := o.Clients.Parse(); len(names) > 0 { // validated
		if err := clients.CheckBuilt(names); err != nil {
			return err
		}
	}
	t, err := openCluster(ctx, o.Spec)
	if err != nil {
		return err
	}
	defer t.Close()
	rep := experiment.NewTerm(o.g.errOut, o.quiet, "")
	defer rep.Clear()
	opt := o.Experiment()
	r := trialrun.NewExperiment(opt, t, rep)
	reports := &report.Run{Out: o.g.out, Say: rep.Say, Text: textReport}
	if err := flagError(r.Run(ctx, reports.Recorded)); err != nil {
		return err
	}
	return reports.Done(opt.Out)
}
