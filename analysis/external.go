package analysis

// An external fault is made by something else, so the broker it hit is
// not known from what kbf did: it is named from the evidence, the
// strongest first — the cluster's own sign as the run saw it (a broker
// fenced or gone from the metadata), then the replica view (the broker
// that stopped answering, the one whose log end offset froze first, the
// one that left the ISRs), then the clients (the leader they moved away
// from) — and "unknown" when none names one or two disagree. The probe's
// stall names none: under acks=all a follower's death stalls every
// partition it follows.

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// The evidence that named an external fault's broker (ExternalBroker.By).
const (
	ByCluster  = "cluster"  // the cluster's sign, seen by the run
	ByReplicas = "replicas" // the replica view (replicas.csv)
	ByClients  = "clients"  // the clients' leader moves (client.log)
	ByNone     = "none"     // nothing named one, or the evidence disagrees
)

// ExternalBroker is the broker an external fault hit, as the analysis
// names it, and why.
type ExternalBroker struct {
	// NodeID is -1 when no single broker is named: Broker is then
	// results.BrokerUnknown, or results.BrokerCluster for the whole
	// cluster.
	NodeID int32
	Broker string
	By     string
	// Evidence says what named it, or why none is named.
	Evidence string
}

// candidate is one kind of evidence's answer: the broker it names (-1
// none, -2 the whole cluster) and what it saw.
type candidate struct {
	by   string
	id   int32
	what string
}

const wholeCluster = -2

// externalBroker names the broker an external fault f hit, its fault
// dated F, from its signs, the replica view rv and the timeline's client
// leader moves. brokers names the node ids.
func externalBroker(f *results.Fault, rv *ReplicaView, tl *timeline.Timeline, F time.Time, brokers map[string]int32) ExternalBroker {
	var cands []candidate
	for _, s := range f.Signs {
		if s.Source != results.SignCluster {
			continue
		}
		c := candidate{by: ByCluster, id: s.NodeID, what: "the cluster's sign: " + s.What}
		if s.NodeID < 0 {
			c.id = wholeCluster
		}
		cands = append(cands, c)
		break
	}
	if rv != nil {
		cands = append(cands, replicaEvidence(rv, F)...)
	}
	if tl != nil {
		if c, ok := clientEvidence(tl.All(timeline.OfKind(timeline.KindClientLeader)), F); ok {
			cands = append(cands, c)
		}
	}
	return decide(cands, brokers)
}

// decide names the broker by the strongest candidate; a weaker one that
// names another leaves it unknown, unless the cluster's own sign named it.
func decide(cands []candidate, brokers map[string]int32) ExternalBroker {
	if len(cands) == 0 {
		return ExternalBroker{NodeID: -1, Broker: results.BrokerUnknown, By: ByNone,
			Evidence: "no sign of the cluster's, no broker silent, frozen first or out of the ISRs in the replica view, no leader move in the clients' logs"}
	}
	top := cands[0]
	var also, against []string
	for _, c := range cands[1:] {
		if c.id == top.id {
			also = append(also, c.what)
		} else {
			against = append(against, c.what)
		}
	}
	if len(against) > 0 && top.by != ByCluster {
		return ExternalBroker{NodeID: -1, Broker: results.BrokerUnknown, By: ByNone,
			Evidence: "the evidence disagrees: " + strings.Join(append([]string{top.what}, against...), "; ")}
	}
	e := ExternalBroker{NodeID: top.id, By: top.by, Evidence: strings.Join(append([]string{top.what}, also...), "; ")}
	switch {
	case top.id == wholeCluster:
		e.NodeID, e.Broker = -1, results.BrokerCluster
	default:
		e.Broker = fmt.Sprint(top.id)
		for svc, id := range brokers {
			if id == top.id {
				e.Broker = svc
			}
		}
	}
	if len(against) > 0 {
		e.Evidence += "; though " + strings.Join(against, "; ")
	}
	return e
}

