package bench

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

// A fault of several steps adds its total and longest stall: the recorded
// SIGTERM, its metadata rewritten as the first step of a roll whose other
// steps stalled nothing, measures them as the report's step view has them,
// the worst partition of each role; a fault of one step has neither.
func TestMeasureSteps(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trial-01")
	if err := copyTree(recorded(t, "sigterm"), dir); err != nil {
		t.Fatal(err)
	}
	one, err := Measure(dir)
	if err != nil {
		t.Fatal(err)
	}
	for role, v := range one.Roles {
		for _, unit := range []string{"total-stall-sec", "longest-stall-sec"} {
			if _, ok := v[unit]; ok {
				t.Errorf("a fault of one step: %s has %s", role, unit)
			}
		}
	}

	meta, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := meta.Fault
	f.Kind = results.FaultRolling
	meta.Steps = []results.Step{
		{Action: results.StepStop, Node: "k1", NodeID: 1, Sent: f.SignalSent, At: f.Finished, ExitCode: f.ExitCode},
		{Action: results.StepStart, Node: "k1", NodeID: 1, Sent: f.Finished.Add(5 * time.Second), At: f.Finished.Add(6 * time.Second)},
	}
	if err := results.WriteMeta(dir, meta); err != nil {
		t.Fatal(err)
	}
	m, err := Measure(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Valid {
		t.Fatalf("the roll is not valid: %s", m.Reason)
	}
	trials, err := results.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := analysis.Analyze(trials[0], analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// k1 led p0 and followed p1 and p2 when the probe started.
	want := map[string][2]float64{}
	for _, p := range tr.Steps.Partitions {
		role := RoleFollower
		if p.Partition == 0 {
			role = RoleLeader
		}
		w := want[role]
		w[0] = max(w[0], p.Stalled.Seconds())
		if p.Longest != nil {
			w[1] = max(w[1], p.Longest.Duration().Seconds())
		}
		want[role] = w
	}
	for _, role := range []string{RoleLeader, RoleFollower} {
		v := m.Roles[role]
		if got := [2]float64{v["total-stall-sec"], v["longest-stall-sec"]}; got != want[role] || got[0] <= 0 {
			t.Errorf("%s: total and longest stall %v, want %v, more than none", role, got, want[role])
		}
		// The roll's first step is the SIGTERM: measured at that step,
		// it is the SIGTERM's, phase by phase.
		for unit, sigterm := range one.Roles[role] {
			if got, ok := v[unit]; !ok || got != sigterm {
				t.Errorf("%s: the roll's %s %v (%v), the SIGTERM's %v", role, unit, got, ok, sigterm)
			}
		}
		if len(v) != len(one.Roles[role])+2 {
			t.Errorf("%s: the roll measures %v, want the SIGTERM's %v and its two step stalls", role, v, one.Roles[role])
		}
	}

	set := &Set{Records: []Record{{Trial: Trial{Variant: Variant{Scenario: Scenario{Name: "rolling", Fault: "rolling"}}, Rep: 1}, M: m}}}
	var b strings.Builder
	if err := set.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, unit := range []string{"total-stall-sec", "longest-stall-sec"} {
		if !strings.Contains(b.String(), "Unit "+unit+" better=lower\n") || !strings.Contains(b.String(), " "+unit) {
			t.Errorf("bench.txt lacks %s or its unit line:\n%s", unit, b.String())
		}
	}
}

// TestMetricsAreMeasures checks that every metric in seconds is one the
// analysis measures (analysis.Measures): a metric bench named otherwise
// would never have a value.
func TestMetricsAreMeasures(t *testing.T) {
	for _, m := range Metrics {
		if m.Seconds != slices.Contains(analysis.Measures, analysis.Measure(m.Name)) {
			t.Errorf("metric %s (seconds %v): analysis.Measures %v", m.Name, m.Seconds, analysis.Measures)
		}
	}
}
