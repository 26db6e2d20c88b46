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

// BackToBack is a Runner whose trials of one lane may run back to back: a
// trial's put-back (its cluster made whole again, its files written) may
// still run when the lane takes its next trial, which then starts beside
// it when it runs on that cluster as it is.
type BackToBack interface {
	// TrialAfter runs one trial of s into dir, as Trial does, after prev,
	// the put-back of the lane's trial before (nil: none): beside it when
	// the runner can, else once it has ended. When the trial's own
	// put-back still runs as it returns, it returns it, and the trial's
	// outcome is its Wait's; else it returns a nil PutBack and the
	// trial's outcome.
	TrialAfter(ctx context.Context, s Scenario, dir string, prev PutBack) (PutBack, *analysis.Trial, error)
}

// PutBack is a trial's put-back still running. Wait waits until it has
// ended, whatever a context says, and returns the trial as Runner.Trial
// does; it may be called more than once, from any goroutine.
type PutBack interface {
	Wait() (*analysis.Trial, error)
}

// lanes are the runners a benchmark's trials run on, and the nodes each
// lane's cluster last had.
type lanes struct {
	runners []Runner
	nodes   []string
	// used says which lanes ran a trial yet: a lane not yet used has no
	// cluster to keep.
	used []bool
	// last is each lane's last trial's put-back while it runs: the lane's
	// next trial is run after it (BackToBack).
	last []*running
}

// running is a trial's put-back still running when its lane was freed.
// sent is closed once the trial's end has been told (laneEvent.ended):
// the lane's next trial tells its own only after, so that the trials of a
// lane are recorded in the order they ran, and two failed in a row are
// two in a row.
type running struct {
	p    PutBack
	sent chan struct{}
}

// told waits until the trial r's end has been told; nil has nothing to wait
// for.
func (r *running) told() {
	if r != nil {
		<-r.sent
	}
}

// putBack is the put-back r holds, nil for none.
func (r *running) putBack() PutBack {
	if r == nil {
		return nil
	}
	return r.p
}

func (b *Bench) lanes() (*lanes, error) {
	n := max(b.Parallel, 1)
	l := &lanes{runners: []Runner{b.Runner}, nodes: make([]string, n), used: make([]bool, n), last: make([]*running, n)}
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

// ended is one trial a lane has finished: took is how long it held its
// lane, and cut says it was interrupted before it had measured.
type ended struct {
	t    Trial
	tr   *analysis.Trial
	err  error
	took time.Duration
	cut  bool
}

// laneEvent is what a lane's trial says: that its lane is free for its
// next trial (free), that it has ended (ended), or both at once; last is
// its put-back when it ran on after the lane was freed.
type laneEvent struct {
	lane  int
	free  bool
	ended *ended
	last  *running
}

// runOn runs trials on the lanes, one at a time on each: a free lane
// takes the first trial, in the order given, whose nodes its cluster
// already has, else the first trial. With a BackToBack runner a lane may
// be free once its trial has measured, and its next trial start while
// that one's put-back ends. Each trial is recorded once it has ended, its
// put-back too, in the order they end, and then passed to after, which
// returns true to take no more trials (those running end first). begin is
// called as a trial starts, with its lane. It returns once every trial's
// put-back has ended, with ctx's error when cancelled: a trial cut off
// before it had measured is not recorded.
func (b *Bench) runOn(ctx context.Context, l *lanes, st *State, set *Set, trials []Trial,
	begin func(t Trial, lane int), after func(e ended) (stop bool)) error {
	queue := slices.Clone(trials)
	free := make([]int, len(l.runners))
	for i := range free {
		free[i] = i
	}
	events := make(chan laneEvent)
	busy, stop := 0, false // busy: the trials not yet ended
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
			busy++
			go l.run(ctx, lane, t, dir, l.last[lane], events)
		}
		if busy == 0 {
			break
		}
		ev := <-events
		if e := ev.ended; e != nil {
			busy--
			if l.last[ev.lane] == ev.last {
				l.last[ev.lane] = nil // the lane's next trial runs alone
			}
			// A trial cut off, or that never ran (isLasting), is not
			// recorded: it runs again on resuming.
			switch {
			case e.cut:
			case isLasting(e.err):
				errs = append(errs, e.err)
				stop = true
			default:
				if err := b.record(st, set, *e); err != nil {
					errs = append(errs, err)
					stop = true
				} else if after(*e) {
					stop = true
				}
			}
		}
		if ev.free {
			free = append(free, ev.lane)
			slices.Sort(free)
			l.last[ev.lane] = ev.last
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

// run runs trial t into dir on lane, after prev, the put-back of the
// lane's trial before, and tells events when the lane is free and when the
// trial has ended: at once when it has, so that it is recorded before the
// lane takes its next trial, else once its put-back has ended. It tells
// nothing before prev's end has been told (running.told).
func (l *lanes) run(ctx context.Context, lane int, t Trial, dir string, prev *running, events chan<- laneEvent) {
	start := time.Now()
	e := &ended{t: t}
	var p PutBack
	if r, ok := l.runners[lane].(BackToBack); ok {
		p, e.tr, e.err = r.TrialAfter(ctx, t.Variant.Resolved(), dir, prev.putBack())
	} else {
		e.tr, e.err = l.runners[lane].Trial(ctx, t.Variant.Resolved(), dir)
	}
	e.took, e.cut = time.Since(start), ctx.Err() != nil
	prev.told()
	if p == nil {
		events <- laneEvent{lane: lane, free: true, ended: e}
		return
	}
	last := &running{p: p, sent: make(chan struct{})}
	events <- laneEvent{lane: lane, free: true, last: last}
	e.tr, e.err = p.Wait()
	events <- laneEvent{lane: lane, ended: e, last: last}
	close(last.sent)
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
