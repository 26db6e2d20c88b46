package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/internal/digest"
	"github.com/kbf-project/kbf/results"
)

// Runner runs one trial of a scenario into dir, which does not exist yet,
// and returns it analysed (package report), so that the benchmark
// measures it without analysing it again; nil when it kept no analysis,
// and the trial is then measured from its directory. It restores the
// cluster to healthy before it returns, whatever happens.
type Runner interface {
	// Check says, before the first trial and before anything is written,
	// whether the runner can run s: nil, or why not in one line.
	Check(s Scenario) error
	Trial(ctx context.Context, s Scenario, dir string) (*analysis.Trial, error)
}

// StateFile is a benchmark directory's record of its plan and of the
// trials done, which resuming reads.
const StateFile = "bench-state.json"

// stateVersion is StateFile's format version.
const stateVersion = 1

// State is StateFile:
//
//	{"format_version": 1, "plan": "<sha256 of the file and shard>",
//	 "file": {...}, "shard": "1/1", "cores": 2,
//	 "done": [{"id": "sigkill/trial-01", "error": "", "took_ns": 51000000000}]}
type State struct {
	FormatVersion int    `json:"format_version"`
	Plan          string `json:"plan"`
	File          *File  `json:"file"`
	Shard         string `json:"shard"`
	// Cores is the machine's when the benchmark began.
	Cores int    `json:"cores"`
	Done  []Done `json:"done"`
}

// Done is one finished trial: Error is set when the runner failed.
type Done struct {
	ID    string        `json:"id"`
	Error string        `json:"error,omitempty"`
	Took  time.Duration `json:"took_ns"`
}

// RefusedError is a scenario the runner cannot run (Checker).
type RefusedError struct {
	Scenario string
	Err      error
}

func (e *RefusedError) Error() string { return fmt.Sprintf("scenario %q: %v", e.Scenario, e.Err) }
func (e *RefusedError) Unwrap() error { return e.Err }

// ErrOtherPlan is reported for a directory that holds another benchmark.
var ErrOtherPlan = errors.New("holds another benchmark (other scenarios, trials or shard): give another --out, or remove it")

// Bench runs a benchmark into Dir.
type Bench struct {
	File   *File
	Shard  Shard
	Dir    string
	Runner Runner
	// Env is the configuration lines bench.txt opens with, before what the
	// trials' metadata add.
	Env Env
	// Progress receives a line as each trial starts and ends.
	Progress io.Writer
	// Cores is recorded in the state when the benchmark begins.
	Cores int
	// Parallel is how many trials run at once, each on a cluster of its
	// own (the Runner's lanes, Lanes); 0 or 1: one at a time.
	Parallel int
	// Resume is the line said on Progress when the benchmark is
	// interrupted, how to resume it; "" says kbf bench's (Interrupted).
	// A command that runs its benchmark from flags of its own (kbf tune)
	// says its own.
	Resume string
}

// maxFailures is how many trials in a row may fail before the benchmark
// stops: one failure is noise, two in a row are a broken setup.
const maxFailures = 2

// failing counts the trials that failed in a row and keeps the last one's
// error, so that a benchmark stops at maxFailures of them.
type failing struct {
	n    int
	last error
}

// add counts a trial that ended with err (nil: it ran) and reports whether
// the benchmark must stop.
func (f *failing) add(err error) bool {
	if err == nil {
		f.n = 0
		return false
	}
	f.n++
	f.last = err
	return f.n >= maxFailures
}

// stopped is the error that stops the benchmark, or nil while it runs on.
func (f *failing) stopped() error {
	if f.n < maxFailures {
		return nil
	}
	return fmt.Errorf("%d trials in a row failed, the last: %w", f.n, f.last)
}

