package analysis

import (
	"fmt"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
	"github.com/kbf-project/kbf/verdict"
)

// A cut between brokers only (isolate-replication) fences nothing: the
// broker still heartbeats to the controller and still serves its clients.
// acks=all waits on the silent replica until a leader drops it from the
// ISR, replica.lag.time.max.ms after it last caught up: on a partition the
// broker follows, its leader drops it; on one it leads, it drops its own
// followers, which it can no longer hear, and is left alone in the ISR.
// Each stall is split at that leader's "Shrinking ISR" line.

// PhaseLag is a stall's wait for a leader to drop a replica it no longer
// hears from the ISR, replica.lag.time.max.ms after the replica last caught
// up (isolate-replication).
const PhaseLag = "lag"

// lagSetting is the leader's setting the lag phase waits for.
const lagSetting = "replica.lag.time.max.ms"

// replicationPhases splits the stalls of a cut from the other brokers
// only: each at the ISR shrink of its partition's leader.
func replicationPhases(ev *evidence, g *gaps.Report, roles map[int32]results.Role, f *results.Fault) phases {
	x := newExplainer(ev, f)
	out := phases{boundaries: []Boundary{faultBoundary(ev, f)}}
	for _, gp := range g.Partitions {
		if gp.Ack.Fault == nil {
			continue
		}
		st, bdy := replicationStall(ev, x, gp, roleOf(roles, gp.Partition), f)
		if bdy != nil {
			out.boundaries = append(out.boundaries, *bdy)
		}
		out.stalls = append(out.stalls, st)
	}
	sortBoundaries(out.boundaries)
	return out
}

// replicationStall is one partition's stall, and the ISR shrink that
// bounds it when the logs show one.
func replicationStall(ev *evidence, x *explainer, gp gaps.Partition, role results.Role, f *results.Fault) (Stall, *Boundary) {
	g := gp.Ack.Fault
	st, prev := newStall(ev, gp, role)
	shrink, ok := replicationShrink(ev.tl, ev.meta.Probe.Topic, gp.Partition, role, f, ev.F)
	if !ok {
		st.Note = fmt.Sprintf("no leader's ISR shrink of this partition is in the logs after the cut: the stall is not split into phases (%s on the leader bounds it)", lagSetting)
		return st, nil
	}
	bdy := &Boundary{Kind: BoundaryISRShrunk, Time: shrink.Time, Phase: PhaseLag, Partition: gp.Partition, Role: role,
		Broker: f.NodeID, Evidence: shrink.Summary(), Source: shrink.Source}
	if shrink.Time.Before(prev) || (!st.FirstAck.IsZero() && shrink.Time.After(st.FirstAck)) {
		st.Note = fmt.Sprintf("the leader's ISR shrink [%s] at %s is outside the stall (%s ~ %s), so it bounds no phase of it",
			shrink.Source, clock(shrink.Time), clock(prev), clock(g.End))
		return st, bdy
	}
	bdy.InStall = true
	c := chain{prev: prev}
	lag := Phase{Name: PhaseLag, End: shrink.Time, Explanation: Explanation{Evidence: shrink.Summary(), Source: shrink.Source}}
	leaderNode := brokerService(ev.meta, shrink.Broker)
	cfg, err := x.brokerConfig(leaderNode)
	lag.Settings = []Setting{nodeSetting(cfg, err, leaderNode, lagSetting)}
	lag.Setting = lagSetting + " on the leader (how long a replica may stop catching up before it leaves the ISR; the leader checks every half of it, so the shrink comes 1 to 1.5 times it after the cut)"
	if role == results.RoleLed {
		lag.Why = fmt.Sprintf("broker %d, cut from the other brokers only, still led the partition and heard none of its followers: acks=all waited on them until it dropped them from the ISR, %s after the cut (%s %s)",
			f.NodeID, secs(shrink.Time.Sub(prev)), lagSetting, lag.Settings[0].Value)
	} else {
		lag.Why = fmt.Sprintf("broker %d, cut from the other brokers only, stopped fetching from leader %d while the controller still saw it alive, so nothing fenced it: acks=all waited on it until the leader dropped it from the ISR, %s after the cut (%s %s)",
			f.NodeID, shrink.Broker, secs(shrink.Time.Sub(prev)), lagSetting, lag.Settings[0].Value)
	}
	lag.Bound = lagBound(lag.Settings[0], ev.F, prev, shrink)
	st.Phases = append(st.Phases, c.phase(lag))
	if st.FirstAck.IsZero() {
		if role == results.RoleLed && len(shrink.ISR) < 2 {
			st.Note = fmt.Sprintf("broker %d was left alone in the ISR (%s): fewer than min.insync.replicas, so its acks=all writes were refused (NOT_ENOUGH_REPLICAS) until the cut was healed; no one elected another leader, since the controller still saw it alive", f.NodeID, shrink.Summary())
		}
		return st, bdy
	}
	first := Phase{Name: PhaseFirstAck, End: st.FirstAck}
	if role == results.RoleLed && len(shrink.ISR) < 2 {
		// Alone in the ISR, the leader refuses acks=all writes until its
		// followers are back in it: after the heal (a failback's).
		first.Why = fmt.Sprintf("broker %d, alone in the ISR, refused acks=all writes (NOT_ENOUGH_REPLICAS) until the cut was healed and its followers caught up and rejoined the ISR", f.NodeID)
	} else {
		first.Why = "the leader acknowledged the records it was holding once the smaller ISR let its high watermark move"
		x.firstAck(&st, &first, shrink.Time)
	}
	st.Phases = append(st.Phases, c.phase(first))
	return st, bdy
}

