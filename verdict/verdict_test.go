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
		{name: "starve not confirmed", status: Invalid, kinds: []Kind{FaultNotConfirmed}, detail: "CPU quota",
			edit: func(m *results.Meta) { m.Fault.Kind, m.Fault.Finished = "cpu-starve", time.Time{} }},
		{name: "starve confirmed", status: Valid,
			edit: func(m *results.Meta) { m.Fault.Kind, m.Fault.Finished, m.Fault.Starved = "cpu-starve", time.Time{}, t0 }},
		{name: "loss not confirmed", status: Invalid, kinds: []Kind{FaultNotConfirmed}, detail: "packet-loss rules",
			edit: func(m *results.Meta) { m.Fault.Kind, m.Fault.Finished = "packet-loss", time.Time{} }},
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
		// Missed slots are judged by what they could change (probecheck.go).
		{name: "a long send gap in the middle of the stall changes nothing", status: Valid, kinds: []Kind{ProbeStalled},
			detail: "missed 3.7% of its send slots in the window that decides the stall (15 of 410), its longest send gap 0.320 s from 12:00:03.000 (interval 20ms): none where it could change the answer",
			edit:   func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(3*time.Second), 15) }},
		{name: "a send gap at a stall's end", status: Suspect, kinds: []Kind{ProbeStalled},
			detail: "a send gap of 0.320 s from 12:00:06.950 lies at the end of p1's ack stall (12:00:07.000), which it may move by as much",
			edit:   func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(6950*time.Millisecond), 15) }},
		{name: "a send gap at the stall's start", status: Suspect, kinds: []Kind{ProbeStalled},
			detail: "a send gap of 0.100 s from 11:59:59.960 lies at the start of p0's ack stall (12:00:00.000)",
			edit:   func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(-40*time.Millisecond), 4) }},
		{name: "one missed slot at the stall's start is within its precision", status: Valid,
			edit: func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(-10*time.Millisecond), 1) }},
		{name: "short gaps through the stall, more slots missed than sent: starved", status: Suspect, kinds: []Kind{ProbeStalled},
			detail: "it missed more of its slots than it sent (more than 50%): starved",
			edit: func(m *results.Meta) {
				ms := &results.MissedSends{}
				for i := range 75 {
					from := t0.Add(500*time.Millisecond + time.Duration(i)*80*time.Millisecond)
					ms.Runs = append(ms.Runs, results.MissedRun{From: from, Slots: 3})
					ms.Count += 3
				}
				m.Probe.Missed = map[int32]*results.MissedSends{0: ms}
			}},
		{name: "probe stalled just before the fault", status: Suspect, kinds: []Kind{ProbeStalled},
			edit: func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(-300*time.Millisecond), 12) }},
		{name: "probe stalled after the stall ended", status: Valid,
			edit: func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(12*time.Second), 50) }},
		{name: "a few missed sends are no stall", status: Valid,
			edit: func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(time.Second), 3) }},
		{name: "older run: long send gap, no missed slots", status: Suspect, kinds: []Kind{ProbeStalled}, detail: "when is not recorded",
			edit: func(m *results.Meta) { m.Probe.LongestSendGap = time.Second }},
		// Totals only (an older kbf): the cluster's own CPU is said, and is
		// held against the trial only when the probe missed sends.
		{name: "CPUs saturated by the cluster, the probe on time", status: Valid, kinds: []Kind{ClusterBusy},
			detail: "95% busy over the trial (kbf 5%, the cluster 85%, other processes 5%): kbf's and the cluster's own work",
			edit:   func(m *results.Meta) { m.Host.Cluster = 51 * time.Second }},
		{name: "CPUs saturated by the cluster, the probe missed sends", status: Suspect, kinds: []Kind{ProbeStalled, HostOverloaded},
			detail: "95% busy over the trial (kbf 5%, the cluster 85%, other processes 5%), and the probe missed sends",
			edit: func(m *results.Meta) {
				m.Host.Cluster = 51 * time.Second
				m.Probe.Missed = missed(t0.Add(6950*time.Millisecond), 15)
			}},
		{name: "the cluster's CPU is said, not held against the trial", status: Valid, kinds: []Kind{ClusterBusy},
			edit: func(m *results.Meta) { m.Host.Cluster = 40 * time.Second }},
		{name: "a quiet cluster is not mentioned", status: Valid,
			edit: func(m *results.Meta) { m.Host.Cluster = 20 * time.Second }},
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
			if strings.Contains(v.String(), "00:00:00.000") || strings.Contains(v.String(), "gap 0.000 s") {
				t.Errorf("%q prints a zero time or gap as a fact", v)
			}
		})
	}
}

