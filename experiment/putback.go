package experiment

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kbf-project/kbf/results"
)

// Trials back to back (Runner.Run): a trial's put-back — every ISR full
// again after its broker's restart, the preferred leader election, the
// read-back, its meta.json — ends in the background while the next trial
// starts its probe. The next trial judges nothing of the cluster before
// then: it reads the cluster's description (the leaders, the nodes'
// settings) once the cluster is whole, counts its baseline's steady window
// only from then, and faults only once the put-back has ended, its files
// written; a put-back that failed fails it, with the reason. The last
// trial of a run, and a trial alone (Runner.Trial), put back before they
// return. kbf bench's trials of one cluster run back to back the same way,
// each trial by a Runner of its own (TrialBeside).

// overlapKind says whether a trial of these options may put the cluster
// back while the next one starts: a fault of one broker that its restart
// undoes, with nothing else of the cluster's to set up again before a
// trial (a disk layer's state, a second node, real traffic's topic, a
// failback's probe through the return).
func (o *Options) overlapKind() bool {
	switch o.Kill {
	case results.FaultSIGKILL, results.FaultSIGTERM, results.FaultPause, results.FaultIsolate:
		return !o.Failback && o.Load == nil
	}
	return false
}

// backToBack says whether a trial of o may start beside the put-back of a
// trial of prev on the same cluster: both faults of one broker its restart
// undoes (overlapKind), probing one topic, which that put-back leaves
// whole with its leaders preferred. Run's trials, all of one options, do.
func (o *Options) backToBack(prev *Options) bool {
	return o.overlapKind() && prev.overlapKind() && o.Probe.Topic == prev.Probe.Topic
}

// PutBack is a trial's put-back running in the background (Run,
// TrialBeside). HandOver waits for it.
type PutBack struct {
	n   int
	dir string
	o   *Options // the trial's
	// whole is closed once the cluster is whole again, or cannot be:
	// wholeErr says why. done is closed once the put-back has ended: err
	// is the trial's outcome, as Runner.Trial returns it.
	whole    chan struct{}
	wholeErr error
	done     chan struct{}
	err      error
	// recorded is the caller's (Run's, TrialBeside's); once hands the
	// trial to it once (HandOver), and handErr is what came of it.
	recorded Recorded
	once     sync.Once
	handErr  error
}

// TrialBeside runs trial n into dir after prev (nil: none), the put-back
// of the trial before on the same cluster, not brought up again, still
// running, as Run runs its next trial: its probe starts at once, its
// baseline counts once the cluster is whole, and its fault comes only once
// prev has ended and been handed over (HandOver). When the trial ended
// cleanly and its fault allows it (a fault of one broker its restart
// undoes), it returns its own put-back running in the background, which
// hands the trial to recorded; otherwise it puts the cluster back before
// it returns, returns a nil PutBack and the trial's outcome, and hands the
// trial to no one. Whatever it returns, the caller then hands prev over
// itself, as Run does: a trial that ended before its fault (an error,
// Ctrl-C) did not, and prev's outcome is prev's, not this trial's.
// A trial that cannot start beside prev (another fault's, or another
// topic's: backToBack) waits for it to end first, and brings the cluster
// up as a trial alone does.
func (r *Runner) TrialBeside(ctx context.Context, n int, dir string, prev *PutBack, recorded Recorded) (*PutBack, error) {
	if prev != nil && !r.Opt.backToBack(prev.o) {
		prev.wait() // its outcome is the caller's (HandOver)
		prev = nil
	}
	return r.overlapped(ctx, n, dir, prev, true, recorded)
}

// overlapped runs trial n after prev's put-back; with overlap, it returns
// the trial's own put-back running in the background, to be handed to
// recorded (HandOver), when the trial ended cleanly and its fault allows
// it (overlapKind), and puts the cluster back before it returns otherwise.
func (r *Runner) overlapped(ctx context.Context, n int, dir string, prev *PutBack, overlap bool, recorded Recorded) (*PutBack, error) {
	t, err := r.newTrial(ctx, n, dir, prev)
	if err != nil {
		return nil, err
	}
	if err := t.measure(ctx); err != nil {
		return nil, err
	}
	clean := ctx.Err() == nil && t.attempted && t.o.overlapKind() &&
		t.prevErr == nil && t.faultErr == nil && t.probeErr == nil && t.loadErr == nil && t.recErr == nil
	if !overlap || !clean {
		return nil, t.putBack(ctx, nil)
	}
	pb := &PutBack{n: n, dir: dir, o: t.o, whole: make(chan struct{}), done: make(chan struct{}), recorded: recorded}
	// Ctrl-C from here on is the next trial's: this one's probing is
	// over, and its put-back and read-back end whatever the user does.
	t.ctx = context.WithoutCancel(ctx)
	go func() {
		defer close(pb.done)
		pb.err = t.putBack(t.ctx, func(err error) {
			pb.wholeErr = err
			close(pb.whole)
		})
	}()
	return pb, nil
}

