package htmlreport

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
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
			err := WriteFile(ctx, dst, []results.Trial{trial}, []*analysis.Trial{tr})
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

// A trial drawn as a heat map draws no replica chart, so its replica view
// is found but not read; one of a few partitions is read whole.
func TestReadReplicasCondensed(t *testing.T) {
	path := filepath.Join(t.TempDir(), results.ReplicasFile)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc := results.NewReplicaEncoder(f)
	enc.Encode(&results.ReplicaSample{Time: t0, Partition: 0, Broker: 1, LEO: 10, HW: 9})
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	few := &analysis.Trial{Gaps: &gaps.Report{Partitions: make([]gaps.Partition, analysis.Condense)}}
	many := &analysis.Trial{Gaps: &gaps.Report{Partitions: make([]gaps.Partition, analysis.Condense+1)}}
	if rv, err := ReadReplicas(path, few); err != nil || rv == nil || len(rv.Samples) != 1 {
		t.Errorf("%d partitions: %+v, %v; want the one sample", analysis.Condense, rv, err)
	}
	if rv, err := ReadReplicas(path, many); err != nil || rv == nil || len(rv.Samples) != 0 {
		t.Errorf("%d partitions: %+v, %v; want a view with no samples read", analysis.Condense+1, rv, err)
	}
	if rv, err := ReadReplicas(filepath.Join(t.TempDir(), results.ReplicasFile), many); err != nil || rv != nil {
		t.Errorf("no file: %+v, %v; want nil, nil", rv, err)
	}
}
