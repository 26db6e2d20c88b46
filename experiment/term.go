package experiment

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// Term is the Reporter kbf's commands show progress with, on the error
// stream: on a terminal the live line is rewritten in place every second,
// elsewhere one in five is kept as a line of its own, so a CI log holds a
// line every five seconds and no carriage returns. Quiet, it shows
// nothing.
type Term struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	quiet bool
	live  int
	// prefix begins every line, and with one the live line is never
	// rewritten in place: trials side by side share the terminal.
	prefix string
}

var _ Reporter = (*Term)(nil)

// NewTerm shows progress on w (a terminal when w is one); quiet, nothing.
// prefix, when not "", begins every line: it names the cluster of one of
// the trials kbf bench --parallel runs side by side.
func NewTerm(w io.Writer, quiet bool, prefix string) *Term {
	r := &Term{w: w, tty: isTerminal(w), quiet: quiet}
	if prefix != "" {
		r.prefix, r.tty = prefix, false
	}
	return r
}

// Say prints a line that stays, over the live line on a terminal.
func (r *Term) Say(line string) {
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

// Live shows the probe's state now: in place on a terminal, else one line
// in five.
func (r *Term) Live(line string) {
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

// Clear removes the live line from a terminal.
func (r *Term) Clear() {
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
