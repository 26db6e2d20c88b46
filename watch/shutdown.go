package watch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ShutdownTimeout bounds what kbf watch does once told to stop (SIGINT,
// SIGTERM, SIGHUP): the open incident is written, from what the probe
// recorded, within it — well inside the 30 s a Kubernetes pod is given
// before it is killed. What the cluster has not answered by then is left
// out and noted in the incident's meta.json, never waited for.
const ShutdownTimeout = 10 * time.Second

// The steps of a stop, each within ShutdownTimeout of the signal.
const (
	// probeStopTimeout is how long the probe is given to finish (its
	// in-flight records acked or failed) before its records are taken as
	// they are.
	probeStopTimeout = 2 * time.Second
	// askTimeout bounds each question to the cluster as the watch stops
	// (its version, its settings, the read-back), and one it was asking
	// when told to stop.
	askTimeout = 2 * time.Second
	// askBy is when, after the signal, nothing more is asked (the nodes'
	// logs included): the rest is the analysis's.
	askBy = 6 * time.Second
	// analyseBy is when, after the signal, the analysis is given up: the
	// incident's files are complete then, and kbf report analyses them.
	analyseBy = ShutdownTimeout - 500*time.Millisecond
)

// errNoAnswer is a question that got no answer in time.
var errNoAnswer = errors.New("no answer")

// stopClock is when the watch was told to stop: ctx's end.
type stopClock struct {
	mu sync.Mutex
	at time.Time
}

// newStopClock notes when ctx ends; release stops it noting.
func newStopClock(ctx context.Context) (c *stopClock, release func() bool) {
	c = &stopClock{}
	return c, context.AfterFunc(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.at = time.Now()
	})
}

// stopped returns when the watch was told to stop, and whether it was.
func (c *stopClock) stopped() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at, !c.at.IsZero()
}

// until is how long is left until d after the stop; d itself while the
// watch runs.
func (c *stopClock) until(d time.Duration) time.Duration {
	if at, ok := c.stopped(); ok {
		return time.Until(at.Add(d))
	}
	return d
}

// budget is how long writing one incident may ask the cluster and
// analyse it: without bounds but readBackTimeout while the watch runs,
// within ShutdownTimeout of the stop once it is told to stop, even in
// the middle of writing it.
type budget struct {
	parent context.Context // the watch's: done when told to stop
	ctx    context.Context // parent's values, never canceled by the stop
	clock  *stopClock
	// silent is the first question the cluster did not answer as the
	// watch stopped: the cluster is asked nothing more then.
	silent *error
}

func newBudget(ctx context.Context, clock *stopClock) budget {
	return budget{parent: ctx, ctx: context.WithoutCancel(ctx), clock: clock, silent: new(error)}
}

// stopping reports whether the watch has been told to stop.
func (b budget) stopping() bool {
	_, ok := b.clock.stopped()
	return ok
}

// logs runs q, which copies a node's logs (from the engine, the API or
// the user's command, not the cluster): by askBy after the stop.
func (b budget) logs(q func(ctx context.Context) error) error {
	return b.within(0, askBy, q)
}

// askCluster runs one question to the cluster: within askTimeout, and by
// askBy, after the stop; once one got no answer then, the others are not
// asked. One not answered in time is errNoAnswer, saying how long it was
// given, not the context's error: the cluster did not answer, no file
// failed.
func (b budget) askCluster(q func(ctx context.Context) error) error {
	return b.cluster(0, q)
}

// readBack runs the read-back: within readBackTimeout while running, as
// askCluster after the stop.
func (b budget) readBack(q func(ctx context.Context) error) error {
	return b.cluster(readBackTimeout, q)
}

func (b budget) cluster(d time.Duration, q func(ctx context.Context) error) error {
	if *b.silent != nil {
		return fmt.Errorf("not asked: %w", *b.silent)
	}
	err := b.within(d, askTimeout, q)
	if errors.Is(err, errNoAnswer) {
		err = fmt.Errorf("the cluster gave %w", err)
		if b.stopping() {
			*b.silent = err
		}
	}
	return err
}

// within runs q: within d (0: no bound) while the watch runs; after the
// stop, within stopBound and by askBy after it. A question asked when the
// stop comes gets askTimeout more. Q is not waited for past its context:
// a client that ignores it must not keep the watch past its bound.
func (b budget) within(d, stopBound time.Duration, q func(ctx context.Context) error) error {
	if b.stopping() {
		d = min(stopBound, b.clock.until(askBy))
		if d <= 0 {
			return fmt.Errorf("not asked: the watch was stopping and its %v for the cluster had passed", askBy)
		}
	}
	ctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	if d > 0 {
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	release := context.AfterFunc(b.parent, func() { time.AfterFunc(min(askTimeout, b.clock.until(askBy)), cancel) })
	defer release()
	began := time.Now()
	err := wait(ctx, q)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w in %v", errNoAnswer, time.Since(began).Round(100*time.Millisecond))
	}
	return err
}

// analysis is the context the incident is analysed in: the watch's
// values, until analyseBy after the stop.
func (b budget) analysis() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(b.ctx)
	release := context.AfterFunc(b.parent, func() { time.AfterFunc(b.clock.until(analyseBy), cancel) })
	return ctx, func() { release(); cancel() }
}

// wait runs q on ctx, and returns once ctx is done whether q has or not.
func wait(ctx context.Context, q func(ctx context.Context) error) error {
	done := make(chan error, 1)
	go func() { done <- q(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
