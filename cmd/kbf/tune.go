package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/bench/trialrun"
	"github.com/kbf-project/kbf/tune"
)

func init() { commands = append(commands, newTuneCmd) }

type tuneOptions struct {
	// run holds the flags tune shares with kbf run: the probe's settings
	// and the trial's, for every scenario of the grid.
	run  *runOptions
	tune tune.Flags
}

func newTuneCmd(g *globals) *cobra.Command { return newTuneCmdF(g, runTune) }

func newTuneCmdF(g *globals, runF func(context.Context, *tuneOptions) error) *cobra.Command {
	// tune makes kbf's own clusters: it takes no --target.
	o := &tuneOptions{run: newRunOptions(g)}
	o.run.Base.K8s.Target = trialrun.TargetDocker
	o.run.Base.Trial.Repeat = 1
	cmd := &cobra.Command{
		Use:   "tune --session 9s,6s,4s,3s,2s --tolerate-pause 2s",
		Short: "Find the fastest failover the cluster can have without fencing a healthy broker",
		Long: `tune measures the trade of broker.session.timeout.ms: a shorter session detects
a dead broker sooner, and fences a healthy one that hiccups. For each
--session (its broker.heartbeat.interval.ms at Kafka's own ratio, 2000 to 9000)
it runs --trials SIGKILL trials, for the cost of a death (the stall of the
partitions the broker led), and --trials trials of each hiccup asked for,
undone after its length with the probe running, for the risk: whether the
controller fenced the broker that never died, and how many leaderships
moved, with the controller's line as evidence. The hiccups: --tolerate-pause
(the broker paused, kbf run --fault pause --return-after), --tolerate-starve
(its container starved to --starve-cpus of a CPU, --fault cpu-starve) and
--tolerate-loss SHARE:LENGTH (a share of its packets dropped each way,
--fault packet-loss --loss; needs root), a column of the answer each.

The probe's settings that bound the producer's stall take a list here, each
value a row crossed with --session: --metadata-min-age, --retry-backoff,
--retry-backoff-max, --produce-timeout and --request-timeout-overhead, every
combination checked against franz-go's limits first; the recommendation gives
them as flags. --death sigkill,pause (or isolate) adds, beside the SIGKILL's,
the stall of the broker frozen for good (or cut), which the clients'
timeouts bound; the decision weighs the longer.

It says the cost before it starts (trials, minutes), runs the grid as a
benchmark with kbf bench's machinery into --out (resumable: run the same
command with the same --out; kbf compare and kbf report read it), and
answers in one screen: the table, the Pareto front, and the recommendation
— the shortest stall that fenced nobody under every hiccup asked, as
--config flags and server.properties lines — or, when the trials cannot
support one, which trials to add. The answer is also in --out/tune.txt, drawn in --out/tune.html.

` + exitHelp(exitOK, exitError, exitUsage, exitFindings, exitTooFew, exitCanceled) + `

5 is the answer "cannot decide: add these trials".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, name := range []string{"fault", "kill", "fault-after", "duration", "loss"} {
				if cmd.Flags().Changed(name) {
					return usagef("--%s: kbf tune sets it for each scenario of its grid", name)
				}
			}
			if err := o.validate(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.run.Base.Trial.Probe.AddFlags(cmd.Flags(), false)
	o.run.Cluster.AddSecurityFlags(cmd.Flags(), g.errOut)
	f := cmd.Flags()
	o.run.Base.AddFlags(f, "kbf tune sets it")
	registerQuiet(f, &o.run.quiet)
	o.tune.AddFlags(f)
	registerOut(f, &o.tune.Out, "benchmark directory (default kbf-runs/<time>-tune); an existing one is resumed")
	o.run.Base.AddLaneFlags(f, "how many of kbf's clusters may be up at once, as kbf bench's: the settings keep a cluster each, side by side, up to this many; 1 recreates the nodes before each trial of other settings", false)
	return wrapHelp(cmd)
}

// validate refuses, before the estimate, a grid or a setting no trial of
// it could run: the grid's own rules, then each scenario's options as kbf
// run checks them (the probe's settings among them). The cluster's
// settings are checked against Kafka's limits before the first trial, as
// kbf bench's are.
func (o *tuneOptions) validate() error {
	g, err := o.grid()
	if err != nil {
		return usagef("--%v", err)
	}
	if err := g.Validate(); err != nil {
		return usagef("%v", err)
	}
	if err := flagError(o.run.Base.CheckLanes(false)); err != nil {
		return err
	}
	r := trialrun.New(o.run.Trials())
	defer r.Close()
	for _, s := range g.File().Scenarios {
		opt, err := r.Experiment(s)
		if err != nil {
			return usagef("%v", err)
		}
		if err := opt.Validate(); err != nil {
			return flagError(err)
		}
		// What the benchmark asks of each scenario before its first
		// trial, asked before the estimate.
		if err := r.Check(s); err != nil {
			return usagef("scenario %q: %v", s.Name, err)
		}
	}
	return nil
}

// grid is the grid the flags ask for (tune.Flags.Grid).
func (o *tuneOptions) grid() (*tune.Grid, error) {
	return o.tune.Grid(o.run.Base.StarveCPUs, o.run.Base.Trial.Broker)
}

func runTune(ctx context.Context, o *tuneOptions) error {
	g, err := o.grid()
	if err != nil {
		return usagef("--%v", err)
	}
	if o.tune.Out == "" {
		o.tune.Out = trialrun.DefaultOut("tune")
	}
	fmt.Fprintln(o.run.g.errOut, tune.Cost(g, o.tune.Out))
	if o.tune.Estimate {
		return nil
	}
	b, closing := o.run.Trials().Benchmark(g.File(), bench.All, o.tune.Out, progressOut(o.run.g.errOut, o.run.quiet))
	defer closing()
	b.Resume = tune.Resume(o.tune.Out)
	set, err := b.Run(ctx)
	if err != nil {
		return benchRefused(err)
	}
	return answerTune(o, g, set)
}

// answerTune decides from the benchmark's trials, prints the answer and
// writes it beside them.
func answerTune(o *tuneOptions, g *tune.Grid, set *bench.Set) error {
	a, err := tune.FromBench(o.tune.Out, g, set)
	if err != nil {
		return err
	}
	if err := tune.WriteText(o.run.g.out, a); err != nil {
		return err
	}
	// A trial's findings fail the tune, as they fail a benchmark; trials
	// that are not valid leave the answer undecided (exit 5), never a
	// loss.
	if err := set.Outcome(); errors.Is(err, errFindings) {
		return err
	}
	if a.Pick < 0 {
		return verdictError{errTooFew, a.Why}
	}
	return nil
}
