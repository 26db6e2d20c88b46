package main

import (
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/experiment"
)

// defaultOut names a new results directory for a run of the given kind.
func defaultOut(kind string) string {
	return filepath.Join("kbf-runs", time.Now().UTC().Format("20060102-150405")+"-"+kind)
}

// termReporter shows progress on the error stream (experiment.Term).
type termReporter struct{ *experiment.Term }

func newReporter(w io.Writer, quiet bool) *termReporter {
	return &termReporter{experiment.NewTerm(w, quiet, "")}
}

// newLaneReporter is newReporter for one of the trials kbf bench
// --parallel runs side by side: prefix, when not "", names its cluster.
func newLaneReporter(w io.Writer, quiet bool, prefix string) *termReporter {
	return &termReporter{experiment.NewTerm(w, quiet, prefix)}
}

// clear removes the live line from a terminal.
func (r *termReporter) clear() { r.Clear() }

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
