package experiment

// The faults of several steps: two brokers killed one after the other, a
// rolling restart, the last replica standing. Each is a plan of steps —
// kill, stop, start, wait for the ISRs — done partly at the fault (the
// first steps, which the fault's time is taken from) and partly while the
// probe runs; every step is recorded in meta.json (results.Step) as it is
// done, and recovery starts whatever a step left stopped.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// next is the broker after b in node id order, wrapping round: the second
// broker two-brokers kills.
func next(brokers map[string]int32, b string) string {
	svcs := make([]string, 0, len(brokers))
	for s := range brokers {
		svcs = append(svcs, s)
	}
	slices.SortFunc(svcs, func(x, y string) int { return int(brokers[x]) - int(brokers[y]) })
	i := slices.Index(svcs, b)
	if i < 0 || len(svcs) < 2 {
		return ""
	}
	return svcs[(i+1)%len(svcs)]
}

// injectTimeout bounds one injection past Ctrl-C, as fault does.
func (t *trial) injectTimeout(kind results.FaultKind) time.Duration {
	limit := t.o.InjectTimeout
	if limit <= 0 {
		limit = DefaultInjectTimeout
	}
	switch kind {
	case results.FaultSIGTERM:
		limit += t.o.Grace
	case results.FaultDiskFull, results.FaultDiskError:
		limit += t.haltWait()
	}
	return limit
}

// haltWait is how long a disk-full fault waits for the broker's process to
// end: the rest of the trial's probing.
func (t *trial) haltWait() time.Duration {
	return max(t.o.Duration-t.o.FaultAfter, time.Second)
}

// step injects kind (sigkill, sigterm or pause) into the node svc, records
// it as a step and returns what the injector saw. Once a signal is sent its
// effect is awaited through Ctrl-C, for a bounded time.
func (t *trial) step(ctx context.Context, svc string, kind results.FaultKind, note string) (results.Fault, error) {
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.injectTimeout(kind))
	defer cancel()
	f, err := t.r.Target.Inject(ictx, cluster.Fault{Broker: svc, Kind: kind, Grace: t.o.Grace})
	if f.Broker == "" {
		return f, fmt.Errorf("%s %s: %w", kind, svc, err)
	}
	f.NodeID = t.r.Target.Brokers()[svc]
	s := results.Step{Node: svc, NodeID: f.NodeID, Sent: f.SignalSent.UTC(), ExitCode: f.ExitCode, Escalated: f.Escalated, Note: note}
	switch kind {
	case results.FaultSIGKILL:
		s.Action, s.At = results.StepKill, f.Finished
	case results.FaultSIGTERM:
		s.Action, s.At = results.StepStop, f.Finished
	case results.FaultPause:
		s.Action, s.At = results.StepPause, f.Paused
	}
	t.addStep(s)
	if err != nil {
		return f, fmt.Errorf("%s %s: %w", kind, svc, err)
	}
	if f.Escalated {
		t.r.say("step: %s of %s outlived its grace %v and was SIGKILLed", kind, svc, t.o.Grace)
	} else {
		t.r.say("step: %s of %s", kind, svc)
	}
	return f, nil
}

// start starts (or unpauses) svc again and records it.
func (t *trial) start(ctx context.Context, svc, note string) error {
	sent := time.Now().UTC()
	if err := t.r.Target.Restart(ctx, svc); err != nil {
		return fmt.Errorf("start %s: %w", svc, err)
	}
	t.addStep(results.Step{Action: results.StepStart, Node: svc, NodeID: t.r.Target.Brokers()[svc], Sent: sent, At: time.Now().UTC(), Note: note})
	t.r.say("step: %s started", svc)
	return nil
}

// addStep records s in meta.json at once: a trial cut short keeps it.
func (t *trial) addStep(s results.Step) {
	t.meta.Steps = append(t.meta.Steps, s)
	if err := t.rec.Save(); err != nil {
		t.meta.Notes = append(t.meta.Notes, "steps not saved: "+err.Error())
	}
}

