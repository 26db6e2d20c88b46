package render

import (
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// The parts of report.json and summary.json: each analysis type's shape in
// the documents, its durations in seconds, and the conversion from it. The
// fields are in the order the documents have always had them; a slice the
// analysis left nil stays null, an empty one [].

// each converts every element of s with f; nil for nil.
func each[S, D any](s []S, f func(S) D) []D {
	if s == nil {
		return nil
	}
	out := make([]D, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

// seconds is d in seconds, nil when negative (none).
func seconds(d time.Duration) *float64 {
	if d < 0 {
		return nil
	}
	s := d.Seconds()
	return &s
}

type settingJSON struct {
	Name   string                 `json:"name"`
	Node   string                 `json:"node,omitempty"`
	Value  string                 `json:"value,omitempty"`
	Source analysis.SettingSource `json:"source"`
	Where  string                 `json:"where,omitempty"`
}

func settingDoc(s analysis.Setting) settingJSON {
	return settingJSON{Name: s.Name, Node: s.Node, Value: s.Value, Source: s.Source, Where: s.Where}
}

func settingsDoc(ss []analysis.Setting) []settingJSON { return each(ss, settingDoc) }

type explanationJSON struct {
	Evidence string        `json:"evidence,omitempty"`
	Source   string        `json:"source,omitempty"`
	Why      string        `json:"why,omitempty"`
	Setting  string        `json:"setting,omitempty"`
	Settings []settingJSON `json:"settings,omitempty"`
}

func explanationDoc(e analysis.Explanation) explanationJSON {
	return explanationJSON{Evidence: e.Evidence, Source: e.Source, Why: e.Why, Setting: e.Setting, Settings: settingsDoc(e.Settings)}
}

// stallJSON is a stall: its start, consumer and receive explanations as
// flat fields.
type stallJSON struct {
	// Expected is the stall against its phases' bounds, when it has
	// phases.
	Expected         *stallBoundJSON `json:"expected,omitempty"`
	Partition        int32           `json:"partition"`
	Role             results.Role    `json:"role"`
	Leader           int32           `json:"leader"`
	NewLeader        int32           `json:"new_leader,omitempty"`
	FirstAck         time.Time       `json:"first_ack,omitzero"`
	Phases           []phaseJSON     `json:"phases"`
	Note             string          `json:"note,omitempty"`
	NoteSettings     []settingJSON   `json:"note_settings,omitempty"`
	Unrelated        bool            `json:"not_the_fault,omitempty"`
	Noise            bool            `json:"within_noise,omitempty"`
	Violations       []violationJSON `json:"violations,omitempty"`
	StartWhy         string          `json:"start_why,omitempty"`
	StartEvidence    string          `json:"start_evidence,omitempty"`
	StartSource      string          `json:"start_source,omitempty"`
	StartSettings    []settingJSON   `json:"start_settings,omitempty"`
	ConsumerNote     string          `json:"consumer_note,omitempty"`
	ConsumerSettings []settingJSON   `json:"consumer_settings,omitempty"`
	ReceiveWhy       string          `json:"receive_why,omitempty"`
	ReceiveSetting   string          `json:"receive_setting,omitempty"`
	ReceiveSettings  []settingJSON   `json:"receive_settings,omitempty"`
	TotalSeconds     float64         `json:"total_seconds"`
	BeganSeconds     float64         `json:"began_after_fault_seconds,omitempty"`
	Elsewhere        float64         `json:"longest_elsewhere_seconds,omitempty"`
}

func stallDoc(st analysis.Stall) stallJSON {
	return stallJSON{
		Partition: st.Partition, Role: st.Role, Leader: st.Leader, NewLeader: st.NewLeader, FirstAck: st.FirstAck,
		Phases: each(st.Phases, phaseDoc), Note: st.Note, NoteSettings: settingsDoc(st.NoteSettings),
		Unrelated: st.Unrelated, Noise: st.Noise, Violations: each(st.Violations, violationDoc),
		StartWhy: st.Start.Why, StartEvidence: st.Start.Evidence, StartSource: st.Start.Source, StartSettings: settingsDoc(st.Start.Settings),
		ConsumerNote: st.Consumer.Why, ConsumerSettings: settingsDoc(st.Consumer.Settings),
		ReceiveWhy: st.Receive.Why, ReceiveSetting: st.Receive.Setting, ReceiveSettings: settingsDoc(st.Receive.Settings),
		TotalSeconds: st.Total.Seconds(), BeganSeconds: st.Began.Seconds(), Elsewhere: st.Elsewhere.Seconds(),
		Expected: stallBoundDoc(st),
	}
}

// stallBoundJSON is a stall against its phases' bounds (analysis.StallBound):
// the range the bounded phases allow, the time in phases with none, and
// how far they ran beyond.
type stallBoundJSON struct {
	LowSec       float64 `json:"low_sec"`
	HighSec      float64 `json:"high_sec"`
	UnboundedSec float64 `json:"unbounded_sec"`
	ExcessSec    float64 `json:"excess_sec"`
	Bounded      int     `json:"bounded_phases"`
	Beyond       int     `json:"beyond_phases"`
	// OpenSec and PastSec are, for a stall still open when probing
	// stopped, how long it had lasted and how much of that ran past
	// everything its phases allow.
	OpenSec float64 `json:"open_sec,omitempty"`
	PastSec float64 `json:"past_sec,omitempty"`
	// Pending is the phase in progress when probing stopped, with its
	// bound from its start.
	Pending *phaseJSON `json:"pending,omitempty"`
}

func stallBoundDoc(st analysis.Stall) *stallBoundJSON {
	if len(st.Phases) == 0 {
		return nil
	}
	b := st.Expected()
	var pending *phaseJSON
	if b.Open > 0 && b.Pending.Name != "" {
		p := phaseDoc(b.Pending)
		pending = &p
	}
	return &stallBoundJSON{Pending: pending, LowSec: b.Low.Seconds(), HighSec: b.High.Seconds(), UnboundedSec: b.Unbounded.Seconds(),
		ExcessSec: b.Excess.Seconds(), Bounded: b.Bounded, Beyond: b.Beyond, OpenSec: b.Open.Seconds(), PastSec: b.Past.Seconds()}
}

// expectationJSON is the trial's phases against their bounds
// (analysis.Expectation): how many had a bound, and each that ran past it.
type expectationJSON struct {
	Bounded   int           `json:"bounded_phases"`
	Unbounded int           `json:"unbounded_phases"`
	Overruns  []overrunJSON `json:"overruns"`
	// Unended are the stalls still open when probing stopped past what
	// their phases allow.
	Unended []unendedJSON `json:"unended,omitempty"`
}

type unendedJSON struct {
	Partition int32   `json:"partition"`
	OpenSec   float64 `json:"open_sec"`
	PastSec   float64 `json:"past_sec"`
}

type overrunJSON struct {
	Where []string  `json:"where"`
	Phase phaseJSON `json:"phase"`
}

func expectationDoc(x analysis.Expectation) *expectationJSON {
	if x.Bounded+x.Unbounded == 0 {
		return nil
	}
	return &expectationJSON{Bounded: x.Bounded, Unbounded: x.Unbounded, Overruns: append([]overrunJSON{}, each(x.Overruns, func(o analysis.Overrun) overrunJSON {
		return overrunJSON{Where: o.Where, Phase: phaseDoc(o.Phase)}
	})...), Unended: each(x.Unended, func(u analysis.Unended) unendedJSON {
		return unendedJSON{Partition: u.Partition, OpenSec: u.Open.Seconds(), PastSec: u.Past.Seconds()}
	})}
}

type phaseJSON struct {
	Name  string    `json:"name"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	explanationJSON
	Seconds float64 `json:"seconds"`
	// OverlapSec is, for a phase whose line came out of its recipe's
	// order, how long before the phase before it ended.
	OverlapSec float64    `json:"overlap_sec,omitempty"`
	Bound      *boundJSON `json:"bound,omitempty"`
}

// boundJSON is a phase's bound (analysis.Bound): low < seconds ≤ high when
// stated, and how far beyond (excess_sec); basis says how it follows from
// its settings, or why none is stated.
type boundJSON struct {
	Stated    bool          `json:"stated"`
	LowSec    float64       `json:"low_sec"`
	HighSec   float64       `json:"high_sec"`
	ExcessSec float64       `json:"excess_sec"`
	Basis     string        `json:"basis,omitempty"`
	Settings  []settingJSON `json:"settings,omitempty"`
}

func phaseDoc(ph analysis.Phase) phaseJSON {
	out := phaseJSON{Name: ph.Name, Start: ph.Start, End: ph.End, explanationJSON: explanationDoc(ph.Explanation), Seconds: ph.Duration.Seconds(),
		OverlapSec: ph.Overlap.Seconds()}
	if b := ph.Bound; b.Stated || b.Basis != "" {
		out.Bound = &boundJSON{Stated: b.Stated, LowSec: b.Low.Seconds(), HighSec: b.High.Seconds(), ExcessSec: b.Excess.Seconds(),
			Basis: b.Basis, Settings: settingsDoc(b.Settings)}
	}
	return out
}

type violationJSON struct {
	Partition int32  `json:"partition"`
	What      string `json:"what"`
}

func violationDoc(v analysis.Violation) violationJSON {
	return violationJSON{Partition: v.Partition, What: v.What}
}

type boundaryJSON struct {
	Kind      analysis.BoundaryKind `json:"kind"`
	Time      time.Time             `json:"time"`
	Phase     string                `json:"phase,omitempty"`
	Partition int32                 `json:"partition"`
	Role      results.Role          `json:"role,omitempty"`
	Broker    int32                 `json:"broker"`
	InStall   bool                  `json:"in_stall"`
	Evidence  string                `json:"evidence,omitempty"`
	Source    string                `json:"source,omitempty"`
}

func boundaryDoc(b analysis.Boundary) boundaryJSON {
	return boundaryJSON{
		Kind: b.Kind, Time: b.Time, Phase: b.Phase, Partition: b.Partition, Role: b.Role,
		Broker: b.Broker, InStall: b.InStall, Evidence: b.Evidence, Source: b.Source,
	}
}

// quorumJSON is a controller fault's quorum gap.
type quorumJSON struct {
	Controller  string       `json:"controller"`
	NodeID      int32        `json:"node_id"`
	Epoch       int64        `json:"epoch"`
	Led         *logLineJSON `json:"led,omitempty"`
	Fault       logLineJSON  `json:"fault"`
	Noticed     *logLineJSON `json:"noticed,omitempty"`
	Elected     *logLineJSON `json:"elected,omitempty"`
	NewLeader   string       `json:"new_leader,omitempty"`
	NewEpoch    int64        `json:"new_epoch"`
	Candidacies int          `json:"candidacies"`
	explanationJSON
	Note              string        `json:"note,omitempty"`
	DataPath          *dataPathJSON `json:"data_path,omitempty"`
	LeaderlessSeconds float64       `json:"leaderless_seconds"`
	// Phases are the gap as a chain (notice, quorum elect), each with its bound.
	Phases           []phaseJSON `json:"phases,omitempty"`
	PredictedSeconds *float64    `json:"predicted_seconds,omitempty"`
}

func quorumDoc(q *analysis.QuorumGap) *quorumJSON {
	if q == nil {
		return nil
	}
	out := &quorumJSON{
		Controller: q.Controller, NodeID: q.NodeID, Epoch: q.Epoch,
		Led: logLinePtr(q.Led), Fault: logLineDoc(q.Fault), Noticed: logLinePtr(q.Noticed), Elected: logLinePtr(q.Elected),
		NewLeader: q.NewLeader, NewEpoch: q.NewEpoch, Candidacies: q.Candidacies,
		explanationJSON: explanationDoc(q.Explanation), Note: q.Note,
		LeaderlessSeconds: q.Leaderless.Seconds(), Phases: each(q.Phases, phaseDoc),
	}
	if d := q.DataPath; d != nil {
		out.DataPath = &dataPathJSON{
			Partition: d.Partition, Open: d.Open, Stalled: d.Stalled,
			GapSeconds: d.Gap.Seconds(), ElsewhereSeconds: d.Elsewhere.Seconds(),
		}
	}
	if q.Predicted > 0 {
		out.PredictedSeconds = seconds(q.Predicted)
	}
	return out
}

type logLineJSON struct {
	Node     string    `json:"node"`
	Time     time.Time `json:"time"`
	Evidence string    `json:"evidence"`
	Source   string    `json:"source"`
}

func logLineDoc(l analysis.LogLine) logLineJSON {
	return logLineJSON{Node: l.Node, Time: l.Time, Evidence: l.Evidence, Source: l.Source}
}

func logLinePtr(l *analysis.LogLine) *logLineJSON {
	if l == nil {
		return nil
	}
	d := logLineDoc(*l)
	return &d
}

type dataPathJSON struct {
	Partition        int32   `json:"partition"`
	Open             bool    `json:"open,omitempty"`
	Stalled          bool    `json:"stalled"`
	GapSeconds       float64 `json:"gap_seconds"`
	ElsewhereSeconds float64 `json:"longest_elsewhere_seconds"`
}

// stepsJSON is a fault of several steps, its bound first.
type stepsJSON struct {
	BoundSeconds float64              `json:"stall_bound_seconds"`
	Steps        []stepWindowJSON     `json:"steps"`
	Partitions   []partitionStepsJSON `json:"partitions"`
	Stops        int                  `json:"graceful_stops"`
	Escalated    int                  `json:"escalated"`
}

type stepWindowJSON struct {
	N int `json:"step"`
	results.Step
	From         time.Time `json:"from"`
	Observed     bool      `json:"observed,omitempty"`
	SinceSeconds float64   `json:"since_first_seconds"`
}

type partitionStepsJSON struct {
	Partition      int32            `json:"partition"`
	Steps          []stepStallsJSON `json:"steps"`
	Stalls         int              `json:"stalls"`
	Open           bool             `json:"open,omitempty"`
	Longest        *gaps.Gap        `json:"longest,omitempty"`
	LongestStep    int              `json:"longest_step,omitempty"`
	StalledSeconds float64          `json:"stalled_seconds"`
}

type stepStallsJSON struct {
	Ack     *gaps.Gap `json:"ack,omitempty"`
	Receive *gaps.Gap `json:"receive,omitempty"`
}

func stepsDoc(v *analysis.StepView) *stepsJSON {
	if v == nil {
		return nil
	}
	return &stepsJSON{
		BoundSeconds: v.Bound.Seconds(),
		Steps: each(v.Steps, func(w analysis.StepWindow) stepWindowJSON {
			return stepWindowJSON{N: w.N, Step: w.Step, From: w.From, Observed: w.Observed, SinceSeconds: w.Since.Seconds()}
		}),
		Partitions: each(v.Partitions, func(p analysis.PartitionSteps) partitionStepsJSON {
			return partitionStepsJSON{
				Partition: p.Partition,
				Steps: each(p.Steps, func(s analysis.StepStalls) stepStallsJSON {
					return stepStallsJSON{Ack: s.Ack, Receive: s.Receive}
				}),
				Stalls: p.Stalls, Open: p.Open, Longest: p.Longest, LongestStep: p.LongestStep,
				StalledSeconds: p.Stalled.Seconds(),
			}
		}),
		Stops: v.Stops, Escalated: v.Escalated,
	}
}

// replicasJSON is the replica view's summary; the series a picture draws
// are replicas.csv's, not the JSON's.
type replicasJSON struct {
	Sampling   *results.ReplicaStats   `json:"sampling,omitempty"`
	Partitions []partitionReplicasJSON `json:"partitions"`
}

type partitionReplicasJSON struct {
	Partition  int32               `json:"partition"`
	AtFault    []replicaOffsetJSON `json:"at_fault,omitempty"`
	HWAtFault  int64               `json:"hw_at_fault"`
	HW         *stopJSON           `json:"hw_stop,omitempty"`
	Frozen     []replicaStopJSON   `json:"frozen,omitempty"`
	TakeOver   *takeOverJSON       `json:"take_over,omitempty"`
	Changes    []stateChangeJSON   `json:"changes,omitempty"`
	Stale      int                 `json:"stale_answers,omitempty"`
	FirstStale time.Time           `json:"first_stale,omitzero"`
	Leaderless []leaderlessJSON    `json:"leaderless,omitempty"`
}

type replicaOffsetJSON struct {
	Broker int32     `json:"broker"`
	Offset int64     `json:"offset"`
	Time   time.Time `json:"time"`
}

type stopJSON struct {
	Offset  int64     `json:"offset"`
	Stopped time.Time `json:"stopped"`
	Moved   time.Time `json:"moved,omitzero"`
}

type replicaStopJSON struct {
	Broker int32 `json:"broker"`
	stopJSON
}

type takeOverJSON struct {
	Broker int32     `json:"broker"`
	Time   time.Time `json:"time"`
	LEO    int64     `json:"leo"`
}

type leaderlessJSON struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to,omitzero"`
}

type stateChangeJSON struct {
	Time         time.Time `json:"time"`
	Leader       int32     `json:"leader"`
	LeaderEpoch  int32     `json:"leader_epoch"`
	ISR          []int32   `json:"isr"`
	ELR          []int32   `json:"elr,omitempty"`
	LastKnownELR []int32   `json:"last_known_elr,omitempty"`
}

func stopDoc(s analysis.Stop) stopJSON {
	return stopJSON{Offset: s.Offset, Stopped: s.Stopped, Moved: s.Moved}
}

func replicasDoc(rv *analysis.ReplicaView) *replicasJSON {
	if rv == nil {
		return nil
	}
	return &replicasJSON{Sampling: rv.Sampling, Partitions: each(rv.Partitions, partitionReplicasDoc)}
}

func partitionReplicasDoc(p analysis.PartitionReplicas) partitionReplicasJSON {
	out := partitionReplicasJSON{
		Partition: p.Partition,
		AtFault: each(p.AtFault, func(o analysis.ReplicaOffset) replicaOffsetJSON {
			return replicaOffsetJSON{Broker: o.Broker, Offset: o.Offset, Time: o.Time}
		}),
		HWAtFault: p.HWAtFault,
		Frozen: each(p.Frozen, func(s analysis.ReplicaStop) replicaStopJSON {
			return replicaStopJSON{Broker: s.Broker, stopJSON: stopDoc(s.Stop)}
		}),
		Changes: each(p.Changes, func(c analysis.StateChange) stateChangeJSON {
			return stateChangeJSON{Time: c.Time, Leader: c.Leader, LeaderEpoch: c.LeaderEpoch, ISR: c.ISR, ELR: c.ELR, LastKnownELR: c.LastKnownELR}
		}),
		Stale: p.Stale, FirstStale: p.FirstStale,
		Leaderless: each(p.Leaderless, func(l analysis.Leaderless) leaderlessJSON {
			return leaderlessJSON{From: l.From, To: l.To}
		}),
	}
	if p.HW != nil {
		hw := stopDoc(*p.HW)
		out.HW = &hw
	}
	if t := p.TakeOver; t != nil {
		out.TakeOver = &takeOverJSON{Broker: t.Broker, Time: t.Time, LEO: t.LEO}
	}
	return out
}

// clientJSON is one client's view of the fault.
type clientJSON struct {
	Name       string                `json:"name"`
	Partitions []clientPartitionJSON `json:"partitions"`
	Audit      *auditJSON            `json:"audit,omitempty"`
	Settings   []settingJSON         `json:"settings,omitempty"`
	Err        string                `json:"error,omitempty"`
	// MetaMissing: the client's meta.json is missing.
	MetaMissing bool `json:"meta_missing,omitempty"`
	// Group is the client's group reader in brief; absent without one.
	Group *clientGroupJSON `json:"group,omitempty"`
}

// clientGroupJSON is a client's group reader in brief: its longest
// processing stall (at the fault, else anywhere) and its commit stall.
type clientGroupJSON struct {
	Protocol            string   `json:"protocol"`
	Commit              string   `json:"commit"`
	ProcessingStall     *float64 `json:"processing_stall_seconds,omitempty"`
	ProcessingPartition *int32   `json:"processing_partition,omitempty"`
	ProcessingOpen      bool     `json:"processing_open,omitempty"`
	CommitStall         *float64 `json:"commit_stall_seconds,omitempty"`
	CommitOpen          bool     `json:"commit_open,omitempty"`
	Commits             int      `json:"commits"`
	Failed              int      `json:"failed_commits"`
	Rebalances          int      `json:"rebalances"`
}

func clientGroupDoc(g *analysis.ClientGroup) *clientGroupJSON {
	if g == nil {
		return nil
	}
	out := &clientGroupJSON{Protocol: g.Protocol, Commit: g.Commit, Commits: g.Commits, Failed: g.Failed, Rebalances: g.Rebalances}
	if g.Found {
		sec, part := g.Processing.Seconds(), g.Partition
		out.ProcessingStall, out.ProcessingPartition, out.ProcessingOpen = &sec, &part, g.ProcessingOpen
	}
	if g.HasCommitStall {
		sec := g.CommitStall.Seconds()
		out.CommitStall, out.CommitOpen = &sec, g.CommitOpen
	}
	return out
}

type auditJSON struct {
	Acknowledged int `json:"acknowledged"`
	Lost         int `json:"lost"`
	Duplicated   int `json:"duplicated"`
	Reordered    int `json:"reordered"`
}

type clientPartitionJSON struct {
	Partition int32        `json:"partition"`
	Role      results.Role `json:"role"`
	Open      bool         `json:"open,omitempty"`
	Learnt    time.Time    `json:"learnt,omitzero"`
	ClientWhy string       `json:"client_why,omitempty"`
	Evidence  string       `json:"evidence,omitempty"`
	Ack       float64      `json:"ack_seconds"`
	Receive   float64      `json:"receive_seconds"`
	Client    float64      `json:"client_seconds,omitempty"`
}

type clientDiffJSON struct {
	Partition  int32        `json:"partition"`
	Role       results.Role `json:"role"`
	Longest    string       `json:"longest"`
	Shortest   string       `json:"shortest"`
	Measurable bool         `json:"measurable"`
	Why        string       `json:"why"`
	Diff       float64      `json:"diff_seconds"`
	Resolution float64      `json:"resolution_seconds"`
}

func clientDoc(cr analysis.ClientResult) clientJSON {
	out := clientJSON{
		Name: cr.Name,
		Partitions: each(cr.Partitions, func(cp analysis.ClientPartition) clientPartitionJSON {
			return clientPartitionJSON{
				Partition: cp.Partition, Role: cp.Role, Open: cp.Open, Learnt: cp.Learnt,
				ClientWhy: cp.Learning.Why, Evidence: cp.Learning.Evidence,
				Ack: cp.Ack.Seconds(), Receive: cp.Receive.Seconds(), Client: cp.Client.Seconds(),
			}
		}),
		Settings: settingsDoc(cr.Settings), Err: cr.Err, MetaMissing: cr.MetaMissing, Group: clientGroupDoc(cr.Group),
	}
	if a := cr.Audit; a != nil {
		out.Audit = &auditJSON{Acknowledged: a.Acknowledged, Lost: a.Lost, Duplicated: a.Duplicated, Reordered: a.Reordered}
	}
	return out
}

func clientDiffDoc(d analysis.ClientDiff) clientDiffJSON {
	return clientDiffJSON{
		Partition: d.Partition, Role: d.Role, Longest: d.Longest, Shortest: d.Shortest,
		Measurable: d.Measurable, Why: d.Why, Diff: d.Diff.Seconds(), Resolution: d.Resolution.Seconds(),
	}
}

// externalJSON is the broker an external fault hit, as the analysis names
// it.
type externalJSON struct {
	NodeID   int32  `json:"node_id"`
	Broker   string `json:"broker"`
	By       string `json:"by"`
	Evidence string `json:"evidence"`
}

func externalDoc(e *analysis.ExternalBroker) *externalJSON {
	if e == nil {
		return nil
	}
	return &externalJSON{NodeID: e.NodeID, Broker: e.Broker, By: e.By, Evidence: e.Evidence}
}

type coordinatorJSON struct {
	Group   string    `json:"group"`
	NodeID  int32     `json:"node_id"`
	Broker  string    `json:"broker,omitempty"`
	Via     string    `json:"via"`
	At      time.Time `json:"at"`
	Err     string    `json:"error,omitempty"`
	Faulted bool      `json:"faulted"`
	Chosen  bool      `json:"chosen,omitempty"`
}

func coordinatorDoc(c *analysis.GroupCoordinator) *coordinatorJSON {
	if c == nil {
		return nil
	}
	return &coordinatorJSON{Group: c.Group, NodeID: c.NodeID, Broker: c.Broker, Via: c.Via, At: c.At, Err: c.Err, Faulted: c.Faulted, Chosen: c.Chosen}
}

type findingJSON struct {
	Client          string `json:"client"`
	Acks            string `json:"acks"`
	Idempotent      bool   `json:"idempotent"`
	SettingsUnknown bool   `json:"settings_unknown,omitempty"`
	Acknowledged    int    `json:"acknowledged"`
	Lost            int    `json:"lost"`
	Duplicated      int    `json:"duplicated"`
	Reordered       int    `json:"reordered"`
	// CommitsBackwards: the group reader's commits that moved a
	// partition's committed offset back.
	CommitsBackwards int `json:"commits_backwards,omitempty"`
	// AbortedRead and TxnTorn: records of aborted transactions read at
	// read_committed, and transactions of unknown outcome read back in
	// part (analysis.TxnView).
	AbortedRead int `json:"aborted_read,omitempty"`
	TxnTorn     int `json:"txn_torn,omitempty"`
}

func findingDoc(f analysis.Finding) findingJSON {
	return findingJSON{
		Client: f.Client, Acks: f.Acks, Idempotent: f.Idempotent, SettingsUnknown: f.SettingsUnknown,
		Acknowledged: f.Acknowledged, Lost: f.Lost, Duplicated: f.Duplicated, Reordered: f.Reordered,
		CommitsBackwards: f.CommitsBackwards, AbortedRead: f.AbortedRead, TxnTorn: f.TxnTorn,
	}
}

// digestJSON is the trial at a glance.
type digestJSON struct {
	Phases  []string        `json:"phases"`
	Rows    []digestRowJSON `json:"rows"`
	Causes  []causeJSON     `json:"causes,omitempty"`
	Audited bool            `json:"audited"`
	Verdict string          `json:"verdict,omitempty"`
	// Spreads are each role's stalls across its partitions, for a trial
	// of more partitions than analysis.Condense; the rows keep them all.
	Spreads []spreadJSON `json:"spreads,omitempty"`
	// Applied is, with Spreads, when each broker applied the changes that
	// ended the partitions' elect phases, in seconds after the fault.
	Applied []appliedJSON `json:"elect_applied,omitempty"`
}

type appliedJSON struct {
	Broker     int32   `json:"broker"`
	Partitions int     `json:"partitions"`
	First      float64 `json:"first_seconds"`
	Last       float64 `json:"last_seconds"`
}

// spreadJSON is one role's distribution: the ack and receive stalls'
// quantiles across its partitions, in seconds, and its worst partitions.
type spreadJSON struct {
	Role            results.Role  `json:"role"`
	Partitions      int           `json:"partitions"`
	AckPartitions   int           `json:"ack_partitions"`
	AckOpen         int           `json:"ack_open"`
	Ack             quantilesJSON `json:"ack_seconds"`
	RecvPartitions  int           `json:"receive_partitions"`
	ReceiveOpen     int           `json:"receive_open"`
	Receive         quantilesJSON `json:"receive_seconds"`
	WorstPartitions []int32       `json:"worst_partitions"`
}

type quantilesJSON struct {
	Min float64 `json:"min"`
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

func quantilesDoc(q analysis.Quantiles) quantilesJSON {
	return quantilesJSON{Min: q.Min.Seconds(), P50: q.P50.Seconds(), P90: q.P90.Seconds(), P99: q.P99.Seconds(), Max: q.Max.Seconds()}
}

func spreadDoc(s analysis.Spread) spreadJSON {
	return spreadJSON{Role: s.Role, Partitions: s.Partitions,
		AckPartitions: s.Acked, AckOpen: s.AckOpen, Ack: quantilesDoc(s.Ack),
		RecvPartitions: s.Received, ReceiveOpen: s.RecOpen, Receive: quantilesDoc(s.Receive),
		WorstPartitions: each(s.Worst, func(r analysis.DigestRow) int32 { return r.Partition })}
}

// digestRowJSON is a partition's row; an absent gap or phase is null.
type digestRowJSON struct {
	Partition   int32        `json:"partition"`
	Role        results.Role `json:"role,omitempty"`
	AckOpen     bool         `json:"ack_open,omitempty"`
	ReceiveOpen bool         `json:"receive_open,omitempty"`
	Sent        int          `json:"sent"`
	Acked       int          `json:"acked"`
	Failed      int          `json:"failed"`
	Lost        int          `json:"lost"`
	Duplicated  int          `json:"duplicated"`
	Reordered   int          `json:"reordered"`
	Ack         *float64     `json:"ack_seconds"`
	Receive     *float64     `json:"receive_seconds"`
	Phases      []*float64   `json:"phases_seconds"`
}

type causeJSON struct {
	Kind string `json:"kind"`
	explanationJSON
	Partitions []int32 `json:"partitions"`
	Min        float64 `json:"min_seconds"`
	Max        float64 `json:"max_seconds"`
}

func digestDoc(d *analysis.Digest) *digestJSON {
	if d == nil {
		return nil
	}
	return &digestJSON{
		Phases: d.Phases,
		Rows: each(d.Rows, func(r analysis.DigestRow) digestRowJSON {
			phases := make([]*float64, len(r.Phases))
			for i, p := range r.Phases {
				phases[i] = seconds(p)
			}
			return digestRowJSON{
				Partition: r.Partition, Role: r.Role, AckOpen: r.AckOpen, ReceiveOpen: r.ReceiveOpen,
				Sent: r.Sent, Acked: r.Acked, Failed: r.Failed, Lost: r.Lost, Duplicated: r.Duplicated, Reordered: r.Reordered,
				Ack: seconds(r.Ack), Receive: seconds(r.Receive), Phases: phases,
			}
		}),
		Causes: each(d.Causes, func(c analysis.Cause) causeJSON {
			return causeJSON{Kind: c.Kind, explanationJSON: explanationDoc(c.Explanation), Partitions: c.Partitions, Min: c.Min.Seconds(), Max: c.Max.Seconds()}
		}),
		Audited: d.Audited, Verdict: d.Verdict,
		Spreads: each(d.Spreads, spreadDoc),
		Applied: each(d.Applied, func(a analysis.Applied) appliedJSON {
			return appliedJSON{Broker: a.Broker, Partitions: a.Partitions, First: a.First.Seconds(), Last: a.Last.Seconds()}
		}),
	}
}

// summaryJSON is summary.json: a run's trials side by side.
type summaryJSON struct {
	Trials         int                   `json:"trials"`
	Faults         []results.FaultKind   `json:"faults"`
	Detect         rangeJSON             `json:"detect"`
	ElectAndClient rangeJSON             `json:"elect_and_client"`
	LeaderGap      rangeJSON             `json:"leader_ack_gap"`
	FollowerGap    rangeJSON             `json:"follower_ack_gap"`
	ReceiveGap     rangeJSON             `json:"receive_gap"`
	AnyGap         rangeJSON             `json:"ack_gap"`
	Phases         map[string]*rangeJSON `json:"phases"`
	FailedSends    int                   `json:"failed_sends"`
	Lost           int                   `json:"lost"`
	Duplicated     int                   `json:"duplicated"`
	Reordered      int                   `json:"reordered"`
	Escalated      int                   `json:"escalated"`
	LeftOut        []string              `json:"left_out,omitempty"`
	Clients        []clientSummaryJSON   `json:"clients,omitempty"`
	Group          *groupSummaryJSON     `json:"group,omitempty"`
	Txn            *txnSummaryJSON       `json:"transactions,omitempty"`
}

type txnSummaryJSON struct {
	Commit    rangeJSON `json:"commit_stall"`
	LSO       rangeJSON `json:"read_committed_stall"`
	Load      rangeJSON `json:"coordinator_load"`
	Committed int       `json:"committed"`
	Aborted   int       `json:"aborted"`
	TimedOut  int       `json:"timed_out"`
}

type groupSummaryJSON struct {
	Stall       rangeJSON `json:"processing_gap"`
	Commit      rangeJSON `json:"commit_stall"`
	Load        rangeJSON `json:"coordinator_load"`
	Rebalances  int       `json:"rebalances"`
	Reprocessed int       `json:"reprocessed"`
}

type rangeJSON struct {
	Min float64 `json:"min_seconds"`
	Max float64 `json:"max_seconds"`
	N   int     `json:"n"`
}

type clientSummaryJSON struct {
	Client string       `json:"client"`
	Role   results.Role `json:"role"`
	Ack    rangeJSON    `json:"ack_gap"`
	Phase  rangeJSON    `json:"client_phase"`
	Lost   int          `json:"lost"`
}

func rangeDoc(r analysis.Range) rangeJSON {
	return rangeJSON{Min: r.Min.Seconds(), Max: r.Max.Seconds(), N: r.N}
}

func summaryDoc(s *analysis.Summary) *summaryJSON {
	if s == nil {
		return nil
	}
	out := &summaryJSON{
		Trials: s.Trials, Faults: s.Faults,
		Detect: rangeDoc(s.Detect), ElectAndClient: rangeDoc(s.ElectAndClient),
		LeaderGap: rangeDoc(s.LeaderGap), FollowerGap: rangeDoc(s.FollowerGap),
		ReceiveGap: rangeDoc(s.ReceiveGap), AnyGap: rangeDoc(s.AnyGap),
		FailedSends: s.FailedSends, Lost: s.Lost, Duplicated: s.Duplicated, Reordered: s.Reordered,
		Escalated: s.Escalated, LeftOut: s.LeftOut,
		Clients: each(s.Clients, func(c analysis.ClientSummary) clientSummaryJSON {
			return clientSummaryJSON{Client: c.Client, Role: c.Role, Ack: rangeDoc(c.Ack), Phase: rangeDoc(c.Phase), Lost: c.Lost}
		}),
	}
	if g := s.Group; g != nil {
		out.Group = &groupSummaryJSON{Stall: rangeDoc(g.Stall), Commit: rangeDoc(g.Commit), Load: rangeDoc(g.Load), Rebalances: g.Rebalances, Reprocessed: g.Reprocessed}
	}
	if x := s.Txn; x != nil {
		out.Txn = &txnSummaryJSON{Commit: rangeDoc(x.Commit), LSO: rangeDoc(x.LSO), Load: rangeDoc(x.Load), Committed: x.Committed, Aborted: x.Aborted, TimedOut: x.TimedOut}
	}
	if s.Phases != nil {
		out.Phases = make(map[string]*rangeJSON, len(s.Phases))
		for name, r := range s.Phases {
			var d *rangeJSON
			if r != nil {
				rd := rangeDoc(*r)
				d = &rd
			}
			out.Phases[name] = d
		}
	}
	return out
}

// groupDoc is the group reader's view with its durations in seconds, as
// the report's other parts have them.
func groupDoc(v *analysis.GroupView, r *analysis.GroupRecovery) any {
	if v == nil {
		return nil
	}
	type part struct {
		Partition     int32     `json:"partition"`
		Processed     int       `json:"processed"`
		Stall         *gaps.Gap `json:"stall,omitempty"`
		StallSec      *float64  `json:"stall_sec,omitempty"`
		Longest       *gaps.Gap `json:"longest_elsewhere,omitempty"`
		ReceiveSec    *float64  `json:"assign_receive_stall_sec,omitempty"`
		ReceiveOpen   bool      `json:"assign_receive_open,omitempty"`
		StallOpenHere bool      `json:"open,omitempty"`
	}
	type commit struct {
		spanJSON
		Open   bool `json:"open,omitempty"`
		Failed int  `json:"failed"`
	}
	type change struct {
		Time       time.Time `json:"time"`
		Kind       string    `json:"kind"`
		Generation int32     `json:"generation"`
		Partitions []int32   `json:"partitions"`
	}
	type skip struct {
		Partition int32 `json:"partition"`
		Offset    int64 `json:"offset"`
		Seq       int64 `json:"seq"`
	}
	type back struct {
		Partition int32     `json:"partition"`
		At        time.Time `json:"at"`
		Offset    int64     `json:"offset"`
		Before    int64     `json:"before"`
	}
	out := struct {
		Settings    results.GroupSettings `json:"settings"`
		Processed   int                   `json:"processed"`
		Reprocessed int                   `json:"reprocessed"`
		Partitions  []part                `json:"partitions"`
		Commits     int                   `json:"commits"`
		Failed      int                   `json:"failed_commits"`
		CommitStall *commit               `json:"commit_stall,omitempty"`
		Rebalances  int                   `json:"rebalances"`
		Changes     []change              `json:"assignment_changes,omitempty"`
		Backwards   []back                `json:"offsets_backwards,omitempty"`
		// The audit: what the commit mode promises, whether the
		// partitions' read-back was weighed, and the records below a
		// committed offset never processed (the first of them named).
		Promise     string `json:"promise"`
		Audited     bool   `json:"audited"`
		Skipped     int    `json:"skipped"`
		SkippedRecs []skip `json:"skipped_records,omitempty"`
		// The group's recovery from the fault, phase by phase.
		Recovery *groupRecoveryJSON `json:"recovery,omitempty"`
	}{Settings: v.Settings, Processed: v.Processed, Reprocessed: v.Reprocessed, Commits: v.Commits, Failed: v.Failed,
		Rebalances: v.Rebalances(), Partitions: []part{}, Promise: v.Promise, Audited: v.Audited, Skipped: v.SkippedN,
		Recovery: groupRecoveryDoc(r)}
	for _, k := range v.Skipped {
		out.SkippedRecs = append(out.SkippedRecs, skip{Partition: k.Partition, Offset: k.Offset, Seq: k.Seq})
	}
	for _, p := range v.Partitions {
		pp := part{Partition: p.Partition, Processed: p.Processed, Stall: p.Stalls.Fault, Longest: p.Stalls.Longest}
		if p.Stalls.Fault != nil {
			pp.StallSec = seconds(p.Stalls.Fault.Duration())
			pp.StallOpenHere = p.Stalls.Fault.Open
		}
		if p.Receive != nil {
			pp.ReceiveSec = seconds(p.Receive.Duration())
			pp.ReceiveOpen = p.Receive.Open
		}
		out.Partitions = append(out.Partitions, pp)
	}
	if s := v.CommitStall; s != nil {
		out.CommitStall = &commit{spanJSON: commitSpan(s), Open: s.Open, Failed: s.Failed}
	}
	for _, c := range v.Changes {
		out.Changes = append(out.Changes, change{Time: c.Time.UTC(), Kind: string(c.Kind), Generation: c.Generation, Partitions: c.Partitions})
	}
	for _, b := range v.Backwards {
		out.Backwards = append(out.Backwards, back{Partition: b.Partition, At: b.At.UTC(), Offset: b.Offset, Before: b.Before})
	}
	return out
}

// groupRecoveryJSON is the group's recovery (analysis.GroupRecovery): its
// __consumer_offsets partition and how it was placed, the coordinators
// before and after, and its phases, each ending at its evidence.
type groupRecoveryJSON struct {
	Group            string      `json:"group"`
	OffsetsPartition int32       `json:"offsets_partition"`
	Partitions       settingJSON `json:"offsets_topic_partitions"`
	Coordinator      int32       `json:"coordinator"`
	NewCoordinator   int32       `json:"new_coordinator"`
	Faulted          bool        `json:"coordinator_faulted"`
	Loaded           int64       `json:"loaded_records"`
	LoadTookSec      float64     `json:"load_took_sec"`
	TotalSec         float64     `json:"total_sec"`
	Phases           []phaseJSON `json:"phases"`
	Note             string      `json:"note,omitempty"`
	// Cause is, when the coordinator survived, the line that shows its
	// offsets partition's ISR without the faulted broker.
	Cause *explanationJSON `json:"cause,omitempty"`
}

func groupRecoveryDoc(r *analysis.GroupRecovery) *groupRecoveryJSON {
	if r == nil {
		return nil
	}
	out := &groupRecoveryJSON{Group: r.Key, OffsetsPartition: r.Partition, Partitions: settingDoc(r.Partitions),
		Coordinator: r.Coordinator, NewCoordinator: r.NewCoordinator, Faulted: r.Faulted, Loaded: r.Loaded,
		LoadTookSec: r.LoadTook.Seconds(), TotalSec: r.Total().Seconds(), Phases: append([]phaseJSON{}, each(r.Phases, phaseDoc)...), Note: r.Note}
	if r.Cause.Source != "" {
		c := explanationDoc(r.Cause)
		out.Cause = &c
	}
	return out
}
