package report

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/internal/testsupport/testtrial"
	"github.com/kbf-project/kbf/results"
)

// recorded unpacks analysis/testdata's recorded SIGKILL trial and returns it
// as Find finds it, with the report files it was archived with removed.
func recorded(t *testing.T) results.Trial {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "analysis", "testdata", "sigkill.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	if err := testtrial.Untar(f, dir); err != nil {
		t.Fatal(err)
	}
	tdir := filepath.Join(dir, results.TrialDir(1))
	for _, name := range []string{results.ReportFile, results.ReportJSON, results.PlotFile, results.ReportHTML} {
		os.Remove(filepath.Join(tdir, name))
	}
	found, err := results.Find(tdir)
	if err != nil {
		t.Fatal(err)
	}
	return found[0]
}

func TestTrialWritesWhatItIsAsked(t *testing.T) {
	all := []string{results.ReportFile, results.ReportJSON, results.PlotFile, results.ReportHTML}
	for _, tc := range []struct {
		name  string
		write Files
		want  []string
	}{
		{"nothing", Files{}, nil},
		{"as kbf run records", Recorded, all},
		{"the picture only", Files{Plot: true}, []string{results.PlotFile}},
		{"the reports", Files{Text: true, JSON: true}, []string{results.ReportFile, results.ReportJSON}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := recorded(t)
			rows := 0
			got, err := Trial(context.Background(), tr, Options{Write: tc.write, Report: analysis.Options{Messages: func(*results.Message) { rows++ }}})
			if err != nil {
				t.Fatal(err)
			}
			if got.Gaps == nil || rows != got.Gaps.Sent {
				t.Errorf("the caller's Messages saw %d rows, the analysis %+v", rows, got.Gaps)
			}
			for _, name := range all {
				_, err := os.Stat(tr.Path(name))
				if want := slices.Contains(tc.want, name); want != (err == nil) {
					t.Errorf("%s written: %v, want %v", name, err == nil, want)
				}
			}
		})
	}
}