// stepsFault does the first steps of a fault of several steps; the first
// becomes the trial's Fault. It is fault's counterpart.
func (t *trial) stepsFault(ctx context.Context) (attempted bool, err error) {
	t.setPhase(string(t.o.Kill))
	t.faultAt = time.Now()
	switch t.o.Kill {
	case results.FaultTwoBrokers:
		second := next(t.r.Target.Brokers(), t.o.Broker)
		if second == "" {
			return false, fmt.Errorf("%s: the cluster has no second broker beside %s", t.o.Kill, t.o.Broker)
		}
		if err := t.first(ctx, t.o.Broker, results.FaultSIGKILL, "the first of two"); err != nil {
			return true, err
		}
		if ctx.Err() != nil { // Ctrl-C: no second broker down
			return true, ctx.Err()
		}
		if _, err := t.step(ctx, second, results.FaultSIGKILL, "the second of two"); err != nil {
			return true, err
		}
		return true, nil
	case results.FaultRolling:
		return true, t.first(ctx, t.o.Broker, results.FaultSIGTERM, "the roll's first broker")
	case results.FaultLastReplica:
		f := t.followers()
		if len(f) < 2 {
			return false, fmt.Errorf("%s: partition 0 has %d followers beside %s, want 2", t.o.Kill, len(f), t.o.Broker)
		}
		return true, t.first(ctx, f[0], results.FaultSIGTERM, "the first follower of partition 0")
	case results.FaultControllerKill, results.FaultControllerPause:
		q := t.r.Target.Quorum()
		if q == nil { // refused by Check; a Runner built without it fails here
			return false, fmt.Errorf("%s: the target cannot say which controller is active", t.o.Kill)
		}
		svc, id, epoch, err := q.ActiveController(ctx)
		if err != nil {
			return false, fmt.Errorf("%s: find the active controller: %w", t.o.Kill, err)
		}
		t.quorum = quorumState{svc: svc, id: id, epoch: epoch}
		kind := results.FaultSIGKILL
		if t.o.Kill == results.FaultControllerPause {
			kind = results.FaultPause
		}
		err = t.first(ctx, svc, kind, fmt.Sprintf("the active controller (node %d, epoch %d)", id, epoch))
		if t.meta.Fault != nil {
			t.meta.Fault.NodeID = id
			t.meta.Steps[len(t.meta.Steps)-1].NodeID = id
		}
		return true, err
	}
	return false, fmt.Errorf("%s: not a fault of several steps", t.o.Kill)
}

// first does the first step, recording it as the trial's Fault too, under
// the trial's fault kind: its time is the fault's, and its action (the
// step just recorded) says how the analysis dates and explains it.
func (t *trial) first(ctx context.Context, svc string, kind results.FaultKind, note string) error {
	f, err := t.step(ctx, svc, kind, note)
	if f.Broker != "" {
		f.Kind = t.o.Kill
		f.FirstStep = t.meta.Steps[len(t.meta.Steps)-1].Action
		t.noteChoice(&f)
		t.meta.Fault = &f
		if serr := t.rec.Save(); serr != nil {
			err = errors.Join(err, serr)
		}
	}
	return err
}

// laterSteps does the steps due while the probe runs, and returns when
// probing may end: end, or later when the steps need it.
func (t *trial) laterSteps(ctx context.Context, end time.Time) time.Time {
	wait := func(at time.Time) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Until(at)):
			return true
		}
	}
	switch t.o.Kill {
	case results.FaultTwoBrokers:
		after := t.o.ReturnAfter
		if after <= 0 {
			after = (t.o.Duration - t.o.FaultAfter) / 2
		}
		second := next(t.r.Target.Brokers(), t.o.Broker)
		if wait(t.faultAt.Add(after)) {
			if err := t.start(ctx, second, "the second broker back; the first stays down until recovery"); err != nil {
				t.meta.Notes = append(t.meta.Notes, "step failed: "+err.Error())
			}
		}
	case results.FaultControllerKill, results.FaultControllerPause:
		last := t.quorum
		if t.o.Kill == results.FaultControllerPause && t.o.ReturnAfter > 0 {
			back := t.faultAt.Add(t.o.ReturnAfter)
			last = t.watchQuorum(ctx, last, back, false)
			if !wait(back) {
				return end
			}
			if err := t.start(ctx, t.quorum.svc, fmt.Sprintf("the paused controller thawed after --return-after %v", t.o.ReturnAfter)); err != nil {
				t.meta.Notes = append(t.meta.Notes, "step failed: "+err.Error())
			}
		}
		t.watchQuorum(ctx, last, end, t.o.Settle > 0)
	case results.FaultLastReplica:
		t.lastReplica(ctx, wait)
	case results.FaultRolling:
		if done, ok := t.roll(ctx); ok {
			end = later(end, done.Add(RollTail))
		}
	}
	return end
}

