package verdict

import (
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// trial is a clean SIGKILL trial: a healthy baseline, a confirmed fault, a
// quiet host, no missed sends; its stall decides from t0−bound to t0+8 s.
func trial() (*results.Meta, *gaps.Report) {
	m := &results.Meta{
		Kind:  "trial",
		Probe: results.Probe{Interval: 20 * time.Millisecond, LongestSendGap: 25 * time.Millisecond},
		Baseline: &results.Baseline{Period: 5 * time.Second, Bound: 200 * time.Millisecond, Timeout: time.Minute,
			Healthy: t0.Add(-time.Second)},
		Fault: &results.Fault{Broker: "k1", Kind: "sigkill", SignalSent: t0, Finished: t0, ExitCode: 137},
		Host:  &results.Host{CPUs: 2, LoadStart: 0.5, LoadEnd: 1.2, Wall: 30 * time.Second, Self: 3 * time.Second, Cluster: 17 * time.Second, Others: 3 * time.Second},
	}
	g := &gaps.Report{Start: t0.Add(-8 * time.Second), End: t0.Add(22 * time.Second), Partitions: []gaps.Partition{
		{Partition: 0, Ack: gaps.Stalls{Fault: &gaps.Gap{Start: t0, End: t0.Add(8 * time.Second)}}},
		{Partition: 1, Ack: gaps.Stalls{Fault: &gaps.Gap{Start: t0, End: t0.Add(7 * time.Second)}}},
	}}
	return m, g
}

// roll makes m's fault a rolling restart of k1, k2 and k3, each stopped,
// started and waited for, whose graceful stops exited by themselves but
// the one at step escalated: 1 (the fault's own), 4 or 7; 0 for none.
func roll(m *results.Meta, escalated int) {
	m.Fault.Kind, m.Fault.FirstStep, m.Fault.ExitCode = results.FaultRolling, results.StepStop, 143
	m.Steps = nil
	for i, node := range []string{"k1", "k2", "k3"} {
		at := t0.Add(time.Duration(i) * 10 * time.Second)
		m.Steps = append(m.Steps,
			results.Step{Action: results.StepStop, Node: node, Sent: at, At: at, ExitCode: 143},
			results.Step{Action: results.StepStart, Node: node, Sent: at.Add(3 * time.Second), At: at.Add(3 * time.Second)},
			results.Step{Action: results.StepISRFull, At: at.Add(8 * time.Second)})
	}
	if escalated > 0 {
		s := &m.Steps[escalated-1]
		s.Escalated, s.ExitCode = true, 137
	}
	m.Fault.Escalated = m.Steps[0].Escalated
}

func missed(from time.Time, slots int64) map[int32]*results.MissedSends {
	return map[int32]*results.MissedSends{0: {Count: slots, First: from, Last: from.Add(time.Duration(slots-1) * 20 * time.Millisecond),
		Runs: []results.MissedRun{{From: from, Slots: slots}}}}
}

func TestJudge(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(m *results.Meta)
		status Status
		kinds  []Kind
		detail string
	}{
		{name: "clean", edit: func(*results.Meta) {}, status: Valid},
		{name: "an older run that recorded none of it", status: Valid,
			edit: func(m *results.Meta) { m.Baseline, m.Host = nil, nil }},
		{name: "unhealthy baseline", status: Invalid, kinds: []Kind{UnhealthyBaseline}, detail: "p0 ack gap of 7.50 s",
			edit: func(m *results.Meta) {
				m.Fault = nil
				m.Baseline.Healthy, m.Baseline.Unhealthy = time.Time{}, "p0 ack gap of 7.50 s ended 0.10 s ago"
			}},
		{name: "interrupted before the fault", status: Invalid, kinds: []Kind{NoFault},
			edit: func(m *results.Meta) { m.Fault = nil }},
		{name: "a probe run needs no fault", status: Valid,
			edit: func(m *results.Meta) { m.Kind, m.Fault, m.Baseline = "probe", nil, nil }},
		{name: "sigterm escalated", status: Invalid, kinds: []Kind{FaultNotConfirmed}, detail: "SIGKILLed",
			edit: func(m *results.Meta) { m.Fault.Kind, m.Fault.Escalated = "sigterm", true }},
		{name: "container did not stop", status: Invalid, kinds: []Kind{FaultNotConfirmed}, detail: "no stop of k1",
			edit: func(m *results.Meta) { m.Fault.Finished = time.Time{} }},
		{name: "pause not confirmed", status: Invalid, kinds: []Kind{FaultNotConfirmed}, detail: "frozen",
			edit: func(m *results.Meta) { m.Fault.Kind, m.Fault.Finished = "pause", time.Time{} }},
		{name: "pause confirmed", status: Valid,
			edit: func(m *results.Meta) { m.Fault.Kind, m.Fault.Finished, m.Fault.Paused = "pause", time.Time{}, t0 }},
		// A fault of several steps is judged by its first step, and by
		// every later graceful stop.
		{name: "a roll whose stops obeyed", status: Valid,
			edit: func(m *results.Meta) { roll(m, 0) }},
		{name: "a roll's first stop not confirmed", status: Invalid, kinds: []Kind{FaultNotConfirmed}, detail: "no stop of k1",
			edit: func(m *results.Meta) { roll(m, 0); m.Fault.Finished = time.Time{} }},
		{name: "a roll's first stop escalated", status: Invalid, kinds: []Kind{FaultNotConfirmed}, detail: "the broker outlived its SIGTERM grace",
			edit: func(m *results.Meta) { roll(m, 1) }},
		{name: "a roll's later stop escalated", status: Invalid, kinds: []Kind{FaultNotConfirmed}, detail: "step 4: k2 outlived its SIGTERM grace and was SIGKILLed",
			edit: func(m *results.Meta) { roll(m, 4) }},
		{name: "two brokers' first kill not confirmed", status: Invalid, kinds: []Kind{FaultNotConfirmed}, detail: "no stop of k1",
			edit: func(m *results.Meta) {
				m.Fault.Kind, m.Fault.FirstStep, m.Fault.Finished = results.FaultTwoBrokers, results.StepKill, time.Time{}
			}},
		{name: "probe stalled inside the window", status: Suspect, kinds: []Kind{ProbeStalled}, detail: "p0: the probe missed 15 sends",
			edit: func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(3*time.Second), 15) }},
		{name: "probe stalled just before the fault", status: Suspect, kinds: []Kind{ProbeStalled},
			edit: func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(-300*time.Millisecond), 12) }},
		{name: "probe stalled after the stall ended", status: Valid,
			edit: func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(12*time.Second), 50) }},
		{name: "a few missed sends are no stall", status: Valid,
			edit: func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(time.Second), 3) }},
		{name: "older run: long send gap, no missed slots", status: Suspect, kinds: []Kind{ProbeStalled}, detail: "when is not recorded",
			edit: func(m *results.Meta) { m.Probe.LongestSendGap = time.Second }},
		{name: "CPUs saturated by the cluster", status: Suspect, kinds: []Kind{HostOverloaded}, detail: "95% busy (kbf 5%, the cluster 85%, other processes 5%)",
			edit: func(m *results.Meta) { m.Host.Cluster = 51 * time.Second }},
		{name: "the cluster's CPU is not others'", status: Valid,
			edit: func(m *results.Meta) { m.Host.Cluster = 40 * time.Second }},
		{name: "stolen", status: Suspect, kinds: []Kind{HostOverloaded}, detail: "stolen",
			edit: func(m *results.Meta) { m.Host.Steal = 6 * time.Second }},
		{name: "other processes", status: Suspect, kinds: []Kind{HostOverloaded}, detail: "other processes used 30% of the CPUs",
			edit: func(m *results.Meta) { m.Host.Others = 18 * time.Second }},
		{name: "a load average alone is not judged", status: Valid,
			edit: func(m *results.Meta) { m.Host.LoadEnd = 15.15 }},
		{name: "invalid outranks suspect", status: Invalid, kinds: []Kind{FaultNotConfirmed, HostOverloaded},
			edit: func(m *results.Meta) { m.Host.Others, m.Fault.Escalated = 20*time.Second, true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, g := trial()
			tt.edit(m)
			faultAt := time.Time{}
			if m.Fault != nil {
				faultAt = m.Fault.At()
			}
			v := Judge(m, g, faultAt)
			if v.Status != tt.status {
				t.Errorf("status %s, want %s: %v", v.Status, tt.status, v)
			}
			var kinds []Kind
			for _, r := range v.Reasons {
				kinds = append(kinds, r.Kind)
			}
			if strings.Join(kindStrings(kinds), ",") != strings.Join(kindStrings(tt.kinds), ",") {
				t.Errorf("reasons %v, want kinds %v", v.Reasons, tt.kinds)
			}
			if !strings.Contains(v.String(), tt.detail) {
				t.Errorf("%q does not say %q", v, tt.detail)
			}
		})
	}
}

