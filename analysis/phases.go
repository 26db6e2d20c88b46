package analysis

import (
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// phases are the phases stage's result: the fault's stalls, each split
// into phases where the evidence allows, and the boundaries between them.
type phases struct {
	stalls     []Stall
	boundaries []Boundary
	notes      notes
}

// phasesOf splits the stalls of fault f in the gaps g into phases, from
// the evidence ev: roles are what the faulted broker was to each
// partition, last each partition's last receive (for a consumer that
// never moved again), and tl what the timeline stage found of the logs.
// After a controller fault, its quorum's gap q says what there is: it
// fences no broker and moves no partition, so its stalls have no phases.
func phasesOf(ev *evidence, g *gaps.Report, roles map[int32]results.Role, ff *faultFacts, q *QuorumGap, last lastReceived, tl timelineRead) phases {
	if ff == nil {
		return phases{}
	}
	f := ff.f
	switch {
	case ev.F.IsZero() || q != nil || ev.tl == nil:
		return phases{}
	case f.Kind == results.FaultIsolateReplication && hasNodeEvidence(ev.tl):
		return replicationPhases(ev, g, roles, f) // replication.go
	case hasNodeEvidence(ev.tl):
		stalls, boundaries, damaged := explain(ev, g, roles, ff)
		return phases{stalls: explainCut(ev, g, f, stalls, last), boundaries: boundaries, notes: damaged}
	}
	if stalls := cutStalls(ev, g, roles, f); stalls != nil {
		return phases{stalls: stalls}
	}
	return phases{notes: notes{{text: noEvidence(f, tl)}}}
}

// noEvidence says why the node logs explain none of fault f's stalls.
func noEvidence(f *results.Fault, tl timelineRead) string {
	switch {
	case f.Kind == results.FaultExternal && tl.noLogs:
		// A cluster kbf reaches by its addresses has no logs kbf can
		// read unless the user gives them (kbf run --logs).
		return "no broker logs given: the stalls are not split into the brokers' phases; the client-side measures (stalls, gaps, the audit) hold"
	case tl.misdated:
		return "no event of the trial's time in the node logs under " + results.NodeLogsDir + "/: they are dated outside the trial, so the stalls are not split into phases"
	case tl.tl != nil && !tl.noLogs && len(tl.tl.Missing) == 0 && len(tl.tl.Damaged) == 0:
		s := "the node logs under " + results.NodeLogsDir + "/ were read whole and show no fence, shutdown, election or ISR change after the fault: Kafka took no action that splits the stalls into phases"
		if f.Kind.Degrades() {
			s += " (a slow disk delays every write and fsync of the broker, and acks=all with them, without fencing it or moving a leader)"
		}
		return s
	}
	return "no event in the node logs under " + results.NodeLogsDir + "/ (absent, empty or unreadable): the evidence is missing, so the stalls are not split into phases"
}

// Stall is one partition's fault stall, from the fault to the first ack
// after it, split into phases by what the timeline shows:
//
//	quorum     fault → another controller takes the quorum over, when the
//	           faulted node (broker and controller both) led it
//	detect     → the controller fences the broker (SIGKILL) or grants
//	           its controlled shutdown (SIGTERM)
//	elect      → the new leader's state-change line, or, where the faulted
//	           broker was a follower, the ISR shrink that drops it
//	client     → the producer learns the new leader (leader partitions only)
//	return     fault → the faulted broker, restarted before the controller
//	           fenced it, follows the partition again (follower partitions
//	           only; it takes the place of detect and elect)
//	first ack  → the first successful ack
//
// A boundary the logs do not show is left out and its time falls to the
// next phase; a boundary logged before the previous one (a client can learn
// a leader before the leader's own log line is written) counts as zero.
type Stall struct {
	Partition int32
	// Role is what the faulted broker was to this partition when the fault
	// began.
	Role      results.Role
	Leader    int32 // leader before the fault; -1 unknown
	NewLeader int32 // for a leader partition; -1 unknown
	FirstAck  time.Time
	// Began is how long after the fault the partition's last ack before the
	// stall came, when that was after the fault: the partition kept acking
	// for a while, and the phases before Began took none of its time.
	Began time.Duration
	// Total is fault (or, when Began is set, the last ack) → first ack;
	// zero when no ack came.
	Total time.Duration
	// OpenFor is, for a stall no ack ended before probing stopped, how
	// long it had lasted then; zero for one that ended.
	OpenFor time.Duration
	// Pending is, for such a stall of a partition the broker led whose
	// phases reached the new leader, the phase in progress when probing
	// stopped (the client's discovery of that leader), from its start to
	// when probing stopped, with its bound; zero otherwise.
	Pending Phase
	Phases  []Phase
	// Note says why a stall never ended, when the logs tell, or that the
	// logs show no boundary of it, so it is not split into phases.
	Note string
	// NoteSettings are the settings that would shorten what Note says.
	NoteSettings []Setting
	// Unrelated is set for a stall whose gap spans none of the fault's
	// consequences for the partition: it has no phases, and Note says
	// why. Noise is set too when the gap was no longer than the
	// partition's longest gap elsewhere (Elsewhere) or the baseline's
	// bound: the partition did not stall beyond its own noise.
	Unrelated bool
	Noise     bool
	Elsewhere time.Duration
	// Violations are the ways the phases the analysis found disagreed
	// with their evidence (CheckStall); when there are any, Phases is
	// empty and Note says so.
	Violations []Violation
	// Start says why a stall began after the fault, where the logs tell
	// (a broker cut from the controller leads on until it is fenced): the
	// line that began it and the settings that place it. Zero for none.
	Start Explanation
	// Consumer calls out a consumer that never received again after the
	// stall; its Settings would make it look for the new leader. Zero for
	// none.
	Consumer Explanation
	// Receive explains a receive gap longer than the ack gap, and what
	// would shorten it. Zero for none.
	Receive Explanation
}

// Explanation is why a part of a stall took its time, as the analysis
// found it: what it waited for (Why), the log line that shows it
// (Evidence, at Source: "c1/controller.log:92"), and what would shorten it,
// in words (Setting) and as data (Settings: each setting's name, its value
// and where the value was read). Every explanation the analysis gives —
// a phase's, a stall's start, its receive gap, a consumer that never
// received again, the quorum's gap, a cause of the digest — is one.
type Explanation struct {
	Evidence string
	Source   string
	Why      string
	Setting  string
	Settings []Setting
}

// Phase is one part of a stall, from Start to End: the first phase starts
// at the fault (or at the stall's start, Stall.Began), each other where the
// one before it ended, and Duration is End - Start. Renderers draw these
// times; none rebuilds them.
type Phase struct {
	Name     string
	Start    time.Time
	End      time.Time
	Duration time.Duration
	// Overlap is, for a phase whose evidence came before the phase before
	// it had ended (out of its recipe's order), how long before: the phase
	// is drawn at its own line and took none of the time.
	Overlap time.Duration
	// Explanation says what the phase waited for; its Evidence is the
	// event that ends the phase.
	Explanation
	// Bound is the time its settings allow it, and how far it ran beyond.
	Bound Bound
}

// Phases are a recovery's phases in order, each from where the one before
// it ended (a coordinator's: GroupRecovery, TxnRecovery).
type Phases []Phase

// Total is the phases' time, the first's start to the latest end; zero for
// none.
func (ps Phases) Total() time.Duration {
	if len(ps) == 0 {
		return 0
	}
	end := ps[0].End
	for _, p := range ps {
		if p.End.After(end) {
			end = p.End
		}
	}
	return end.Sub(ps[0].Start)
}

// LongestPhases are, by phase name, the longest any partition's stall
// spent in it and, of the phases with a stated bound, the most one ran
// beyond it: what kbf watch's metrics keep of its last incident.
func (tr *Trial) LongestPhases() (longest, beyond map[string]time.Duration) {
	longest, beyond = map[string]time.Duration{}, map[string]time.Duration{}
	for _, st := range tr.Stalls {
		for _, ph := range st.Phases {
			longest[ph.Name] = max(longest[ph.Name], ph.Duration)
			if ph.Bound.Stated {
				beyond[ph.Name] = max(beyond[ph.Name], ph.Bound.Excess)
			}
		}
	}
	return longest, beyond
}

// Beyond is the phases that ran past their bounds.
func (ps Phases) Beyond() Phases {
	var out Phases
	for _, p := range ps {
		if p.Bound.Beyond() {
			out = append(out, p)
		}
	}
	return out
}

// Named returns the phase named name; false without one.
func (ps Phases) Named(name string) (Phase, bool) {
	for _, p := range ps {
		if p.Name == name {
			return p, true
		}
	}
	return Phase{}, false
}

// Phase names.
const (
	// PhaseQuorum is the controller quorum's leaderless gap, when the
	// faulted node led it: the detection's first part.
	PhaseQuorum = "quorum"
	PhaseDetect = "detect"
	PhaseElect  = "elect"
	PhaseClient = "client"
	// PhaseReturn is a followed partition's wait for the faulted broker,
	// restarted before the controller fenced it, to follow it again.
	PhaseReturn   = "return"
	PhaseFirstAck = "first ack"
)

// ended sets when the stall of gap g, begun at prev, ended: its first ack,
// or, for a gap still open when probing stopped, how long it had lasted.
func (st *Stall) ended(g *gaps.Gap, prev time.Time) {
	if g.Open {
		st.OpenFor = g.End.Sub(prev)
		return
	}
	st.FirstAck, st.Total = g.End, g.End.Sub(prev)
}
