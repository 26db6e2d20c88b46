package analysis

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
	Kind BoundaryKind
	// Time is the phase's end as the stall counts it, or, for a boundary
	// that came while the partition still acked (InStall false), the
	// event's own time.
	Time time.Time
	// Phase is the phase it ends: PhaseDetect, PhaseElect, PhaseClient.
	Phase string
	// Partition is the partition it concerns; -1 for one the trial's
	// partitions share (the fault, the detection).
	Partition int32
	// Role is what the faulted broker was to Partition; "" when shared.
	Role results.Role
	// Broker is the new leader (BoundaryNewLeader, BoundaryProducerLearned,
	// when known) or the broker the ISR lost or that was fenced; -1 unknown.
	Broker int32
	// InStall is false for a boundary that came before the partition's
	// stall began: it bounds no phase of it.
	InStall  bool
	Evidence string
	Source   string
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
	Name string
	// Node is the node whose setting it is ("c1"), "" for the client's.
	Node   string
	Value  string // as configured; "" when unknown
	Source SettingSource
	// Where is where the value was read: "c1/server.log:87",
	// "meta.json"; for an unknown one, why it is unknown.
	Where string
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

// explain splits each partition's ack fault gap in g into phases, and
// returns them with every boundary it found, in time order, the fault
// first. roles are what the faulted broker was to each partition.
//
// A phase ends at the very time of the line it cites: a boundary logged
// before the previous one is shown as it happened, a phase at its own line
// that took none of the time (Phase.Overlap), as a coordinator's chain
// shows one; a boundary after the stall's first ack bounds no phase of the
// stall and is said in the stall's note. A stall whose gap spans none of the fault's consequences
// for its partition (the fence or shutdown grant, its new leader, its ISR
// without the broker) is not the fault's: it gets no phases, and says
// whether it was any longer than the partition's own noise.
//
// Where the detection's line is missing or misdated, the first phase of a
// stall that begins at the fault holds the detection as well and is named
// for both ("detect+elect"): its time is never blamed on the election
// alone. damaged says what is missing, for the notes and the verdict.
func explain(ev *evidence, g *gaps.Report, roles map[int32]results.Role, ff *faultFacts) (stalls []Stall, boundaries []Boundary, damaged notes) {
	e, damaged := newExplaining(ev, roles, ff)
	for _, gp := range g.Partitions {
		if gp.Ack.Fault != nil {
			stalls = append(stalls, e.stall(gp))
		}
	}
	return stalls, e.boundaries(), damaged
}

// explaining is one fault's explanation while it is made: what every
// partition's stall shares (the fault, its detection, the quorum's
// takeover) and the boundaries found so far.
type explaining struct {
	ev    *evidence
	roles map[int32]results.Role
	f     *results.Fault
	ff    *faultFacts
	tl    *timeline.Timeline
	F     time.Time
	topic string
	b     int32
	x     *explainer

	detect     timeline.Event
	detected   bool
	undetected string // what is missing when the detection's line is
	tookOver   timeline.Event
	quorumLost bool

	bounds []Boundary
	// The detection and the quorum's takeover are events the partitions
	// share: each drawn once, at its own time, when some stall's phases
	// or window hold it; InStall says whether one bounded a phase.
	shared      map[BoundaryKind]*Boundary
	sharedOrder []BoundaryKind
}

