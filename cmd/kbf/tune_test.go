package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/tune"
)

func TestTuneFlags(t *testing.T) {
	for _, c := range []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{name: "the cost, and stop", args: []string{"tune", "--session", "9s,4s", "--tolerate-pause", "2s,4s", "--estimate"}, code: exitOK,
			wantErr: "tune: 36 trials, about 27m0s at 45s a trial: session/heartbeat ms 9000/2000, 4000/888 × (sigkill, pause 2s, pause 4s) × 6 trials"},
		{name: "a starve's cost", args: []string{"tune", "--session", "4s", "--tolerate-pause", "2s", "--tolerate-starve", "2s", "--starve-cpus", "0.1", "--estimate"}, code: exitOK,
			wantErr: "tune: 18 trials, about 14m0s at 45s a trial: session/heartbeat ms 4000/888 × (sigkill, pause 2s, starve 2s (0.1 CPU)) × 6 trials"},
		{name: "a loss without its length", args: []string{"tune", "--session", "4s", "--tolerate-loss", "30%"}, code: exitUsage,
			wantErr: `--tolerate-loss "30%": want SHARE:LENGTH, such as 30%:2s`},
		{name: "a loss of everything", args: []string{"tune", "--session", "4s", "--tolerate-loss", "100%:2s"}, code: exitUsage,
			wantErr: `--tolerate-loss "100%:2s": loss "100%": want a percentage between 0 and 100`},
		{name: "a sliver too thick", args: []string{"tune", "--session", "4s", "--tolerate-starve", "2s", "--starve-cpus", "2"}, code: exitUsage,
			wantErr: "--starve-cpus 2: want 0.01 to 1 of a CPU"},
		{name: "kbf run's loss", args: []string{"tune", "--session", "4s", "--tolerate-pause", "2s", "--loss", "30%"}, code: exitUsage,
			wantErr: "--loss: kbf tune sets it for each scenario of its grid"},
		{name: "clusters", args: []string{"tune", "--session", "4s", "--tolerate-pause", "2s", "--clusters", "9"}, code: exitUsage, wantErr: "--clusters 9: want 1 to 4"},
		{name: "no session", args: []string{"tune", "--tolerate-pause", "2s"}, code: exitUsage, wantErr: "no session timeouts: give --session"},
		{name: "no pause", args: []string{"tune", "--session", "4s"}, code: exitUsage, wantErr: "no hiccup to tolerate: give --tolerate-pause"},
		{name: "a session too short", args: []string{"tune", "--session", "100ms", "--tolerate-pause", "2s"}, code: exitUsage, wantErr: "session 100ms: want 500ms to 10m0s"},
		{name: "the grid's own fault", args: []string{"tune", "--session", "4s", "--tolerate-pause", "2s", "--fault", "sigterm"}, code: exitUsage,
			wantErr: "--fault: kbf tune sets it for each scenario of its grid"},
		{name: "a bad probe setting", args: []string{"tune", "--session", "4s", "--tolerate-pause", "2s", "--metadata-min-age", "1ms", "--estimate"}, code: exitUsage,
			wantErr: "metadata min age 1ms: franz-go takes at least 10ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stderr := runOnly(t, newTuneCmd, append(c.args, "--out", filepath.Join(t.TempDir(), "tune"))...)
			if code != c.code || !strings.Contains(stderr, c.wantErr) {
				t.Errorf("exit %d, stderr %q; want %d with %q", code, stderr, c.code, c.wantErr)
			}
			if code == exitUsage && strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q: want one line", stderr)
			}
		})
	}
}

// TestAnswerTune: the answer from a benchmark's records is printed and
// written beside them, and "cannot decide" is exit 5's error.
func TestAnswerTune(t *testing.T) {
	g := &tune.Grid{Sessions: []time.Duration{9 * time.Second}, Pauses: []time.Duration{2 * time.Second}, Trials: 6}
	f := g.File()
	set := &bench.Set{}
	for rep := 1; rep <= 6; rep++ {
		kill := bench.Trial{Variant: bench.Variant{Scenario: f.Scenarios[0]}, Rep: rep}
		m := &bench.Measurement{Valid: true, Roles: map[string]map[string]float64{bench.RoleLeader: {"ack-stall-sec": 9.4}}}
		set.Records = append(set.Records, bench.Record{Trial: kill, M: m})
		// The pause trials failed: none counts.
		set.Records = append(set.Records, bench.Record{Trial: bench.Trial{Variant: bench.Variant{Scenario: f.Scenarios[1]}, Rep: rep}, Reason: "failed: docker gone"})
	}
	var out bytes.Buffer
	o := &tuneOptions{run: newRunOptions(&globals{out: &out, errOut: &bytes.Buffer{}}), tune: tune.Flags{Out: t.TempDir()}}
	err := answerTune(o, g, set)
	if !errors.Is(err, errTooFew) {
		t.Fatalf("error %v, want undecided", err)
	}
	written, rerr := os.ReadFile(filepath.Join(o.tune.Out, tune.File))
	if rerr != nil {
		t.Fatal(rerr)
	}
	for _, want := range []string{"9.40 s", "0 of 0", "cannot decide", "6 more pause-2s trials of session-9000 (0 that count of 6)"} {
		if !strings.Contains(out.String(), want) || !strings.Contains(string(written), want) {
			t.Errorf("answer lacks %q:\n%s", want, out.String())
		}
	}
}

// TestAnswerTuneOutcome: a tune fails on its trials' findings (exit 3),
// as a benchmark does; trials none of which counts, such as those whose
// topic was recreated under them, leave it undecided (exit 5), never a
// loss and never the exit of a single run's no valid trial.
func TestAnswerTuneOutcome(t *testing.T) {
	g := &tune.Grid{Sessions: []time.Duration{9 * time.Second}, Pauses: []time.Duration{2 * time.Second}, Trials: 1}
	f := g.File()
	lost := analysis.Findings{{Client: analysis.FranzGo, Acks: "all", Acknowledged: 10, Lost: 1}}
	for _, c := range []struct {
		name     string
		findings analysis.Findings
		valid    bool
		want     int
	}{
		{"a loss", lost, true, exitFindings},
		{"none valid", nil, false, exitTooFew},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &bench.Measurement{Valid: c.valid, Findings: c.findings,
				Roles: map[string]map[string]float64{bench.RoleLeader: {"ack-stall-sec": 9.4}}}
			if !c.valid {
				m.Reason, m.Roles = "invalid: topic-replaced", nil
			}
			set := &bench.Set{Records: []bench.Record{
				{Trial: bench.Trial{Variant: bench.Variant{Scenario: f.Scenarios[0]}, Rep: 1}, M: m},
				// The pause trial failed: it does not count.
				{Trial: bench.Trial{Variant: bench.Variant{Scenario: f.Scenarios[1]}, Rep: 1}, Reason: "failed: docker gone"},
			}}
			o := &tuneOptions{run: newRunOptions(&globals{out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}), tune: tune.Flags{Out: t.TempDir()}}
			err := answerTune(o, g, set)
			if code := exitFor(context.Background(), err); code != c.want {
				t.Errorf("exit %d (%v), want %d", code, err, c.want)
			}
		})
	}
}
