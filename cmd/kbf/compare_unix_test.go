//go:build unix

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCompareFIFO checks that a FIFO as either side is refused at once,
// not opened to wait for a writer that never comes.
func TestCompareFIFO(t *testing.T) {
	old := benchTxt(t, "old.txt", 6, 1, 0)
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	for _, args := range [][]string{{"compare", old, fifo}, {"compare", fifo, old}} {
		done := make(chan int, 1)
		var errOut bytes.Buffer
		go func() { done <- run(context.Background(), args, &bytes.Buffer{}, &errOut) }()
		select {
		case code := <-done:
			if code != exitError || !strings.Contains(errOut.String(), "pipe: not a regular file") {
				t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: still waiting on the FIFO after 10 s", args)
		}
	}
}
