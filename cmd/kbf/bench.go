package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/bench/trialrun"
	"github.com/kbf-project/kbf/compose"
)

func init() { commands = append(commands, newBenchCmd) }

type benchOptions struct {
	// run holds the flags bench shares with kbf run: the scenario without
	// a FILE, and the cluster's and the probe's settings either way.
	run     *runOptions
	cluster compose.Flags
	file    string
	budget  bench.Budget
	fresh   bool
	out     string
}

func newBenchCmd(g *globals) *cobra.Command { return newBenchCmdF(g, runBench) }

func newBenchCmdF(g *globals, runF func(context.Context, *benchOptions) error) *cobra.Command {
	o := &benchOptions{run: newRunOptions(g)}
	o.run.Base.Trial.Repeat = 1 // each trial of bench is one of kbf run
	cmd := &cobra.Command{
		Use:   "bench [FILE]",
		Short: "Run a benchmark: scenarios × trials, interleaved, into files CI tools read",
		Long: `bench runs every scenario of FILE (YAML, below) the given number of times,
interleaving them (A B A B ...) so that a shared machine's drift falls on all
alike, with the cluster restored to healthy between trials. Without FILE the
flags of kbf run make one scenario (kbf bench --kill sigkill --trials 6).

It keeps every trial directory under --out and writes there, as trials finish,
bench.txt (Go benchmark format: benchstat old.txt new.txt reads it; when the
two sides differ in a configuration line, add -ignore with its key),
bench.json (github-action-benchmark, customSmallerIsBetter) and summary.md,
and for a sweep a table in summary.md and sweep-SCENARIO-ROLE.svg. Run again
with the same FILE and --out to resume an interrupted benchmark. --shard I/N
runs a deterministic slice, for a CI matrix of N jobs, and bench.txt says
which; kbf compare merges the shards, refusing any missing or given twice.

--until-decided compares two variants — two scenarios, A and B, or one
scenario swept over two values — as kbf compare A B would, but as the
trials run: after each pair of valid trials it compares what bench.txt
holds (compare.SequentialGate: alpha 0.01, since it looks after every
pair) and stops at the first answer, different (a regression or an
improvement beyond --max-regression) or same; at --trials valid trials a
side (FILE's trials:, else 15; at least 6, what a difference needs) the
answer is undecided. The sides take turns: A, B, A, B. A trial that does not count is
replaced by another of its side, up to half the budget again; a side left
short is fewer samples, never an abort. The answer ends summary.md, and
the exit status is kbf compare's: 0 same or an improvement, 4 a
regression, 5 undecided, 3 a record lost; 1 when trials cannot run (two
in a row failed: Docker unreachable, say). Like every trial, its trials
end --settle after recovery rather than at --duration.

The scenario file:

` + bench.Example + `
` + exitHelp(exitOK, exitError, exitUsage, exitFindings, exitRegress, exitTooFew, exitNoValid, exitCanceled) + `

4 and 5 come only with --until-decided.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("bench takes at most one FILE, a scenario file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.file = args[0]
			}
			o.run.Base.BrokerSet = cmd.Flags().Changed("broker")
			o.run.External.BootstrapSet = cmd.Flags().Changed("bootstrap")
			if err := o.validate(cmd); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.run.Base.Trial.Probe.AddFlags(cmd.Flags(), false)
	o.cluster.AddFlags(cmd.Flags(), true)
	// --command-config is the base runOptions' own: each scenario starts
	// from it, and command_config: replaces it.
	o.run.Cluster.AddSecurityFlags(cmd.Flags(), g.errOut)
	f := cmd.Flags()
	o.run.Base.AddFlags(f, "overrides it")
	registerQuiet(f, &o.run.quiet)
	o.run.External.AddFlags(f)
	o.run.Base.K8s.AddFlags(f)
	o.budget.AddFlags(f)
	f.BoolVar(&o.fresh, "fresh", false, "without FILE: a fresh cluster for every trial")
	o.run.Base.AddLaneFlags(f, "how many of kbf's clusters may be up at once: scenarios whose node settings differ each keep a cluster of their own (the second on ports 19192…), so their trials alternate with no node recreated between them; 1 recreates the nodes that differ before each trial", true)
	registerOut(f, &o.out, "benchmark directory (default kbf-runs/<time>-bench); an existing one is resumed")
	return wrapHelp(cmd)
}

func (o *benchOptions) validate(cmd *cobra.Command) error {
	if err := flagError(o.run.Base.CheckLanes(cmd.Flags().Changed("clusters"))); err != nil {
		return err
	}
	if err := partnerless(&o.run.Base.Trial.Probe, cmd.Flags().Changed, "--"); err != nil {
		return err
	}
	if o.file != "" {
		for _, name := range []string{"kill", "fresh", "file", "project-name", "config", "brokers", "controllers",
			"bootstrap", "logs", "logs-command", "on-ready", "ready-file", "heal-margin"} {
			if cmd.Flags().Changed(name) {
				return usagef("--%s: FILE says it for each scenario; give FILE or --%s, not both", name, name)
			}
		}
	} else if o.run.Base.Trial.Kill == "" {
		return usagef("a scenario FILE or --kill is required (kbf bench --help shows a FILE)")
	} else if err := flagError(o.run.External.Check(o.run.Base.Trial.Kill)); err != nil {
		return err
	}
	if _, err := o.cluster.Options(); err != nil {
		return usage(err)
	}
	if _, err := o.run.Cluster.Security(); err != nil {
		return usage(err)
	}
	if err := o.budget.Check(cmd.Flags().Changed, o.file != ""); err != nil {
		return usageError{err}
	}
	if err := flagError(o.run.Base.Validate()); err != nil {
		return err
	}
	if o.file != "" {
		return nil // each scenario's options are checked before the first trial (trialrun.Runner.Check)
	}
	if err := flagError(o.run.Base.K8s.Check(o.run.Base.Trial.Kill, o.run.Base.BrokerSet)); err != nil {
		return err
	}
	e := o.run.Experiment()
	return flagError(e.Validate())
}

// file returns the benchmark: FILE's, or the one scenario of the flags.
func (o *benchOptions) benchFile() (*bench.File, error) {
	if o.file == "" {
		s, err := o.run.Base.Scenario(&o.cluster, o.run.External, o.fresh)
		if err != nil {
			return nil, usage(err)
		}
		f, err := bench.FromRun(s, o.budget.Trials)
		if err != nil {
			return nil, usagef("%v", err)
		}
		return f, nil
	}
	f, err := o.budget.ReadFile(o.file)
	return f, usage(err)
}

func runBench(ctx context.Context, o *benchOptions) error {
	f, err := o.benchFile()
	if err != nil {
		return err
	}
	shard, _ := bench.ParseShard(o.budget.Shard)
	if o.out == "" {
		o.out = trialrun.DefaultOut("bench")
	}
	b, closing := o.run.Trials().Benchmark(f, shard, o.out, progressOut(o.run.g.errOut, o.run.quiet))
	defer closing()
	if o.budget.UntilDecided {
		return runUntilDecided(ctx, o, b)
	}
	set, err := b.Run(ctx)
	if err != nil {
		return benchRefused(err)
	}
	fmt.Fprintf(o.run.g.errOut, "bench: results in %s (%s, %s, %s); compare with kbf compare OLD %s\n",
		o.out, bench.TextFile, bench.JSONFile, bench.MarkdownFile, o.out)
	if err := set.WriteMarkdown(o.run.g.out); err != nil {
		return err
	}
	return set.Outcome()
}

// runUntilDecided is kbf bench --until-decided: the gate's answer printed
// and in summary.md, and kbf compare's exit for it.
func runUntilDecided(ctx context.Context, o *benchOptions, b *bench.Bench) error {
	set, d, err := b.RunUntilDecided(ctx, bench.Gate{Gate: o.budget.Gate, Extra: bench.DefaultExtra})
	if errors.Is(err, bench.ErrNotTwo) {
		return usagef("%v", err)
	}
	if err != nil {
		return benchRefused(err)
	}
	if err := set.WriteMarkdown(o.run.g.out); err != nil {
		return err
	}
	fmt.Fprintf(o.run.g.errOut, "bench: %s: %s (valid trials %d of %d attempts and %d of %d); results in %s\n",
		d.Answer(), d.Why, d.Valid[0], d.Attempts[0], d.Valid[1], d.Attempts[1], o.out)
	// A trial's findings fail the benchmark as they would without the gate.
	if err := set.Outcome(); errors.Is(err, errFindings) {
		return err
	}
	return verdictExit(d.Verdict, d.Answer()+": "+d.Why)
}

// benchRefused is the exit of a benchmark that did not run: a directory of
// another benchmark's plan, or a scenario refused before its first trial,
// is the command line's mistake.
func benchRefused(err error) error {
	if errors.Is(err, bench.ErrOtherPlan) || errors.As(err, new(*bench.RefusedError)) {
		return usagef("%v", err)
	}
	return err
}
