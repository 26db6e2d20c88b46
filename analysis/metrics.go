package analysis

import (
	"slices"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
)

// Measure names one measure of a fault, as kbf bench's metrics name them.
type Measure string

// The measures of a fault, per partition.
const (
	// MeasureAckStall and MeasureReceiveStall are the gaps at the fault.
	MeasureAckStall     Measure = "ack_stall"
	MeasureReceiveStall Measure = "receive_stall"
	// The stall's phases.
	MeasureDetect   Measure = "detect"
	MeasureElect    Measure = "elect"
	MeasureClient   Measure = "client"
	MeasureFirstAck Measure = "first_ack"
	// MeasureAfterDetect is the stall after the controller acted (elect +
	// client + first ack): free of the heartbeat's phase. Only a stall
	// that began at the fault and ended has it.
	MeasureAfterDetect Measure = "after_detect"
	// MeasureFromHeartbeat is the stall from the broker's last heartbeat
	// as the controller's session timeout places it: after detect +
	// Metrics.SessionTimeout. A graceful stop, detected by its controlled
	// shutdown, has none.
	MeasureFromHeartbeat Measure = "from_heartbeat"
	// MeasureTotalStall and MeasureLongestStall are a fault of several
	// steps' ack stalls over the stall bound, summed, and the longest.
	MeasureTotalStall   Measure = "total_stall"
	MeasureLongestStall Measure = "longest_stall"
	// MeasureGroupStall is the group reader's processing gap at the
	// fault; MeasureCommitStall its commits' stall at the fault, the
	// group's, on every partition (GroupView.CommitStall). Only a trial
	// with a group reader has them.
	MeasureGroupStall  Measure = "group_stall"
	MeasureCommitStall Measure = "commit_stall"
	// MeasureTxnCommitStall is the transactional producer's longest time
	// with no committed transaction at the fault, on every partition
	// (TxnView.CommitStall); MeasureLSOStall the partition's
	// read_committed stall at the fault (TxnView.LSO). Only a
	// transactional probe's trial has them.
	MeasureTxnCommitStall Measure = "txn_commit_stall"
	MeasureLSOStall       Measure = "lso_stall"
	// MeasureCoordinatorLoad is the group recovery's load phase: the new
	// group coordinator's "Scheduling loading" line to its "Finished
	// loading" of the group's __consumer_offsets partition, on every
	// partition. Only a trial whose fault hit the group's coordinator and
	// whose logs show the load has it.
	MeasureCoordinatorLoad Measure = "coordinator_load"
	// MeasureBeyondBound is how far the partition's stall's phases, and
	// the coordinators' recoveries' phases, ran past what their settings
	// allow (Bound), summed; zero within. Only a stall split into phases
	// has it.
	MeasureBeyondBound Measure = "beyond_bound"
)

// Measures are every measure, in the order bench.txt lists them.
var Measures = []Measure{MeasureAckStall, MeasureReceiveStall, MeasureDetect, MeasureElect, MeasureClient,
	MeasureFirstAck, MeasureAfterDetect, MeasureFromHeartbeat, MeasureTotalStall, MeasureLongestStall,
	MeasureGroupStall, MeasureCommitStall, MeasureTxnCommitStall, MeasureLSOStall, MeasureCoordinatorLoad, MeasureBeyondBound}

// phaseMeasure is the measure of each stall phase.
var phaseMeasure = map[string]Measure{
	PhaseDetect:   MeasureDetect,
	PhaseElect:    MeasureElect,
	PhaseClient:   MeasureClient,
	PhaseFirstAck: MeasureFirstAck,
}

// Metrics are a trial's measures of its fault, per partition, each with
// the role Trial.Role gives it: the numbers kbf bench writes and a run's
// summary ranges over, decided here once.
type Metrics struct {
	// SessionTimeout is the controller's broker.session.timeout.ms, as the
	// detection's explanation reads it. It is read only for a stall that
	// from_heartbeat measures (a kill's, detected by session expiry);
	// otherwise, or when it could not be read, its Source is SourceUnknown
	// and Where says why.
	SessionTimeout Setting
	// Partitions are every probed partition's measures, in the gaps'
	// order.
	Partitions []PartitionMetrics
}

// PartitionMetrics are one partition's measures of the fault.
type PartitionMetrics struct {
	Partition int32
	Role      results.Role
	// Values are the measures the partition showed; one it did not show
	// (no receive gap, no client phase for a follower) is absent.
	Values map[Measure]time.Duration
	// Lost is how many of its acknowledged records the audit found lost.
	Lost int
}