// newExplaining finds what the stalls of the fault ff share, and says what
// of it is missing (damaged).
func newExplaining(ev *evidence, roles map[int32]results.Role, ff *faultFacts) (*explaining, notes) {
	f := ff.f
	e := &explaining{ev: ev, roles: roles, f: f, ff: ff, tl: ev.tl, F: ev.F, topic: ev.meta.Probe.Topic, b: f.NodeID,
		shared: map[BoundaryKind]*Boundary{}}
	e.bounds = []Boundary{faultBoundary(ev, f)}
	var damaged notes
	e.detect, e.detected = ff.detection, ff.detected
	// A cut from the clients only is detected by no one, and a hiccup
	// undone before its broker was fenced was not detected: nothing is
	// missing when no line shows it.
	if !e.detected && f.Kind != results.FaultIsolateClients && !unfencedHiccup(e.tl, f) {
		e.undetected = missingDetection(e.tl, f, e.F)
		damaged = append(damaged, note{text: e.undetected + ": the phase before the first boundary found holds the detection too, and is named for both", damaged: true})
	}
	// A node that is broker and controller both, and led the controller
	// quorum when the fault hit it: no controller could fence it until
	// another took the quorum over, and the detection is that gap and
	// then the session's expiry as the new leader counts it.
	e.x = newExplainer(ev, f)
	e.tookOver, e.quorumLost = quorumTakeover(e.tl, f, e.F)
	if e.quorumLost && e.detected && e.tookOver.Time.After(e.detect.Time) {
		e.quorumLost = false
	}
	if e.quorumLost {
		e.x.tookOver = &e.tookOver
		e.x.quorum = analyzeQuorum(ev, f)
	}
	return e, damaged
}

// stall explains one partition's ack stall at the fault.
func (e *explaining) stall(gp gaps.Partition) Stall {
	g := gp.Ack.Fault
	st, prev := newStall(e.ev, gp, roleOf(e.roles, gp.Partition)) // the role decided once, in rolesOf
	cands, later, leaderMoved := e.candidates(&st, g)
	if len(cands) == 0 {
		st.Note = "the logs show no boundary of this stall (no fence or shutdown grant, no new leader or smaller ISR, no client leader change): it is not split into phases"
		if len(e.tl.Missing) > 0 {
			st.Note += fmt.Sprintf("; missing: %v", e.tl.Missing)
		}
		return st
	}
	if st.Role != results.RoleNone && e.x.notTheFault(&st, gp, cands) {
		return st
	}
	c := e.phases(&st, g, prev, cands, later)
	if !st.FirstAck.IsZero() {
		ph := Phase{Name: PhaseFirstAck, End: st.FirstAck,
			Bound: noBound("the first ack waits on the new leader's answer to the retried produce: kbf states no bound for it")}
		e.x.firstAck(&st, &ph, c.prev)
		st.Phases = append(st.Phases, c.phase(ph))
	}
	if g.Open && st.Role == results.RoleLed && len(st.Phases) > 0 && st.Phases[len(st.Phases)-1].Name == PhaseElect {
		st.Pending = Phase{Name: PhaseClient, Start: c.prev, End: g.End, Duration: g.End.Sub(c.prev),
			Bound: e.bound(&st, bound{name: PhaseClient, e: timeline.Event{Time: g.End}}, c.prev)}
	}
	if r := gp.Receive.Fault; r != nil {
		e.x.receive(&st, g.Duration(), r.Duration())
	}
	if g.Open && st.Role == results.RoleLed {
		st.Note = joinNote(e.stuck(&st, g, leaderMoved), st.Note)
	}
	return st
}

// newStall is partition gp's fault stall before it is split, the faulted
// broker its role: its leader, and its first ack and total when it ended;
// start is where its first phase starts, the fault, or its last ack when
// the partition kept acking after the fault (what happened before took
// none of its time).
func newStall(ev *evidence, gp gaps.Partition, role results.Role) (st Stall, start time.Time) {
	g := gp.Ack.Fault
	st = Stall{Partition: gp.Partition, Leader: -1, NewLeader: -1, Role: role}
	if l, ok := ev.meta.Probe.Leaders[gp.Partition]; ok {
		st.Leader = l
	}
	start = ev.F
	if g.Start.After(ev.F) && !g.FromFault {
		st.Began, start = g.Start.Sub(ev.F), g.Start
	}
	st.ended(g, start)
	return st, start
}

// faultBoundary is the boundary every stall starts from: fault f at ev.F.
func faultBoundary(ev *evidence, f *results.Fault) Boundary {
	return Boundary{Kind: BoundaryFault, Time: ev.F, Partition: -1, Broker: f.NodeID, InStall: true, Evidence: f.Signal() + " " + f.Broker}
}