// TestJudgeShortWindow: where the fault stalled little, the window that
// decides is short; missed slots in the middle of its stall change
// nothing however large their share, and those at its end do.
func TestJudgeShortWindow(t *testing.T) {
	tests := []struct {
		name   string
		from   time.Duration
		missed int64
		status Status
	}{
		{name: "one late send of about 25 slots", from: 100 * time.Millisecond, missed: 1, status: Valid},
		{name: "two", from: 100 * time.Millisecond, missed: 2, status: Valid},
		{name: "three in the middle", from: 100 * time.Millisecond, missed: 3, status: Valid},
		{name: "three at the end", from: 240 * time.Millisecond, missed: 3, status: Suspect},
		{name: "three before the stall, a gap shorter than half the bound", from: -190 * time.Millisecond, missed: 3, status: Valid},
		{name: "six before the stall, a gap of more than half the bound", from: -190 * time.Millisecond, missed: 6, status: Suspect},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, g := trial()
			for i := range g.Partitions {
				g.Partitions[i].Ack.Fault = &gaps.Gap{Start: t0, End: t0.Add(300 * time.Millisecond)}
			}
			m.Probe.Missed = missed(t0.Add(tt.from), tt.missed)
			v := Judge(m, g, m.Fault.At())
			if v.Status != tt.status {
				t.Errorf("status %s, want %s: %v", v.Status, tt.status, v)
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

// use is one second of a 2-CPU host's time, as shares of both CPUs: kbf,
// the busiest node k2, the other nodes, other processes and stolen time.
type use struct{ self, k2, nodes, others, steal float64 }

func (u use) sample(at time.Time) results.HostSample {
	cpu := func(f float64) time.Duration { return time.Duration(f * float64(2*time.Second)) }
	return results.HostSample{At: at, Self: cpu(u.self), Others: cpu(u.others), Steal: cpu(u.steal),
		Nodes: map[string]time.Duration{"k1": cpu(u.nodes / 2), "k2": cpu(u.k2), "c1": cpu(u.nodes / 2)}}
}

// sampled gives m's host a sample a second over the trial's 30 s (t0−8 s
// to t0+22 s): before the fault, during the stall (t0 to t0+8 s) and after
// it; the totals are their sums.
func sampled(m *results.Meta, before, during, after use) {
	h := &results.Host{CPUs: 2, Start: t0.Add(-8 * time.Second), Wall: 30 * time.Second}
	for i := -7; i <= 22; i++ {
		u := before
		switch {
		case i > 8:
			u = after
		case i > 0:
			u = during
		}
		s := u.sample(t0.Add(time.Duration(i) * time.Second))
		h.Samples = append(h.Samples, s)
		h.Self += s.Self
		h.Others += s.Others
		h.Steal += s.Steal
		for _, d := range s.Nodes {
			h.Cluster += d
		}
	}
	m.Host = h
}

// TestJudgeWindow judges the host's load inside the window that decides
// the stall (the fault to t0+8 s), as the samples give it: the cluster's
// warm-up before the fault and its work after are no outside load.
func TestJudgeWindow(t *testing.T) {
	quiet := use{self: 0.05, k2: 0.1, nodes: 0.1}
	warm := use{self: 0.04, k2: 0.6, nodes: 0.35} // freshly started JVMs compiling: 99 % busy
	tests := []struct {
		name                  string
		before, during, after use
		edit                  func(m *results.Meta)
		status                Status
		kinds                 []Kind
		detail                string
	}{
		{name: "quiet", before: quiet, during: quiet, after: quiet, status: Valid},
		{name: "the cluster's warm-up before the fault, a quiet window", before: warm, during: quiet, after: quiet, status: Valid},
		{name: "the cluster works after the fault, the probe on time", before: quiet, during: warm, after: quiet,
			status: Valid, kinds: []Kind{ClusterBusy},
			detail: "the CPUs were 99% busy in the window that decides the stall (12:00:00–12:00:08) (kbf 4%, the cluster 95%, k2 the most at 60%, other processes 0%)"},
		{name: "the cluster works after the fault, the probe missed sends", before: quiet, during: warm, after: quiet,
			edit:   func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(6950*time.Millisecond), 15) },
			status: Suspect, kinds: []Kind{ProbeStalled, HostOverloaded}, detail: "k2 the most at 60%, other processes 0%), and the probe missed sends"},
		{name: "the cluster busy but not saturating, the probe late for its own reasons", before: quiet, during: use{self: 0.05, k2: 0.4, nodes: 0.2}, after: quiet,
			edit:   func(m *results.Meta) { m.Probe.Missed = missed(t0.Add(6950*time.Millisecond), 15) },
			status: Suspect, kinds: []Kind{ProbeStalled, ClusterBusy}, detail: "k2 the most at 40%, other processes 0%): kbf's and the cluster's own work, not outside load)"},
		{name: "other processes in the window", before: quiet, during: use{self: 0.05, k2: 0.1, nodes: 0.1, others: 0.4}, after: quiet,
			status: Suspect, kinds: []Kind{HostOverloaded}, detail: "other processes used 40% of the CPUs in the window that decides the stall"},
		{name: "stolen in the window", before: quiet, during: use{self: 0.05, k2: 0.1, nodes: 0.1, steal: 0.1}, after: quiet,
			status: Suspect, kinds: []Kind{HostOverloaded}, detail: "10% of the CPU time in the window that decides the stall (12:00:00–12:00:08) was stolen"},
		{name: "stolen only outside the window", before: use{self: 0.05, k2: 0.1, nodes: 0.1, steal: 0.3}, during: quiet, after: quiet,
			status: Valid, kinds: []Kind{LoadOutsideWindow}, detail: "over the whole trial other processes used 0% of the CPUs and 8% was stolen, but not in the window"},
		{name: "gone ahead unsettled, a quiet window", before: warm, during: quiet, after: quiet,
			edit: func(m *results.Meta) {
				m.Baseline.Unsettled = "the cluster's CPU is settling (k2 60 % over the last 3 s)"
			},
			status: Valid, kinds: []Kind{ClusterWarmup}, detail: "the fault went ahead before the cluster's CPU settled (the cluster's CPU is settling (k2 60 %"},
		{name: "gone ahead unsettled, a saturated window", before: warm, during: warm, after: quiet,
			edit: func(m *results.Meta) {
				m.Baseline.Unsettled = "the cluster's CPU is settling (k2 60 % over the last 3 s)"
			},
			status: Suspect, kinds: []Kind{ClusterWarmup}, detail: "and the CPUs were 99% busy in the window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, g := trial()
			sampled(m, tt.before, tt.during, tt.after)
			if tt.edit != nil {
				tt.edit(m)
			}
			v := Judge(m, g, m.Fault.At())
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

// TestProbeSelfCheck judges kbf probe's own runs (no fault) by the slots the
// probe missed after its start-up, the first ack of every partition.
func TestProbeSelfCheck(t *testing.T) {
	start := t0
	run := func(interval time.Duration, ready time.Duration, runs ...results.MissedRun) *results.Meta {
		m := &results.Meta{Kind: "probe", Started: start, Ended: start.Add(60 * time.Second),
			Probe: results.Probe{Interval: interval, Partitions: []int32{0, 1, 2}}}
		if ready > 0 {
			m.Probe.Ready = start.Add(ready)
		}
		if len(runs) > 0 {
			ms := &results.MissedSends{Runs: runs, First: runs[0].From}
			for _, r := range runs {
				ms.Count += r.Slots
				ms.Last = r.From.Add(time.Duration(r.Slots-1) * interval)
			}
			m.Probe.Missed = map[int32]*results.MissedSends{0: ms, 1: ms, 2: ms}
		}
		return m
	}
	// every spreads n runs of slots each over the minute after 2 s.
	every := func(n int, slots int64) []results.MissedRun {
		var rs []results.MissedRun
		for i := range n {
			rs = append(rs, results.MissedRun{From: start.Add(2*time.Second + time.Duration(i)*50*time.Millisecond), Slots: slots})
		}
		return rs
	}
	tests := []struct {
		name   string
		m      *results.Meta
		status Status
		detail string
	}{
		{name: "on time", m: run(time.Millisecond, 500*time.Millisecond), status: Valid},
		{name: "a few slots missed", m: run(time.Millisecond, 500*time.Millisecond, every(50, 3)...), status: Valid},
		// kbf probe at 1 ms × 3 partitions: 5 % of its slots, gaps of 32 ms,
		// none of them a gap the answer (gaps past the bound) could show.
		{name: "5 % missed at 1 ms", m: run(time.Millisecond, 500*time.Millisecond, every(100, 31)...), status: Valid,
			detail: "the probe missed 5.2% of its send slots after its start-up (3100 of 59500), its longest send gap 0.032 s from 12:00:02.000 (interval 1ms): none where it could change the answer"},
		{name: "more than half missed at 1 ms: starved", m: run(time.Millisecond, 500*time.Millisecond, every(1000, 40)...), status: Suspect,
			detail: "it missed more of its slots than it sent (more than 50%): starved"},
		// At 5 ms × 100 partitions: one gap of 179 ms is past 10 intervals
		// and 50 ms, whatever the share.
		{name: "one long send gap", m: run(5*time.Millisecond, 500*time.Millisecond, results.MissedRun{From: start.Add(30 * time.Second), Slots: 35}),
			status: Suspect, detail: "its longest send gap 0.180 s from 12:00:30.000"},
		{name: "start-up gaps alone are not judged", m: run(5*time.Millisecond, 2*time.Second,
			results.MissedRun{From: start.Add(100 * time.Millisecond), Slots: 299}), status: Valid},
		{name: "start-up gaps said beside a later stall", m: run(5*time.Millisecond, 2*time.Second,
			results.MissedRun{From: start.Add(100 * time.Millisecond), Slots: 299}, results.MissedRun{From: start.Add(30 * time.Second), Slots: 35}),
			status: Suspect, detail: "its start-up, the 2.0 s to every partition's first ack, missed 299 more with send gaps up to 1.50 s, not judged"},
		{name: "a gap from the start-up into the run counts its part after", m: run(5*time.Millisecond, 2*time.Second,
			results.MissedRun{From: start.Add(1900 * time.Millisecond), Slots: 40}),
			status: Suspect, detail: "its longest send gap 0.105 s from 12:00:02.000"},
		{name: "no ready time: the whole run is judged", m: run(5*time.Millisecond, 0,
			results.MissedRun{From: start.Add(100 * time.Millisecond), Slots: 700}), status: Suspect, detail: "over the run"},
		// Slots counted past the runs listed (MaxMissedRuns): their gap and
		// its time are unknown, and said so, not as 0.000 s from 00:00.
		{name: "missed slots past the runs listed", m: func() *results.Meta {
			m := run(5*time.Millisecond, 500*time.Millisecond)
			ms := &results.MissedSends{Count: 3000, First: start.Add(10 * time.Second), Last: start.Add(40 * time.Second)}
			m.Probe.Missed = map[int32]*results.MissedSends{0: ms, 1: ms, 2: ms}
			return m
		}(), status: Suspect, detail: "(3000 of 11900) (interval 5ms)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Judge(tt.m, nil, time.Time{})
			if v.Status != tt.status {
				t.Errorf("status %s, want %s: %v", v.Status, tt.status, v)
			}
			if tt.status != Valid && (len(v.Reasons) == 0 || v.Reasons[0].Kind != ProbeStalled) {
				t.Errorf("reasons %v, want %s first", v.Reasons, ProbeStalled)
			}
			if !strings.Contains(v.String(), tt.detail) {
				t.Errorf("%q does not say %q", v, tt.detail)
			}
		})
	}
}

// TestWindowNamed: the span a trial is judged in, and its name. A fault
// that stalled no partition past the bound (a controller's, the data path
// going on) is judged over the fault's first moments, the gaps' window,
// and says so, not over the two bounds around the fault.
func TestWindowNamed(t *testing.T) {
	F := t0.Add(10 * time.Second)
	bound := 200 * time.Millisecond
	gap := func(from, to time.Duration) *gaps.Gap { return &gaps.Gap{Start: F.Add(from), End: F.Add(to)} }
	report := func(window time.Duration, g ...*gaps.Gap) *gaps.Report {
		r := &gaps.Report{FaultAt: F, Window: window, Start: t0, End: t0.Add(60 * time.Second)}
		for i, x := range g {
			p := gaps.Partition{Partition: int32(i)}
			p.Ack.Fault = x
			r.Partitions = append(r.Partitions, p)
		}
		return r
	}
	m := &results.Meta{Kind: "trial", Started: t0, Ended: t0.Add(60 * time.Second)}
	tests := []struct {
		name     string
		g        *gaps.Report
		from, to time.Duration // from F
		says     string
	}{
		{"a stall decides it", report(time.Second, gap(0, 9*time.Second), gap(0, 8*time.Second)), -bound, 9 * time.Second, "in the window that decides the stall"},
		{"a controller kill, no partition stalled: the quorum's leaderless 3 s", report(3*time.Second, gap(0, 40*time.Millisecond), gap(10*time.Millisecond, 60*time.Millisecond)), -bound, 3 * time.Second,
			"in the fault's first 3.0 s, no partition having stalled past the bound 0.20 s"},
		{"no stall, the default window", report(time.Second, gap(0, 30*time.Millisecond)), -bound, time.Second, "in the fault's first 1.0 s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := window(m, tc.g, F, bound)
			if !w.from.Equal(F.Add(tc.from)) || !w.to.Equal(F.Add(tc.to)) || !strings.HasPrefix(w.name, tc.says) {
				t.Errorf("window %v–%v %q, want %v–%v %q", w.from.Sub(F), w.to.Sub(F), w.name, tc.from, tc.to, tc.says)
			}
		})
	}
	// The name reaches the verdict's text.
	m.Fault = &results.Fault{Kind: results.FaultControllerKill, Broker: "c1", NodeID: 100, Finished: F}
	m.Probe = results.Probe{Interval: 20 * time.Millisecond, Missed: map[int32]*results.MissedSends{0: {Count: 20, Runs: []results.MissedRun{{From: F.Add(500 * time.Millisecond), Slots: 20}}}}}
	v := Judge(m, report(3*time.Second, gap(0, 40*time.Millisecond)), F)
	if !strings.Contains(v.String(), "send slots in the fault's first 3.0 s, no partition having stalled") {
		t.Errorf("verdict %q, want it judged in the fault's first 3.0 s", v)
	}
}

// TestUnplacedRuns: runs past those the probe records cannot be placed
// against the stalls; past a share of the slots they make the trial
// suspect, as the share alone did before runs were placed.
func TestUnplacedRuns(t *testing.T) {
	for _, c := range []struct {
		name     string
		unlisted int64
		status   Status
	}{
		{"a few unplaced", 2, Valid},
		{"many unplaced", 30, Suspect},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, g := trial()
			// 100 harmless single slots in the middle of the stall, then
			// more whose place is not recorded, the last at 4 s.
			ms := &results.MissedSends{Last: t0.Add(4 * time.Second)}
			for i := range results.MaxMissedRuns {
				ms.Runs = append(ms.Runs, results.MissedRun{From: t0.Add(time.Second + time.Duration(i)*20*time.Millisecond), Slots: 1})
			}
			ms.Count = int64(len(ms.Runs)) + c.unlisted
			m.Probe.Missed = map[int32]*results.MissedSends{0: ms}
			v := Judge(m, g, m.Fault.At())
			if v.Status != c.status {
				t.Errorf("status %s, want %s: %v", v.Status, c.status, v)
			}
			if c.status == Suspect && !strings.Contains(v.String(), "cannot be placed against the stalls") {
				t.Errorf("%q does not say why", v)
			}
		})
	}
}
