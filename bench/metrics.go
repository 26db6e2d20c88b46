package bench

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// Measurement is what one trial measured, per role.
type Measurement struct {
	Dir string
	// Valid is false when the trial cannot count; Reason says why.
	Valid  bool
	Reason string
	// Meta is the trial's metadata, for the configuration lines.
	Meta *results.Meta
	// Roles are each role's values by metric unit. A metric the trial did
	// not show (no client phase for a follower) is absent.
	Roles map[string]map[string]float64
}

// Measure reads one trial's metrics back from its directory. For each role
// the partition with the longest ack stall speaks for the role, and every
// metric is that partition's, so the phases add up to the stall beside
// them; the lost records are the role's partitions' sum. A fault of several
// steps adds its total and its longest stall (report.StepView), each the
// worst of the role's partitions: the stall at the first step is one of
// several, and not always the worst.
//
// This and Runner are the only places bench meets the trial protocol.
func Measure(dir string) (*Measurement, error) {
	trials, err := results.Find(dir)
	if err != nil {
		return nil, err
	}
	if len(trials) != 1 {
		return nil, fmt.Errorf("%s: %d trials, want one trial directory", dir, len(trials))
	}
	tr, err := report.Analyze(trials[0], report.Options{})
	if err != nil {
		return nil, fmt.Errorf("analyse %s: %w", dir, err)
	}
	m := &Measurement{Dir: dir, Meta: tr.Meta, Roles: map[string]map[string]float64{}, Valid: true}
	if reason := invalid(tr); reason != "" {
		m.Valid, m.Reason = false, reason
		return m, nil
	}
	session, sessionKnown := sessionTimeout(tr)
	lost := map[int32]int{}
	if tr.Integrity != nil {
		for _, p := range tr.Integrity.Partitions {
			lost[p.Partition] = p.Lost
		}
	}
	worst := map[string]*report.Stall{}
	ack := map[int32]time.Duration{}
	recv := map[int32]time.Duration{}
	for _, p := range tr.Gaps.Partitions {
		if g := p.Ack.Fault; g != nil {
			ack[p.Partition] = g.Duration()
		}
		if g := p.Receive.Fault; g != nil {
			recv[p.Partition] = g.Duration()
		}
	}
	lostBy := map[string]int{}
	for i := range tr.Stalls {
		st := &tr.Stalls[i]
		role := string(st.Role)
		if role != RoleLeader && role != RoleFollower {
			continue
		}
		lostBy[role] += lost[st.Partition]
		if w := worst[role]; w == nil || ack[st.Partition] > ack[w.Partition] {
			worst[role] = st
		}
	}
	for role, st := range worst {
		v := map[string]float64{}
		v["ack-stall-sec"] = ack[st.Partition].Seconds()
		if d, ok := recv[st.Partition]; ok {
			v["receive-stall-sec"] = d.Seconds()
		}
		var detect time.Duration
		detected := false
		for _, ph := range st.Phases {
			switch ph.Name {
			case report.PhaseDetect:
				v["detect-sec"] = ph.Duration.Seconds()
				detect, detected = ph.Duration, true
			case report.PhaseElect:
				v["elect-sec"] = ph.Duration.Seconds()
			case report.PhaseClient:
				v["client-sec"] = ph.Duration.Seconds()
			case report.PhaseFirstAck:
				v["first-ack-sec"] = ph.Duration.Seconds()
			}
		}
		// Only a stall that began at the fault and ended holds the whole
		// detection; the rest of it is what the heartbeat's phase leaves.
		if detected && st.Began == 0 && !st.FirstAck.IsZero() {
			after := st.Total - detect
			v["after-detect-sec"] = after.Seconds()
			// A graceful stop (a sigterm, a roll's first stop) is
			// detected by its controlled shutdown, not by a session
			// running out from a last heartbeat.
			if sessionKnown && !tr.Meta.Fault.Graceful() {
				v["from-heartbeat-sec"] = (after + session).Seconds()
			}
		}
		v["lost-acked-records"] = float64(lostBy[role])
		m.Roles[role] = v
	}
	addStepStalls(tr, m.Roles)
	if len(m.Roles) == 0 {
		m.Valid, m.Reason = false, "no partition the faulted broker led or followed stalled"
	}
	return m, nil
}

// addStepStalls adds, for a fault of several steps, each role's worst
// total stall and worst longest stall to its values. A partition's role is
// what the first step's broker was to it when the probe started: the
// steps' stalls are the whole fault's, not the first step's.
func addStepStalls(tr *report.Trial, roles map[string]map[string]float64) {
	if tr.Steps == nil {
		return
	}
	for _, p := range tr.Steps.Partitions {
		role := startRole(tr.Meta, p.Partition)
		if role == "" {
			continue
		}
		v := roles[role]
		if v == nil {
			v = map[string]float64{}
			roles[role] = v
		}
		// No stall over the bound is a measure too: zero.
		var longest time.Duration
		if p.Longest != nil {
			longest = p.Longest.Duration()
		}
		v["total-stall-sec"] = max(v["total-stall-sec"], p.Stalled.Seconds())
		v["longest-stall-sec"] = max(v["longest-stall-sec"], longest.Seconds())
	}
}

// startRole is RoleLeader or RoleFollower, what the faulted broker was to
// partition p when the probe started; "" for neither.
func startRole(m *results.Meta, p int32) string {
	b := m.Fault.NodeID
	if l, ok := m.Probe.Leaders[p]; ok && l == b {
		return RoleLeader
	}
	if slices.Contains(m.Probe.Replicas[p], b) {
		return RoleFollower
	}
	return ""
}

// invalid says why a trial cannot count, or "" when it can: the trial's
// verdict (package verdict) when it is not valid — a suspect trial is left
// out too, as kbf run's summaries leave it out — or what the analysis lacks.
func invalid(tr *report.Trial) string {
	switch {
	case tr.Verdict != nil && tr.Verdict.Status != verdict.Valid:
		return tr.Verdict.String()
	case tr.Meta == nil:
		return "no " + results.MetaFile
	case tr.Meta.Fault == nil:
		return "no fault was injected"
	case tr.Meta.Fault.Kind.Controller():
		// Its partitions have no broker that led or followed them; what
		// it measures is the report's quorum gap, per trial, not per role.
		return "a controller fault: no partition's stall is split into phases; the report's quorum gap measures it"
	case tr.Meta.Recovery != nil && tr.Meta.Recovery.Err != "":
		return "recovery failed: " + tr.Meta.Recovery.Err
	case tr.Gaps == nil || tr.Gaps.Sent == 0:
		return "the probe recorded nothing"
	case len(tr.Stalls) == 0:
		return "no stall was split into phases (no node logs?)"
	}
	return ""
}

// sessionTimeout is broker.session.timeout.ms as the report's detection
// read it: from a controller's logged configuration, or the properties it
// was started with.
func sessionTimeout(tr *report.Trial) (time.Duration, bool) {
	for _, st := range tr.Stalls {
		for _, ph := range st.Phases {
			for _, s := range ph.Settings {
				if s.Name != "broker.session.timeout.ms" || s.Source == report.SourceUnknown {
					continue
				}
				if n, err := strconv.Atoi(s.Value); err == nil {
					return time.Duration(n) * time.Millisecond, true
				}
			}
		}
	}
	return 0, false
}
