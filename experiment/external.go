package experiment

// An external fault (results.FaultExternal) is made by something else: a
// script, a chaos tool, a person. kbf runs its baseline, says it is ready,
// and dates the fault from what it sees: the cluster's metadata (a broker
// gone or fenced, a leader moved, an ISR shrunk) and the probe (a
// partition stalled). The trial ends when every partition is healthy again
// or at the duration's cap; recovery does nothing to the cluster.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// External are an external fault's settings.
type External struct {
	// ReadyFile, when set, is created once the baseline is healthy, so a
	// script waiting for it injects right then.
	ReadyFile string
	// OnReady, when set, is run through the shell once the baseline is
	// healthy; kbf does not wait for it to end.
	OnReady string
	// Dir is where OnReady runs; empty: kbf's working directory.
	Dir string
	// Margin is how long every partition must ack and read steadily, with
	// its ISR full, for the cluster to count as healed; zero: the
	// baseline's period.
	Margin time.Duration
}

// View is the cluster as its metadata shows it at one moment.
type View struct {
	At time.Time
	// Brokers are the registered brokers, by node id: true when fenced.
	Brokers    map[int32]bool
	Partitions []Partition
}

// Observer is a target that can show the cluster's view, as an external
// fault needs: the target of a remote cluster.
type Observer interface {
	View(ctx context.Context, topic string) (View, error)
}

// ClusterSign compares the view before the fault with one after and
// returns the first change that shows a fault, and true; false when none.
// A broker gone from the metadata comes first, then one fenced, then, by
// partition, a leader moved and an ISR shrunk: the broker each names is
// the one the fault hit (the old leader, the replica out of the ISR).
func ClusterSign(before, now View) (results.Sign, bool) {
	sign := func(id int32, format string, a ...any) (results.Sign, bool) {
		return results.Sign{At: now.At.UTC(), Seen: now.At.UTC(), Source: results.SignCluster, NodeID: id, What: fmt.Sprintf(format, a...)}, true
	}
	ids := make([]int32, 0, len(before.Brokers))
	for id := range before.Brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if _, ok := now.Brokers[id]; !ok && now.Brokers != nil {
			return sign(id, "broker %d gone from the metadata", id)
		}
	}
	for _, id := range ids {
		if now.Brokers[id] && !before.Brokers[id] {
			return sign(id, "broker %d fenced", id)
		}
	}
	after := make(map[int32]Partition, len(now.Partitions))
	for _, p := range now.Partitions {
		after[p.Partition] = p
	}
	for _, b := range before.Partitions {
		a, ok := after[b.Partition]
		if !ok {
			continue
		}
		if a.Leader != b.Leader {
			return sign(b.Leader, "partition %d's leader moved from %d to %d", b.Partition, b.Leader, a.Leader)
		}
		for _, id := range b.ISR {
			if !slices.Contains(a.ISR, id) {
				return sign(id, "partition %d's ISR lost %d (%v to %v)", b.Partition, id, b.ISR, a.ISR)
			}
		}
	}
	return results.Sign{}, false
}

// ProbeSign returns the first probed partition that stalled at now: no ack
// or no read for longer than bound. It is dated by the partition's last
// ack before the stall, or its last read when no ack stalled (reads lag
// acks, so a read stall dates the fault later or earlier than it was),
// the latest time the fault cannot precede, and names the partition's
// leader in before: only a guess at the broker (FaultedNode prefers the
// cluster's sign).
func ProbeSign(now time.Time, bound time.Duration, stats []probe.PartitionStats, before []Partition) (results.Sign, bool) {
	leader := map[int32]int32{}
	for _, p := range before {
		leader[p.Partition] = p.Leader
	}
	for _, what := range []string{"ack", "read"} {
		var first results.Sign
		found := false
		for _, st := range stats {
			last := st.LastAck
			if what == "read" {
				last = st.LastRecv
			}
			if last.IsZero() || now.Sub(last) <= bound || (found && !last.Before(first.At)) {
				continue
			}
			id, ok := leader[st.Partition]
			if !ok {
				id = -1
			}
			first = results.Sign{At: last.UTC(), Seen: now.UTC(), Source: results.SignProbe, NodeID: id,
				What: fmt.Sprintf("partition %d: no %s for %.2f s since %s (led by %d)", st.Partition, what, now.Sub(last).Seconds(), last.UTC().Format("15:04:05.000"), id)}
			found = true
		}
		if found {
			return first, true
		}
	}
	return results.Sign{}, false
}

