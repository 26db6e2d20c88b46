package timeline

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/kbf-project/kbf/results"
)

// readsCounted is a context whose Err is asked once a read of a log, and
// says cancelled from the nth question on: Ctrl-C in the middle of the
// logs.
type readsCounted struct {
	context.Context
	n, asked int
}

func (c *readsCounted) Err() error {
	c.asked++
	if c.asked > c.n {
		return context.Canceled
	}
	return nil
}

// TestBuildCancelled: the timeline stops reading the logs once its context
// is done — a node log of hundreds of megabytes must not hold Ctrl-C up —
// and says why, not that the logs are unreadable.
func TestBuildCancelled(t *testing.T) {
	dir := filepath.Join("testdata", "sigkill")
	meta, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	src, err := FromDir(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BuildContext(context.Background(), src, Options{}); err != nil {
		t.Fatalf("not cancelled: %v", err)
	}
	for _, n := range []int{0, 1, 3} {
		ctx := &readsCounted{Context: context.Background(), n: n}
		if tl, err := BuildContext(ctx, src, Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled after %d reads: timeline %v, error %v; want context.Canceled", n, tl != nil, err)
		}
		if ctx.asked > n+1 {
			t.Errorf("cancelled after %d reads: read on %d more times", n, ctx.asked-n-1)
		}
	}
	ctx := &readsCounted{Context: context.Background()}
	if _, err := ReadNodeConfigContext(ctx, dir, "k1"); !errors.Is(err, context.Canceled) {
		t.Errorf("the node's configuration, cancelled: %v, want context.Canceled", err)
	}
}
