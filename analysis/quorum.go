package analysis

import (
	"fmt"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// What a controller fault (controller-kill, controller-pause) adds to the
// report. The active controller leads the KRaft quorum; when it dies or
// freezes no broker is fenced and no partition changes leader, so a stall
// has no phase of a broker's fault. What there is to measure is the
// quorum's own: how long the controllers had no leader, from their own
// logs, and whether the data path noticed at all.

// QuorumGap is the controller quorum's leaderless gap after a controller
// fault: from the fault to the first "Completed transition to Leader(" at a
// higher epoch on another controller.
type QuorumGap struct {
	// Controller is the faulted active controller's service, NodeID its
	// node id, and Epoch the quorum's epoch it led: from its own last
	// "became leader" line before the fault (Led) when the timeline holds
	// it, or else from the first follower to give up on it (Noticed); -1
	// when neither says.
	Controller string
	NodeID     int32
	Epoch      int64
	Led        *LogLine
	// Fault is the gap's start: the kill or the freeze, as the fault
	// record dates it.
	Fault LogLine
	// Noticed is the first other controller to give up on the leader and
	// ask for votes (prospective or candidate); nil when none logged it
	// before the new leader.
	Noticed *LogLine
	// Elected is the new leader's own line, NewLeader its service and
	// NewEpoch its epoch; nil, "" and -1 when no other controller became
	// leader before the logs end.
	Elected   *LogLine
	NewLeader string
	NewEpoch  int64
	// Candidacies counts the other controllers' candidacies from the fault
	// to the new leader: more than one, and an election was lost or split.
	Candidacies int
	// Leaderless is Fault → Elected; zero when no leader was elected.
	Leaderless time.Duration
	// Predicted is what the configuration predicts when the first election
	// succeeds: controller.quorum.fetch.timeout.ms; zero when unknown.
	Predicted time.Duration
	// Explanation says why the gap lasted as it did, as a Phase's does;
	// the lines that bound it are Led, Fault, Noticed and Elected.
	Explanation
	// Phases are the gap as a chain, by the engine every recovery's goes
	// through: the fault → a voter gives up on the leader
	// (QuorumPhaseNotice) → another controller leads (QuorumPhaseElect),
	// each with its bound.
	Phases Phases
	// Note says why there is no gap to measure, when there is none.
	Note string
	// DataPath is what the probe's partitions did meanwhile; nil without
	// a fault gap.
	DataPath *DataPath
}

// LogLine is one line of evidence: who logged it, when, what (as the
// timeline summarises it) and where ("c3/server.log:955", "meta.json").
type LogLine struct {
	Node     string
	Time     time.Time
	Evidence string
	Source   string
}

// DataPath is the probe's longest ack gap while the quorum had no leader,
// beside the longest gap elsewhere in the probe.
type DataPath struct {
	Partition int32
	Gap       time.Duration
	// Open: the partition never acked again before the probe stopped.
	Open      bool
	Elsewhere time.Duration
	// Stalled is true when the gap is longer than any elsewhere: the
	// fault's, not the probe's usual pace.
	Stalled bool
}

func logLine(e timeline.Event) *LogLine {
	return &LogLine{Node: e.Node, Time: e.Time, Evidence: e.Summary(), Source: e.Source}
}

// quorumOf is the quorum's leaderless gap after the controller fault f,
// from the evidence ev (analyzeQuorum); nil for any other fault, and
// without a timeline or the fault's time.
func quorumOf(ev *evidence, f *results.Fault) *QuorumGap {
	if f == nil || !f.Kind.Controller() || ev.tl == nil || ev.F.IsZero() {
		return nil
	}
	return analyzeQuorum(ev, f)
}

// beside is the quorum's gap q with what the data path did meanwhile, from
// the gaps g; nil for no gap.
func (q *QuorumGap) beside(g *gaps.Report) *QuorumGap {
	if q == nil {
		return nil
	}
	withData := *q
	withData.DataPath = dataPath(g)
	return &withData
}

// analyzeQuorum measures the leaderless gap after the controller fault f,
// at ev.F, from ev.tl's quorum events.
func analyzeQuorum(ev *evidence, f *results.Fault) *QuorumGap {
	tl, F := ev.tl, ev.F
	q := &QuorumGap{Controller: f.Broker, NodeID: f.NodeID, Epoch: -1, NewEpoch: -1, Fault: faultLine(tl, f, ev.record)}
	for _, e := range tl.All(timeline.OfKind(timeline.KindQuorumLeader), timeline.OnNode(f.Broker)) {
		if !e.Time.After(F) {
			q.Led, q.Epoch = logLine(e), e.Epoch
		}
	}
	other := func(e *timeline.Event) bool { return e.Node != f.Broker }
	first, noticed := tl.First(F, timeline.OfKind(timeline.KindQuorumProspective, timeline.KindQuorumCandidate), other)
	if q.Led == nil && noticed && first.Kind == timeline.KindQuorumProspective && first.Leader == f.NodeID {
		// The leader's own line came before the trial began: its
		// followers say which epoch they lost it in.
		q.Epoch = first.Epoch
	}
	newer := func(e *timeline.Event) bool { return e.Epoch > q.Epoch }
	elected, ok := tl.First(F, timeline.OfKind(timeline.KindQuorumLeader), other, newer)
	if ok {
		q.Elected, q.NewLeader, q.NewEpoch = logLine(elected), elected.Node, elected.Epoch
		q.Leaderless = elected.Time.Sub(F)
	}
	before := func(e *timeline.Event) bool { return !ok || !e.Time.After(elected.Time) }
	if noticed && before(&first) {
		q.Noticed = logLine(first)
	}
	for _, e := range tl.All(timeline.OfKind(timeline.KindQuorumCandidate), other, before) {
		if !e.Time.Before(F) {
			q.Candidacies++
		}
	}
	if !ok {
		q.Note = "no other controller logged becoming the quorum's leader before the logs end"
		if len(tl.Missing) > 0 {
			q.Note += fmt.Sprintf("; missing: %v", tl.Missing)
		}
		return q
	}
	q.explain(newExplainer(ev, f), f)
	return q
}

// faultLine is the fault f's line at its start: the process's end or the
// freeze, or, where the timeline tl has neither there, the fault as kbf
// injected it (record, at the start).
func faultLine(tl *timeline.Timeline, f *results.Fault, record LogLine) LogLine {
	F := record.Time
	if e, ok := tl.First(F, timeline.OfKind(timeline.KindProcessEnded, timeline.KindFrozen), timeline.OnNode(f.Broker)); ok && e.Time.Equal(F) {
		return *logLine(e)
	}
	return record
}

// explain says why the quorum had no leader as long as it did. A voter
// gives up on its leader controller.quorum.fetch.timeout.ms after its last
// successful fetch from it and asks the others for a pre-vote, then a vote
// (KIP-996); an election lost or split waits out an election timeout,
// randomised between controller.quorum.election.timeout.ms and twice that,
// and an exponential backoff of up to
// controller.quorum.election.backoff.max.ms, before the next.
func (q *QuorumGap) explain(x *explainer, f *results.Fault) {
	fetchS := nodeSetting(x.ctl, x.ctlErr, "", "controller.quorum.fetch.timeout.ms")
	electionS := nodeSetting(x.ctl, x.ctlErr, "", "controller.quorum.election.timeout.ms")
	backoffS := nodeSetting(x.ctl, x.ctlErr, "", "controller.quorum.election.backoff.max.ms")
	q.Settings = []Setting{fetchS, electionS, backoffS}
	q.Setting = "controller.quorum.fetch.timeout.ms on the controllers (controller.quorum.election.timeout.ms and controller.quorum.election.backoff.max.ms when an election is lost or split)"
	fetch, fetchKnown := ms(fetchS)
	if fetchKnown {
		q.Predicted = fetch
	}
	ended := faultEnded(f.Kind)
	timeout := "controller.quorum.fetch.timeout.ms"
	if q.Predicted > 0 {
		timeout = secs(q.Predicted)
	}
	why := fmt.Sprintf("the other controllers give up on their leader %s after their last successful fetch from it (%s), then ask each other for a pre-vote and a vote",
		timeout, says(fetchS, 2*time.Second))
	if n := q.Noticed; n != nil {
		why += fmt.Sprintf("; %s gave up %s after %s, and %s was elected %s later",
			n.Node, secs(n.Time.Sub(q.Fault.Time)), ended, q.NewLeader, secs(q.Elected.Time.Sub(n.Time)))
	}
	if q.Predicted > 0 {
		why += fmt.Sprintf("; so a first election that succeeds ends at most about %s after %s, plus the votes' round trips", secs(q.Predicted), ended)
	}
	if q.Candidacies > 1 {
		why += fmt.Sprintf("; it took %d candidacies: an election lost or split waits out an election timeout (%s, randomised up to twice that) and a backoff (up to %s) before the next",
			q.Candidacies, says(electionS, time.Second), says(backoffS, time.Second))
	}
	q.Why = why
	q.Phases = q.chain(fetchS, fetch, fetchKnown)
}

// The quorum's phases.
const (
	QuorumPhaseNotice = "notice"
	QuorumPhaseElect  = "quorum elect"
)

// chain is the leaderless gap's phases: a voter gives up on its leader
// within controller.quorum.fetch.timeout.ms (fetchS, read as fetch when
// known) of its last fetch from it (at most the fault), then the election.
func (q *QuorumGap) chain(fetchS Setting, fetch time.Duration, known bool) Phases {
	c := chain{prev: q.Fault.Time}
	if n := q.Noticed; n != nil {
		b := Bound{Basis: "controller.quorum.fetch.timeout.ms could not be read, so no bound is stated", Settings: []Setting{fetchS}}
		if known {
			b = Bound{Stated: true, High: fetch, Settings: []Setting{fetchS},
				Basis: fmt.Sprintf("[0, %s]: a voter gives up on its leader controller.quorum.fetch.timeout.ms after its last successful fetch from it, which came at the latest at the fault", secs(fetch))}
		}
		c.add(QuorumPhaseNotice, n.Time, Explanation{Evidence: n.Evidence, Source: n.Source,
			Why: fmt.Sprintf("%s gave up on the leader and asked for a pre-vote or a vote", n.Node), Setting: "controller.quorum.fetch.timeout.ms", Settings: []Setting{fetchS}}, b)
	}
	e := q.Elected
	c.add(QuorumPhaseElect, e.Time, Explanation{Evidence: e.Evidence, Source: e.Source,
		Why: fmt.Sprintf("%s won the election at epoch %d after %d candidacies", e.Node, q.NewEpoch, q.Candidacies)},
		noBound("the votes' round trips, and a lost or split election's randomised timeout, have no bound kbf states"))
	return c.phases
}

// dataPath is the longest ack gap at the fault among the partitions, beside
// the longest elsewhere; nil without a fault gap.
func dataPath(g *gaps.Report) *DataPath {
	var dp *DataPath
	var elsewhere time.Duration
	for _, p := range g.Partitions {
		if a := p.Ack.Fault; a != nil && (dp == nil || a.Duration() > dp.Gap) {
			dp = &DataPath{Partition: p.Partition, Gap: a.Duration(), Open: a.Open}
		}
		if l := p.Ack.Longest; l != nil {
			elsewhere = max(elsewhere, l.Duration())
		}
	}
	if dp != nil {
		dp.Elsewhere = elsewhere
		dp.Stalled = dp.Open || dp.Gap > elsewhere
	}
	return dp
}

// String says what the data path did, in a sentence.
func (d *DataPath) String() string {
	gap := secs(d.Gap)
	if d.Open {
		gap = "more than " + gap + ", never closed"
	}
	s := fmt.Sprintf("the longest ack gap while the quorum had no leader was %s (p%d), the longest elsewhere in the probe %s", gap, d.Partition, secs(d.Elsewhere))
	if d.Stalled {
		return s + ": the data path stalled"
	}
	return s + ": no stall of the fault's, the data path went on without a controller"
}
