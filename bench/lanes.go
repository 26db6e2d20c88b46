package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

// Lanes is a Runner that can run trials side by side: Lane(i) is the
// runner of lane i, from 1 (the runner itself is lane 0), with a cluster
// of its own. Bench.Parallel asks for it.
type Lanes interface {
	Lane(i int) (Runner, error)
}

// ErrNoLanes is reported for Bench.Parallel above 1 with a runner that
// runs one trial at a time.
var ErrNoLanes = errors.New("this runner runs one trial at a time")

// lanes are the runners a benchmark's trials run on, and the nodes each
// lane's cluster last had.
type lanes struct {
	runners []Runner
	nodes   []string
	// used says which lanes ran a trial yet: a lane not yet used has no
	// cluster to keep.
	used []bool
}

func (b *Bench) lanes() (*lanes, error) {
	n := max(b.Parallel, 1)
	l := &lanes{runners: []Runner{b.Runner}, nodes: make([]string, n), used: make([]bool, n)}
	if n == 1 {
		return l, nil
	}
	lr, ok := b.Runner.(Lanes)
	if !ok {
		return nil, fmt.Errorf("--parallel %d: %w", n, ErrNoLanes)
	}
	for i := 1; i < n; i++ {
		r, err := lr.Lane(i)
		if err != nil {
			return nil, fmt.Errorf("lane %d: %w", i+1, err)
		}
		l.runners = append(l.runners, r)
	}
	return l, nil
}

// on names a lane's cluster in a progress line, when there are several.
func (l *lanes) on(lane int) string {
	if len(l.runners) == 1 {
		return ""
	}
	return fmt.Sprintf(" (cluster %d)", lane+1)
}

// nodesOf is what shapes the nodes of a scenario's cluster, as a key: a
// lane whose cluster last had these nodes runs the trial without
// recreating any. Equal keys are a preference, not a promise: the runner
// decides what it keeps.
func nodesOf(s Scenario) string {
	return fmt.Sprintf("%q %q %d %d %q %q %q %q %q", s.Compose, s.ProjectName, s.Brokers, s.Controllers,
		s.Image, s.KafkaVersion, strings.Join(s.Config, "\x00"), s.Target, s.Fault)
}

// ended is one trial a lane has finished.
type ended struct {
	lane int
	t    Trial
	tr   *analysis.Trial
	err  error
	took time.Duration
}

// runOn runs trials on the lanes, one at a time on each: a free lane
// takes the first trial, in the order given, whose nodes its cluster
// already has, else the first trial. Each is recorded as it ends, in the
// order they end, and then passed to after, which returns true to take no
// more trials (those running end first). begin is called as a trial
// starts, with its lane. It returns ctx's error when cancelled: a trial
// cut off is not recorded.
func (b *Bench) runOn(ctx context.Context, l *lanes, st *State, set *Set, trials []Trial,
	begin func(t Trial, lane int), after func(e ended) (stop bool)) error {
	queue := slices.Clone(trials)
	free := make([]int, len(l.runners))
	for i := range free {
		free[i] = i
	}
	done := make(chan ended)
	running, stop := 0, false
	var errs []error
	for {
		for !stop && ctx.Err() == nil && len(queue) > 0 && len(free) > 0 {
			fi, qi := l.pick(free, queue)
			lane, t := free[fi], queue[qi]
			free, queue = slices.Delete(free, fi, fi+1), slices.Delete(queue, qi, qi+1)
			dir := filepath.Join(b.Dir, t.Dir())
			if err := prepare(dir); err != nil {
				errs = append(errs, err)
				stop = true
				free = append(free, lane)
				break
			}
			l.nodes[lane], l.used[lane] = nodesOf(t.Variant.Resolved()), true
			begin(t, lane)
			running++
			go func() {
				start := time.Now()
				tr, err := l.runners[lane].Trial(ctx, t.Variant.Resolved(), dir)
				done <- ended{lane: lane, t: t, tr: tr, err: err, took: time.Since(start)}
			}()
		}
		if running == 0 {
			break
		}
		e := <-done
		running--
		free = append(free, e.lane)
		slices.Sort(free)
		if ctx.Err() != nil {
			continue // cut off: not recorded, run again on resuming
		}
		if isLasting(e.err) { // never ran: not recorded, run on resuming
			errs = append(errs, e.err)
			stop = true
			continue
		}
		if err := b.record(st, set, e); err != nil {
			errs = append(errs, err)
			stop = true
			continue
		}
		if after(e) {
			stop = true
		}
	}
	if ctx.Err() != nil {
		line := b.Resume
		if line == "" {
			line = Interrupted(b.Dir)
		}
		fmt.Fprintln(b.Progress, line)
		return ctx.Err()
	}
	return errors.Join(errs...)
}

// lasting is a trial's error that no later trial can escape, such as its
// cluster held by another kbf (clusterlock.InUseError): the benchmark
// stops at the first, with that error, and the trial, which never ran,
// is not recorded, so that the benchmark resumed runs it.
type lasting interface{ Lasting() bool }

func isLasting(err error) bool {
	var l lasting
	return errors.As(err, &l) && l.Lasting()
}

// Interrupted is what kbf bench says when interrupted: how to resume
// the benchmark in dir.
func Interrupted(dir string) string {
	return fmt.Sprintf("bench: interrupted; kbf bench with the same file and --out %s resumes where it stopped", dir)
}

// pick is the free lane (an index into free) and the trial (into queue)
// to run next: of the next few trials, as many as there are lanes, the
// first whose nodes a free lane's cluster has, so that a lane keeps its
// cluster as it is; else the next trial, on a lane not used yet if one is
// free. The window keeps the plan's order within about a round: a
// setting no lane has waits at most that long.
func (l *lanes) pick(free []int, queue []Trial) (int, int) {
	for qi, t := range queue[:min(len(queue), len(l.runners))] {
		n := nodesOf(t.Variant.Resolved())
		for fi, lane := range free {
			if l.used[lane] && l.nodes[lane] == n {
				return fi, qi
			}
		}
	}
	for fi, lane := range free {
		if !l.used[lane] {
			return fi, 0
		}
	}
	return 0, 0
}

// prepare keeps aside a half-made directory of the trial and makes its
// parent.
func prepare(dir string) error {
	if err := keepAside(dir); err != nil {
		return err
	}
	return os.MkdirAll(filepath.Dir(dir), 0o755)
}

// record adds the ended trial to the state and the set and rewrites the
// outputs.
func (b *Bench) record(st *State, set *Set, e ended) error {
	d := Done{ID: e.t.ID(), Took: e.took}
	if e.err != nil {
		d.Error = results.MaskLine(e.err.Error())
		fmt.Fprintf(b.Progress, "bench: trial %s failed: %v\n", e.t.ID(), e.err)
	}
	st.Done = append(st.Done, d)
	if err := writeState(b.Dir, st); err != nil {
		return err
	}
	set.addAnalysed(e.t, d, b.Dir, e.tr)
	return set.WriteAll(b.Dir)
}