// RoleMetrics are one role's measures in a trial. The partition with the
// longest ack stall speaks for the role, and every measure of a stall is
// that partition's, so the phases add up to the stall beside them; Lost is
// the role's partitions' sum; a fault of several steps' total and longest
// stall are each the worst of the role's partitions, for the stall at the
// first step is one of several, and not always the worst.
type RoleMetrics struct {
	Role results.Role
	// Partition speaks for the role; -1 when none of its partitions
	// stalled (a fault of several steps may still measure it).
	Partition int32
	Values    map[Measure]time.Duration
	Lost      int
}

// putStalls puts a reader's measures of the fault (the group reader's,
// the transactional probe's) in each partition's values of m: as key, the
// partition's own stall, each of rows' gap at the fault by partition as
// at gives it (nil: none); as commitKey, the stall of what the reader
// commits, commit (nil: none), the same on every partition.
func putStalls[T any](m *Metrics, key Measure, rows []T, at func(T) (int32, *gaps.Gap), commitKey Measure, commit *CommitStall) {
	if m == nil {
		return
	}
	stall := map[int32]time.Duration{}
	for _, r := range rows {
		if p, g := at(r); g != nil {
			stall[p] = g.Duration()
		}
	}
	for i := range m.Partitions {
		pm := &m.Partitions[i]
		if d, ok := stall[pm.Partition]; ok {
			pm.Values[key] = d
		}
		if commit != nil {
			pm.Values[commitKey] = commit.Duration()
		}
	}
}

// Role returns role r's measures; false when no partition of that role
// stalled or, for a fault of several steps, was measured.
func (m *Metrics) Role(r results.Role) (RoleMetrics, bool) {
	rm := RoleMetrics{Role: r, Partition: -1, Values: map[Measure]time.Duration{}}
	if m == nil {
		return rm, false
	}
	var speaker *PartitionMetrics
	found := false
	for i := range m.Partitions {
		p := &m.Partitions[i]
		if p.Role != r {
			continue
		}
		rm.Lost += p.Lost
		for _, k := range []Measure{MeasureTotalStall, MeasureLongestStall} {
			if d, ok := p.Values[k]; ok {
				rm.Values[k] = max(rm.Values[k], d)
				found = true
			}
		}
		ack, stalled := p.Values[MeasureAckStall]
		if stalled && (speaker == nil || ack > speaker.Values[MeasureAckStall]) {
			speaker = p
		}
	}
	if speaker != nil {
		found = true
		rm.Partition = speaker.Partition
		for k, d := range speaker.Values {
			if k != MeasureTotalStall && k != MeasureLongestStall {
				rm.Values[k] = d
			}
		}
	}
	return rm, found
}

// Role is what the faulted broker was to partition p when the fault
// began, decided once per trial (rolesOf); RoleNone without a fault.
func (tr *Trial) Role(p int32) results.Role { return roleOf(tr.roles, p) }

// roleOf is partition p's role in roles; RoleNone when it has none.
func roleOf(roles map[int32]results.Role, p int32) results.Role {
	if r, ok := roles[p]; ok {
		return r
	}
	return results.RoleNone
}

// rolesOf decides what the faulted broker of fault f was to each
// partition of the evidence ev and the gaps g when the fault began
// (partitionRoles); nil without a fault, or without its time.
func rolesOf(ev *evidence, g *gaps.Report, f *results.Fault) map[int32]results.Role {
	if f == nil || ev.F.IsZero() {
		return nil
	}
	return partitionRoles(ev, g, f)
}

// partitionRoles decides what the faulted broker f was to each probed
// partition when the fault began: it led it (the metadata says so, or,
// the leader unknown, a new leader started after the fault), it followed
// it (it was in the ISR as the timeline last showed it before the fault,
// or, failing that, among its replicas), or neither.
func partitionRoles(ev *evidence, g *gaps.Report, f *results.Fault) map[int32]results.Role {
	roles := map[int32]results.Role{}
	var parts []int32
	if ev.meta != nil {
		parts = append(parts, ev.meta.Probe.Partitions...)
	}
	if g != nil {
		for _, p := range g.Partitions {
			parts = append(parts, p.Partition)
		}
	}
	b := f.NodeID
	for _, p := range parts {
		if _, done := roles[p]; done {
			continue
		}
		leader, known := ev.meta.Probe.Leaders[p]
		moved := false
		if !known && ev.tl != nil {
			_, moved = ev.tl.NewLeaderStarted(ev.meta.Probe.Topic, p, b, ev.F)
		}
		switch {
		case (known && leader == b) || moved:
			roles[p] = results.RoleLed
		case ev.tl != nil && inReplicas(ev, p, b),
			ev.tl == nil && slices.Contains(ev.meta.Probe.Replicas[p], b):
			roles[p] = results.RoleFollowed
		default:
			roles[p] = results.RoleNone
		}
	}
	return roles
}

