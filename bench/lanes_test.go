package bench

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/compare"
)

// laneRunners are the runners of a benchmark's lanes: each trial is
// recorded with its lane, and a trial waits, up to a few seconds, for
// another to be running beside it, so that a benchmark which ran its
// trials one at a time shows it (most running at once stays 1).
type laneRunners struct {
	t    *testing.T
	base string

	mu      sync.Mutex
	running int
	most    int
	// lanes are the scenarios each lane ran, by lane.
	lanes map[int][]string
	// together is closed once two trials have run at once.
	together chan struct{}
	once     sync.Once
}

type laneRunner struct {
	l    *laneRunners
	lane int
}

func newLaneRunners(t *testing.T, base string) *laneRunner {
	return &laneRunner{l: &laneRunners{t: t, base: base, lanes: map[int][]string{}, together: make(chan struct{})}}
}

func (r *laneRunner) Lane(i int) (Runner, error) { return &laneRunner{l: r.l, lane: i}, nil }

func (r *laneRunner) Check(Scenario) error { return nil }

func (r *laneRunner) Trial(ctx context.Context, s Scenario, dir string) (*analysis.Trial, error) {
	l := r.l
	l.mu.Lock()
	l.running++
	l.most = max(l.most, l.running)
	l.lanes[r.lane] = append(l.lanes[r.lane], s.Name)
	if l.running >= 2 {
		l.once.Do(func() { close(l.together) })
	}
	l.mu.Unlock()
	select {
	case <-l.together:
	case <-time.After(5 * time.Second):
	}
	err := copyTree(recorded(l.t, s.Fault), dir)
	l.mu.Lock()
	l.running--
	l.mu.Unlock()
	return nil, err
}

// TestParallel: with two lanes, two trials run at once, each lane keeps
// the scenario whose nodes its cluster has (their settings differ), and
// every trial is recorded once, as one at a time records them.
func TestParallel(t *testing.T) {
	dir := t.TempDir()
	f := &File{Trials: 3, Scenarios: []Scenario{
		{Name: "st9000", Fault: "sigkill", Config: []string{"broker.session.timeout.ms=9000"}},
		{Name: "st6000", Fault: "sigkill", Config: []string{"broker.session.timeout.ms=6000"}},
	}}
	r := newLaneRunners(t, dir)
	set, err := (&Bench{File: f, Dir: dir, Runner: r, Parallel: 2}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.l.most != 2 {
		t.Errorf("at most %d trials ran at once, want 2", r.l.most)
	}
	for lane, ran := range r.l.lanes {
		for _, s := range ran[1:] {
			if s != ran[0] {
				t.Errorf("lane %d ran %v: its cluster's settings changed between trials", lane, ran)
				break
			}
		}
	}
	if len(set.Records) != 6 {
		t.Fatalf("%d records, want 6", len(set.Records))
	}
	seen := map[string]bool{}
	for _, rec := range set.Records {
		if seen[rec.Trial.ID()] || !rec.Valid() {
			t.Errorf("%s recorded twice or invalid (%s)", rec.Trial.ID(), rec.Reason)
		}
		seen[rec.Trial.ID()] = true
	}
	st, err := (&Bench{File: f, Shard: All, Dir: dir, Runner: r}).state()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Done) != 6 {
		t.Errorf("the state holds %d trials done, want 6", len(st.Done))
	}
	if got := countLines(t, filepath.Join(dir, TextFile), "BenchmarkFailover/"); got != 12 {
		t.Errorf("bench.txt has %d result lines, want 6 trials × 2 roles", got)
	}
}

// TestParallelUntilDecided: the gate's pairs run side by side, and the
// answer is the one trials one at a time give.
func TestParallelUntilDecided(t *testing.T) {
	dir := t.TempDir()
	f := &File{Trials: 15, Scenarios: []Scenario{{Name: "a", Fault: "sigkill"}, {Name: "b", Fault: "sigkill"}}}
	r := newLaneRunners(t, dir)
	_, d, err := (&Bench{File: f, Dir: dir, Runner: r, Parallel: 2}).RunUntilDecided(context.Background(), Gate{Gate: compare.SequentialGate, Extra: DefaultExtra})
	if err != nil {
		t.Fatal(err)
	}
	need := NeedSamples()
	if d.Answer() != "same" || d.Valid != [2]int{need, need} || d.Attempts != [2]int{need, need} {
		t.Errorf("answer %s at valid %v of attempts %v, want same at %d a side: %s", d.Answer(), d.Valid, d.Attempts, need, d.Why)
	}
	if r.l.most != 2 {
		t.Errorf("at most %d trials ran at once, want the pair side by side", r.l.most)
	}
}

// TestParallelNeedsLanes: a runner without lanes is refused before any
// trial.
func TestParallelNeedsLanes(t *testing.T) {
	dir := t.TempDir()
	r := &fakeRunner{t: t, base: dir}
	_, err := (&Bench{File: twoScenarios(1), Dir: dir, Runner: r, Parallel: 2}).Run(context.Background())
	if !errors.Is(err, ErrNoLanes) || len(r.calls) != 0 {
		t.Errorf("error %v after %d trials, want ErrNoLanes before any", err, len(r.calls))
	}
}
