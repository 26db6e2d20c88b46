package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/benchfile"
	"github.com/kbf-project/kbf/compare"
)

func init() { commands = append(commands, newCompareCmd) }

func newCompareCmd(g *globals) *cobra.Command {
	return newCompareCmdF(g, func(ctx context.Context, o *compare.Options) error { return runCompare(ctx, g, o) })
}

func newCompareCmdF(g *globals, runF func(context.Context, *compare.Options) error) *cobra.Command {
	o := compare.NewOptions()
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two benchmarks and gate on a regression",
		Long: `compare reads two kbf bench results — each a bench.txt, a kbf bench directory,
a directory of such directories (a CI matrix's shards, merged), or several of
these joined with commas; shards that do not make one benchmark, one missing
or given twice, are refused — and compares them per scenario, role and metric:
medians, 95% intervals and a Mann–Whitney U test (golang.org/x/perf's
benchmath, as benchstat). A regression is a median worse by more than
--max-regression, and by more than --min-change (the probe's resolution),
with p < --alpha; or a median over a --limit.

A value that cannot be a duration or a count (NaN, an infinity, a negative
stall) is refused with its file and line; a unit in other units of time
(ack-stall-ms) is converted, one of another kind refused. What one side
has and the other lacks (a scenario, a role, a metric) is listed, and fails
the gate unless --allow-missing.

Three answers, per metric and for the whole (its worst metric's), in the
manner of Chromium's Pinpoint. p is the smaller of the Mann–Whitney U and
Kolmogorov–Smirnov tests' p, doubled. The metrics gated are each
scenario's headline stall by default — from_heartbeat for a crash,
ack_stall where a scenario has none (a graceful stop) — as kbf bench
--until-decided gates them; --metric names others, --metric all gates every
one; the rows not gated are compared and printed beside them. The gated
metrics are tested as a family: each p is adjusted for the others
(Holm's step-down; adj= in the output), so that the chance of a false
difference on any of them is --alpha; the rows not gated are a family of
their own. Different: the adjusted p < --alpha and the change beyond both
bounds — a regression, or an improvement. Same: p above
a threshold that falls as trials grow, the p a change of the size sought
(--max-regression of the old median, at least --min-change) stays under in
95% of comparisons. Undecided: between the two, or fewer than 6 valid
trials a side, which neither answer is given on (the summary says how
many more each side needs), or none at all on a side: run more. Past 1,000 trials a side the
Kolmogorov–Smirnov p is its asymptotic one, so large files take seconds.

` + exitHelp(exitOK, exitError, exitUsage, exitFindings, exitRegress, exitTooFew, exitCanceled) + `

0 is same, or an improvement (the summary says which). With --no-fail, 0
whatever the verdict (figures, not a verdict).`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("compare takes OLD and NEW: bench.txt files or kbf bench directories")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.SetSides(args[0], args[1])
			if err := o.Check(); err != nil {
				return usageError{err}
			}
			return runF(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return wrapHelp(cmd)
}

// runCompare compares the sides (compare.Options.Run) and exits with
// the verdict, unless --no-fail.
func runCompare(ctx context.Context, g *globals, o *compare.Options) error {
	res, err := o.Run(ctx, g.out)
	if nm := (*compare.NotMeasuredError)(nil); errors.As(err, &nm) {
		return usagef("--metric %v", nm)
	}
	if err != nil {
		return sidesError(err)
	}
	if o.NoFail {
		return nil
	}
	return verdictExit(res.Verdict, res.Summary())
}

// sidesError is the exit of sides that cannot be compared: shards that
// do not make one benchmark and a file on both sides are the command
// line's mistake; a side without one valid trial is undecided.
func sidesError(err error) error {
	var nv *compare.NoValidError
	switch {
	case errors.Is(err, benchfile.ErrShards), errors.As(err, new(*compare.SharedError)):
		return usageError{err}
	case errors.As(err, &nv):
		return verdictError{errTooFew, nv.Error()}
	}
	return err
}

// verdictExit is a gate's verdict as kbf compare exits with it: 3 for a
// lost record, 4 for a regression, 5 for undecided or one-sided, nil for
// same or an improvement (the summary says which).
func verdictExit(v compare.Verdict, summary string) error {
	switch v {
	case compare.Lost:
		return fmt.Errorf("%w: %s", errFindings, summary)
	case compare.Regression:
		return fmt.Errorf("%w: %s", errRegression, summary)
	case compare.Missing, compare.Undecided:
		// No conclusion: a metric on one side only has no trials at all
		// to compare with on the other.
		return verdictError{errTooFew, summary}
	}
	return nil
}

// verdictError is a gate's verdict that its summary line says in full,
// with the exit code of the sentinel it wraps.
type verdictError struct {
	sentinel error
	summary  string
}

func (e verdictError) Error() string { return e.summary }
func (e verdictError) Unwrap() error { return e.sentinel }
