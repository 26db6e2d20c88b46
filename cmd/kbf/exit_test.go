package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

// TestHelpExitStatuses checks that every command's help lists, from the one
// table, each exit status it can end with, and no other.
func TestHelpExitStatuses(t *testing.T) {
	for _, tc := range []struct {
		cmd   string
		codes []int
	}{
		{"run", []int{0, 1, 2, 3, 6, 130}},
		{"report", []int{0, 1, 2, 3, 6, 130}},
		{"plot", []int{0, 1, 2, 3, 6, 130}},
		{"bench", []int{0, 1, 2, 3, 4, 5, 6, 130}},
		{"compare", []int{0, 1, 2, 3, 4, 5, 130}},
		{"up", []int{0, 1, 2, 130}},
		{"down", []int{0, 1, 2, 130}},
		{"status", []int{0, 1, 2, 130}},
		{"probe", []int{0, 1, 2, 3, 6, 130}},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			code, stdout, _ := kbfCmd(context.Background(), tc.cmd, "--help")
			if code != exitOK {
				t.Fatalf("exit %d", code)
			}
			_, after, ok := strings.Cut(stdout, "Exit status:\n")
			if !ok {
				t.Fatalf("--help has no exit status:\n%s", stdout)
			}
			for _, s := range exitStatuses {
				line := fmt.Sprintf("\n  %-4d %s", s.code, strings.Fields(s.meaning)[0])
				has := strings.Contains("\n"+after, line)
				if want := slices.Contains(tc.codes, s.code); has != want {
					t.Errorf("--help lists %d: %v, want %v:\n%s", s.code, has, want, after)
				}
			}
		})
	}
}

// TestExitFor checks the table's precedence: a finding beside a broken
// trial is still exit 3.
func TestExitFor(t *testing.T) {
	var lossBesideBroken analysis.Outcome
	lossBesideBroken.Findings = []string{"trial-01: franz-go: 1 lost under acks=all"}
	lossBesideBroken.Broke(errors.New("trial-02: probe.csv: truncated"))
	var broken analysis.Outcome
	broken.Broke(results.BrokenTrials{errors.New("trial-02: probe.csv: truncated")})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want int
	}{
		{"nil", context.Background(), nil, exitOK},
		{"usage", context.Background(), usagef("--x: bad"), exitUsage},
		{"unknown flag", context.Background(), errors.New("unknown flag: --x"), exitUsage},
		{"a loss beside a broken trial", context.Background(), lossBesideBroken.Err(), exitFindings},
		{"a broken trial", context.Background(), broken.Err(), exitError},
		{"no valid trial", context.Background(), fmt.Errorf("run: %w", analysis.ErrNoValidTrial), exitNoValid},
		{"regression", context.Background(), fmt.Errorf("x: %w", errRegression), exitRegress},
		{"undecided", context.Background(), errTooFew, exitTooFew},
		{"interrupted", ctx, fmt.Errorf("trial 1: %w", context.Canceled), exitCanceled},
		{"canceled but not interrupted", context.Background(), context.Canceled, exitError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitFor(tc.ctx, tc.err); got != tc.want {
				t.Errorf("exitFor(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}
