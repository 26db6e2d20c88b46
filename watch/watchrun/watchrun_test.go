package watchrun

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/internal/testsupport/testtrial"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/watch"
)

var errBadFlag = errors.New("a flag kbf cannot use")

// TestRunBeforeTheCluster: a watch whose cluster never opens ends with
// the error waiting cannot mend, or with nothing when stopped first; a
// cluster that cannot be reached yet is said, and tried again. Either
// way the metrics' listener is closed.
func TestRunBeforeTheCluster(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		final   bool
		want    error
		wantSay string
	}{
		{"a flag kbf cannot use", errBadFlag, true, errBadFlag, ""},
		{"stopped before the cluster answered", errors.New("connection refused"), false, nil, "the cluster cannot be reached (connection refused)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			opens := 0
			opt := watch.Defaults
			opt.Retry = 5 * time.Millisecond
			w := &Watch{Opt: opt, Metrics: ln, Term: experiment.NewTerm(&out, false, ""),
				Open:  func(context.Context) (cluster.Cluster, error) { opens++; return nil, tc.err },
				Final: func(err error) bool { return tc.final && errors.Is(err, errBadFlag) }}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if err := w.Run(ctx); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("Run: %v, want %v", err, tc.want)
			}
			if tc.final && opens != 1 {
				t.Errorf("opened %d times, want once: waiting cannot mend it", opens)
			}
			if !tc.final && opens < 2 {
				t.Errorf("opened %d times, want it tried again", opens)
			}
			if !strings.Contains(out.String(), tc.wantSay) {
				t.Errorf("said %q, want %q", out.String(), tc.wantSay)
			}
			if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
				t.Errorf("the metrics' listener is open: %v", err)
			}
		})
	}
}

// TestRecorded: an incident written is analysed as kbf run's trials are,
// its reports beside it, its digest said and its phases the metrics'.
func TestRecorded(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "analysis", "testdata", "probe-1000.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	if err := testtrial.Untar(f, dir); err != nil {
		t.Fatal(err)
	}
	trial := filepath.Join(dir, "trial-01")
	var out bytes.Buffer
	w := &Watch{Term: experiment.NewTerm(&out, false, "")}
	m := watch.NewMetrics()
	if err := w.recorded(m)(context.Background(), trial, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(trial, results.ReportFile)); err != nil {
		t.Errorf("no report beside the incident: %v", err)
	}
	if !strings.Contains(out.String(), trial) {
		t.Errorf("the digest not said: %q", out.String())
	}
	if err := w.recorded(m)(context.Background(), filepath.Join(dir, "none"), nil); err == nil {
		t.Error("an incident that cannot be read: no error")
	}
}
