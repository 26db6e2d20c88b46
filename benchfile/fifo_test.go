//go:build unix

package benchfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFilesFIFO checks that a FIFO, given or found in a bench directory,
// is refused before anything opens it: opening one blocks until a writer
// comes, which for a CI job is never.
func TestFilesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	bench := filepath.Join(dir, "bench")
	os.MkdirAll(bench, 0o755)
	if err := syscall.Mkfifo(filepath.Join(bench, TextFile), 0o644); err != nil {
		t.Fatal(err)
	}
	shards := filepath.Join(dir, "shards")
	os.MkdirAll(filepath.Join(shards, "s1"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(shards, "s1", TextFile), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, bench, shards} {
		_, err := Files(p)
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Files(%s): error %v, want it refused as not a regular file", p, err)
		}
	}
}
