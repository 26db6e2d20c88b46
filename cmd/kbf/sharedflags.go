package main

import (
	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/tune"
)

// The flags several commands take, each defined here once: its name, type
// and default in one place, and what it applies to in each command given
// by the command.

// registerTrials defines --trials, the trials of each scenario (kbf
// bench, kbf tune): by default the fewest that give a 95% interval of a
// median.
func registerTrials(f *pflag.FlagSet, p *int, usage string) {
	f.IntVar(p, "trials", tune.MinTrials, usage)
}

// registerOut defines --out, where a command writes what it makes (kbf
// run, bench, tune): usage says what and its default.
func registerOut(f *pflag.FlagSet, p *string, usage string) {
	f.StringVar(p, "out", "", usage)
}
