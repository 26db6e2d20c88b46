package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestInterruptMidReport: Ctrl-C while kbf report or kbf plot reads a
// large trial — its node logs some megabytes, read before anything is
// printed — ends the command with 130, said in one line, not as logs
// that could not be read. (How soon it answers is measured, not tested:
// docs/measurements.md; timeline.TestBuildCancelled holds that the logs
// stop being read.)
func TestInterruptMidReport(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a large trial")
	}
	dir := recordedTrial(t, "sigkill.tar.gz")
	for _, node := range []string{"k1", "k2", "k3"} {
		p := filepath.Join(dir, results.NodeLogsDir, node, results.ServerLog)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.Repeat(b, 200), 0o644); err != nil { // about 16 MB
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"report", dir}, {"plot", "--out", "-", dir}, {"report", "--html", dir}} {
		t.Run(strings.Join(args[:len(args)-1], " "), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel) // mid-report: the logs take seconds
			var out, errOut bytes.Buffer
			code := run(ctx, args, &out, &errOut)
			if code != exitCanceled || strings.Contains(errOut.String(), "unreadable") || strings.Count(errOut.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want %d in one line", code, errOut.String(), exitCanceled)
			}
		})
	}
}
