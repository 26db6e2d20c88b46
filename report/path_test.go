package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/plot"
	"github.com/kbf-project/kbf/results"
)

func TestReportPath(t *testing.T) {
	tr := recorded(t)
	for _, tc := range []struct {
		name string
		o    ReportOptions
		want func(t *testing.T, out string)
	}{
		{"digest", ReportOptions{}, func(t *testing.T, out string) {
			if !strings.Contains(out, "why, phase by phase, with the evidence: kbf report --explain "+tr.Dir) {
				t.Errorf("no pointer to --explain:\n%s", out)
			}
		}},
		{"explain", ReportOptions{Explain: true}, func(t *testing.T, out string) {
			if strings.Contains(out, "kbf report --explain") {
				t.Errorf("the full report points at itself:\n%s", out)
			}
		}},
		{"json", ReportOptions{JSON: true}, func(t *testing.T, out string) {
			if !json.Valid([]byte(out)) {
				t.Errorf("not JSON:\n%.300s", out)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Report(context.Background(), &b, tr.Dir, tc.o); err != nil && !errors.Is(err, analysis.ErrFindings) {
				t.Fatal(err)
			}
			tc.want(t, b.String())
		})
	}
	t.Run("html", func(t *testing.T) {
		if err := Report(context.Background(), &bytes.Buffer{}, tr.Dir, ReportOptions{HTML: true}); err != nil && !errors.Is(err, analysis.ErrFindings) {
			t.Fatal(err)
		}
		if _, err := os.Stat(tr.Path(results.ReportHTML)); err != nil {
			t.Errorf("no report.html: %v", err)
		}
	})
}

func TestPlot(t *testing.T) {
	tr := recorded(t)
	opt := plot.Options{Width: plot.DefaultWidth, Height: plot.DefaultHeight}
	var b bytes.Buffer
	if err := Plot(context.Background(), &b, tr.Dir, PlotOptions{Plot: opt}); err != nil && !errors.Is(err, analysis.ErrFindings) {
		t.Fatal(err)
	}
	if want := tr.Path(results.PlotFile) + "\n"; b.String() != want {
		t.Errorf("printed %q, want %q", b.String(), want)
	}
	run := filepath.Dir(tr.Dir)
	if err := os.CopyFS(filepath.Join(run, results.TrialDir(2)), os.DirFS(tr.Dir)); err != nil {
		t.Fatal(err)
	}
	var many *ManyTrialsError
	if err := Plot(context.Background(), &b, run, PlotOptions{Out: "-", Plot: opt}); !errors.As(err, &many) || many.Trials != 2 {
		t.Errorf("one file for two trials: %v, want a ManyTrialsError of 2", err)
	}
}

func TestPlotPathOf(t *testing.T) {
	for _, tc := range []struct {
		t    results.Trial
		want string
	}{
		{results.Trial{Dir: "run/trial-001", Probe: "run/trial-001/probe.csv"}, filepath.Join("run/trial-001", results.PlotFile)},
		{results.Trial{Probe: "x/probe-1.csv"}, "x/probe-1.svg"},
	} {
		if got := PlotPath(tc.t); got != tc.want {
			t.Errorf("PlotPath(%+v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}
