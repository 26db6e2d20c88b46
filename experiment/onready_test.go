//go:build linux

package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestOnReady runs --on-ready's command in a trial of an external fault:
// one that fails is reported with its exit status, in the output and the
// notes; one that still runs when the trial ends is ended with its whole
// process group.
func TestOnReady(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	tests := []struct {
		name    string
		command string
		note    string
	}{
		{"a command that does not exist", "kbf-no-such-command-31", `failed: exit status 127 (command not found)`},
		{"a missing script", "./inject-missing.sh", `failed: exit status 127`},
		{"one that fails", "echo cannot reach the broker >&2; exit 3", `failed: exit status 3; it said: cannot reach the broker`},
		{"one that outlives the trial", "sleep 300 & echo $! > " + pidFile + "; wait", "still ran when the trial ended: its process group was ended"},
		{"one that succeeds", "true", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			r, _, rep := newRunner(t, w, results.FaultExternal)
			ready := filepath.Join(t.TempDir(), "ready")
			r.Target = observed{w, ready}
			r.Opt.Duration = time.Second
			r.Opt.External = External{ReadyFile: ready, OnReady: tc.command, Dir: dir, Margin: time.Millisecond}
			tr, err := analysed(context.Background(), r, 1, filepath.Join(r.Opt.Out, results.TrialDir(1)))
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(tr.Meta.Notes, "\n")
			if tc.note == "" {
				if strings.Contains(notes, "--on-ready") {
					t.Errorf("notes %q, want none of --on-ready", notes)
				}
				return
			}
			if !strings.Contains(notes, tc.note) || !strings.Contains(rep.String(), tc.note) {
				t.Errorf("notes %q\noutput:\n%s\nwant both to say %q", notes, rep, tc.note)
			}
			if b, err := os.ReadFile(pidFile); err == nil && strings.Contains(tc.command, pidFile) {
				var pid int
				if _, err := fmt.Sscan(string(b), &pid); err != nil {
					t.Fatal(err)
				}
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("the command's child %d still runs after the trial", pid)
				}
			}
		})
	}
}

// alive reports whether process pid runs: it exists and is no zombie (an
// orphan ended but not yet reaped by init).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}