func kindStrings(ks []Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

func TestDescribe(t *testing.T) {
	m, _ := trial()
	got := Describe(m.Host)
	for _, want := range []string{"2 CPUs", "load average 0.5 → 1.2", "kbf 5%", "the cluster 28%", "other processes 5%", "stolen 0%"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q does not say %q", got, want)
		}
	}
	if Describe(nil) != "" || Describe(&results.Host{}) != "" {
		t.Error("an unknown host described")
	}
}

func TestStallBound(t *testing.T) {
	for _, c := range []struct {
		name     string
		interval time.Duration
		baseline *results.Baseline
		want     time.Duration
	}{
		{"the baseline's bound", 20 * time.Millisecond, &results.Baseline{Bound: 350 * time.Millisecond}, 350 * time.Millisecond},
		{"no baseline: at least 200 ms", 10 * time.Millisecond, nil, 200 * time.Millisecond},
		{"no baseline: ten intervals", 100 * time.Millisecond, nil, time.Second},
		{"a baseline with no bound", 50 * time.Millisecond, &results.Baseline{}, 500 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &results.Meta{Probe: results.Probe{Interval: c.interval}, Baseline: c.baseline}
			if got := StallBound(m); got != c.want {
				t.Errorf("StallBound = %v, want %v", got, c.want)
			}
		})
	}
}
