package report

import (
	"fmt"
	"slices"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// BoundaryKind is what ended a phase of a stall, as the logs showed it.
type BoundaryKind string

// The boundaries of a stall.
const (
	// BoundaryFault is the fault's start: the trial's time zero.
	BoundaryFault BoundaryKind = "fault"
	// BoundaryFenced: the controller fenced the broker for a session
	// timeout (SIGKILL, pause).
	BoundaryFenced BoundaryKind = "fenced"
	// BoundaryControlledShutdown: the controller granted the broker's
	// controlled shutdown and began moving its leaderships (SIGTERM).
	BoundaryControlledShutdown BoundaryKind = "controlled-shutdown"
	// BoundaryShutdownGranted: the controller granted the broker's final
	// shutdown, where no controlled-shutdown grant was logged (SIGTERM).
	BoundaryShutdownGranted BoundaryKind = "shutdown-granted"
	// BoundaryNewLeader: the partition's new leader started leading it.
	BoundaryNewLeader BoundaryKind = "new-leader"
	// BoundaryISRShrunk: the leader applied an ISR without the broker.
	BoundaryISRShrunk BoundaryKind = "isr-shrunk"
	// BoundaryProducerLearned: the producer learnt the new leader.
	BoundaryProducerLearned BoundaryKind = "producer-learned"
)

// Boundary is one moment the analysis found that bounds a stall's phase: a
// renderer draws it as it is, deciding nothing.
type Boundary struct {
	Kind BoundaryKind `json:"kind"`
	// Time is the phase's end as the stall counts it, or, for a boundary
	// that came while the partition still acked (InStall false), the
	// event's own time.
	Time time.Time `json:"time"`
	// Phase is the phase it ends: PhaseDetect, PhaseElect, PhaseClient.
	Phase string `json:"phase,omitempty"`
	// Partition is the partition it concerns; -1 for one the trial's
	// partitions share (the fault, the detection).
	Partition int32 `json:"partition"`
	// Role is what the faulted broker was to Partition; "" when shared.
	Role results.Role `json:"role,omitempty"`
	// Broker is the new leader (BoundaryNewLeader, BoundaryProducerLearned,
	// when known) or the broker the ISR lost or that was fenced; -1 unknown.
	Broker int32 `json:"broker"`
	// InStall is false for a boundary that came before the partition's
	// stall began: it bounds no phase of it.
	InStall  bool   `json:"in_stall"`
	Evidence string `json:"evidence,omitempty"`
	Source   string `json:"source,omitempty"`
}

// SettingSource says where a setting's value was read.
type SettingSource string

// Where a setting's value comes from.
const (
	// SourceNodeConfig: the configuration a node logged at its start.
	SourceNodeConfig SettingSource = "node-config"
	// SourceClientConfig: the probe's client configuration in meta.json.
	SourceClientConfig SettingSource = "client-config"
	// SourceDefault: the properties the node was started with do not set
	// it, so it had Kafka's default.
	SourceDefault SettingSource = "default"
	// SourceUnknown: the value could not be read. It is never assumed
	// to be the default.
	SourceUnknown SettingSource = "unknown"
)

// Setting is a configuration setting an explanation names: what would
// shorten a phase, and the value it had.
type Setting struct {
	// Name is the setting as its owner spells it: broker.session.timeout.ms
	// for a node's, metadata_min_age for the probe's client.
	Name string `json:"name"`
	// Node is the node whose setting it is ("c1"), "" for the client's.
	Node   string        `json:"node,omitempty"`
	Value  string        `json:"value,omitempty"` // as configured; "" when unknown
	Source SettingSource `json:"source"`
	// Where is where the value was read: "c1/server.log:87",
	// "meta.json"; for an unknown one, why it is unknown.
	Where string `json:"where,omitempty"`
}

// detection returns the event that ends the detection of fault f, at F:
// the controller fencing the broker, or, for a graceful stop (a sigterm, or
// a roll's first stop), granting its controlled shutdown.
func detection(tl *timeline.Timeline, f *results.Fault, F time.Time) (timeline.Event, bool) {
	if f.Graceful() {
		if e, ok := tl.ControlledShutdown(f.NodeID, f.SignalSent); ok {
			return e, true
		}
		return tl.ShutdownGranted(f.NodeID, f.SignalSent)
	}
	return tl.Fenced(f.NodeID, F)
}

func detectionKind(e timeline.Event) BoundaryKind {
	switch e.Kind {
	case timeline.KindControlledShutdown:
		return BoundaryControlledShutdown
	case timeline.KindShutdownGranted, timeline.KindImmediateShutdown:
		return BoundaryShutdownGranted
	}
	return BoundaryFenced
}

type bound struct {
	name string
	kind BoundaryKind
	e    timeline.Event
}

// hasNodeEvidence reports whether the timeline holds any event read from a
// node's log. Without one — the logs absent, empty or holding nothing kbf
// knows — no boundary of a stall can be found, and splitting it would put
// each whole stall in its last phase, blaming what did not happen.
func hasNodeEvidence(tl *timeline.Timeline) bool {
	for _, e := range tl.Events {
		if e.Source != results.MetaFile && e.Kind != timeline.KindClientLeader && e.Kind != timeline.KindClientRedirect {
			return true
		}
	}
	return false
}

// explain splits each partition's ack fault gap into phases, and records
// every boundary it found in tr.Boundaries.
func explain(tr *Trial, f *results.Fault) []Stall {
	tl := tr.Timeline
	F := tr.FaultAt
	topic := tr.Meta.Probe.Topic
	b := f.NodeID

	tr.Boundaries = []Boundary{{Kind: BoundaryFault, Time: F, Partition: -1, Broker: b, InStall: true,
		Evidence: f.Signal() + " " + f.Broker}}
	detect, detected := detection(tl, f, F)
	// The detection is one event the partitions share; its line is drawn
	// at the latest end a stall gave it (ends are never after the event),
	// or at the event where a stall left it out.
	var detectAt time.Time
	detectFound := false

	x := newExplainer(tr, f)
	var out []Stall
	for _, gp := range tr.Gaps.Partitions {
		g := gp.Ack.Fault
		if g == nil {
			continue
		}
		p := gp.Partition
		st := Stall{Partition: p, Leader: -1, NewLeader: -1, Role: results.RoleNone}
		if l, ok := tr.Meta.Probe.Leaders[p]; ok {
			st.Leader = l
		}
		newLeader, leaderMoved := tl.LeaderStarted(topic, p, F)
		st.Role = tr.Role(p) // decided once, in partitionRoles

		var bounds []bound
		if detected {
			bounds = append(bounds, bound{PhaseDetect, detectionKind(detect), detect})
		}
		switch st.Role {
		case results.RoleLed:
			if leaderMoved {
				st.NewLeader = newLeader.Broker
				bounds = append(bounds, bound{PhaseElect, BoundaryNewLeader, newLeader})
			}
			if e, ok := tl.ClientLearnedLeader(results.ClientProducer, topic, p, F); ok {
				bounds = append(bounds, bound{PhaseClient, BoundaryProducerLearned, e})
			}
		case results.RoleFollowed:
			if e, ok := tl.ISRShrunk(topic, p, b, F); ok {
				bounds = append(bounds, bound{PhaseElect, BoundaryISRShrunk, e})
			}
		}

		prev := F
		if g.Start.After(F) && !g.FromFault {
			// The partition kept acking after the fault: its stall starts
			// at its last ack, and what happened before took none of it.
			st.Began = g.Start.Sub(F)
			prev = g.Start
		}
		if !g.Open {
			st.FirstAck = g.End
			st.Total = g.End.Sub(prev)
		}
		if len(bounds) == 0 {
			st.Note = "the logs show no boundary of this stall (no fence or shutdown grant, no new leader or smaller ISR, no client leader change): it is not split into phases"
			if len(tl.Missing) > 0 {
				st.Note += fmt.Sprintf("; missing: %v", tl.Missing)
			}
			out = append(out, st)
			continue
		}
		for _, bd := range bounds {
			bdy := Boundary{Kind: bd.kind, Phase: bd.name, Partition: p, Role: st.Role, Broker: boundaryBroker(bd, b),
				Evidence: bd.e.Summary(), Source: bd.e.Source}
			if bd.name == PhaseDetect {
				bdy.Partition, bdy.Role = -1, ""
			}
			if bd.kind == BoundaryProducerLearned {
				bdy.Broker = st.NewLeader // as the stall names it
			}
			if st.Began > 0 && bd.e.Time.Before(g.Start) {
				// Before the stall: no phase of it, but drawn where it
				// came, if it came before the stall ended.
				if st.FirstAck.IsZero() || !bd.e.Time.After(st.FirstAck) {
					bdy.Time = bd.e.Time
					if bd.name == PhaseDetect {
						detectAt, detectFound = bd.e.Time, true
					} else {
						tr.Boundaries = append(tr.Boundaries, bdy)
					}
				}
				continue
			}
			end := bd.e.Time
			if end.Before(prev) {
				end = prev
			}
			if !st.FirstAck.IsZero() && end.After(st.FirstAck) {
				end = st.FirstAck
			}
			ph := Phase{Name: bd.name, End: end, Duration: end.Sub(prev), Evidence: bd.e.Summary(), Source: bd.e.Source}
			switch bd.name {
			case PhaseDetect:
				x.detect(&ph)
				if !detectFound || end.After(detectAt) {
					detectAt, detectFound = end, true
				}
			case PhaseElect:
				x.elect(&st, &ph, prev)
			case PhaseClient:
				x.client(&st, &ph, prev)
			}
			if bd.name != PhaseDetect {
				bdy.Time, bdy.InStall = end, true
				tr.Boundaries = append(tr.Boundaries, bdy)
			}
			st.Phases = append(st.Phases, ph)
			prev = end
		}
		if !st.FirstAck.IsZero() {
			ph := Phase{Name: PhaseFirstAck, End: st.FirstAck, Duration: st.FirstAck.Sub(prev)}
			x.firstAck(&st, &ph, prev)
			st.Phases = append(st.Phases, ph)
		}
		if r := gp.Receive.Fault; r != nil {
			x.receive(&st, g.Duration(), r.Duration())
		}
		if g.Open && st.Role == results.RoleLed {
			switch r := tr.Meta.Probe.Replicas[p]; {
			case !leaderMoved && len(r) == 1:
				st.Note = fmt.Sprintf("no other replica could take over: broker %d holds the partition's only replica, so it has no leader until the broker returns", b)
			case !leaderMoved:
				st.Note = "no new leader appeared in the logs before the probe stopped"
			default:
				st.Note, st.NoteSettings = x.stuck(b, F, g.End)
			}
		}
		out = append(out, st)
	}
	if detectFound {
		// Before the partitions' own, so that at one time the detection
		// comes first.
		d := Boundary{Kind: detectionKind(detect), Time: detectAt, Phase: PhaseDetect,
			Partition: -1, Broker: b, InStall: true, Evidence: detect.Summary(), Source: detect.Source}
		tr.Boundaries = slices.Insert(tr.Boundaries, 1, d)
	}
	sortBoundaries(tr.Boundaries)
	return out
}

// boundaryBroker is the broker a boundary names: the new leader, or the
// faulted broker for a detection or an ISR without it.
func boundaryBroker(bd bound, faulted int32) int32 {
	switch bd.kind {
	case BoundaryNewLeader:
		return bd.e.Broker
	case BoundaryProducerLearned:
		return bd.e.Leader
	}
	// The fence, the shutdown grant and the smaller ISR concern the
	// faulted broker.
	return faulted
}

// sortBoundaries orders boundaries by time, keeping the order they were
// found in for equal times.
func sortBoundaries(bs []Boundary) {
	for i := 1; i < len(bs); i++ {
		for j := i; j > 0 && bs[j].Time.Before(bs[j-1].Time); j-- {
			bs[j], bs[j-1] = bs[j-1], bs[j]
		}
	}
}

// inReplicas reports whether broker b was in partition p's ISR when the
// fault began, as the timeline last showed it, or, failing that, whether
// the topic's replicas are known to include it.
func (tr *Trial) inReplicas(p, b int32) bool {
	topic := tr.Meta.Probe.Topic
	var last *timeline.Event
	for i := range tr.Timeline.Events {
		e := &tr.Timeline.Events[i]
		if e.Time.After(tr.FaultAt) {
			break
		}
		if e.Topic == topic && e.Partition == p && e.HasISR() {
			last = e
		}
	}
	if last != nil {
		return last.InISR(b)
	}
	if r, ok := tr.Meta.Probe.Replicas[p]; ok {
		for _, id := range r {
			if id == b {
				return true
			}
		}
	}
	return false
}