// replicaEvidence is what the replica view says of the broker hit, the
// strongest first: the one broker that stopped answering while the others
// answered on (or all of them: the whole cluster); the one whose log end
// offset froze first, before any other replica's; the one broker that
// left every ISR it was in.
func replicaEvidence(rv *ReplicaView, F time.Time) []candidate {
	var out []candidate
	if n := len(rv.Silent); n > 0 {
		first := rv.Silent[0]
		others := 0
		for b, at := range rv.Answered {
			if b != first.Broker && at.After(first.FirstError) && !slices.ContainsFunc(rv.Silent, func(s SilentBroker) bool {
				return s.Broker == b && !s.FirstError.After(first.FirstError.Add(time.Second))
			}) {
				others++
			}
		}
		switch {
		case others > 0 && (n == 1 || rv.Silent[1].FirstError.Sub(first.FirstError) > time.Second):
			out = append(out, candidate{ByReplicas, first.Broker, fmt.Sprintf("the replica view: broker %d stopped answering at %s (%s), its last answer at %s, while the others answered on",
				first.Broker, clock(first.FirstError), first.Err, clock(first.LastAnswer))})
		case others == 0 && n == len(rv.Answered) && n > 1:
			out = append(out, candidate{ByReplicas, wholeCluster, fmt.Sprintf("the replica view: every broker stopped answering from %s (%s)", clock(first.FirstError), first.Err)})
		}
	}
	// The first LEO to freeze, by broker.
	froze := map[int32]time.Time{}
	for _, p := range rv.Partitions {
		for _, fr := range p.Frozen {
			if at, ok := froze[fr.Broker]; !ok || fr.Stopped.Before(at) {
				froze[fr.Broker] = fr.Stopped
			}
		}
	}
	if id, at, ok := earliest(froze); ok {
		out = append(out, candidate{ByReplicas, id, fmt.Sprintf("the replica view: broker %d's log end offset froze first, at %s", id, clock(at))})
	}
	// The broker that left every ISR it was in at the fault.
	left := map[int32]bool{}
	for _, p := range rv.Partitions {
		if len(p.Changes) < 2 {
			continue
		}
		was := p.Changes[0].ISR
		for _, c := range p.Changes[1:] {
			for _, id := range was {
				if !slices.Contains(c.ISR, id) {
					left[id] = true
				}
			}
		}
	}
	var gone []int32
	for id := range left {
		gone = append(gone, id)
	}
	if len(gone) == 1 {
		out = append(out, candidate{ByReplicas, gone[0], fmt.Sprintf("the replica view: broker %d left the ISRs", gone[0])})
	}
	return out
}

// freezeMargin is how much sooner than any other one broker's log end
// offset must freeze to be named: under acks=all the live replicas freeze
// too, a batch later, and the view samples each every 100 ms or so.
const freezeMargin = 250 * time.Millisecond

// earliest returns the broker whose time is earliest by freezeMargin.
func earliest(at map[int32]time.Time) (int32, time.Time, bool) {
	ids := make([]int32, 0, len(at))
	for id := range at {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int32) int { return at[a].Compare(at[b]) })
	if len(ids) == 0 || len(ids) > 1 && at[ids[1]].Sub(at[ids[0]]) < freezeMargin {
		return 0, time.Time{}, false
	}
	return ids[0], at[ids[0]], true
}

// clientEvidence is the leader the probe's clients moved away from after
// the fault, when every move was away from the same broker.
func clientEvidence(moves []timeline.Event, F time.Time) (candidate, bool) {
	from := map[int32][]string{}
	for _, e := range moves {
		if e.Time.Before(F) || e.PrevLeader < 0 || e.PrevLeader == e.Leader {
			continue
		}
		from[e.PrevLeader] = append(from[e.PrevLeader], fmt.Sprintf("%s p%d %d -> %d at %s", e.Node, e.Partition, e.PrevLeader, e.Leader, clock(e.Time)))
	}
	if len(from) != 1 {
		return candidate{}, false
	}
	for id, moves := range from {
		if len(moves) > 3 {
			moves = append(moves[:3], fmt.Sprintf("%d more", len(moves)-3))
		}
		return candidate{ByClients, id, fmt.Sprintf("the clients moved away from leader %d (%s)", id, strings.Join(moves, ", "))}, true
	}
	return candidate{}, false
}

// named is the external stage's result: the broker an external fault
// hit, and the note that says what named it.
type named struct {
	// broker is nil for any fault but an external one with signs.
	broker *ExternalBroker
	notes  notes
}

// externalOf names the broker of an external fault (externalBroker) from
// the replica view rv and the evidence ev, and returns the evidence with a
// copy of its metadata whose fault record says it, so every heading and
// analysis after it uses the broker the evidence names; the record on disk
// keeps what the run saw. Any other fault's evidence is returned as it is.
func externalOf(ev *evidence, rv *ReplicaView) (*evidence, named) {
	m := ev.meta
	if m == nil || m.Fault == nil || m.Fault.Kind != results.FaultExternal || len(m.Fault.Signs) == 0 {
		return ev, named{}
	}
	e := externalBroker(m.Fault, rv, ev.tl, ev.F, m.Cluster.Brokers)
	meta, fault := *m, *m.Fault
	fault.NodeID, fault.Broker = e.NodeID, e.Broker
	meta.Fault = &fault
	withName := *ev
	withName.meta = &meta
	return &withName, named{broker: &e, notes: notes{{text: externalNote(e)}}}
}

// externalNote says which broker an external fault hit, and what named it.
func externalNote(e ExternalBroker) string {
	by := map[string]string{ByCluster: "the cluster's sign", ByReplicas: "the replica view", ByClients: "the clients' leader moves"}[e.By]
	switch {
	case e.NodeID >= 0:
		return fmt.Sprintf("external fault: broker %s (node %d), named by %s — %s", e.Broker, e.NodeID, by, e.Evidence)
	case e.Broker == results.BrokerCluster:
		return fmt.Sprintf("external fault: the whole cluster, no single broker, by %s — %s", by, e.Evidence)
	}
	return "external fault: the broker is unknown: " + e.Evidence
}
