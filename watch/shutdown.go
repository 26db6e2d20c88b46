package watch

import (
	"context"
	"errors"
	"fmt"
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
	// (a node's logs, its version, its settings, the read-back).
	askTimeout = 2 * time.Second
	// askBy is when, after the signal, the cluster is asked nothing more:
	// the rest is the analysis's.
	askBy = 6 * time.Second
	// analyseBy is when, after the signal, the analysis is given up: the
	// incident's files are complete then, and kbf report analyses them.
	analyseBy = ShutdownTimeout - 500*time.Millisecond
)

// errNoAnswer is a question that got no answer in time.
var errNoAnswer = errors.New("no answer")

// budget is how long writing an incident may ask the cluster and analyse
// it: without bounds but readBackTimeout while the watch runs, within
// ShutdownTimeout once it stops.
type budget struct {
	ctx      context.Context // never canceled by the stop itself
	stopping bool
	stopAt   time.Time // the signal's time, when stopping
	// silent is the first question the cluster did not answer as the
	// watch stopped: the cluster is asked nothing more then.
	silent *error
}

// newBudget is a running watch's: ctx's.
func newBudget(ctx context.Context) budget { return budget{ctx: ctx} }

// stopBudget is a stopping watch's: the signal came at at, on ctx now done.
func stopBudget(ctx context.Context, at time.Time) budget {
	return budget{ctx: context.WithoutCancel(ctx), stopping: true, stopAt: at, silent: new(error)}
}

// logs runs q, which copies a node's logs (from the engine, the API or
// the user's command, not the cluster): by askBy when stopping. One not
// answered in time is errNoAnswer, saying how long it was given, not the
// context's error: no file failed.
func (b budget) logs(q func(ctx context.Context) error) error {
	if !b.stopping {
		return q(b.ctx)
	}
	d := time.Until(b.stopAt.Add(askBy))
	if d <= 0 {
		return fmt.Errorf("not asked: the watch was stopping and its %v for the cluster had passed", askBy)
	}
	ctx, cancel := context.WithTimeout(b.ctx, d)
	defer cancel()
	return b.answered(ctx, d, b.wait(ctx, q))
}

// answered is err, or errNoAnswer when ctx, given d, ran out.
func (b budget) answered(ctx context.Context, d time.Duration, err error) error {
	if err != nil && ctx.Err() != nil && b.ctx.Err() == nil {
		return fmt.Errorf("%w within %v", errNoAnswer, d.Round(time.Millisecond))
	}
	return err
}

// askCluster runs one question to the cluster: within askTimeout, and by
// askBy, when stopping; once one got no answer then, the others are not
// asked. One not answered in time is errNoAnswer, saying how long it was
// given, not the context's error: the cluster did not answer, no file
// failed.
func (b budget) askCluster(q func(ctx context.Context) error) error {
	return b.cluster(0, q)
}

// readBack runs the read-back: within readBackTimeout while running, as
// askCluster when stopping.
func (b budget) readBack(q func(ctx context.Context) error) error {
	return b.cluster(readBackTimeout, q)
}

func (b budget) cluster(d time.Duration, q func(ctx context.Context) error) error {
	if b.silent != nil && *b.silent != nil {
		return fmt.Errorf("not asked: %w", *b.silent)
	}
	err := b.within(d, q)
	if errors.Is(err, errNoAnswer) {
		err = fmt.Errorf("the cluster gave %w", err)
		if b.silent != nil {
			*b.silent = err
		}
	}
	return err
}

// within runs q under the budget's bound, or d (0: none) while running.
// Stopping, it does not wait for a q that goes on past its context: a
// client that ignores it must not keep the watch past its bound.
func (b budget) within(d time.Duration, q func(ctx context.Context) error) error {
	if !b.stopping && d <= 0 {
		return q(b.ctx)
	}
	if b.stopping {
		d = min(askTimeout, time.Until(b.stopAt.Add(askBy)))
		if d <= 0 {
			return fmt.Errorf("not asked: the watch was stopping and its %v for the cluster had passed", askBy)
		}
	}
	ctx, cancel := context.WithTimeout(b.ctx, d)
	defer cancel()
	return b.answered(ctx, d, b.wait(ctx, q))
}

// analysis is the context the incident is analysed in: ctx's while
// running, until analyseBy after the signal when stopping.
func (b budget) analysis() (context.Context, context.CancelFunc) {
	if !b.stopping {
		return b.ctx, func() {}
	}
	return context.WithDeadline(b.ctx, b.stopAt.Add(analyseBy))
}

// wait runs q on ctx; stopping, it returns once ctx is done whether q
// has or not.
func (b budget) wait(ctx context.Context, q func(ctx context.Context) error) error {
	if !b.stopping {
		return q(ctx)
	}
	done := make(chan error, 1)
	go func() { done <- q(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
