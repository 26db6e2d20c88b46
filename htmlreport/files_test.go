package htmlreport

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

// An interrupted `kbf report --html` (Ctrl-C, SIGTERM) stops with the
// context's error and leaves no page behind; one not interrupted writes it.
func TestWriteFileInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cancel bool
	}{
		{"interrupted", true},
		{"not interrupted", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trial, tr := unpackTrial(t, "sigkill")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			dst := filepath.Join(t.TempDir(), FileName)
			err := WriteFile(ctx, dst, []results.Trial{trial}, []*report.Trial{tr})
			_, statErr := os.Stat(dst)
			switch {
			case tc.cancel && !errors.Is(err, context.Canceled):
				t.Errorf("err %v, want context.Canceled", err)
			case tc.cancel && !errors.Is(statErr, fs.ErrNotExist):
				t.Errorf("an interrupted write left %s (stat: %v)", dst, statErr)
			case !tc.cancel && (err != nil || statErr != nil):
				t.Errorf("err %v, stat %v; want the page written", err, statErr)
			}
		})
	}
}
