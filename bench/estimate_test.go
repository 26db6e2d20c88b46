package bench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInterruptedSays checks the line an interrupted benchmark says: kbf
// bench's by default, the command's own when it gives one (kbf tune).
func TestInterruptedSays(t *testing.T) {
	for _, tc := range []struct {
		name, resume, want string
	}{
		{name: "bench", want: "bench: interrupted; kbf bench with the same file and --out %s resumes where it stopped\n"},
		{name: "own", resume: "tune: interrupted; run it again", want: "tune: interrupted; run it again\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			var out bytes.Buffer
			b := &Bench{File: twoScenarios(2), Dir: dir, Runner: &fakeRunner{t: t, base: dir, interrupt: 2, cancel: cancel},
				Progress: &out, Resume: tc.resume}
			if _, err := b.Run(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %v", err)
			}
			want := tc.want
			if strings.Contains(want, "%s") {
				want = strings.Replace(want, "%s", dir, 1)
			}
			if !strings.HasSuffix(out.String(), want) {
				t.Errorf("said\n%s\nwant it to end with %q", out.String(), want)
			}
			if strings.Count(out.String(), "interrupted") != 1 {
				t.Errorf("said the interruption other than once:\n%s", out.String())
			}
		})
	}
}

// TestLeftIn checks what a directory has left: none of a new one, the
// trials not done of an interrupted one with the mean time of those done,
// and every trial of a directory of another plan.
func TestLeftIn(t *testing.T) {
	dir := t.TempDir()
	f := twoScenarios(2)
	l, err := LeftIn(dir, f, All)
	if err != nil || l != (Left{Trials: 4}) {
		t.Fatalf("new directory: %+v, %v; want 4 trials, none done", l, err)
	}
	if _, err := os.Stat(filepath.Join(dir, StateFile)); err == nil {
		t.Error("LeftIn wrote a state")
	}
	st := &State{FormatVersion: stateVersion, File: f, Shard: All.String(), Done: []Done{
		{ID: "sigkill/trial-01", Took: 40 * time.Second},
		{ID: "sigterm/trial-01", Took: 50 * time.Second},
		{ID: "sigkill/trial-02", Error: "the cluster would not come up"},
		{ID: "nosuch/trial-01", Took: time.Hour}, // not of the plan
	}}
	st.Plan, err = planHash(f, All)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeState(dir, st); err != nil {
		t.Fatal(err)
	}
	l, err = LeftIn(dir, f, All)
	want := Left{Trials: 4, Done: 3, Took: 45 * time.Second, Measured: 2}
	if err != nil || l != want {
		t.Fatalf("resumed: %+v, %v; want %+v", l, err, want)
	}
	if l.Left() != 1 || l.Estimate(time.Minute) != 45*time.Second {
		t.Errorf("left %d, about %v; want 1, about 45s (the measured mean)", l.Left(), l.Estimate(time.Minute))
	}
	if got := (Left{Trials: 4, Done: 1}).Estimate(time.Minute); got != 3*time.Minute {
		t.Errorf("none measured: about %v, want 3m0s at the fallback", got)
	}
	l, err = LeftIn(dir, twoScenarios(3), All)
	if err != nil || l != (Left{Trials: 6}) {
		t.Errorf("another plan: %+v, %v; want every trial left", l, err)
	}
	if err := os.WriteFile(filepath.Join(dir, StateFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LeftIn(dir, f, All); err == nil {
		t.Error("a broken state read without an error")
	}
}

// TestResumedSaysTimeLeft checks that a resumed benchmark's first trial
// says the time left, from the trials done before it was interrupted.
func TestResumedSaysTimeLeft(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	b := &Bench{File: twoScenarios(2), Dir: dir, Runner: &fakeRunner{t: t, base: dir, interrupt: 3, cancel: cancel}}
	if _, err := b.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	var out bytes.Buffer
	b.Runner, b.Progress = &fakeRunner{t: t, base: dir}, &out
	if _, err := b.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if !strings.HasPrefix(first, "bench: trial 3 of 4: sigkill/trial-02") || !strings.Contains(first, "left") {
		t.Errorf("resumed benchmark's first line %q: want trial 3 of 4 with the time left", first)
	}
}
