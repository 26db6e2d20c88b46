package main

import "github.com/spf13/pflag"

// The flags several commands take that set a different option in each,
// so no one package declares them: defined here once, its name, type and
// default in one place, and what it applies to given by the command.

// registerOut defines --out, where a command writes what it makes (kbf
// run, probe, bench, tune, plot): usage says what and its default.
func registerOut(f *pflag.FlagSet, p *string, usage string) {
	f.StringVar(p, "out", "", usage)
}