// wait waits until the put-back has ended, whatever ctx says (a run never
// leaves before its trials' files are written), and returns the trial's
// outcome. A nil put-back has nothing to wait for.
func (p *PutBack) wait() error {
	if p == nil {
		return nil
	}
	<-p.done
	return p.err
}

// HandOver waits for the put-back and hands its trial to recorded, as Run
// does a trial put back before it returns, and returns the trial's
// outcome: a failed put-back, or recorded's refusal, is the trial's error.
// The next trial does it before its fault (awaitPrev), Run once that trial
// has ended: the first does it, the others get its answer. Ctrl-C does not
// stop it: the trial was whole. A nil PutBack has nothing to hand over.
func (p *PutBack) HandOver(ctx context.Context) error {
	if p == nil {
		return nil
	}
	p.once.Do(func() {
		if err := p.wait(); err != nil {
			p.handErr = fmt.Errorf("trial %d: %w", p.n, err)
			return
		}
		if p.recorded == nil {
			return
		}
		if err := p.recorded(context.WithoutCancel(ctx), p.n, p.dir); err != nil {
			p.handErr = fmt.Errorf("trial %d: %w", p.n, err)
		}
	})
	return p.handErr
}

// awaitPrev waits, the probe running, until the trial before has put the
// cluster back whole, then reads the cluster's description startProbe
// left for then (describe) and starts the baseline's steady window
// (steadyFrom); then it waits for that trial's files and hands it over
// (HandOver), while the window runs. A put-back or a hand-over that failed
// is prevErr: this trial is not faulted, and fails with it.
func (t *trial) awaitPrev(ctx context.Context) error {
	p := t.prev
	if p == nil {
		return nil
	}
	t.r.say("baseline: the probe runs while trial %d's put-back ends", p.n)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-p.whole:
	}
	if err := p.wholeErr; err != nil {
		return t.prevFailed(fmt.Errorf("trial %d: %w", p.n, err))
	}
	t.steadyFrom = time.Now()
	t.describe(ctx, t.meta)
	if err := t.rec.Save(); err != nil {
		return err
	}
	if err := p.wait(); err != nil {
		return t.prevFailed(fmt.Errorf("trial %d: %w", p.n, err))
	}
	// A line of its own, so that trial's digest does not follow the
	// progress line.
	t.r.say("baseline: trial %d put back, whole %.1fs after this trial's start: the steady window counts from then",
		p.n, t.steadyFrom.Sub(t.meta.Started).Seconds())
	if err := p.HandOver(ctx); err != nil {
		return t.prevFailed(err)
	}
	return nil
}

// startProbeBeside starts the probe. Beside the trial before's put-back
// the restarted broker may not answer yet (it closes the probe's first
// connection while its JVM starts): a probe that could not start then is
// started again once that put-back has the cluster whole. A refusal of the
// probe's configuration is final.
func (t *trial) startProbeBeside(ctx context.Context) error {
	err := t.startProbe(ctx)
	if err == nil || t.prev == nil || errors.Is(err, ErrInvalidOption) {
		return err
	}
	t.r.say("probe: %v: started again once trial %d's put-back has the cluster whole", err, t.prev.n)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.prev.whole:
	}
	return t.startProbe(ctx)
}

// prevFailed records that this trial is not faulted because of the trial
// before (err), and returns err.
func (t *trial) prevFailed(err error) error {
	t.prevErr = err
	t.meta.Notes = append(t.meta.Notes, "no fault injected: "+err.Error())
	t.r.say("baseline: %v: no fault injected", err)
	return err
}

// putBackWide is Unhealthy.Partition for the wait of the steady window
// after the trial before's put-back.
const putBackWide = -2

// afterPutBack says why the baseline is not steady yet at now when the
// trial before put the cluster back less than period ago: acks steady
// while the cluster was not whole, or through its election, are no
// baseline. nil when it is, or there was no put-back to wait for.
func (t *trial) afterPutBack(now time.Time, period time.Duration) *Unhealthy {
	if t.prev == nil || !now.Before(t.steadyFrom.Add(period)) {
		return nil
	}
	return &Unhealthy{Partition: putBackWide, Why: fmt.Sprintf("the cluster put back by trial %d %.2f s ago (steady for %.2f s needed)",
		t.prev.n, now.Sub(t.steadyFrom).Seconds(), period.Seconds())}
}
