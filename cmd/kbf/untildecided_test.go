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
	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/compare"
	"github.com/kbf-project/kbf/internal/testsupport/testtrial"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

// recordedRunner runs a trial by unpacking analysis/testdata's recorded
// trial of the scenario's fault, then analyses it as kbf bench's runner
// does (report.JustRecorded), so the benchmark measures that one analysis.
type recordedRunner struct{ t *testing.T }

func (recordedRunner) Check(bench.Scenario) error { return nil }

func (r recordedRunner) Trial(ctx context.Context, s bench.Scenario, dir string) (*analysis.Trial, error) {
	f, err := os.Open(filepath.Join("..", "..", "analysis", "testdata", s.Fault+".tar.gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tmp := r.t.TempDir()
	if err := testtrial.Untar(f, tmp); err != nil {
		return nil, err
	}
	if err := os.Rename(filepath.Join(tmp, results.TrialDir(1)), dir); err != nil {
		return nil, err
	}
	return report.JustRecorded(ctx, dir, textReport)
}

// TestUntilDecidedExit checks kbf bench --until-decided's answer as kbf
// compare's exit, on stdout's summary and stderr's line.
func TestUntilDecidedExit(t *testing.T) {
	tests := []struct {
		name   string
		a, b   string
		budget int
		want   error // nil: exit 0
		answer string
	}{
		{name: "same", a: "sigkill", b: "sigkill", budget: 15, answer: "same"},
		{name: "regression", a: "sigterm", b: "sigkill", budget: 15, want: errRegression, answer: "different"},
		{name: "undecided at the budget", a: "sigkill", b: "sigkill", budget: 2, want: errTooFew, answer: "undecided"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			o := &benchOptions{run: newRunOptions(&globals{out: &out, errOut: &errOut}), out: t.TempDir(), budget: bench.Budget{Gate: compare.SequentialGate}}
			f := &bench.File{Trials: tt.budget, Scenarios: []bench.Scenario{{Name: "a", Fault: tt.a}, {Name: "b", Fault: tt.b}}}
			b := &bench.Bench{File: f, Dir: o.out, Runner: recordedRunner{t}}
			err := runUntilDecided(context.Background(), o, b)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if !strings.Contains(out.String(), "Answer: **"+tt.answer+"**") {
				t.Errorf("summary on stdout lacks the answer %q:\n%s", tt.answer, out.String())
			}
			if !strings.Contains(errOut.String(), "bench: "+tt.answer+": ") {
				t.Errorf("stderr %q does not say the answer", errOut.String())
			}
		})
	}
}

// TestUntilDecidedNoDocker checks that --until-decided with no Docker to
// run its trials on is kbf unable to do what was asked, exit 1 in one
// line, not an undecided comparison (exit 5); and that the sides took
// turns at failing.
func TestUntilDecidedNoDocker(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
	file := filepath.Join(t.TempDir(), "two.yaml")
	if err := os.WriteFile(file, []byte("trials: 8\nscenarios: [{name: a, fault: sigkill}, {name: b, fault: sigterm}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var errOut bytes.Buffer
	code := run(context.Background(), []string{"bench", file, "--until-decided", "--out", out, "--quiet"}, &bytes.Buffer{}, &errOut)
	if code != exitError || !strings.Contains(errOut.String(), "cannot reach the Docker engine") || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want %d and one line saying Docker cannot be reached", code, errOut.String(), exitError)
	}
	md, err := os.ReadFile(filepath.Join(out, bench.MarkdownFile))
	if want := "0 of 1 attempts (A), 0 of 1 (B)"; err != nil || !strings.Contains(string(md), want) {
		t.Errorf("summary.md (%v) does not say %q:\n%s", err, want, md)
	}
}