// replicationShrink is the ISR shrink that ends a stall of the cut at F: on
// a partition the faulted broker led, its own shrink of the ISR to fewer
// members; on one it followed, the leader's ISR without it.
func replicationShrink(tl *timeline.Timeline, topic string, p int32, role results.Role, f *results.Fault, F time.Time) (timeline.Event, bool) {
	if role == results.RoleLed {
		return tl.First(F, timeline.ForPartition(topic, p), timeline.OfKind(timeline.KindISRShrink),
			func(e *timeline.Event) bool { return e.Broker == f.NodeID })
	}
	return tl.First(F, timeline.ForPartition(topic, p), timeline.OfKind(timeline.KindISRShrink),
		func(e *timeline.Event) bool { return !e.InISR(f.NodeID) })
}

// brokerService is the service of broker id in m; "" when unknown.
func brokerService(m *results.Meta, id int32) string {
	for svc, b := range m.Cluster.Brokers {
		if b == id {
			return svc
		}
	}
	return ""
}

// confirmReplicationCut makes v invalid when the cluster's own lines do not
// show a cut from the other brokers taking effect: no leader dropped the
// faulted broker from an ISR of the probed topic, nor the broker its own
// followers, after the cut. A trial shorter than replica.lag.time.max.ms
// shows none. Without node logs there is nothing to confirm it from, and
// the verdict is left as it is.
func confirmReplicationCut(v *verdict.Verdict, ev *evidence, f *results.Fault) {
	if v == nil || f == nil || f.Kind != results.FaultIsolateReplication || ev.tl == nil || ev.F.IsZero() || !hasNodeEvidence(ev.tl) {
		return
	}
	topic := ev.meta.Probe.Topic
	if _, ok := ev.tl.First(ev.F, timeline.OfKind(timeline.KindISRShrink), func(e *timeline.Event) bool {
		return e.Topic == topic && (e.Broker == f.NodeID || !e.InISR(f.NodeID))
	}); ok {
		return
	}
	v.Add(verdict.Invalid, verdict.FaultNotConfirmed, fmt.Sprintf(
		"no ISR of %s shrank after the cut (no leader dropped broker %d, nor it its followers): the cluster's logs do not show the cut from the other brokers taking effect; probe longer than %s (--duration)",
		topic, f.NodeID, lagSetting))
}