// Run runs the shard's trials that are not done yet and rewrites the
// outputs after each. An interrupted benchmark resumes where it stopped:
// the trials done are kept, and a trial cut off half-way is kept aside as
// interrupted-trial-NN and run again.
func (b *Bench) Run(ctx context.Context) (*Set, error) {
	set, st, err := b.begin()
	if err != nil {
		return nil, err
	}
	l, err := b.lanes()
	if err != nil {
		return nil, err
	}
	trials := b.Shard.Pick(b.File.Plan())
	done := map[string]bool{}
	for _, d := range st.Done {
		done[d.ID] = true
	}
	var todo []Trial
	pos := map[string]int{}
	for i, t := range trials {
		if !done[t.ID()] {
			todo = append(todo, t)
			pos[t.ID()] = i + 1
		}
	}
	var ran int
	var fails failing
	// The time left is estimated from every trial that took a known
	// time, those a resumed benchmark did before among them.
	spent, timed := took(st.Done)
	begin := func(t Trial, lane int) {
		left := ""
		if timed > 0 {
			remaining := len(todo) - ran
			left = fmt.Sprintf("; about %s left", (spent / time.Duration(timed*len(l.runners)) * time.Duration(remaining)).Round(time.Second))
		}
		fmt.Fprintf(b.Progress, "bench: trial %d of %d: %s, into %s%s%s\n", pos[t.ID()], len(trials), t.ID(), filepath.Join(b.Dir, t.Dir()), l.on(lane), left)
	}
	after := func(e ended) bool {
		ran++
		if e.took > 0 {
			spent += e.took
			timed++
		}
		return fails.add(e.err)
	}
	if err := b.runOn(ctx, l, st, set, todo, begin, after); err != nil {
		return set, err
	}
	return set, fails.stopped()
}

// begin checks the runner can run every variant, then reads or begins the
// directory's state and the set of the trials done.
func (b *Bench) begin() (*Set, *State, error) {
	if b.Shard.N == 0 {
		b.Shard = All
	}
	if b.Progress == nil {
		b.Progress = io.Discard
	}
	// What the runner cannot do is said before anything is written.
	for _, v := range b.File.Variants() {
		if err := b.Runner.Check(v.Resolved()); err != nil {
			return nil, nil, &RefusedError{Scenario: v.Scenario.Name, Err: err}
		}
	}
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		return nil, nil, err
	}
	st, err := b.state()
	if err != nil {
		return nil, nil, err
	}
	whole, err := planHash(b.File, All)
	if err != nil {
		return nil, nil, err
	}
	set := &Set{Env: b.Env, Cores: st.Cores, Shard: b.Shard, Plan: whole[:16]}
	// The trials done are added in the order they ran.
	for _, d := range st.Done {
		if t, ok := b.File.trialByID(d.ID); ok {
			set.add(t, d, b.Dir)
		}
	}
	if err := set.WriteAll(b.Dir); err != nil {
		return nil, nil, err
	}
	return set, st, nil
}

// state reads the directory's state, or begins one; a state of another
// plan is refused rather than mixed in.
func (b *Bench) state() (*State, error) {
	plan, err := planHash(b.File, b.Shard)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(b.Dir, StateFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		st := &State{FormatVersion: stateVersion, Plan: plan, File: b.File.Masked(), Shard: b.Shard.String(), Cores: b.Cores}
		return st, writeState(b.Dir, st)
	}
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st.FormatVersion > stateVersion {
		return nil, fmt.Errorf("%s: format version %d: %w", path, st.FormatVersion, results.ErrNewerFormat)
	}
	if st.Plan != plan {
		return nil, fmt.Errorf("%s %w", b.Dir, ErrOtherPlan)
	}
	return &st, nil
}

// planHash is the hash of the file, its secrets hidden (File.Masked):
// the state file, which holds it, must not let a guessed password be
// checked against it. A file with no secret hashes as it always has.
func planHash(f *File, s Shard) (string, error) {
	return digest.JSON(struct {
		F *File
		S string
	}{f.Masked(), s.String()})
}

func writeState(dir string, st *State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, StateFile), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// InterruptedPrefix begins the name of a trial directory cut off
// half-way, kept aside when its trial is run again.
const InterruptedPrefix = "interrupted-"

// keepAside moves a half-made trial directory out of the way, keeping it:
// it may hold what someone wants to see.
func keepAside(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	for n := 1; ; n++ {
		to := filepath.Join(filepath.Dir(dir), fmt.Sprintf("%s%s-%d", InterruptedPrefix, filepath.Base(dir), n))
		if _, err := os.Stat(to); errors.Is(err, fs.ErrNotExist) {
			return os.Rename(dir, to)
		}
	}
}