// metricsOf takes each partition's measures of fault f from the gaps g,
// the stalls and the steps the analysis found, and the audit in; each
// partition with its role in roles, the session timeout from the evidence
// ev, the group reader's from grp (nil without one). f is nil for a probe
// CSV given a fault time and no metadata: its gaps are measured, with no
// role. Nil without a fault time.
func metricsOf(ev *evidence, f *results.Fault, roles map[int32]results.Role, g *gaps.Report, stalls []Stall, steps *StepView, in *integrity.Report, grp *GroupView, gr, txr *CoordinatorRecovery) *Metrics {
	if ev.F.IsZero() {
		return nil
	}
	session := &sessionLookup{ev: ev, f: f, setting: Setting{Name: sessionTimeoutSetting, Source: SourceUnknown,
		Where: "not read: no stall is measured from the broker's last heartbeat"}}
	m := &Metrics{}
	if g != nil {
		byPartition := map[int32]*Stall{}
		for i := range stalls {
			byPartition[stalls[i].Partition] = &stalls[i]
		}
		stalled, longest := stepMeasures(steps)
		lost := map[int32]int{}
		if in != nil {
			for _, p := range in.Partitions {
				lost[p.Partition] = p.Lost
			}
		}
		for _, gp := range g.Partitions {
			p := gp.Partition
			pm := PartitionMetrics{Partition: p, Role: roleOf(roles, p), Values: map[Measure]time.Duration{}, Lost: lost[p]}
			if g := gp.Ack.Fault; g != nil {
				pm.Values[MeasureAckStall] = g.Duration()
			}
			if g := gp.Receive.Fault; g != nil {
				pm.Values[MeasureReceiveStall] = g.Duration()
			}
			if st := byPartition[p]; st != nil {
				stallMeasures(pm.Values, st, f, session)
				if len(st.Phases) > 0 {
					pm.Values[MeasureBeyondBound] = beyondOf(st, gr, txr)
				}
			}
			if d, ok := stalled[p]; ok {
				pm.Values[MeasureTotalStall] = d
				pm.Values[MeasureLongestStall] = longest[p]
			}
			m.Partitions = append(m.Partitions, pm)
		}
	}
	m.SessionTimeout = session.setting
	groupMeasures(m, grp)
	if ph, ok := gr.Phase(GroupPhaseLoad); ok {
		for i := range m.Partitions {
			m.Partitions[i].Values[MeasureCoordinatorLoad] = ph.Duration
		}
	}
	return m
}

// stepMeasures are, per partition, a fault of several steps' stalled time
// and its longest stall; none for a fault of one.
func stepMeasures(steps *StepView) (stalled, longest map[int32]time.Duration) {
	stalled, longest = map[int32]time.Duration{}, map[int32]time.Duration{}
	if steps == nil {
		return stalled, longest
	}
	for _, p := range steps.Partitions {
		stalled[p.Partition] = p.Stalled
		// No stall over the bound is a measure too: zero.
		longest[p.Partition] = 0
		if p.Longest != nil {
			longest[p.Partition] = p.Longest.Duration()
		}
	}
	return stalled, longest
}

// stallMeasures puts the measures of the stall st of fault f in values:
// its phases, and what is left of it after the detection.
func stallMeasures(values map[Measure]time.Duration, st *Stall, f *results.Fault, session *sessionLookup) {
	var detect time.Duration
	detected := false
	for _, ph := range st.Phases {
		if k, ok := phaseMeasure[ph.Name]; ok {
			values[k] = ph.Duration
		}
		if ph.Name == PhaseDetect {
			detect, detected = ph.Duration, true
		}
	}
	// Only a stall that began at the fault and ended holds the whole
	// detection; the rest of it is what the heartbeat's phase leaves.
	if !detected || st.Began != 0 || st.FirstAck.IsZero() {
		return
	}
	after := st.Total - detect
	values[MeasureAfterDetect] = after
	// A graceful stop (a sigterm, a roll's first stop) is detected by its
	// controlled shutdown, not by a session running out from a last
	// heartbeat.
	if !f.Graceful() {
		if s, ok := session.timeout(); ok {
			values[MeasureFromHeartbeat] = after + s
		}
	}
}

// sessionLookup reads the controller's session timeout from the evidence
// once, when a stall first needs it: no file is read, and no setting
// said, for a trial whose stalls do not.
type sessionLookup struct {
	ev      *evidence
	f       *results.Fault
	read    bool
	setting Setting
}

func (s *sessionLookup) timeout() (time.Duration, bool) {
	if !s.read {
		s.read = true
		s.setting = newExplainer(s.ev, s.f).sessionTimeout()
	}
	return ms(s.setting)
}

// sessionTimeoutSetting is the controller's setting that bounds a
// detection by session expiry.
const sessionTimeoutSetting = "broker.session.timeout.ms"
