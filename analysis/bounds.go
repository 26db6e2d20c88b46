package analysis

import (
	"fmt"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// Bound is the time a phase's settings allow it, worked out from the
// settings in effect (docs/bounds.md derives each): Low < the phase's time
// ≤ High. Where no bound can be stated from the evidence, Stated is false
// and Basis says why; none is ever assumed.
type Bound struct {
	Stated    bool
	Low, High time.Duration
	// Basis is how the bound follows from its settings, in words.
	Basis    string
	Settings []Setting
	// Excess is how far the phase ran beyond High; zero within it.
	Excess time.Duration
}

// Beyond reports whether the phase ran past its bound.
func (b Bound) Beyond() bool { return b.Stated && b.Excess > 0 }

// logResolution is the node logs' time resolution: a bound compared with
// two of their lines allows it at each end.
const logResolution = 2 * time.Millisecond

// measure sets the excess of a phase of duration d over the bound.
func (b *Bound) measure(d time.Duration) {
	if b.Stated && d > b.High+logResolution {
		b.Excess = d - b.High
	}
}

// noBound is a phase with no bound its settings state, and why.
func noBound(why string) Bound { return Bound{Basis: why} }

// faultFacts are the fault's facts every chain and the summary share,
// derived once: the fault, the node it hit, the line that shows the
// controller acting on it (fence, controlled shutdown) and the bound the
// settings put on that detection.
type faultFacts struct {
	f           *results.Fault
	node        int32
	detection   timeline.Event
	detected    bool
	detectBound Bound
}

// factsOf derives the facts of fault f (named: an external fault's node as
// the analysis found it) from the evidence; nil without a fault. Without a
// timeline nothing is detected.
func factsOf(ev *evidence, f *results.Fault, node int32) *faultFacts {
	if f == nil || ev.F.IsZero() || ev.meta == nil {
		return nil
	}
	ff := &faultFacts{f: f, node: node}
	if ev.tl == nil {
		return ff
	}
	ff.detection, ff.detected = detection(ev.tl, f, ev.F)
	if ff.detected {
		ff.detectBound = detectBound(newExplainer(ev, f), f, ff.detection.Kind)
	}
	return ff
}

// detectBound is the bound on the fault's detection, fault (or the quorum's
// takeover) → the controller's line of kind k. A broker that stops
// heartbeating (killed, frozen, cut from the controller) last heartbeat
// within H before the fault; its session is stale S after that, and the
// controller's periodic check, every S/8 (QuorumController's
// maybeFenceStaleBroker), fences it at the first check after: the
// detection lies in (S − H, S + S/8], S = broker.session.timeout.ms, H =
// broker.heartbeat.interval.ms.
func detectBound(x *explainer, f *results.Fault, k timeline.Kind) Bound {
	switch {
	case f.Graceful():
		return noBound("a controlled shutdown is granted once the controller has moved the broker's leaderships: no setting bounds that")
	case k == timeline.KindNewIncarnation:
		return noBound("the restarted broker's registration removed it: when it registers is the restart's time, not a setting's")
	case f.Kind == results.FaultIsolateClients:
		return noBound("a cut from the clients only is detected by no controller")
	}
	sS := x.sessionTimeout()
	hS := nodeSetting(x.ctl, x.ctlErr, "", "broker.heartbeat.interval.ms")
	s, okS := ms(sS)
	h, okH := ms(hS)
	if !okS || !okH {
		return Bound{Basis: "broker.session.timeout.ms or broker.heartbeat.interval.ms could not be read, so no bound is stated", Settings: []Setting{sS, hS}}
	}
	return Bound{Stated: true, Low: s - h, High: s + s/8, Settings: []Setting{sS, hS},
		Basis: fmt.Sprintf("(S − H, S + S/8] = (%s, %s]: the broker last heartbeat within H = %s before the fault, its session is stale S = %s after that, and the controller checks for a stale session every S/8 = %s",
			secs(s-h), secs(s+s/8), secs(h), secs(s), secs(s/8))}
}

// loadBound is the bound on a coordinator's load phase, its leadership →
// its load's end: the time its own log says the load took (took), from
// the line that began it (began, when found).
func loadBound(began timeline.Event, beganOK bool, took timeline.Event) Bound {
	if took.Wait <= 0 {
		return noBound("the coordinator's log does not say how long its load took")
	}
	b := Bound{Stated: true, High: took.Wait,
		Basis: fmt.Sprintf("[0, %s]: the load's own count in its log (%s)", secs(took.Wait), took.Source)}
	if beganOK {
		b.Basis += fmt.Sprintf("; the load began at %s (%s): time before it is the broker's, after its leadership, before it scheduled the load", clock(began.Time), began.Source)
	}
	return b
}

// discoveryBound is the bound on the client's finding the new
// coordinator once it has loaded: the client retries its coordinator
// request at most retry_backoff_max apart, and the failed retry sends it to
// FindCoordinator.
func discoveryBound(rbm Setting) Bound {
	max, ok := clientDuration(rbm)
	if !ok {
		return Bound{Basis: "retry_backoff_max is not in " + results.MetaFile + ", so no bound is stated", Settings: []Setting{rbm}}
	}
	return Bound{Stated: true, High: max, Settings: []Setting{rbm},
		Basis: fmt.Sprintf("[0, %s]: the client retries its request at most retry_backoff_max = %s apart, and the retry that fails asks FindCoordinator", secs(max), rbm.Value)}
}

// leaderDiscoveryBound is the bound on the producer's learning a
// partition's new leader once it leads: a metadata refresh the failed
// produce triggered runs at most metadata_min_age after the one before
// it, and one that found no new leader is retried after at most
// retry_backoff_max.
func leaderDiscoveryBound(x *explainer) Bound {
	minAge, rbm := x.clientSetting("metadata_min_age"), x.clientSetting("retry_backoff_max")
	a, okA := clientDuration(minAge)
	r, okR := clientDuration(rbm)
	if !okA || !okR {
		return Bound{Basis: "metadata_min_age or retry_backoff_max is not in " + results.MetaFile + ", so no bound is stated", Settings: []Setting{minAge, rbm}}
	}
	return Bound{Stated: true, High: a + r, Settings: []Setting{minAge, rbm},
		Basis: fmt.Sprintf("[0, %s]: a refresh runs at most metadata_min_age = %s after the one before it, and one that found no new leader is retried within retry_backoff_max = %s", secs(a+r), minAge.Value, rbm.Value)}
}

// clientDuration reads a client setting written as a Go duration ("1s").
func clientDuration(s Setting) (time.Duration, bool) {
	if s.Source == SourceUnknown {
		return 0, false
	}
	d, err := time.ParseDuration(s.Value)
	return d, err == nil
}

// bound is the bound on st's phase that boundary bd ends, from prev.
func (e *explaining) bound(st *Stall, bd bound, prev time.Time) Bound {
	end := bd.e.Time
	if b, ok := e.lagBound(st, bd, prev); ok {
		return b
	}
	switch bd.name {
	case PhaseDetect:
		return e.ff.detectBound // as detectPhase states it
	case PhaseClient:
		from, ok := e.F, frozen(e.f.Kind)
		if e.f.Kind == results.FaultIsolateController {
			// The old leader, cut from the controller only, answers
			// until its followers leave it for the new leader: from
			// then on it holds the requests it is sent.
			from, ok = prev, true
		}
		if hung, found := e.x.hungProduce(st.Leader, prev, end); found && ok {
			// The request that hung was written when its read began.
			from = hung.Time.Add(-hung.Wait)
		}
		if ok {
			return e.x.inFlightBound(from, prev)
		}
		return leaderDiscoveryBound(e.x)
	case PhaseQuorum:
		return noBound("kbf states no bound on the controller quorum's election")
	case PhaseElect:
		return noBound("the new leader or the smaller ISR follows the controller's change at once: no setting bounds the brokers' own time")
	case PhaseReturn:
		return noBound("the broker's return is its restart's time, not a setting's")
	}
	return noBound("")
}

// frozen reports whether a fault of kind k leaves the broker's process
// alive but silent to the producer (frozen, or cut from the network): a
// request in flight to it is answered by no one and ends at the client's
// timeout.
func frozen(k results.FaultKind) bool {
	return k.Freezes() || k == results.FaultIsolate || k == results.FaultIsolateClients
}

// inFlightBound is the bound on the producer's learning the new leader
// when the old one stopped answering at from (froze at the fault, or,
// cut from the controller only, lost its followers): a produce request
// written to it then is answered by no one until the client's read
// deadline, produce_request_timeout + request_timeout_overhead after it
// was written; franz-go retries it on a new connection to the same broker
// without a metadata update, whose first request (ApiVersions) times out
// after request_timeout_overhead; and a refresh that learns the new
// leader follows within metadata_min_age + retry_backoff_max. The phase
// began at prev.
func (x *explainer) inFlightBound(from, prev time.Time) Bound {
	names := []string{"produce_request_timeout", "request_timeout_overhead", "request_timeout_overhead", "metadata_min_age", "retry_backoff_max"}
	var sum time.Duration
	var ss []Setting
	for i, n := range names {
		s := x.clientSetting(n)
		if i != 2 {
			ss = append(ss, s)
		}
		d, ok := clientDuration(s)
		if !ok {
			return Bound{Basis: n + " is not in " + results.MetaFile + ", so no bound is stated", Settings: ss}
		}
		sum += d
	}
	high := max(from.Add(sum).Sub(prev), 0)
	return Bound{Stated: true, High: high, Settings: ss,
		Basis: fmt.Sprintf("[0, %s]: a request to the leader that no longer answers (from %s) is given up produce_request_timeout + request_timeout_overhead after it was written, retried on a new connection to it whose first request is given up after request_timeout_overhead, and a refresh follows within metadata_min_age + retry_backoff_max: %s after %s in all",
			secs(high), clock(from), secs(sum), clock(from))}
}

// detectPhase is the fault's detection as every chain's phase: from the
// latest boundary before it to the controller's line, why it took its
// time (explainer.detect) and its bound.
func (ff *faultFacts) detectPhase(x *explainer) Phase {
	e := ff.detection
	ph := Phase{Name: PhaseDetect, End: e.Time, Explanation: Explanation{Evidence: e.Summary(), Source: e.Source}, Bound: ff.detectBound}
	x.detect(&ph, e.Kind)
	return ph
}

// detectionEvent is the detection's line; nil for none.
func (ff *faultFacts) detectionEvent() *timeline.Event {
	if ff == nil || !ff.detected {
		return nil
	}
	e := ff.detection
	return &e
}

// lagBound is the bound on a followed partition's ISR wait when the
// broker stayed alive but stopped replicating and no fence came before the
// shrink: its leader dropped it by its lag (lagBound); false otherwise.
func (e *explaining) lagBound(st *Stall, bd bound, prev time.Time) (Bound, bool) {
	if st.Role != results.RoleFollowed || bd.kind != BoundaryISRShrunk || !aliveNotReplicating(e.f.Kind) ||
		(e.detected && !bd.e.Time.Before(e.detect.Time)) {
		return Bound{}, false
	}
	node := brokerService(e.ev.meta, bd.e.Broker)
	cfg, err := e.x.brokerConfig(node)
	return lagBound(nodeSetting(cfg, err, node, lagSetting), e.F, prev, bd.e), true
}

// aliveNotReplicating reports whether a fault of kind k leaves the broker
// alive but no longer replicating: frozen, cut from the network, or its
// disk slowed, so its leader drops it from the ISR by its lag unless the
// controller fences it first.
func aliveNotReplicating(k results.FaultKind) bool {
	return k == results.FaultPause || k == results.FaultIsolate || k == results.FaultIsolateReplication || k == results.FaultDiskSlow
}

// lagBound is the bound on an ISR shrink by lag, fault F → the leader's
// "Shrinking ISR" line e, for a phase that began at start. The leader's
// isr-expiration task (ReplicaManager) runs every L/2, L =
// replica.lag.time.max.ms on the leader, and drops a follower whose last
// catch-up (at the latest the fault) is more than L old
// (Partition.getOutOfSyncReplicas): the line comes in (F + L, F + 1.5·L].
// Only the leader's own decision line is bounded: a line of the applied
// ISR comes after the controller's AlterPartition round trip, which no
// setting bounds.
func lagBound(lag Setting, F, start time.Time, e timeline.Event) Bound {
	if e.Kind != timeline.KindISRShrink {
		return noBound("the line is the ISR as applied, after the controller's AlterPartition round trip, which no setting bounds")
	}
	l, ok := ms(lag)
	if !ok {
		return Bound{Basis: lagSetting + " could not be read, so no bound is stated", Settings: []Setting{lag}}
	}
	low, high := max(F.Add(l).Sub(start), 0), max(F.Add(l+l/2).Sub(start), 0)
	return Bound{Stated: true, Low: low, High: high, Settings: []Setting{lag},
		Basis: fmt.Sprintf("(L, 1.5·L] after the fault, L = %s = %s: the leader checks its followers every L/2 and drops one whose last catch-up, at the latest the fault, is more than L old",
			lagSetting, secs(l))}
}
