package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

// TestTrialReports checks what kbf run does with the trials the runner
// records: each analysed once into its report files with its digest
// printed, the summary of several written into the run directory, and the
// outcome decided by analysis.Outcome.
func TestTrialReports(t *testing.T) {
	run := t.TempDir()
	for i := 1; i <= 2; i++ {
		src := recordedTrial(t, "sigkill.tar.gz")
		if err := os.Rename(src, filepath.Join(run, results.TrialDir(i))); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	var said []string
	r := &report.Run{Out: &out, Say: func(s string) { said = append(said, s) }, Text: textReport}
	for i := 1; i <= 2; i++ {
		if err := r.Recorded(context.Background(), i, filepath.Join(run, results.TrialDir(i))); err != nil {
			t.Fatal(err)
		}
	}
	err := r.Done(run)
	if err != nil && !errors.Is(err, analysis.ErrNoValidTrial) {
		t.Fatalf("done: %v", err)
	}
	for i := 1; i <= 2; i++ {
		for _, f := range []string{results.ReportFile, results.ReportJSON, results.PlotFile, results.ReportHTML} {
			if _, err := os.Stat(filepath.Join(run, results.TrialDir(i), f)); err != nil {
				t.Errorf("trial %d: %v", i, err)
			}
		}
	}
	for _, f := range []string{results.SummaryFile, results.SummaryJSON} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Error(err)
		}
	}
	if n := strings.Count(out.String(), "the full report, why phase by phase:"); n != 2 {
		t.Errorf("%d digests printed, want 2:\n%s", n, out.String())
	}
	if len(said) != 1 || !strings.Contains(said[0], "of 2 trials valid") {
		t.Errorf("said %q", said)
	}
	// The same trials read back by kbf report come to the same outcome.
	analysed, _, broken, aerr := report.All(context.Background(), run, func(results.Trial) analysis.Options { return analysis.Options{} })
	if aerr != nil {
		t.Fatal(aerr)
	}
	if got, want := exitCode(report.Outcome(analysed, broken)), exitCode(err); got != want {
		t.Errorf("kbf report exits %d, kbf run %d", got, want)
	}
}