// RollTail is how long a rolling restart goes on being probed after its
// last ISR filled: long enough for a follower's fetch backoff and the
// clients' metadata refresh to settle.
const RollTail = 10 * time.Second

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// roll finishes a rolling restart whose first broker stopped at the fault:
// it starts it again and waits for every ISR, then stops, starts and waits
// for each other broker in node id order. It returns when the last ISR
// filled, and false when it did not get that far (Ctrl-C or a failed step,
// noted in meta.json; recovery starts what is down).
func (t *trial) roll(ctx context.Context) (time.Time, bool) {
	fail := func(err error) (time.Time, bool) {
		if ctx.Err() == nil {
			t.meta.Notes = append(t.meta.Notes, "the roll stopped: "+err.Error())
			t.r.say("the roll stopped: %v", err)
		}
		return time.Time{}, false
	}
	topics := t.r.Target.TopicNames()
	b := t.o.Broker
	for {
		if err := t.start(ctx, b, "rolled"); err != nil {
			return fail(err)
		}
		wctx, cancel := context.WithTimeout(ctx, t.o.RecoveryTimeout)
		err := t.r.Target.WaitISRFull(wctx, topics...)
		cancel()
		if err != nil {
			return fail(fmt.Errorf("wait for full ISRs after %s: %w", b, err))
		}
		now := time.Now().UTC()
		t.addStep(results.Step{Action: results.StepISRFull, At: now, Note: "after " + b})
		t.r.say("step: every ISR full after %s", b)
		b = next(t.r.Target.Brokers(), b)
		if b == t.o.Broker || b == "" {
			return now, true
		}
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		if _, err := t.step(ctx, b, results.FaultSIGTERM, "rolled"); err != nil {
			return fail(err)
		}
	}
}

