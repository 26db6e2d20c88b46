package analysis

import (
	"fmt"
	"slices"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// What a network cut adds to the stalls: a broker cut from the controller
// only leads on until it is fenced, so its partition's stall begins then,
// not at the cut, and a consumer fetching from it may never notice; a
// broker cut from the clients only is healthy to the cluster, so nothing
// is elected and its partition stalls until the heal.

// lastReceived follows, per partition, the latest receive the probe
// recorded, so the analysis can tell a consumer that stopped for good.
type lastReceived map[int32]time.Time

func (l lastReceived) add(m *results.Message) {
	if !m.Received.IsZero() && m.Received.After(l[m.Partition]) {
		l[m.Partition] = m.Received
	}
}

// explainCut returns the stalls with what the network fault f explains
// added: why a stall began after the cut, and a consumer that never moved
// again (last, each partition's last receive, beside its gaps in g).
func explainCut(ev *evidence, g *gaps.Report, f *results.Fault, stalls []Stall, last lastReceived) []Stall {
	if !f.Kind.Network() {
		return stalls
	}
	stalls = slices.Clone(stalls)
	x := newExplainer(ev, f)
	fence, fenced := ev.tl.Fenced(f.NodeID, ev.F)
	for i := range stalls {
		st := &stalls[i]
		if f.Kind == results.FaultIsolateController && st.Role == results.RoleLed && st.Began > 0 && fenced {
			start := ev.F.Add(st.Began)
			if !fence.Time.After(start) {
				st.Start.Why = fmt.Sprintf("broker %d, cut from the controller only, went on leading and acking for %s after the cut; the stall began %s after the controller fenced it (broker.session.timeout.ms after its last heartbeat): its followers left it for the new leader, so its high watermark could not move",
					f.NodeID, secs(st.Began), secs(start.Sub(fence.Time)))
				st.Start.Evidence, st.Start.Source = fence.Summary(), fence.Source
				st.Start.Settings = []Setting{nodeSetting(x.ctl, x.ctlErr, "", "broker.session.timeout.ms")}
			}
		}
		gp := partitionGaps(g, st.Partition)
		if gp == nil || gp.NotReceived == 0 || gp.Receive.Fault == nil {
			continue
		}
		lr := last[st.Partition]
		if lr.IsZero() || (!st.FirstAck.IsZero() && lr.After(st.FirstAck)) {
			continue
		}
		st.Consumer.Why = fmt.Sprintf("the consumer never moved: its last record came at %s and %d acknowledged records after it were never received; it went on fetching from broker %d, which answered without error and with nothing new, so it had no reason to look for the new leader",
			lr.UTC().Format("15:04:05.000"), gp.NotReceived, st.Leader)
		st.Consumer.Settings = []Setting{x.clientSetting("metadata_max_age")}
	}
	return stalls
}

// cutStalls are the stalls of a cut from the clients only, where the node
// logs show nothing: the cluster saw the broker healthy, so no phase of
// detection or election exists, and the stall is the cut's.
func cutStalls(ev *evidence, g *gaps.Report, roles map[int32]results.Role, f *results.Fault) []Stall {
	if f.Kind != results.FaultIsolateClients {
		return nil
	}
	var out []Stall
	for _, gp := range g.Partitions {
		g := gp.Ack.Fault
		if g == nil {
			continue
		}
		st, _ := newStall(ev, gp, roleOf(roles, gp.Partition))
		switch st.Role {
		case results.RoleLed:
			st.Note = fmt.Sprintf("the cluster saw broker %d healthy (it still reached the controller and its followers), so it was neither fenced nor replaced: nothing was elected, and the partition it led stalled for as long as the clients were cut from it", f.NodeID)
			if g.Open {
				st.Note += ", to the end of the probe"
			}
		default:
			st.Note = fmt.Sprintf("broker %d still fetched from the leader as a follower, so the ISR and the high watermark moved as before: no stall of the fault's", f.NodeID)
		}
		out = append(out, st)
	}
	return out
}

// partitionGaps are partition p's gaps in g; nil for a partition g has not.
func partitionGaps(g *gaps.Report, p int32) *gaps.Partition {
	for i := range g.Partitions {
		if g.Partitions[i].Partition == p {
			return &g.Partitions[i]
		}
	}
	return nil
}
