package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
	"github.com/kbf-project/kbf/verdict"
)

// BoundaryKind is what ended a phase of a stall, as the logs showed it.
type BoundaryKind string

// The boundaries of a stall.
const (
	// BoundaryFault is the fault's start: the trial's time zero.
	BoundaryFault BoundaryKind = "fault"
	// BoundaryQuorumLeader: another controller took the quorum over from
	// the faulted node, which led it (a node that is broker and
	// controller both).
	BoundaryQuorumLeader BoundaryKind = "quorum-leader"
	// BoundaryFenced: the controller fenced the broker for a session
	// timeout (SIGKILL, pause).
	BoundaryFenced BoundaryKind = "fenced"
	// BoundaryNewIncarnation: the broker, restarted under the same id,
	// registered again once its session had expired, before the
	// controller's periodic check fenced it, and the registration removed
	// its previous incarnation from the partitions (SIGKILL).
	BoundaryNewIncarnation BoundaryKind = "new-incarnation"
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
	// BoundaryFollowerReturned: the faulted broker, restarted before the
	// controller fenced it, started following the partition again.
	BoundaryFollowerReturned BoundaryKind = "follower-returned"
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
	case timeline.KindNewIncarnation:
		return BoundaryNewIncarnation
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

// explain splits each partition's ack fault gap into phases, and returns
// them with every boundary it found, in time order, the fault first. It
// changes nothing of tr.
//
// A phase ends at the very time of the line it cites: a boundary logged
// before the previous one, or after the stall's first ack, bounds no phase
// of the stall (its time falls to the next phase) and is said in the
// stall's note. A stall whose gap spans none of the fault's consequences
// for its partition (the fence or shutdown grant, its new leader, its ISR
// without the broker) is not the fault's: it gets no phases, and says
// whether it was any longer than the partition's own noise.
//
// Where the detection's line is missing or misdated, the first phase of a
// stall that begins at the fault holds the detection as well and is named
// for both ("detect+elect"): its time is never blamed on the election
// alone. damaged says what is missing, for the notes and the verdict.
func explain(tr *Trial, f *results.Fault) (stalls []Stall, boundaries []Boundary, damaged []string) {
	tl := tr.Timeline
	F := tr.FaultAt
	topic := tr.Meta.Probe.Topic
	b := f.NodeID

	bounds := []Boundary{{Kind: BoundaryFault, Time: F, Partition: -1, Broker: b, InStall: true,
		Evidence: f.Signal() + " " + f.Broker}}
	detect, detected := detection(tl, f, F)
	// A cut from the clients only is detected by no one: nothing is
	// missing when no line shows it.
	undetected := ""
	if !detected && f.Kind != results.FaultIsolateClients {
		undetected = missingDetection(tl, f, F)
		damaged = append(damaged, undetected+": the phase before the first boundary found holds the detection too, and is named for both")
	}
	// A node that is broker and controller both, and led the controller
	// quorum when the fault hit it: no controller could fence it until
	// another took the quorum over, and the detection is that gap and
	// then the session's expiry as the new leader counts it.
	x := newExplainer(tr, f)
	tookOver, quorumLost := quorumTakeover(tl, f, F)
	if quorumLost && detected && tookOver.Time.After(detect.Time) {
		quorumLost = false
	}
	if quorumLost {
		x.tookOver = &tookOver
		x.quorum = analyzeQuorum(tr, f)
	}
	// The detection and the quorum's takeover are events the partitions
	// share: each drawn once, at its own time, when some stall's phases
	// or window hold it; inStall says whether one bounded a phase.
	shared := map[BoundaryKind]*Boundary{}
	var sharedOrder []BoundaryKind
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
		newLeader, leaderMoved := tl.NewLeaderStarted(topic, p, b, F)
		st.Role = tr.Role(p) // decided once, in partitionRoles

		var cands, later []bound
		if quorumLost {
			cands = append(cands, bound{PhaseQuorum, BoundaryQuorumLeader, tookOver})
		}
		if detected {
			cands = append(cands, bound{PhaseDetect, detectionKind(detect), detect})
		}
		switch st.Role {
		case results.RoleLed:
			if leaderMoved {
				st.NewLeader = newLeader.Broker
				cands = append(cands, bound{PhaseElect, BoundaryNewLeader, newLeader})
			}
			if e, ok := tl.ClientLearnedLeader(results.ClientProducer, topic, p, F); ok {
				cands = append(cands, bound{PhaseClient, BoundaryProducerLearned, e})
			}
		case results.RoleFollowed:
			if e, ok := tl.ISRShrunk(topic, p, b, F); ok {
				cands = append(cands, bound{PhaseElect, BoundaryISRShrunk, e})
			}
			// A broker restarted before the controller fenced it (a pod
			// the kubelet restarts) is still in the ISR: when it follows
			// again before any other consequence came, its return is what
			// ended the stall, and the later fence bounds none of it.
			if e, ok := tl.FollowerReturned(topic, p, b, F); ok && !g.Open && !e.Time.After(g.End) && before(e.Time, cands) {
				later = cands
				cands = []bound{{PhaseReturn, BoundaryFollowerReturned, e}}
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
		if len(cands) == 0 {
			st.Note = "the logs show no boundary of this stall (no fence or shutdown grant, no new leader or smaller ISR, no client leader change): it is not split into phases"
			if len(tl.Missing) > 0 {
				st.Note += fmt.Sprintf("; missing: %v", tl.Missing)
			}
			out = append(out, st)
			continue
		}
		if st.Role != results.RoleNone && x.notTheFault(&st, gp, cands) {
			out = append(out, st)
			continue
		}
		var skipped []string
		for _, bd := range cands {
			bdy := Boundary{Kind: bd.kind, Phase: bd.name, Partition: p, Role: st.Role, Broker: boundaryBroker(bd, b),
				Evidence: bd.e.Summary(), Source: bd.e.Source, Time: bd.e.Time}
			isShared := bd.name == PhaseDetect || bd.name == PhaseQuorum
			if isShared {
				bdy.Partition, bdy.Role = -1, ""
				if shared[bd.kind] == nil {
					shared[bd.kind] = &Boundary{}
				}
			}
			if bd.kind == BoundaryProducerLearned {
				bdy.Broker = st.NewLeader // as the stall names it
			}
			at := bd.e.Time
			switch {
			case st.Began > 0 && at.Before(g.Start):
				// Before the stall: no phase of it, but drawn where it
				// came.
				if isShared {
					if in := shared[bd.kind].InStall; shared[bd.kind].Kind == "" {
						*shared[bd.kind], sharedOrder = bdy, append(sharedOrder, bd.kind)
					} else {
						shared[bd.kind].InStall = in
					}
				} else {
					bounds = append(bounds, bdy)
				}
				continue
			case at.Before(prev):
				skipped = append(skipped, fmt.Sprintf("%s (%s) is logged at %s, before the boundary before it, so it bounds no phase", bd.kind, bd.e.Source, clock(at)))
				continue
			case !st.FirstAck.IsZero() && at.After(st.FirstAck):
				skipped = append(skipped, fmt.Sprintf("%s (%s) is logged at %s, %s after the first ack, so it bounds no phase", bd.kind, bd.e.Source, clock(at), secs(at.Sub(st.FirstAck))))
				continue
			}
			ph := Phase{Name: bd.name, Start: prev, End: at, Duration: at.Sub(prev), Explanation: Explanation{Evidence: bd.e.Summary(), Source: bd.e.Source}}
			switch bd.name {
			case PhaseQuorum:
				x.quorumPhase(&ph)
			case PhaseDetect:
				x.detect(&ph, bd.e.Kind)
			case PhaseElect:
				x.elect(&st, &ph, prev)
			case PhaseClient:
				x.client(&st, &ph, prev)
			case PhaseReturn:
				x.returned(&ph, later)
			}
			if undetected != "" && prev.Equal(F) && bd.name != PhaseReturn {
				ph.Name = PhaseDetect + "+" + bd.name
				// The phase's own explanation would count its whole
				// time as the election's: it is replaced, not kept.
				ph.Why = fmt.Sprintf("%s, so the detection and what followed it are not told apart: %s came %s after the fault",
					undetected, boundaryWhat[bd.kind], secs(ph.Duration))
				bdy.Phase = ph.Name
			}
			bdy.InStall = true
			switch {
			case !isShared:
				bounds = append(bounds, bdy)
			case shared[bd.kind].Kind == "":
				*shared[bd.kind], sharedOrder = bdy, append(sharedOrder, bd.kind)
			default:
				shared[bd.kind].InStall = true
			}
			st.Phases = append(st.Phases, ph)
			prev = at
		}
		if len(skipped) > 0 {
			st.Note = joinNote(st.Note, strings.Join(skipped, "; "))
		}
		if !st.FirstAck.IsZero() {
			ph := Phase{Name: PhaseFirstAck, Start: prev, End: st.FirstAck, Duration: st.FirstAck.Sub(prev)}
			x.firstAck(&st, &ph, prev)
			st.Phases = append(st.Phases, ph)
		}
		if r := gp.Receive.Fault; r != nil {
			x.receive(&st, g.Duration(), r.Duration())
		}
		if g.Open && st.Role == results.RoleLed {
			var why string
			switch r := tr.Meta.Probe.Replicas[p]; {
			case !leaderMoved && len(r) == 1:
				why = fmt.Sprintf("no other replica could take over: broker %d holds the partition's only replica, so it has no leader until the broker returns", b)
			case !leaderMoved:
				why = "no new leader appeared in the logs before the probe stopped"
			default:
				why, st.NoteSettings = x.stuck(b, F, g.End)
			}
			st.Note = joinNote(why, st.Note)
		}
		out = append(out, st)
	}
	// Before the partitions' own, so that at one time the shared ones
	// come first.
	for i, k := range sharedOrder {
		d := *shared[k]
		if k != BoundaryQuorumLeader {
			d.Broker = b
		}
		bounds = slices.Insert(bounds, 1+i, d)
	}
	sortBoundaries(bounds)
	return out, bounds, damaged
}

// quorumTakeover returns the first line of another controller taking the
// quorum over after fault f at F, when the faulted node itself led the
// quorum at the fault (its last quorum state before it was a leader's): a
// node that is broker and controller both.
func quorumTakeover(tl *timeline.Timeline, f *results.Fault, F time.Time) (timeline.Event, bool) {
	if f.Kind.Controller() {
		return timeline.Event{}, false
	}
	var last *timeline.Event
	for _, e := range tl.All(timeline.OnNode(f.Broker), timeline.OfKind(timeline.KindQuorumProspective, timeline.KindQuorumCandidate, timeline.KindQuorumLeader, timeline.KindQuorumFollower)) {
		if e.Time.After(F) {
			break
		}
		last = &e
	}
	var epoch int64
	switch {
	case last != nil && last.Kind == timeline.KindQuorumLeader:
		epoch = last.Epoch
	case last == nil:
		// The node took the quorum's lead before the trial's logs begin
		// (they are copied from the trial's start): the first voter to
		// turn prospective after the fault names the leader it lost.
		lost, ok := tl.First(F, timeline.OfKind(timeline.KindQuorumProspective), func(e *timeline.Event) bool {
			return e.Node != f.Broker
		})
		if !ok || lost.Leader != f.NodeID {
			return timeline.Event{}, false
		}
		epoch = lost.Epoch
	default:
		return timeline.Event{}, false
	}
	return tl.First(F, timeline.OfKind(timeline.KindQuorumLeader), func(e *timeline.Event) bool {
		return e.Node != f.Broker && e.Epoch > epoch
	})
}

// before reports whether t is before every bound of bs.
func before(t time.Time, bs []bound) bool {
	for _, bd := range bs {
		if !t.Before(bd.e.Time) {
			return false
		}
	}
	return true
}

// boundaryWhat names a boundary for a sentence.
var boundaryWhat = map[BoundaryKind]string{
	BoundaryNewLeader:        "the new leader's first line as leader",
	BoundaryISRShrunk:        "the leader's ISR without the broker",
	BoundaryProducerLearned:  "the producer's learning of the new leader",
	BoundaryFollowerReturned: "the restarted broker's first line as follower",
}

// missingDetection says why the detection of fault f, at F, is not in the
// logs: the controller's log is missing, its line is dated before the
// fault, or it has none.
func missingDetection(tl *timeline.Timeline, f *results.Fault, F time.Time) string {
	what := fmt.Sprintf("the controller's fence of broker %d", f.NodeID)
	kinds := []timeline.Kind{timeline.KindFenced}
	if f.Graceful() {
		what = fmt.Sprintf("the controller's grant of broker %d's shutdown", f.NodeID)
		kinds = []timeline.Kind{timeline.KindControlledShutdown, timeline.KindShutdownGranted, timeline.KindImmediateShutdown}
	}
	if e, ok := tl.First(time.Time{}, timeline.OfKind(kinds...), timeline.ForBroker(f.NodeID)); ok && e.Time.Before(F) {
		return fmt.Sprintf("%s is misdated: [%s] is dated %s, before the fault at %s", what, e.Source, clock(e.Time), clock(F))
	}
	var missing []string
	for _, m := range tl.Missing {
		if strings.HasSuffix(m, " "+results.ControllerLog) {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("%s is not in the logs: %s missing", what, strings.Join(missing, ", "))
	}
	return fmt.Sprintf("%s is not in the logs after the fault", what)
}

// noiseFactor is how many times a partition's own noise (its longest gap
// elsewhere, or the baseline's bound) a gap must exceed to stand out from
// it: on a loaded host every partition has gaps of about the same length,
// and a gap a few per cent longer than the longest elsewhere is one more
// of them, not a stall.
const noiseFactor = 2

// notTheFault reports whether the partition's fault gap is not the
// fault's, and if so fills st: no phases, and a note that says how long
// the gap was beside the partition's longest gap elsewhere. cs are the
// fault's consequences for the partition (the fence or shutdown grant,
// its new leader, its ISR without the broker). A gap is not the fault's
// when it ended before the first of them, or when it spans none of them
// and was no longer than the partition's own noise: noiseFactor times its
// longest gap elsewhere, or the baseline's bound.
func (x *explainer) notTheFault(st *Stall, gp gaps.Partition, cs []bound) bool {
	g := gp.Ack.Fault
	first, spans := cs[0].e.Time, false
	var when []string
	for _, c := range cs {
		if c.e.Time.Before(first) {
			first = c.e.Time
		}
		if !c.e.Time.Before(g.Start) && (g.Open || !c.e.Time.After(g.End)) {
			spans = true
		}
		when = append(when, fmt.Sprintf("%s at %s [%s]", c.kind, clock(c.e.Time), c.e.Source))
	}
	var elsewhere time.Duration
	if l := gp.Ack.Longest; l != nil {
		elsewhere = l.Duration()
	}
	bound := verdict.StallBound(x.tr.Meta)
	noise := g.Duration() <= noiseFactor*max(elsewhere, bound)
	before := !g.Open && g.End.Before(first)
	if !before && (spans || !noise) {
		return false
	}
	st.Unrelated, st.Noise, st.Elsewhere = true, noise, elsewhere
	span := fmt.Sprintf("%s (%s ~ %s)", secs(g.Duration()), clock(g.Start), clock(g.End))
	cons := strings.Join(when, ", ")
	if before {
		st.Note = fmt.Sprintf("its longest gap in the fault's window, %s, ended before the fault's first consequence for it (%s), so the fault did not cause it: it is not split into phases", span, cons)
		if noise {
			st.Note += fmt.Sprintf("; it is no longer than twice its longest gap elsewhere, %s, or the baseline's bound, %s", secs(elsewhere), secs(bound))
		}
		return true
	}
	st.Note = fmt.Sprintf("did not stall beyond its own noise: its longest gap in the fault's window, %s, spans none of the fault's consequences for it (%s) and is no longer than twice its longest gap elsewhere, %s, or the baseline's bound, %s",
		span, cons, secs(elsewhere), secs(bound))
	return true
}

// boundaryBroker is the broker a boundary names: the new leader, or the
// faulted broker for a detection or an ISR without it.
func boundaryBroker(bd bound, faulted int32) int32 {
	switch bd.kind {
	case BoundaryNewLeader, BoundaryQuorumLeader:
		return bd.e.Broker
	case BoundaryProducerLearned:
		return bd.e.Leader
	}
	// The fence, the shutdown grant, the smaller ISR and the follower's
	// return concern the faulted broker.
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