// undoSteps starts every node a step left stopped or paused, other than
// the faulted broker, which recovery starts itself.
func (t *trial) undoSteps(ctx context.Context) error {
	down := map[string]bool{}
	var order []string
	for _, s := range t.meta.Steps {
		switch s.Action {
		case results.StepKill, results.StepStop, results.StepPause:
			if !slices.Contains(order, s.Node) {
				order = append(order, s.Node)
			}
			down[s.Node] = true
		case results.StepStart:
			down[s.Node] = false
		}
	}
	var errs []error
	for _, svc := range order {
		if !down[svc] || svc == t.o.Broker {
			continue
		}
		err := t.start(ctx, svc, "recovery")
		if errors.Is(err, cluster.ErrAlreadyRunning) {
			continue
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// rejoinPoll is how often recovery asks whether a restarted controller
// is back in the quorum.
const rejoinPoll = 250 * time.Millisecond

// waitRejoined waits, after a controller fault, until the controller the
// fault hit has caught up with the quorum's leader since since: a quorum of
// three with one voter still behind survives no second fault, so the next
// trial must not start before.
func (t *trial) waitRejoined(ctx context.Context, since time.Time) error {
	q := t.r.Target.Quorum()
	if q == nil || !t.o.Kill.Controller() || t.meta.Fault == nil {
		return nil
	}
	id := t.meta.Fault.NodeID
	for {
		ok, where, err := q.Rejoined(ctx, id, since)
		if ok {
			return nil
		}
		if err != nil {
			where = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("controller %d not back in the quorum: %s: %w", id, where, ctx.Err())
		case <-time.After(rejoinPoll):
		}
	}
}

// quorumState is the quorum's leader before a controller fault.
type quorumState struct {
	svc       string
	id, epoch int32
}

// succeeded reports whether leader id at epoch, as an answer names it,
// took the quorum over from s. Raft elects every leader at a higher epoch
// than the last, and has at most one leader per epoch, so an answer at s's
// epoch or before is s itself or a stale view of it (a broker forwarding
// to the controller it last knew); id -1 is an election still under way.
func (s quorumState) succeeded(id, epoch int32) bool {
	return id >= 0 && epoch > s.epoch
}

// watchQuorum asks the quorum for its leader about every 100 ms until end
// or ctx, and records each new leader it names after last as a step, and
// returns the last it named: when the data
// path's controller came back, as the quorum itself says. The target asks
// the controllers themselves where it can, so the step comes within a
// question's time of the election, which the new leader's own log line
// dates in the report. With first it
// returns at the first new leader: the quorum has recovered, and probing
// settles from then (Options.Settle) rather than at the cap, with the
// faulted controller started again only at recovery, after probing.
func (t *trial) watchQuorum(ctx context.Context, last quorumState, end time.Time, first bool) quorumState {
	q := t.r.Target.Quorum() // not nil: stepsFault checked it
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(end) {
		select {
		case <-ctx.Done():
			return last
		case <-tick.C:
		}
		actx, cancel := context.WithTimeout(ctx, time.Second)
		svc, id, epoch, err := q.ActiveController(actx)
		cancel()
		if err != nil || !last.succeeded(id, epoch) {
			continue // no leader yet, or the same one
		}
		last = quorumState{svc: svc, id: id, epoch: epoch}
		t.addStep(results.Step{Action: results.StepQuorumLeader, Node: svc, NodeID: id, At: time.Now().UTC(), Note: fmt.Sprintf("epoch %d", epoch)})
		t.r.say("step: the quorum's leader is now %s (node %d, epoch %d)", svc, id, epoch)
		if first {
			return last
		}
	}
	return last
}

// followers are partition 0's replicas other than the faulted broker, by
// service, in replica order.
func (t *trial) followers() []string {
	byID := map[int32]string{}
	for svc, id := range t.r.Target.Brokers() {
		byID[id] = svc
	}
	var out []string
	for _, id := range t.meta.Probe.Replicas[0] {
		if svc, ok := byID[id]; ok && svc != t.o.Broker {
			out = append(out, svc)
		}
	}
	return out
}

// lastReplica does last-replica's steps after the first follower stopped,
// a fifth of the time left after the fault apart: the second follower
// stopped, the leader stopped (LastStep), both followers started, the
// leader started; the last fifth watches what it led to.
func (t *trial) lastReplica(ctx context.Context, wait func(time.Time) bool) {
	gap := (t.o.Duration - t.o.FaultAfter) / 5
	f := t.followers()
	last := t.o.LastStep
	if last == "" {
		last = results.FaultSIGKILL
	}
	plan := []func() error{
		func() error {
			_, err := t.step(ctx, f[1], results.FaultSIGTERM, "the second follower: the leader alone in the ISR")
			return err
		},
		func() error {
			_, err := t.step(ctx, t.o.Broker, last, "the leader, the last replica in the ISR")
			return err
		},
		func() error {
			return errors.Join(t.start(ctx, f[0], "a follower back, the leader down"), t.start(ctx, f[1], "a follower back, the leader down"))
		},
		func() error { return t.start(ctx, t.o.Broker, "the old leader back") },
	}
	for i, do := range plan {
		if !wait(t.faultAt.Add(time.Duration(i+1) * gap)) {
			return
		}
		if err := do(); err != nil {
			t.meta.Notes = append(t.meta.Notes, "step failed: "+err.Error())
			t.r.say("step failed: %v", err)
			return
		}
	}
}
