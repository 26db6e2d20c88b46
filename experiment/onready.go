package experiment

// --on-ready's command is the external fault's injector: kbf starts it
// when it is ready and measures on without waiting for it, but it is no
// fire-and-forget. Its failure (a command not found, exit 127; a script
// missing from a scenario's directory) is said at once and noted in
// meta.json, and whatever of it still runs when the trial ends is ended
// with its whole process group, so no injector outlives its trial.

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/kbf-project/kbf/internal/procgroup"
)

// onReady is --on-ready's running command.
type onReady struct {
	cmd      *exec.Cmd
	stderr   *tailWriter
	done     chan struct{}
	err      error // cmd.Wait's, once done is closed
	reported bool
}

// startOnReady starts --on-ready's command in a process group of its own.
func (t *trial) startOnReady() {
	c := t.o.External.OnReady
	if c == "" {
		return
	}
	cmd := exec.Command("/bin/sh", "-c", c)
	cmd.Dir = t.o.External.Dir
	cmd.SysProcAttr = procgroup.Attr()
	tail := &tailWriter{max: 512}
	cmd.Stderr = tail
	// A child that left the group and holds its stderr must not hold up
	// the trial's end.
	cmd.WaitDelay = onReadyGrace
	if err := cmd.Start(); err != nil {
		t.r.say("--on-ready %q not run: %v", c, err)
		t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("--on-ready %q not run: %v", c, err))
		return
	}
	o := &onReady{cmd: cmd, stderr: tail, done: make(chan struct{})}
	go func() {
		o.err = cmd.Wait()
		close(o.done)
	}()
	t.onReady = o
}

// checkOnReady says once, in the output and the notes, that --on-ready's
// command failed, as soon as it has.
func (t *trial) checkOnReady() {
	o := t.onReady
	if o == nil || o.reported {
		return
	}
	select {
	case <-o.done:
	default:
		return
	}
	o.reported = true
	if o.err == nil {
		return
	}
	msg := fmt.Sprintf("--on-ready %q failed: %v", t.o.External.OnReady, o.err)
	var ee *exec.ExitError
	if errors.As(o.err, &ee) && ee.ExitCode() == 127 {
		msg += " (command not found)"
	}
	if s := strings.TrimSpace(o.stderr.String()); s != "" {
		msg += "; it said: " + s
	}
	t.r.say("%s", msg)
	t.meta.Notes = append(t.meta.Notes, msg)
}

// endOnReady ends what still runs of --on-ready's command, its whole
// process group, when the trial ends: SIGTERM, then SIGKILL after a grace.
func (t *trial) endOnReady() {
	o := t.onReady
	if o == nil {
		return
	}
	// A command that fails at once may not have been seen to (a trial
	// shorter than its start): a moment for it before it is ended.
	select {
	case <-o.done:
		t.checkOnReady()
		return
	case <-time.After(onReadySettle):
	}
	procgroup.Term(o.cmd.Process)
	select {
	case <-o.done:
	case <-time.After(onReadyGrace):
		_ = procgroup.Kill(o.cmd.Process)
		<-o.done
	}
	o.reported = true
	msg := fmt.Sprintf("--on-ready %q still ran when the trial ended: its process group was ended", t.o.External.OnReady)
	t.r.say("%s", msg)
	t.meta.Notes = append(t.meta.Notes, msg)
}

// onReadySettle is how long a command still running at the trial's end
// has to end on its own before it is ended.
const onReadySettle = 200 * time.Millisecond

// onReadyGrace is how long --on-ready's process group has to end on
// SIGTERM before it is killed.
const onReadyGrace = 2 * time.Second

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if len(w.b) > w.max {
		w.b = w.b[len(w.b)-w.max:]
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(strings.Fields(string(w.b)), " ")
}
