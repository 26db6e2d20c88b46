package bench

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/compare"
)

// UntilDecidedBudget is --until-decided's budget a side without --trials:
// the looks compare.SequentialGate's false-alarm rate was simulated for.
const UntilDecidedBudget = 15

// Budget is kbf bench's command line beside its scenarios: the trials of
// each scenario (over FILE's), the slice of a CI matrix, and
// --until-decided's gate.
type Budget struct {
	Trials int
	// TrialsSet is true when --trials was given: it then overrides FILE's.
	TrialsSet    bool
	Shard        string
	UntilDecided bool
	GateArgs     compare.GateArgs
	// Gate is --until-decided's gate, read by Check.
	Gate compare.Gate
}

// AddTrialsFlag adds --trials to fs (kbf bench, kbf tune): by default the
// fewest trials that give a 95% interval of a median.
func AddTrialsFlag(fs *pflag.FlagSet, p *int, usage string) {
	fs.IntVar(p, "trials", NeedSamples(), usage)
}

// AddFlags adds --trials, --shard, --until-decided and its gate's flags
// to fs.
func (b *Budget) AddFlags(fs *pflag.FlagSet) {
	AddTrialsFlag(fs, &b.Trials, "the number of trials of each scenario, over FILE's (6 or more give a 95% interval)")
	fs.StringVar(&b.Shard, "shard", "1/1", "run the I-th of N deterministic slices of the trials")
	fs.BoolVar(&b.UntilDecided, "until-decided", false, "two scenarios (or a sweep of two values), A and B: run them in turn until the comparison is decided, --trials valid trials a side at most (FILE's trials:, else 15; at least 6)")
	b.GateArgs.AddRegressionFlags(fs, "--until-decided: the smallest growth of a median worth calling a regression",
		"--until-decided: decide on these metrics alone, [ROLE:]METRIC (repeatable or comma-separated), e.g. from_heartbeat for a session timeout, or all; the rest are figures (default each scenario's headline stall, as kbf compare)")
}

// Check checks the budget (given says which flags were given), reads
// --until-decided's gate, and without FILE (file false) gives
// --until-decided its budget when --trials is not given.
func (b *Budget) Check(given func(name string) bool, file bool) error {
	b.TrialsSet = given("trials")
	if b.Trials < 1 || b.Trials > MaxTrials {
		return fmt.Errorf("--trials %d: want 1 to %d", b.Trials, MaxTrials)
	}
	if _, err := ParseShard(b.Shard); err != nil {
		return fmt.Errorf("--%w", err)
	}
	if !b.UntilDecided {
		for _, name := range []string{"max-regression", "metric"} {
			if given(name) {
				return fmt.Errorf("--%s gates --until-decided; kbf compare takes it for a finished benchmark", name)
			}
		}
		return nil
	}
	if b.Shard != "1/1" {
		return fmt.Errorf("--shard %s: --until-decided runs the whole benchmark in one job", b.Shard)
	}
	b.Gate = compare.SequentialGate
	if err := b.Gate.Parse(b.GateArgs); err != nil {
		return err
	}
	// A budget under what a difference needs could never decide.
	if need := NeedSamples(); b.TrialsSet && b.Trials < need {
		return fmt.Errorf("--trials %d: --until-decided needs at least %d valid trials a side to decide anything; --trials is the most a side runs (default %d)", b.Trials, need, UntilDecidedBudget)
	}
	if !b.TrialsSet && !file {
		b.Trials, b.TrialsSet = UntilDecidedBudget, true
	}
	return nil
}

// ReadFile reads the scenario file at path (ReadFile) under the budget:
// --trials over its trials:, which --until-decided takes as its budget.
func (b *Budget) ReadFile(path string) (*File, error) {
	f, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	if b.TrialsSet {
		f.Trials = b.Trials // a CI job's budget over the file's
	} else if need := NeedSamples(); b.UntilDecided && f.Trials < need {
		// FILE's trials: is --until-decided's budget, as --trials is.
		return nil, fmt.Errorf("%s: trials %d: --until-decided takes it as the most valid trials a side runs, and needs at least %d to decide anything; raise it or give --trials", path, f.Trials, need)
	}
	return f, nil
}
