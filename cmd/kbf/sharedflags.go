package main

import (
	"io"

	"github.com/spf13/pflag"
)

// The flags several commands share as a group are declared by the options
// they set: which of kbf's Docker clusters and how its clients are
// secured (compose.Flags). A place a cluster lives has its own group
// (trialrun.External, trialrun.K8s), and so do the reference clients
// (clients.Flags).

// The flags several commands take that set a different option in each,
// so no one package declares them: defined here once, its name, type and
// default in one place, and what it applies to given by the command.

// registerOut defines --out, where a command writes what it makes (kbf
// run, probe, bench, tune, plot): usage says what and its default.
func registerOut(f *pflag.FlagSet, p *string, usage string) {
	f.StringVar(p, "out", "", usage)
}

// registerQuiet adds --quiet, the flag run, bench and probe share.
func registerQuiet(f *pflag.FlagSet, quiet *bool) {
	f.BoolVarP(quiet, "quiet", "q", false, "show no progress: no live line, no phase lines (the reports and errors are still printed)")
}

// progressOut is where a writer of progress lines writes: w, or nowhere
// when quiet.
func progressOut(w io.Writer, quiet bool) io.Writer {
	if quiet {
		return io.Discard
	}
	return w
}
