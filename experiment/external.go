package experiment

// An external fault (results.FaultExternal) is made by something else: a
// script, a chaos tool, a person. kbf runs its baseline, says it is ready,
// and dates the fault from what it sees: the cluster's metadata (a broker
// gone or fenced, a leader moved, an ISR shrunk) and the probe (a
// partition stalled). The trial ends when every partition is healthy again
// or at the duration's cap — past it, while the probe has seen the fault
// and the cluster not yet (a fence comes a session timeout after a kill),
// until the cluster shows it, heals, or --recovery-timeout; recovery does
// nothing to the cluster. A stall the cluster showed no sign of that heals
// within the baseline's noise is set aside before the cap (noiseStall), and
// the watch goes on for a sign that holds. The run names the broker only by the cluster's
// sign; without one it says unknown, and the analysis names it from what
// was measured (the analysis).

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/cluster"
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

// ClusterSign compares the view before the fault with one after and
// returns the first change that shows a fault, and true; false when none.
// A broker gone from the metadata comes first, then one fenced, then, by
// partition, a leader moved and an ISR shrunk: the broker each names is
// the one the fault hit (the old leader, the replica out of the ISR).
func ClusterSign(before, now cluster.View) (results.Sign, bool) {
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
	for _, id := range now.Silent {
		if _, known := before.Brokers[id]; known && !slices.Contains(before.Silent, id) {
			return sign(id, "broker %d stopped answering (the others answer)", id)
		}
	}
	after := make(map[int32]cluster.Partition, len(now.Partitions))
	for _, p := range now.Partitions {
		after[p.Partition] = p
	}
	for _, b := range before.Partitions {
		a, ok := after[b.Partition]
		if !ok {
			continue
		}
		if a.Leader != b.Leader && !preferredElection(b, a, now) {
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

// preferredElection reports whether a partition's leader moved from
// before to after as the controller's preferred-leader election moves it
// back once a broker has returned: to its preferred replica, from a broker
// that is still registered, unfenced and in the ISR. That is the cluster
// healing, not a fault's sign, and it names no broker that failed (a stall
// it causes is still the probe's sign).
func preferredElection(before, after cluster.Partition, now cluster.View) bool {
	if len(after.Replicas) == 0 || after.Leader != after.Replicas[0] || before.Leader < 0 {
		return false
	}
	fenced, registered := now.Brokers[before.Leader]
	return registered && !fenced && slices.Contains(after.ISR, before.Leader)
}

// ProbeSign returns the probe's sign of a fault at now: the earliest stall,
// past bound, of any probed partition's acks, or else of its reads, that
// began after since (kbf's ready) — still going on at now, or one that
// already ended (PartitionStats.LastAckGap), so a stall shorter than the
// time kbf took to look is not lost. It is dated by the partition's last
// ack (or read) before the stall, the latest time the fault cannot precede
// (reads lag acks, so a read stall dates it less well). It names no
// broker: under acks=all a follower's death stalls every partition it
// follows, so the stalled partition's leader is no more likely the one hit
// than any other replica (the analysis names it from the evidence).
func ProbeSign(now, since time.Time, bound time.Duration, stats []probe.PartitionStats) (results.Sign, bool) {
	stalled := 0
	for _, st := range stats {
		if stalledAt(now, bound, st) {
			stalled++
		}
	}
	for _, what := range []string{"ack", "read"} {
		var first results.Sign
		found := false
		for _, st := range stats {
			last, gap, steady := st.LastAck, st.LastAckGap, st.AckSteadySince
			if what == "read" {
				last, gap, steady = st.LastRecv, st.LastRecvGap, st.RecvSteadySince
			}
			var from time.Time
			var long time.Duration
			var ended bool
			switch {
			case !last.IsZero() && now.Sub(last) > bound:
				from, long = last, now.Sub(last)
			case gap > bound && !steady.IsZero():
				from, long, ended = steady.Add(-gap), gap, true
			default:
				continue
			}
			if from.Before(since) || (found && !from.Before(first.At)) {
				continue
			}
			how := fmt.Sprintf("no %s for %.2f s since %s", what, long.Seconds(), from.UTC().Format("15:04:05.000"))
			if ended {
				how = fmt.Sprintf("no %s for %.2f s from %s, ended by %s", what, long.Seconds(), from.UTC().Format("15:04:05.000"), now.UTC().Format("15:04:05.000"))
			}
			first = results.Sign{At: from.UTC(), Seen: now.UTC(), Source: results.SignProbe, NodeID: -1,
				What: fmt.Sprintf("partition %d: %s (%d of %d partitions stalled)", st.Partition, how, stalled, len(stats))}
			found = true
		}
		if found {
			return first, true
		}
	}
	return results.Sign{}, false
}

// stalledAt reports whether st's acks or reads have stopped for longer than
// bound at now.
func stalledAt(now time.Time, bound time.Duration, st probe.PartitionStats) bool {
	return !st.LastAck.IsZero() && now.Sub(st.LastAck) > bound || !st.LastRecv.IsZero() && now.Sub(st.LastRecv) > bound
}

// everyStalled reports whether every probed partition has stalled at now.
func everyStalled(now time.Time, bound time.Duration, stats []probe.PartitionStats) bool {
	if len(stats) == 0 {
		return false
	}
	for _, st := range stats {
		if !stalledAt(now, bound, st) {
			return false
		}
	}
	return true
}

// healed applies the baseline's rule, but for the leaders: after an
// external fault nothing moves them back, so a partition led by any of
// its replicas, with its whole replica set in sync, is whole.
func healed(now time.Time, period, bound time.Duration, stats []probe.PartitionStats, parts []cluster.Partition) *Unhealthy {
	led := make([]cluster.Partition, len(parts))
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

// externalEvery is how often the cluster's view is asked for, and the
// probe's progress looked at, while kbf waits for an external fault.
const externalEvery = 100 * time.Millisecond

// signWatch gathers an external fault's signs as the probe's progress and
// the cluster's views come in. It only decides; the trial feeds it.
type signWatch struct {
	before cluster.View
	since  time.Time // kbf's ready: earlier stalls are the baseline's
	bound  time.Duration
	// pending is the probe's stall first seen at pendingAt, held for a
	// further bound: by then every partition the fault stalled has
	// stalled, and an ack stall, which dates it better than a read's, is
	// among them. A stall that ends sooner is still a sign.
	pending   *results.Sign
	pendingAt time.Time
	signs     []results.Sign // in the order seen
}

func (w *signWatch) has(src string) bool { return hasSource(w.signs, src) }

// progress takes the probe's progress at now; it returns the probe's sign
// once it is taken.
func (w *signWatch) progress(now time.Time, stats []probe.PartitionStats) (results.Sign, bool) {
	if w.has(results.SignProbe) {
		return results.Sign{}, false
	}
	ps, ok := ProbeSign(now, w.since, w.bound, stats)
	switch {
	case ok && w.pending == nil:
		w.pending, w.pendingAt = &ps, now
		return results.Sign{}, false
	case ok && (ps.At.Before(w.pending.At) || isAckStall(ps) && !isAckStall(*w.pending)):
		w.pending = &ps
	}
	if w.pending != nil && (!ok || now.Sub(w.pendingAt) >= w.bound) {
		s := *w.pending
		w.pending = nil
		w.signs = append(w.signs, s)
		return s, true
	}
	return results.Sign{}, false
}

func isAckStall(s results.Sign) bool { return strings.Contains(s.What, ": no ack ") }

// viewResult is one look at the cluster: its view asked at asked, or the
// error; silent is set, on an error, when no broker answered either when
// asked alone.
type viewResult struct {
	asked  time.Time
	v      cluster.View
	err    error
	silent bool
}

// view takes one look at the cluster, with the probe's progress at now;
// it returns the cluster's sign once seen. A view that fails while every
// partition has stalled and no broker answers alone is a sign too: the
// whole cluster (results.BrokerCluster), every node frozen or cut off —
// it names no single broker. One that fails while some broker answers says
// nothing: a single paused broker can fail a request sent through it.
func (w *signWatch) view(now time.Time, r viewResult, stats []probe.PartitionStats) (results.Sign, bool) {
	if w.has(results.SignCluster) {
		return results.Sign{}, false
	}
	var s results.Sign
	ok := false
	switch {
	case r.err == nil:
		s, ok = ClusterSign(w.before, r.v)
	case r.silent && everyStalled(now, w.bound, stats):
		s = results.Sign{At: r.asked.UTC(), Seen: now.UTC(), Source: results.SignCluster, NodeID: -1,
			What: fmt.Sprintf("no broker answered (%v) while every partition stalled: the whole cluster, no single broker", r.err)}
		ok = true
	}
	if ok {
		w.signs = append(w.signs, s)
	}
	return s, ok
}

// externalWatch is the trial's watch of an external fault, from kbf's
// ready to the end of probing.
type externalWatch struct {
	w     signWatch
	views <-chan viewResult
	stop  context.CancelFunc
	fault *results.Fault
	saved int // how many signs the fault record holds
}

// watchViews asks for the cluster's view every externalEvery until ctx
// ends, on its own goroutine so that a view that hangs (a frozen cluster)
// does not hold up the probe's watch.
func (t *trial) watchViews(ctx context.Context, obs cluster.Observer, topic string) <-chan viewResult {
	out := make(chan viewResult)
	go func() {
		for ctx.Err() == nil {
			r := viewResult{asked: time.Now()}
			r.v, r.err = obs.View(ctx, topic)
			if r.err != nil && ctx.Err() == nil {
				r.silent = !t.anyAnswers(ctx, topic)
			}
			select {
			case out <- r:
			case <-ctx.Done():
				return
			}
			if err := sleepUntil(ctx, r.asked.Add(externalEvery)); err != nil {
				return
			}
		}
	}()
	return out
}

// anyAnswers reports whether any broker, asked alone for at most
// askTimeout, describes the partitions.
func (t *trial) anyAnswers(ctx context.Context, topic string) bool {
	brokers := t.r.Target.Brokers()
	answered := make(chan bool, len(brokers))
	for _, id := range brokers {
		go func() {
			actx, cancel := context.WithTimeout(ctx, askTimeout)
			defer cancel()
			_, err := t.r.Target.PartitionsSeenBy(actx, topic, id)
			answered <- err == nil
		}()
	}
	any := false
	for range brokers {
		any = <-answered || any
	}
	return any
}

// watchStep feeds the watch what came in — a view, or a tick for the probe's
// progress — and records the fault when it has a new sign.
func (t *trial) watchStep(x *externalWatch, r *viewResult) error {
	now := time.Now()
	var s results.Sign
	var ok bool
	if r != nil {
		s, ok = x.w.view(now, *r, t.p.Progress())
	} else {
		s, ok = x.w.progress(now, t.p.Progress())
	}
	t.checkOnReady()
	if !ok {
		return nil
	}
	t.r.say("seen: the %s's sign: %s", s.Source, s.What)
	return t.recordSigns(x)
}

// externalFault says kbf is ready, then watches until it sees the fault or
// the trial's duration is over. The fault is recorded once seen; the
// watch goes on through externalProbing.
func (t *trial) externalFault(ctx context.Context) (bool, error) {
	t.setPhase("ready")
	obs := t.r.Target.Observer()
	if obs == nil {
		return false, cluster.Unsupportedf("fault %s: the target cannot show the cluster's metadata", results.FaultExternal)
	}
	cfg := t.p.Config()
	before, err := obs.View(ctx, cfg.Topic)
	if err != nil {
		return false, fmt.Errorf("the cluster's view before the fault: %w", err)
	}
	ready := time.Now()
	t.r.say("ready: the baseline is healthy; inject the fault now (kbf watches the cluster and the probe)")
	if x := t.o.External.ReadyFile; x != "" {
		if err := os.WriteFile(x, []byte(ready.UTC().Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
			t.meta.Notes = append(t.meta.Notes, "ready file not written: "+err.Error())
		}
	}
	t.startOnReady()
	t.faultAt = ready
	t.setPhase("watching")
	vctx, stop := context.WithCancel(ctx)
	x := &externalWatch{
		w:     signWatch{before: before, since: ready, bound: cfg.SteadyBound()},
		views: t.watchViews(vctx, obs, cfg.Topic),
		stop:  stop,
		fault: &results.Fault{Broker: results.BrokerUnknown, NodeID: -1, Kind: results.FaultExternal, SignalSent: ready.UTC()},
	}
	t.noteChoice(x.fault)
	t.ext = x
	found, err := t.awaitSign(ctx, x)
	if !found || err != nil {
		stop()
	}
	return found, err
}

// awaitSign watches until x has a sign of the fault, or the duration's cap
// is over (a stall being confirmed is seen to its end, past it): found
// says which. It is the watch before the fault, and again after a stall
// set aside (setAside).
func (t *trial) awaitSign(ctx context.Context, x *externalWatch) (found bool, err error) {
	end := t.end.Load().(time.Time) // the duration's cap, from the probe's start
	tick := time.NewTicker(externalEvery)
	defer tick.Stop()
	for len(x.w.signs) == 0 {
		select {
		case <-ctx.Done():
			return false, nil
		case r := <-x.views:
			err = t.watchStep(x, &r)
		case <-tick.C:
			err = t.watchStep(x, nil)
		}
		if err != nil {
			return len(x.w.signs) > 0, err
		}
		if len(x.w.signs) == 0 && x.w.pending == nil && !time.Now().Before(end) {
			t.r.say("no fault seen within --duration %v: the trial measured none", t.o.Duration)
			t.meta.Notes = append(t.meta.Notes, "external fault: none seen within the duration")
			return false, nil
		}
	}
	return true, nil
}

// noiseFactor times the baseline's steady bound is the noise a stall the
// cluster showed no sign of may stay within and be set aside: the baseline
// held every ack and read gap under the bound as steady, so a stall of
// about that length, gone as it came, is the machine's hiccup (other
// processes holding the CPUs for a moment), not a broker's failure.
const noiseFactor = 2

// noiseStall says whether the signs x saw are a stall to set aside rather than
// the fault: none from the cluster, and every stall the probe saw since
// x.w.since already over and no longer than noise. why says what it was.
func noiseStall(signs []results.Sign, since time.Time, noise time.Duration, stats []probe.PartitionStats) (why string, ok bool) {
	if len(signs) == 0 || hasSource(signs, results.SignCluster) {
		return "", false
	}
	var longest time.Duration
	var part int32
	var from time.Time
	for _, st := range stats {
		for _, g := range []struct {
			gap    time.Duration
			steady time.Time
			last   time.Time
		}{{st.LastAckGap, st.AckSteadySince, st.LastAck}, {st.LastRecvGap, st.RecvSteadySince, st.LastRecv}} {
			if !g.last.IsZero() && g.last.Before(since) {
				return "", false // stalled since before the watch began
			}
			if g.gap <= 0 || g.steady.IsZero() || g.steady.Add(-g.gap).Before(since) {
				continue
			}
			if g.gap > longest {
				longest, part, from = g.gap, st.Partition, g.steady.Add(-g.gap)
			}
		}
	}
	if longest <= 0 || longest > noise {
		return "", false
	}
	return fmt.Sprintf("a stall of %.2f s at most (p%d from %s) that the cluster showed no sign of, over within the noise of %.2f s (%d × the baseline's steady bound)",
		longest.Seconds(), part, from.UTC().Format("15:04:05.000"), noise.Seconds(), noiseFactor), true
}

// setAside drops the signs x holds, a hiccup (why), from the fault's
// record, says so, and has x watch on from now for a sign that holds.
func (t *trial) setAside(x *externalWatch, why string, now time.Time) error {
	t.r.say("set aside: %s; watching on until --duration %v", why, t.o.Duration)
	t.meta.Notes = append(t.meta.Notes, "external fault: set aside "+why+"; the fault is dated by the first sign after it")
	x.w.signs, x.w.pending, x.w.since, x.saved = nil, nil, now, 0
	x.fault = &results.Fault{Broker: results.BrokerUnknown, NodeID: -1, Kind: results.FaultExternal, SignalSent: x.fault.SignalSent}
	t.noteChoice(x.fault)
	t.meta.Fault = nil
	return t.rec.Save()
}

// noiseStall is noiseStall of the signs x holds since its watch began; false for
// no watch.
func (x *externalWatch) noiseStall(noise time.Duration, stats []probe.PartitionStats) (string, bool) {
	if x == nil {
		return "", false
	}
	return noiseStall(x.w.signs, x.w.since, noise, stats)
}

func hasSource(ss []results.Sign, src string) bool {
	return slices.ContainsFunc(ss, func(s results.Sign) bool { return s.Source == src })
}

// FaultedNode is the node an external fault hit, by its signs, and its
// name when it is none: the first cluster sign's broker, the one it saw
// fenced, gone or moved away from; -1 and results.BrokerCluster when that
// sign was the whole cluster not answering; else -1 and
// results.BrokerUnknown. The probe's signs name no broker: under acks=all
// a follower's death stalls every partition it follows.
func FaultedNode(signs []results.Sign) (int32, string) {
	for _, s := range signs {
		if s.Source == results.SignCluster {
			if s.NodeID < 0 {
				return -1, results.BrokerCluster
			}
			return s.NodeID, ""
		}
	}
	return -1, results.BrokerUnknown
}

// recordSigns writes the fault, its signs earliest first and its broker
// (FaultedNode), into meta.json.
func (t *trial) recordSigns(x *externalWatch) error {
	f := x.fault
	first := x.saved == 0
	x.saved = len(x.w.signs)
	seen := slices.Clone(x.w.signs)
	slices.SortStableFunc(seen, func(a, b results.Sign) int { return a.At.Compare(b.At) })
	f.Signs = seen
	id, name := FaultedNode(seen)
	named := id != f.NodeID || name != f.Broker && name != ""
	f.NodeID, f.Broker = id, name
	if f.Broker == "" {
		f.Broker = fmt.Sprint(id)
		for svc, b := range t.r.Target.Brokers() {
			if b == id {
				f.Broker = svc
			}
		}
	}
	t.meta.Fault = f
	switch {
	case first:
		t.r.say("the fault is dated %s by the %s (%s); the broker: %s", seen[0].At.Format("15:04:05.000"), seen[0].Source, seen[0].What, brokerSaid(f))
	case named:
		t.r.say("the broker: %s", brokerSaid(f))
	}
	return t.rec.Save()
}

// brokerSaid is the fault's broker as the run's lines say it.
func brokerSaid(f *results.Fault) string {
	switch {
	case f.NodeID >= 0:
		return fmt.Sprintf("%s (node %d, by the cluster's sign)", f.Broker, f.NodeID)
	case f.Broker == results.BrokerCluster:
		return "the whole cluster, no single broker"
	}
	return "unknown so far: no sign of the cluster's names one (the report names it from what was measured)"
}

// externalProbing probes on until every partition is healthy again for
// the margin (healed), or the duration's cap, watching on for the fault's
// signs. A fault the probe saw but the cluster has not yet shown (its
// fence comes a session timeout after a kill) is probed past the cap,
// until the cluster shows it, the cluster heals, or --recovery-timeout.
func (t *trial) externalProbing(ctx context.Context) {
	t.setPhase("healing")
	x := t.ext
	if x != nil {
		defer x.stop()
	}
	if t.meta.Fault == nil {
		return // none seen within the cap (externalFault said so): nothing heals
	}
	end := t.end.Load().(time.Time)
	cfg := t.p.Config()
	margin := t.o.External.Margin
	if margin <= 0 {
		margin = t.o.Baseline.Period
	}
	var parts []cluster.Partition
	var asked time.Time
	extended := false
	tick := time.NewTicker(externalEvery)
	defer tick.Stop()
	for {
		now := time.Now()
		if now.Sub(asked) >= time.Second {
			parts, _ = t.r.Target.Partitions(ctx, cfg.Topic)
			asked = now
		}
		if t.meta.Fault != nil && now.Sub(t.faultAt) > margin && len(parts) > 0 && healed(now, margin, cfg.SteadyBound(), t.p.Progress(), parts) == nil {
			if why, ok := x.noiseStall(noiseFactor*cfg.SteadyBound(), t.p.Progress()); ok && now.Before(end) {
				if err := t.setAside(x, why, now); err != nil {
					t.meta.Notes = append(t.meta.Notes, "external fault: its record not saved: "+err.Error())
				}
				if found, _ := t.awaitSign(ctx, x); !found {
					return
				}
				end = t.end.Load().(time.Time)
				continue
			}
			t.r.say("healed: every partition acked and read steadily for %v, every ISR full", margin)
			t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("external fault: the cluster healed; probing ended %s, %v of steady health after", now.UTC().Format(time.RFC3339Nano), margin))
			return
		}
		waiting := x != nil && t.meta.Fault != nil && !x.w.has(results.SignCluster)
		if extended && !waiting {
			t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("external fault: probing ended %s, once the cluster showed the fault", now.UTC().Format(time.RFC3339Nano)))
			return
		}
		if !now.Before(end) {
			switch {
			case waiting && !extended:
				extended = true
				end = end.Add(t.o.RecoveryTimeout)
				t.end.Store(end)
				t.r.say("--duration is over; the cluster has shown no sign of the fault yet: probing on until it does, heals, or --recovery-timeout %v", t.o.RecoveryTimeout)
				t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("external fault: probed past --duration %v, as the cluster had shown no sign of it", t.o.Duration))
			case extended:
				t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("external fault: the cluster showed no sign of it and did not heal within --recovery-timeout %v after --duration", t.o.RecoveryTimeout))
				return
			default:
				t.meta.Notes = append(t.meta.Notes, "external fault: not healed within --duration "+t.o.Duration.String())
				return
			}
		}
		var views <-chan viewResult
		if x != nil {
			views = x.views
		}
		var err error
		select {
		case <-ctx.Done():
			return
		case r := <-views:
			err = t.watchStep(x, &r)
		case <-tick.C:
			if x != nil {
				err = t.watchStep(x, nil)
			}
		}
		if err != nil {
			t.meta.Notes = append(t.meta.Notes, "external fault: its record not saved: "+err.Error())
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