// candidates are the boundaries that may end the phases of st's stall g,
// in order; later are those a follower's return put aside.
func (e *explaining) candidates(st *Stall, g *gaps.Gap) (cands, later []bound, leaderMoved bool) {
	p := st.Partition
	newLeader, leaderMoved := e.tl.NewLeaderStarted(e.topic, p, e.b, e.F)
	if e.quorumLost {
		cands = append(cands, bound{PhaseQuorum, BoundaryQuorumLeader, e.tookOver})
	}
	if e.detected {
		cands = append(cands, bound{PhaseDetect, detectionKind(e.detect), e.detect})
	}
	switch st.Role {
	case results.RoleLed:
		if leaderMoved {
			st.NewLeader = newLeader.Broker
			cands = append(cands, bound{PhaseElect, BoundaryNewLeader, newLeader})
		}
		if ev, ok := e.tl.ClientLearnedLeader(results.ClientProducer, e.topic, p, e.F); ok {
			cands = append(cands, bound{PhaseClient, BoundaryProducerLearned, ev})
		}
	case results.RoleFollowed:
		if ev, ok := e.tl.ISRShrunk(e.topic, p, e.b, e.F); ok {
			cands = append(cands, bound{PhaseElect, BoundaryISRShrunk, ev})
		}
		// A broker restarted before the controller fenced it (a pod
		// the kubelet restarts) is still in the ISR: when it follows
		// again before any other consequence came, its return is what
		// ended the stall, and the later fence bounds none of it.
		if ev, ok := e.tl.FollowerReturned(e.topic, p, e.b, e.F); ok && !g.Open && !ev.Time.After(g.End) && before(ev.Time, cands) {
			later = cands
			cands = []bound{{PhaseReturn, BoundaryFollowerReturned, ev}}
		}
	}
	return cands, later, leaderMoved
}

// phases splits st's stall g into a phase per candidate boundary, from
// prev on, by the recovery engine, and returns the chain, at the latest
// boundary. A boundary before the stall is drawn but bounds nothing;
// one out of order is drawn at its own line, a phase that took none of the
// time (Phase.Overlap); one after the first ack bounds nothing and is said
// in the stall's note.
func (e *explaining) phases(st *Stall, g *gaps.Gap, prev time.Time, cands, later []bound) *chain {
	var skipped []string
	c := chain{prev: prev}
	for _, bd := range cands {
		bdy := Boundary{Kind: bd.kind, Phase: bd.name, Partition: st.Partition, Role: st.Role, Broker: boundaryBroker(bd, e.b),
			Evidence: bd.e.Summary(), Source: bd.e.Source, Time: bd.e.Time}
		isShared := bd.name == PhaseDetect || bd.name == PhaseQuorum
		if isShared {
			bdy.Partition, bdy.Role = -1, ""
			if e.shared[bd.kind] == nil {
				e.shared[bd.kind] = &Boundary{}
			}
		}
		if bd.kind == BoundaryProducerLearned {
			bdy.Broker = st.NewLeader // as the stall names it
		}
		at := bd.e.Time
		switch {
		case st.Began > 0 && at.Before(g.Start):
			// Before the stall: no phase of it, but drawn where it came.
			e.draw(bdy, isShared, false)
			continue
		case !st.FirstAck.IsZero() && at.After(st.FirstAck):
			skipped = append(skipped, fmt.Sprintf("%s (%s) is logged at %s, %s after the first ack, so it bounds no phase", bd.kind, bd.e.Source, clock(at), secs(at.Sub(st.FirstAck))))
			continue
		}
		ph := e.phase(st, bd, c.start(at), later)
		if at.Before(c.prev) {
			// Out of the recipe's order (a client told of the new leader
			// before the leader's own line was written).
			ph.Why = fmt.Sprintf("%s came %s before the boundary before it (%s), so this phase took none of the time: %s",
				boundaryWhat[bd.kind], secs(c.prev.Sub(at)), clock(c.prev), ph.Why)
		}
		bdy.Phase = c.phase(ph).Name
		e.draw(bdy, isShared, true)
	}
	st.Phases = append(st.Phases, c.phases...)
	if len(skipped) > 0 {
		st.Note = joinNote(st.Note, strings.Join(skipped, "; "))
	}
	return &c
}

