package main

import (
	"io"

	"github.com/spf13/pflag"
)

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
