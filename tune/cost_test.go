package tune

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/bench"
)

func TestCostLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    bench.Left
		want string
	}{
		{"new", bench.Left{Trials: 180},
			"tune: 180 trials, about 2h15m0s at 45s a trial: GRID; into DIR (the same command with this --out resumes it)"},
		{"resumed, measured", bench.Left{Trials: 180, Done: 58, Took: 52 * time.Second, Measured: 57},
			"tune: 122 of 180 trials left (58 done), about 1h46m0s at 52s a trial, the mean of the 57 done: GRID; into DIR (the same command with this --out resumes it)"},
		{"resumed, no time recorded", bench.Left{Trials: 180, Done: 58},
			"tune: 122 of 180 trials left (58 done), about 1h32m0s at 45s a trial, as none of the 58 done recorded its time: GRID; into DIR (the same command with this --out resumes it)"},
		{"done", bench.Left{Trials: 180, Done: 180, Took: time.Minute, Measured: 180},
			"tune: all 180 trials done in DIR: the answer from them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := costLine(tc.l, "GRID", "DIR"); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestCostResumed checks the estimate of a tune directory with trials
// done, from its state as the benchmark writes it.
func TestCostResumed(t *testing.T) {
	g := grid(9*s, 4*s)
	dir := t.TempDir()
	if got := Cost(g, dir); !strings.HasPrefix(got, "tune: 24 trials, about 18m0s at 45s a trial: ") {
		t.Fatalf("new directory: %s", got)
	}
	// A tune interrupted after two trials, as bench writes its state.
	b := &bench.Bench{File: g.File(), Dir: dir, Runner: stopRunner{}}
	if _, err := b.Run(t.Context()); err == nil {
		t.Fatal("the runner that refuses ran")
	}
	raw, err := os.ReadFile(filepath.Join(dir, bench.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	var st bench.State
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Done) != 2 {
		t.Fatalf("the state holds %d trials done, want 2", len(st.Done))
	}
	for i := range st.Done {
		st.Done[i].Took = time.Duration(60+i*10) * s
	}
	raw, _ = json.Marshal(st)
	if err := os.WriteFile(filepath.Join(dir, bench.StateFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	want := "tune: 22 of 24 trials left (2 done), about 24m0s at 1m5s a trial, the mean of the 2 done: "
	if got := Cost(g, dir); !strings.HasPrefix(got, want) {
		t.Errorf("resumed:\n%s\nwant it to begin\n%s", got, want)
	}
}

func TestResume(t *testing.T) {
	got := Resume("tune-dir")
	if !strings.Contains(got, "the same kbf tune command") || !strings.Contains(got, "--out tune-dir") || strings.Contains(got, "kbf bench") {
		t.Errorf("%q: want the same kbf tune command with --out tune-dir", got)
	}
}

// stopRunner fails every trial: the benchmark stops after two, recorded
// as done.
type stopRunner struct{}

func (stopRunner) Check(bench.Scenario) error { return nil }
func (stopRunner) Trial(context.Context, bench.Scenario, string) (*analysis.Trial, error) {
	return nil, errors.New("no cluster here")
}