// phase is the phase from prev to boundary bd, with its explanation and
// bound; the engine (chain.phase) places and measures it.
func (e *explaining) phase(st *Stall, bd bound, prev time.Time, later []bound) Phase {
	ph := Phase{Name: bd.name, End: bd.e.Time, Explanation: Explanation{Evidence: bd.e.Summary(), Source: bd.e.Source}}
	switch bd.name {
	case PhaseQuorum:
		e.x.quorumPhase(&ph)
	case PhaseDetect:
		ph = e.ff.detectPhase(e.x)
	case PhaseElect:
		e.x.elect(st, &ph, prev)
	case PhaseClient:
		e.x.client(st, &ph, prev)
	case PhaseReturn:
		e.x.returned(&ph, later)
	}
	ph.Bound = e.bound(st, bd, prev)
	if _, byLag := e.lagBound(st, bd, prev); e.undetected != "" && prev.Equal(e.F) && bd.name != PhaseReturn {
		ph.Name = PhaseDetect + "+" + bd.name
		// The phase's own explanation would count its whole time as
		// the election's: it is replaced, not kept.
		ph.Why = fmt.Sprintf("%s, so the detection and what followed it are not told apart: %s came %s after the fault",
			e.undetected, boundaryWhat[bd.kind], secs(bd.e.Time.Sub(prev)))
		if !byLag {
			ph.Bound = noBound("the detection's line is missing, so the phase that holds it has no bound")
		}
	}
	return ph
}

// draw keeps boundary bdy for the timeline; a shared one (the detection,
// the quorum's takeover) once, at its first, and marked in a stall when
// any stall's phase it bounded.
func (e *explaining) draw(bdy Boundary, isShared, inStall bool) {
	bdy.InStall = inStall
	switch {
	case !isShared:
		e.bounds = append(e.bounds, bdy)
	case e.shared[bdy.Kind].Kind == "":
		*e.shared[bdy.Kind], e.sharedOrder = bdy, append(e.sharedOrder, bdy.Kind)
	case inStall:
		e.shared[bdy.Kind].InStall = true
	}
}

// stuck says why a partition the broker led had not acked again when the
// probe stopped.
func (e *explaining) stuck(st *Stall, g *gaps.Gap, leaderMoved bool) string {
	switch r := e.ev.meta.Probe.Replicas[st.Partition]; {
	case !leaderMoved && len(r) == 1:
		return fmt.Sprintf("no other replica could take over: broker %d holds the partition's only replica, so it has no leader until the broker returns", e.b)
	case !leaderMoved:
		return "no new leader appeared in the logs before the probe stopped"
	}
	why, settings := e.x.stuck(e.b, e.F, g.End)
	st.NoteSettings = settings
	return why
}

// boundaries are every boundary found, in time order, the fault first and
// the shared ones before the partitions' own at one time.
func (e *explaining) boundaries() []Boundary {
	bounds := e.bounds
	for i, k := range e.sharedOrder {
		d := *e.shared[k]
		if k != BoundaryQuorumLeader {
			d.Broker = e.b
		}
		bounds = slices.Insert(bounds, 1+i, d)
	}
	sortBoundaries(bounds)
	return bounds
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

// unfencedHiccup reports whether fault f was undone while probing (a
// hiccup: --return-after) with the controller's log there to say it fenced
// no one: its broker was back before its session ran out, which is no
// evidence missing but the hiccup's answer (Hiccup).
func unfencedHiccup(tl *timeline.Timeline, f *results.Fault) bool {
	if f.Returned.IsZero() {
		return false
	}
	for _, m := range tl.Missing {
		if strings.HasSuffix(m, " "+results.ControllerLog) {
			return false
		}
	}
	return true
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
	bound := verdict.StallBound(x.ev.meta)
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
func inReplicas(ev *evidence, p, b int32) bool {
	topic := ev.meta.Probe.Topic
	var last *timeline.Event
	for i := range ev.tl.Events {
		e := &ev.tl.Events[i]
		if e.Time.After(ev.F) {
			break
		}
		if e.Topic == topic && e.Partition == p && e.HasISR() {
			last = e
		}
	}
	if last != nil {
		return last.InISR(b)
	}
	if r, ok := ev.meta.Probe.Replicas[p]; ok {
		for _, id := range r {
			if id == b {
				return true
			}
		}
	}
	return false
}
