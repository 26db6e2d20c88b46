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

	"github.com/kbf-project/kbf/chaos"
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
	if kind == chaos.SigTerm {
		limit += t.o.Grace
	}
	return limit
}

// step injects kind (sigkill, sigterm or pause) into the node svc, records
// it as a step and returns what the injector saw. Once a signal is sent its
// effect is awaited through Ctrl-C, for a bounded time.
func (t *trial) step(ctx context.Context, svc string, kind results.FaultKind, note string) (results.Fault, error) {
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.injectTimeout(kind))
	defer cancel()
	f, err := t.r.Faults.Inject(ictx, chaos.Fault{Broker: svc, Signal: kind, Grace: t.o.Grace})
	if f.Broker == "" {
		return f, fmt.Errorf("%s %s: %w", kind, svc, err)
	}
	f.NodeID = t.r.Cluster.Brokers()[svc]
	s := results.Step{Node: svc, NodeID: f.NodeID, Sent: f.SignalSent.UTC(), ExitCode: f.ExitCode, Escalated: f.Escalated, Note: note}
	switch kind {
	case chaos.SigKill:
		s.Action, s.At = results.StepKill, f.Finished
	case chaos.SigTerm:
		s.Action, s.At = results.StepStop, f.Finished
	case chaos.Pause:
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
	if err := t.r.Faults.Restart(ctx, svc); err != nil {
		return fmt.Errorf("start %s: %w", svc, err)
	}
	t.addStep(results.Step{Action: results.StepStart, Node: svc, NodeID: t.r.Cluster.Brokers()[svc], Sent: sent, At: time.Now().UTC(), Note: note})
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
		second := next(t.r.Cluster.Brokers(), t.o.Broker)
		if second == "" {
			return false, fmt.Errorf("%s: the cluster has no second broker beside %s", t.o.Kill, t.o.Broker)
		}
		if err := t.first(ctx, t.o.Broker, chaos.SigKill, "the first of two"); err != nil {
			return true, err
		}
		if ctx.Err() != nil { // Ctrl-C: no second broker down
			return true, ctx.Err()
		}
		if _, err := t.step(ctx, second, chaos.SigKill, "the second of two"); err != nil {
			return true, err
		}
		return true, nil
	}
	return false, fmt.Errorf("%s: not a fault of several steps", t.o.Kill)
}

// first does the first step, recording it as the trial's Fault too, under
// the trial's fault kind: its time is the fault's.
func (t *trial) first(ctx context.Context, svc string, kind results.FaultKind, note string) error {
	f, err := t.step(ctx, svc, kind, note)
	if f.Broker != "" {
		f.Kind = t.o.Kill
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
		second := next(t.r.Cluster.Brokers(), t.o.Broker)
		if wait(t.faultAt.Add(after)) {
			if err := t.start(ctx, second, "the second broker back; the first stays down until recovery"); err != nil {
				t.meta.Notes = append(t.meta.Notes, "step failed: "+err.Error())
			}
		}
	}
	return end
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
		if errors.Is(err, chaos.ErrAlreadyRunning) {
			continue
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
