package report

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// Stall is one partition's fault stall, from the fault to the first ack
// after it, split into phases by what the timeline shows:
//
//	detect     fault → the controller fences the broker (SIGKILL) or grants
//	           its controlled shutdown (SIGTERM)
//	elect      → the new leader's state-change line, or, where the faulted
//	           broker was a follower, the ISR shrink that drops it
//	client     → the producer learns the new leader (leader partitions only)
//	first ack  → the first successful ack
//
// A boundary the logs do not show is left out and its time falls to the
// next phase; a boundary logged before the previous one (a client can learn
// a leader before the leader's own log line is written) counts as zero.
type Stall struct {
	Partition int32 `json:"partition"`
	// Role is what the faulted broker was to this partition when the fault
	// began: "leader", "follower" or "none".
	Role      string    `json:"role"`
	Leader    int32     `json:"leader"`               // leader before the fault; -1 unknown
	NewLeader int32     `json:"new_leader,omitempty"` // for a leader partition; -1 unknown
	FirstAck  time.Time `json:"first_ack,omitzero"`
	// Began is how long after the fault the partition's last ack before the
	// stall came, when that was after the fault: the partition kept acking
	// for a while, and the phases before Began took none of its time.
	Began time.Duration `json:"-"`
	// Total is fault (or, when Began is set, the last ack) → first ack;
	// zero when no ack came.
	Total  time.Duration `json:"-"`
	Phases []Phase       `json:"phases"`
	// Note says why a stall never ended, when the logs tell.
	Note string `json:"note,omitempty"`
	// ReceiveWhy explains a receive gap longer than the ack gap, and
	// ReceiveSetting names the setting that would shorten it.
	ReceiveWhy     string `json:"receive_why,omitempty"`
	ReceiveSetting string `json:"receive_setting,omitempty"`
}

// Phase is one part of a stall.
type Phase struct {
	Name     string        `json:"name"`
	End      time.Time     `json:"end"`
	Duration time.Duration `json:"-"`
	// Evidence is the event that ends the phase.
	Evidence string `json:"evidence,omitempty"`
	Source   string `json:"source,omitempty"`
	// Why says what the phase waited for; Setting names what would shorten
	// it, if anything.
	Why     string `json:"why,omitempty"`
	Setting string `json:"setting,omitempty"`
}

// MarshalJSON writes the stall with its durations in seconds.
func (st Stall) MarshalJSON() ([]byte, error) {
	type plain Stall
	return json.Marshal(struct {
		plain
		TotalSeconds float64 `json:"total_seconds"`
		BeganSeconds float64 `json:"began_after_fault_seconds,omitempty"`
	}{plain(st), st.Total.Seconds(), st.Began.Seconds()})
}

// MarshalJSON writes the phase with its duration in seconds.
func (ph Phase) MarshalJSON() ([]byte, error) {
	type plain Phase
	return json.Marshal(struct {
		plain
		Seconds float64 `json:"seconds"`
	}{plain(ph), ph.Duration.Seconds()})
}

// Phase names.
const (
	PhaseDetect   = "detect"
	PhaseElect    = "elect"
	PhaseClient   = "client"
	PhaseFirstAck = "first ack"
)

// explain splits each partition's ack fault gap into phases.
func explain(tr *Trial, f *results.Fault) []Stall {
	tl := tr.Timeline
	F := tr.FaultAt
	topic := tr.Meta.Probe.Topic
	b := f.NodeID

	detect, detected := detection(tl, f, F)

	x := newExplainer(tr, f)
	var out []Stall
	for _, gp := range tr.Gaps.Partitions {
		g := gp.Ack.Fault
		if g == nil {
			continue
		}
		p := gp.Partition
		st := Stall{Partition: p, Leader: -1, NewLeader: -1, Role: "none"}
		if l, ok := tr.Meta.Probe.Leaders[p]; ok {
			st.Leader = l
		}
		newLeader, leaderMoved := tl.LeaderStarted(topic, p, F)
		switch {
		case st.Leader == b || (st.Leader < 0 && leaderMoved):
			st.Role = "leader"
		case tr.inReplicas(p, b):
			st.Role = "follower"
		}

		var bounds []bound
		if detected {
			bounds = append(bounds, bound{PhaseDetect, detect})
		}
		switch st.Role {
		case "leader":
			if leaderMoved {
				st.NewLeader = newLeader.Broker
				bounds = append(bounds, bound{PhaseElect, newLeader})
			}
			if e, ok := tl.ClientLearnedLeader("producer", topic, p, F); ok {
				bounds = append(bounds, bound{PhaseClient, e})
			}
		case "follower":
			if e, ok := tl.ISRShrunk(topic, p, b, F); ok {
				bounds = append(bounds, bound{PhaseElect, e})
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
		for _, bd := range bounds {
			if st.Began > 0 && bd.e.Time.Before(g.Start) {
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
			case PhaseElect:
				x.elect(&st, &ph, prev)
			case PhaseClient:
				x.client(&st, &ph, prev)
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
		if g.Open && st.Role == "leader" {
			switch r := tr.Meta.Probe.Replicas[p]; {
			case !leaderMoved && len(r) == 1:
				st.Note = fmt.Sprintf("no other replica could take over: broker %d holds the partition's only replica, so it has no leader until the broker returns", b)
			case !leaderMoved:
				st.Note = "no new leader appeared in the logs before the probe stopped"
			default:
				st.Note = x.stuck(b, F, g.End)
			}
		}
		out = append(out, st)
	}
	return out
}

// detection returns the event that ends the detection of fault f, at F:
// the controller fencing the broker, or, for a SIGTERM, granting its
// controlled shutdown.
func detection(tl *timeline.Timeline, f *results.Fault, F time.Time) (timeline.Event, bool) {
	if f.Kind == "sigterm" {
		if e, ok := tl.ControlledShutdown(f.NodeID, f.SignalSent); ok {
			return e, true
		}
		return tl.ShutdownGranted(f.NodeID, f.SignalSent)
	}
	return tl.Fenced(f.NodeID, F)
}

// hasNodeLogs reports whether any of the nodes' log files is there. Without
// them no boundary of a stall can be found, and explain would put each
// whole stall in its last phase.
func hasNodeLogs(src timeline.Sources) bool {
	for _, files := range src.Nodes {
		for _, f := range files {
			if _, err := os.Stat(f); err == nil {
				return true
			}
		}
	}
	return false
}

type bound struct {
	name string
	e    timeline.Event
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
