package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/experiment"
)

func init() { commands = append(commands, newBenchCmd) }

type benchOptions struct {
	// run holds the flags bench shares with kbf run: the scenario without
	// a FILE, and the cluster's and the probe's settings either way.
	run     runOptions
	cluster clusterFlags
	file    string
	trials  int
	// trialsSet is true when --trials was given: it then overrides FILE's.
	trialsSet bool
	shard     string
	fresh     bool
	out       string
}

func newBenchCmd(g *globals) *cobra.Command { return newBenchCmdF(g, runBench) }

func newBenchCmdF(g *globals, runF func(context.Context, *benchOptions) error) *cobra.Command {
	o := &benchOptions{run: runOptions{g: g, repeat: 1}} // each trial of bench is one of kbf run
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
runs a deterministic slice, for a CI matrix of N jobs; kbf compare merges them.

The scenario file:

` + bench.Example + `
Exit status: 0 done; 3 a trial's records broke what a client's settings
promise (lost under acks=all, duplicated or reordered by an idempotent
producer; a trial of any verdict); 6 no trial was valid; 1 the benchmark
could not run; 2 the command line or FILE is wrong.`,
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
			o.trialsSet = cmd.Flags().Changed("trials")
			if err := o.validate(cmd); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.run.flags.register(cmd.Flags(), false)
	o.cluster.register(cmd.Flags(), true)
	// --command-config is the base runOptions' own: each scenario starts
	// from it, and command_config: replaces it.
	o.run.cluster.registerSecurity(cmd.Flags())
	f := cmd.Flags()
	o.run.registerTrial(f, "overrides it")
	f.IntVar(&o.trials, "trials", 6, "the number of trials of each scenario, over FILE's (6 or more give a 95% interval)")
	f.BoolVar(&o.fresh, "fresh", false, "without FILE: a fresh cluster for every trial")
	f.StringVar(&o.shard, "shard", "1/1", "run the I-th of N deterministic slices of the trials")
	f.StringVar(&o.out, "out", "", "benchmark directory (default kbf-runs/<time>-bench); an existing one is resumed")
	return wrapHelp(cmd)
}

func (o *benchOptions) validate(cmd *cobra.Command) error {
	if o.file != "" {
		for _, name := range []string{"kill", "fresh", "file", "project-name", "config", "brokers", "controllers"} {
			if cmd.Flags().Changed(name) {
				return usagef("--%s: FILE says it for each scenario; give FILE or --%s, not both", name, name)
			}
		}
	} else if o.run.kill == "" {
		return usagef("a scenario FILE or --kill is required (kbf bench --help shows a FILE)")
	}
	if _, err := o.cluster.options(); err != nil {
		return err
	}
	if _, err := o.run.cluster.security(); err != nil {
		return err
	}
	if o.trials < 1 || o.trials > bench.MaxTrials {
		return usagef("--trials %d: want 1 to %d", o.trials, bench.MaxTrials)
	}
	if _, err := bench.ParseShard(o.shard); err != nil {
		return usagef("--%v", err)
	}
	if o.file != "" {
		return nil // each scenario's options are checked before the first trial (benchRunner.Check)
	}
	e := o.run.experimentOptions()
	return flagError(e.Validate())
}

// file returns the benchmark: FILE's, or the one scenario of the flags.
func (o *benchOptions) benchFile() (*bench.File, error) {
	if o.file == "" {
		c := o.run.flags.config()
		cl, _ := o.cluster.options() // validated
		f, err := bench.FromRun(bench.Scenario{Fault: string(o.run.kill), Acks: c.Acks, Interval: c.Interval, Fresh: o.fresh,
			Compose: cl.File, ProjectName: cl.ProjectName, Brokers: cl.Brokers, Controllers: cl.Controllers, Config: o.cluster.config}, o.trials)
		if err != nil {
			return nil, usagef("%v", err)
		}
		return f, nil
	}
	f, err := bench.ReadFile(o.file)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if o.trialsSet {
		f.Trials = o.trials // a CI job's budget over the file's
	}
	return f, nil
}

func runBench(ctx context.Context, o *benchOptions) error {
	f, err := o.benchFile()
	if err != nil {
		return err
	}
	shard, _ := bench.ParseShard(o.shard)
	if o.out == "" {
		o.out = defaultOut("bench")
	}
	runner := newBenchRunner(&o.run)
	defer runner.close()
	b := &bench.Bench{
		File:     f,
		Shard:    shard,
		Dir:      o.out,
		Runner:   runner,
		Env:      benchEnv(),
		Progress: progressOut(o.run.g.errOut, o.run.quiet),
		Cores:    runtime.NumCPU(),
	}
	set, err := b.Run(ctx)
	var refused *bench.RefusedError
	if errors.Is(err, bench.ErrOtherPlan) || errors.As(err, &refused) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(o.run.g.errOut, "bench: results in %s (%s, %s, %s); compare with kbf compare OLD %s\n",
		o.out, bench.TextFile, bench.JSONFile, bench.MarkdownFile, o.out)
	if err := set.WriteMarkdown(o.run.g.out); err != nil {
		return err
	}
	return benchOutcome(set)
}

// benchOutcome is the benchmark's exit: errFindings when any trial's
// findings fail it (report.Findings.Fail, the rule of kbf run and kbf
// report, in a trial of any verdict), else ErrNoValidTrial when no trial
// was valid.
func benchOutcome(set *bench.Set) error {
	valid := 0
	for _, r := range set.Records {
		if r.Valid() {
			valid++
		}
		if r.M != nil && r.M.Findings.Fail() {
			return fmt.Errorf("%w: %s: %s (see its report)", errFindings, r.Trial.ID(), r.M.Findings.Why())
		}
	}
	if valid == 0 && len(set.Records) > 0 {
		return fmt.Errorf("%w: none of %d trials (summary.md says why)", experiment.ErrNoValidTrial, len(set.Records))
	}
	return nil
}

// benchEnv is the configuration lines bench.txt opens with that the trials'
// metadata do not hold: the probe's client and its version.
func benchEnv() bench.Env {
	env := bench.Env{{"client", "franz-go"}}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/twmb/franz-go" {
				env = append(env, [2]string{"client-version", m.Version})
			}
		}
	}
	return env
}
