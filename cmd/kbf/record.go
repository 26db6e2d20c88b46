package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/experiment"
)

// defaultOut names a new results directory for a run of the given kind.
func defaultOut(kind string) string {
	return filepath.Join("kbf-runs", time.Now().UTC().Format("20060102-150405")+"-"+kind)
}

// termReporter shows progress on the error stream: on a terminal the live
// line is rewritten in place every second, elsewhere one in five is kept as
// a line of its own, so a CI log holds a line every five seconds and no
// carriage returns. Quiet, it shows nothing.
type termReporter struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	quiet bool
	live  int
	// prefix begins every line, and with one the live line is never
	// rewritten in place: trials side by side share the terminal.
	prefix string
}

var _ experiment.Reporter = (*termReporter)(nil)

func newReporter(w io.Writer, quiet bool) *termReporter {
	return &termReporter{w: w, tty: isTerminal(w), quiet: quiet}
}

// newLaneReporter is newReporter for one of the trials kbf bench
// --parallel runs side by side: prefix, when not "", names its cluster.
func newLaneReporter(w io.Writer, quiet bool, prefix string) *termReporter {
	r := newReporter(w, quiet)
	if prefix != "" {
		r.prefix, r.tty = prefix, false
	}
	return r
}

// registerQuiet adds --quiet, the flag run, bench and probe share.
func registerQuiet(f *pflag.FlagSet, quiet *bool) {
	f.BoolVarP(quiet, "quiet", "q", false, "show no progress: no live line, no phase lines (the reports and errors are still printed)")
}

func (r *termReporter) Say(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.quiet {
		return
	}
	if r.tty {
		fmt.Fprint(r.w, "\r\033[K")
	}
	fmt.Fprintln(r.w, r.prefix+line)
}

func (r *termReporter) Live(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.live++
	switch {
	case r.quiet:
	case r.tty:
		fmt.Fprintf(r.w, "\r\033[K%s", line)
	case r.live%5 == 0:
		fmt.Fprintln(r.w, r.prefix+line)
	}
}

// progressOut is where a writer of progress lines writes: w, or nowhere
// when quiet.
func progressOut(w io.Writer, quiet bool) io.Writer {
	if quiet {
		return io.Discard
	}
	return w
}

// clear removes the live line from a terminal.
func (r *termReporter) clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tty && !r.quiet {
		fmt.Fprint(r.w, "\r\033[K")
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
