package bench

import (
	"fmt"

	"github.com/kbf-project/kbf/analysis"
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
	// Findings are every client's audit, whatever the verdict:
	// Findings.Fail decides exit 3, as it does for kbf run and kbf report.
	Findings analysis.Findings
}

// Measure reads one trial's metrics back from its directory: each role's
// values are the analysis's (analysis.Metrics.Role, where the partition with
// the longest ack stall speaks for the role), by the units bench.txt
// writes; a metric's name is its analysis.Measure.
//
// This and Runner are the only places bench meets the trial protocol.
func Measure(dir string) (*Measurement, error) {
	tr, err := AnalyzeDir(dir)
	if err != nil {
		return nil, err
	}
	return MeasureTrial(dir, tr), nil
}

// AnalyzeDir reads back the one trial a benchmark's trial directory holds
// and analyses it, as kbf report would.
func AnalyzeDir(dir string) (*analysis.Trial, error) {
	trials, err := results.Find(dir)
	if err != nil {
		return nil, err
	}
	if len(trials) != 1 {
		return nil, fmt.Errorf("%s: %d trials, want one trial directory", dir, len(trials))
	}
	tr, err := analysis.Analyze(trials[0], analysis.Options{})
	if err != nil {
		return nil, fmt.Errorf("analyse %s: %w", dir, err)
	}
	return tr, nil
}

// MeasureTrial is Measure of a trial already analysed, as the runner
// returns it: the trial is not analysed twice.
func MeasureTrial(dir string, tr *analysis.Trial) *Measurement {
	m := &Measurement{Dir: dir, Meta: tr.Meta, Roles: map[string]map[string]float64{}, Valid: true, Findings: tr.Findings}
	if reason := invalid(tr); reason != "" {
		m.Valid, m.Reason = false, reason
		return m
	}
	for _, role := range []results.Role{results.RoleLed, results.RoleFollowed} {
		rm, ok := tr.Metrics.Role(role)
		if !ok {
			continue
		}
		v := map[string]float64{}
		for _, mt := range Metrics {
			if d, ok := rm.Values[analysis.Measure(mt.Name)]; ok && mt.Seconds {
				v[mt.Unit] = d.Seconds()
			}
		}
		for _, mt := range Metrics {
			if mt.Name == "lost_acked" {
				v[mt.Unit] = float64(rm.Lost)
			}
		}
		m.Roles[string(role)] = v
	}
	if len(m.Roles) == 0 {
		m.Valid, m.Reason = false, "no partition the faulted broker led or followed stalled"
	}
	return m
}

// invalid says why a trial cannot count, or "" when it can: the trial's
// verdict (package verdict) when it is not valid — a suspect trial is left
// out too, as kbf run's summaries leave it out — or what the analysis lacks.
func invalid(tr *analysis.Trial) string {
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