// healed applies the baseline's rule, but for the leaders: after an
// external fault nothing moves them back, so a partition led by any of
// its replicas, with its whole replica set in sync, is whole.
func healed(now time.Time, period, bound time.Duration, stats []probe.PartitionStats, parts []Partition) *Unhealthy {
	led := make([]Partition, len(parts))
	for i, p := range parts {
		led[i] = p
		if j := slices.Index(p.Replicas, p.Leader); j > 0 {
			// The leader put first, so Steady's preferred-leader rule holds.
			r := slices.Clone(p.Replicas)
			r[0], r[j] = r[j], r[0]
			led[i].Replicas = r
		}
	}
	return Steady(now, period, bound, stats, led)
}

// externalEvery is how often the cluster's view is asked for while kbf
// waits for an external fault.
const externalEvery = 100 * time.Millisecond

// externalFault says kbf is ready, then watches until it sees the fault or
// the trial's duration is over. The fault is recorded once seen; a fault
// never seen is an error.
func (t *trial) externalFault(ctx context.Context) (bool, error) {
	t.setPhase("ready")
	obs, ok := t.r.Target.(Observer)
	if !ok {
		return false, Unsupportedf("fault %s: the target cannot show the cluster's metadata", results.FaultExternal)
	}
	cfg := t.p.Config()
	before, err := obs.View(ctx, cfg.Topic)
	if err != nil {
		return false, fmt.Errorf("the cluster's view before the fault: %w", err)
	}
	ready := time.Now()
	f := &results.Fault{Broker: "?", NodeID: -1, Kind: results.FaultExternal, SignalSent: ready.UTC()}
	t.r.say("ready: the baseline is healthy; inject the fault now (kbf watches the cluster and the probe)")
	if x := t.o.External.ReadyFile; x != "" {
		if err := os.WriteFile(x, []byte(ready.UTC().Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
			t.meta.Notes = append(t.meta.Notes, "ready file not written: "+err.Error())
		}
	}
	if c := t.o.External.OnReady; c != "" {
		cmd := exec.Command("/bin/sh", "-c", c)
		cmd.Dir = t.o.External.Dir
		if err := cmd.Start(); err != nil {
			t.meta.Notes = append(t.meta.Notes, "--on-ready not run: "+err.Error())
		} else {
			go cmd.Wait() // kbf measures; it does not wait for the injector
		}
	}
	t.faultAt = ready
	t.setPhase("watching")
	end := t.end.Load().(time.Time) // the duration's cap, from the probe's start
	bound := cfg.SteadyBound()
	var seen []results.Sign
	tick := time.NewTicker(externalEvery)
	defer tick.Stop()
	// The probe's first stall is taken a bound after it is first seen:
	// by then every partition the fault stalled has stalled, and an ack
	// stall, which dates it better than a read's, is among them.
	var stalled time.Time
	for len(seen) < 2 {
		if !hasSource(seen, results.SignProbe) {
			now := time.Now()
			if ps, ok := ProbeSign(now, bound, t.p.Progress(), before.Partitions); ok {
				if stalled.IsZero() {
					stalled = now
				}
				if now.Sub(stalled) >= bound {
					seen = append(seen, ps)
					t.r.say("seen: %s", ps.What)
				}
			} else {
				stalled = time.Time{} // a blip that ended
			}
		}
		if !hasSource(seen, results.SignCluster) {
			if v, err := obs.View(ctx, cfg.Topic); err == nil {
				if cs, ok := ClusterSign(before, v); ok {
					seen = append(seen, cs)
					t.r.say("seen: %s", cs.What)
				}
			}
		}
		if len(seen) > 0 && time.Since(seen[0].Seen) > 30*time.Second {
			break // the other source may never show it (a follower's fault, a short blip)
		}
		select {
		case <-ctx.Done():
			return len(seen) > 0, t.recordSigns(f, seen)
		case <-time.After(time.Until(end)):
			if err := t.recordSigns(f, seen); err != nil {
				return false, err
			}
			if len(seen) == 0 {
				t.r.say("no fault seen within --duration %v: the trial measured none", t.o.Duration)
				t.meta.Notes = append(t.meta.Notes, "external fault: none seen within the duration")
			}
			return len(seen) > 0, nil
		case <-tick.C:
		}
	}
	return true, t.recordSigns(f, seen)
}

func hasSource(ss []results.Sign, src string) bool {
	return slices.ContainsFunc(ss, func(s results.Sign) bool { return s.Source == src })
}

// FaultedNode is the node an external fault hit, by its signs: the
// cluster's where it saw one, as it names the broker it fenced or moved
// away from; else the probe's, the stalled partition's leader, a guess,
// since under acks=all a follower's death stalls its partitions too.
func FaultedNode(signs []results.Sign) int32 {
	for _, s := range signs {
		if s.Source == results.SignCluster {
			return s.NodeID
		}
	}
	if len(signs) == 0 {
		return -1
	}
	return signs[0].NodeID
}

// recordSigns writes the fault, its signs earliest first and its broker
// (FaultedNode), into meta.json.
func (t *trial) recordSigns(f *results.Fault, seen []results.Sign) error {
	if len(seen) == 0 {
		return nil
	}
	slices.SortStableFunc(seen, func(a, b results.Sign) int { return a.At.Compare(b.At) })
	f.Signs = seen
	f.NodeID = FaultedNode(seen)
	f.Broker = fmt.Sprint(f.NodeID)
	for svc, id := range t.r.Target.Brokers() {
		if id == f.NodeID {
			f.Broker = svc
		}
	}
	t.meta.Fault = f
	t.r.say("the fault is dated %s by the %s (%s); the broker: %s", seen[0].At.Format("15:04:05.000"), seen[0].Source, seen[0].What, f.Broker)
	return t.rec.Save()
}

// externalProbing probes on until every partition is healthy again for the
// margin (healed), or the duration's cap.
func (t *trial) externalProbing(ctx context.Context) {
	t.setPhase("healing")
	end := t.end.Load().(time.Time)
	cfg := t.p.Config()
	margin := t.o.External.Margin
	if margin <= 0 {
		margin = t.o.Baseline.Period
	}
	var parts []Partition
	var asked time.Time
	for {
		now := time.Now()
		if now.Sub(asked) >= time.Second {
			parts, _ = t.r.Target.Partitions(ctx, cfg.Topic)
			asked = now
		}
		if t.meta.Fault != nil && now.Sub(t.faultAt) > margin && len(parts) > 0 && healed(now, margin, cfg.SteadyBound(), t.p.Progress(), parts) == nil {
			t.r.say("healed: every partition acked and read steadily for %v, every ISR full", margin)
			t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("external fault: the cluster healed; probing ended %s, %v of steady health after", now.UTC().Format(time.RFC3339Nano), margin))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(end)):
			t.meta.Notes = append(t.meta.Notes, "external fault: not healed within --duration "+t.o.Duration.String())
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// awaitHealed is recovery after an external fault: kbf broke nothing, so
// it undoes nothing; it waits for every ISR to be full and says whether the
// cluster healed.
func (t *trial) awaitHealed(ctx context.Context) error {
	t.setPhase("recovery")
	rc := &results.Recovery{}
	t.meta.Recovery = rc
	topics := t.r.Target.TopicNames()
	if err := t.r.Target.WaitISRFull(ctx, topics...); err != nil {
		rc.Err = "not healed: " + err.Error()
		t.r.say("recovery: the cluster has not healed (%v); kbf did not break it and leaves it as it is", err)
		return nil
	}
	rc.ISRFull = time.Now().UTC()
	ok, err := t.r.Target.LeadersPreferred(ctx, topics...)
	if err == nil {
		rc.LeadersBack = ok
	}
	t.r.say("recovery: healed, every ISR full; leaders on their preferred replicas: %v (kbf moves none)", ok)
	return nil
}
