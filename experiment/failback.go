package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// A failback trial (Options.Failback) does not stop the probe once the
// fault has done its work: it brings the broker back with the probe
// running, waits until it has caught up (every ISR of the probed topic
// full), asks for the preferred leader election that gives it back its
// leaderships, and probes on a minute more (Options.FailbackAfter), so the report sees the second
// stall or latency spike the return makes and the tail latency after it.
// The recovery that follows finds the cluster whole.

// DefaultFailbackAfter is how long a failback trial probes on after the
// preferred leader election: the minute whose ack latency the report
// compares with the baseline's.
const DefaultFailbackAfter = time.Minute

// validateFailback refuses a failback kbf cannot make: one needs a fault
// of one node that kbf undoes itself.
func (o *Options) validateFailback() error {
	switch {
	case !o.Failback && o.FailbackAfter != 0:
		return invalid("failback_for", o.FailbackAfter, "takes --failback")
	case o.FailbackAfter < 0 || o.FailbackAfter > MaxDuration:
		return invalid("failback_for", o.FailbackAfter, "must not be negative (0: %v) and at most %v", DefaultFailbackAfter, MaxDuration)
	case !o.Failback || o.Kill.SingleNode():
		return nil
	}
	return invalid("failback", list("of "+string(o.Kill)), "takes a fault of one broker that kbf undoes: %s", results.SingleNodeFaults())
}

// failback brings the faulted broker back while the probe runs, and
// records each step in the metadata; a step that fails is a note in it
// (Failback.Err), and the recovery after the probe tries again.
func (t *trial) failback(ctx context.Context) {
	t.setPhase("failback")
	fb := &results.Failback{After: cmp.Or(t.o.FailbackAfter, DefaultFailbackAfter)}
	t.meta.Failback = fb
	defer func() {
		if err := t.rec.Save(); err != nil {
			t.meta.Notes = append(t.meta.Notes, "failback not saved: "+err.Error())
		}
	}()
	if err := t.failbackSteps(ctx, fb); err != nil {
		fb.Err = err.Error()
		t.r.say("failback: %v", err)
		return
	}
	t.r.say("failback: %s back %.1fs after the restart, every ISR full, leaders preferred %.1fs after; probing on %v",
		t.o.Broker, fb.ISRFull.Sub(fb.Restarted).Seconds(), fb.Elected.Sub(fb.ISRFull).Seconds(), fb.After)
	t.end.Store(fb.Elected.Add(fb.After))
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(fb.Elected.Add(fb.After))):
	}
	fb.Ended = time.Now().UTC()
}

// failbackSteps restarts the broker, waits for its ISRs and elects the
// preferred leaders, each bounded by the recovery's timeout.
func (t *trial) failbackSteps(ctx context.Context, fb *results.Failback) error {
	fctx, cancel := context.WithTimeout(ctx, t.o.RecoveryTimeout)
	defer cancel()
	b, topic := t.o.Broker, t.p.Config().Topic
	fb.Restarted = time.Now().UTC()
	switch err := t.r.Target.Restart(fctx, b); {
	case errors.Is(err, cluster.ErrAlreadyRunning):
	case err != nil:
		return fmt.Errorf("restart %s: %w", b, err)
	}
	if err := t.r.Target.WaitISRFull(fctx, topic); err != nil {
		return fmt.Errorf("wait for %s's ISRs: %w", topic, err)
	}
	fb.ISRFull = time.Now().UTC()
	if err := t.r.Target.EnsurePreferred(fctx, topic); err != nil {
		return fmt.Errorf("preferred leader election on %s: %w", topic, err)
	}
	fb.Elected = time.Now().UTC()
	return nil
}
