// Package verdict judges whether a trial can be trusted. It reads what the
// run observed of itself — the baseline before the fault, the fault's
// confirmation, the sends the probe missed, the host's load, all in
// results.Meta — against the analysed stall (the gaps), and says valid,
// suspect or invalid with typed reasons. The rule lives here, apart from
// the run, so an old trial is judged again by a newer kbf.
package verdict

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// Status is a trial's standing, from best to worst.
type Status string

const (
	Valid   Status = "valid"   // nothing known disturbed the measurement
	Suspect Status = "suspect" // something may have: read its figures with care
	Invalid Status = "invalid" // the trial did not measure what it set out to
)

func (s Status) rank() int {
	return map[Status]int{Valid: 0, Suspect: 1, Invalid: 2}[s]
}

// Kind is why a trial is not valid.
type Kind string

const (
	// UnhealthyBaseline: the cluster was never steady before the fault,
	// so no fault was injected.
	UnhealthyBaseline Kind = "unhealthy-baseline"
	// NoFault: the trial ended before its fault was injected.
	NoFault Kind = "no-fault"
	// FaultNotConfirmed: the fault is not the one asked for, or the engine
	// never confirmed it (a SIGTERM escalated to SIGKILL, at any step of a
	// fault of several; a container that did not stop, a pause not
	// reported).
	FaultNotConfirmed Kind = "fault-not-confirmed"
	// ProbeStalled: the probe itself missed sends, or went without sending
	// longer than the bound, inside the window that decides the stall.
	ProbeStalled Kind = "probe-stalled"
	// HostOverloaded: the machine's CPUs were saturated or stolen from.
	HostOverloaded Kind = "host-overloaded"
	// EvidenceDamaged: a file the analysis reads is missing, damaged or
	// dated outside the trial, so part of what the trial measured or
	// explains cannot be trusted. The analysis adds it (Verdict.Add).
	EvidenceDamaged Kind = "evidence-damaged"
)

// Reason is one finding against a trial.
type Reason struct {
	Kind   Kind   `json:"kind"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
}

// Verdict is a trial's standing and the reasons for it, worst first.
type Verdict struct {
	Status  Status   `json:"status"`
	Reasons []Reason `json:"reasons,omitempty"`
}

// Add records one more finding against the trial, keeping the reasons
// worst first: for what the analysis, not Judge, finds.
func (v *Verdict) Add(s Status, k Kind, detail string) {
	v.Reasons = append(v.Reasons, Reason{Kind: k, Status: s, Detail: detail})
	if s.rank() > v.Status.rank() {
		v.Status = s
	}
	sort.SliceStable(v.Reasons, func(i, j int) bool { return v.Reasons[i].Status.rank() > v.Reasons[j].Status.rank() })
}

// String is the verdict in one line: "valid", or the status and reasons.
func (v Verdict) String() string {
	if len(v.Reasons) == 0 {
		return string(v.Status)
	}
	var parts []string
	for _, r := range v.Reasons {
		parts = append(parts, fmt.Sprintf("%s (%s)", r.Kind, r.Detail))
	}
	return fmt.Sprintf("%s: %s", v.Status, strings.Join(parts, "; "))
}

// Thresholds of the host's load past which a trial is suspect.
const (
	// BusyShare is the share of every CPU's time busy (kbf, the Kafka
	// nodes and everything else) at which the machine is saturated.
	BusyShare = 0.90
	// OthersShare is the share taken by processes that are neither kbf
	// nor the cluster's nodes: competition the trial did not bring.
	OthersShare = 0.25
	// StealShare is the share stolen by the hypervisor.
	StealShare = 0.05
)

// Judge returns the verdict on a trial from its metadata and its gaps as
// analysed with the fault at faultAt. A probe run (no fault asked for) is
// judged only on the probe and the host. A Meta from a kbf that recorded
// none of these facts is valid: nothing is known against it.
func Judge(m *results.Meta, g *gaps.Report, faultAt time.Time) Verdict {
	v := Verdict{Status: Valid}
	add := func(s Status, k Kind, format string, a ...any) {
		v.Reasons = append(v.Reasons, Reason{Kind: k, Status: s, Detail: fmt.Sprintf(format, a...)})
		if s.rank() > v.Status.rank() {
			v.Status = s
		}
	}
	if m == nil {
		return v
	}
	bound := StallBound(m)
	if b := m.Baseline; b != nil && b.Unhealthy != "" {
		add(Invalid, UnhealthyBaseline, "not steady for %v within %v after the fault was due: %s", b.Period, b.Timeout, b.Unhealthy)
	}
	if f := m.Fault; f != nil {
		judgeFault(f, add)
		judgeSteps(m.Steps, add)
	} else if m.Kind == "trial" && (m.Baseline == nil || m.Baseline.Unhealthy == "") {
		add(Invalid, NoFault, "the trial ended before the fault was injected")
	}
	judgeProbe(m, g, faultAt, bound, add)
	if h := m.Host; h != nil {
		judgeHost(h, add)
	}
	sort.SliceStable(v.Reasons, func(i, j int) bool { return v.Reasons[i].Status.rank() > v.Reasons[j].Status.rank() })
	return v
}

type adder func(s Status, k Kind, format string, a ...any)

// judgeFault judges the fault by what it did first (results.Fault.Action):
// a fault of several steps records its first step as the fault, so a roll
// whose first stop was not confirmed is judged as a sigterm would be.
func judgeFault(f *results.Fault, add adder) {
	switch a := f.Action(); {
	case f.Escalated:
		add(Invalid, FaultNotConfirmed, "the broker outlived its SIGTERM grace and was SIGKILLed")
	case (a == results.StepKill || a == results.StepStop) && f.Finished.IsZero():
		add(Invalid, FaultNotConfirmed, "the engine recorded no stop of %s's container", f.Broker)
	case a == results.StepPause && f.Paused.IsZero():
		add(Invalid, FaultNotConfirmed, "the engine did not report %s's container frozen", f.Broker)
	}
}

// judgeSteps judges the steps after the first, which the fault is and
// judgeFault judged: a later graceful stop that outlived its grace and was
// SIGKILLed makes the fault not the one asked for, as the first's would.
// Steps are numbered from 1, as the report's step view numbers them.
func judgeSteps(steps []results.Step, add adder) {
	for i, s := range steps {
		if i > 0 && s.Action == results.StepStop && s.Escalated {
			add(Invalid, FaultNotConfirmed, "step %d: %s outlived its SIGTERM grace and was SIGKILLed", i+1, s.Node)
		}
	}
}

// StallBound is the longest ack or receive gap that counts as steady, as
// the run used it: the baseline's bound where meta.json records one, else
// the probe's rule, max(10 × interval, 200 ms). A longer gap is a stall.
func StallBound(m *results.Meta) time.Duration {
	if b := m.Baseline; b != nil && b.Bound > 0 {
		return b.Bound
	}
	return max(10*m.Probe.Interval, 200*time.Millisecond)
}

// judgeProbe looks for the probe's own stalls inside the window that
// decides the stall: from a bound before the fault to the end of the
// longest fault gap; with no fault, the whole run.
func judgeProbe(m *results.Meta, g *gaps.Report, faultAt time.Time, bound time.Duration, add adder) {
	from, to := time.Time{}, time.Time{}
	if g != nil {
		from, to = g.Start, g.End
		if !faultAt.IsZero() {
			from, to = faultAt.Add(-bound), faultAt
			for _, p := range g.Partitions {
				for _, gap := range []*gaps.Gap{p.Ack.Fault, p.Receive.Fault} {
					if gap != nil && gap.End.After(to) {
						to = gap.End
					}
				}
			}
		}
	}
	interval := m.Probe.Interval
	parts := make([]int32, 0, len(m.Probe.Missed))
	for p := range m.Probe.Missed {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	for _, p := range parts {
		ms := m.Probe.Missed[p]
		var n int64
		var worst time.Duration
		var at time.Time
		for _, r := range ms.Runs {
			end := r.From.Add(time.Duration(r.Slots) * interval)
			if !from.IsZero() && (end.Before(from) || r.From.After(to)) {
				continue
			}
			n += r.Slots
			// Slots missed in a row leave a send gap one interval longer.
			if gap := time.Duration(r.Slots+1) * interval; gap > worst {
				worst, at = gap, r.From
			}
		}
		if worst > bound {
			add(Suspect, ProbeStalled, "p%d: the probe missed %d sends in the window that decides the stall, %d in a row from %s (a send gap of %.2f s; bound %.2f s)",
				p, n, int64(worst/interval)-1, at.UTC().Format("15:04:05.000"), worst.Seconds(), bound.Seconds())
			return // one partition says it: the loop sends to all alike
		}
	}
	if len(m.Probe.Missed) == 0 && m.Probe.LongestSendGap > bound {
		// A run that recorded no missed slots (an older kbf) has only its
		// longest send gap, anywhere in the run.
		add(Suspect, ProbeStalled, "the probe's longest send gap, %.2f s, is past the bound %.2f s (when is not recorded)",
			m.Probe.LongestSendGap.Seconds(), bound.Seconds())
	}
}

func judgeHost(h *results.Host, add adder) {
	if h.CPUs <= 0 || h.Wall <= 0 {
		return
	}
	capacity := float64(h.Wall) * float64(h.CPUs)
	share := func(d time.Duration) float64 { return float64(d) / capacity }
	busy := share(h.Self + h.Cluster + h.Others)
	var why []string
	if busy >= BusyShare {
		why = append(why, fmt.Sprintf("the CPUs were %.0f%% busy (kbf %.0f%%, the cluster %.0f%%, other processes %.0f%%)",
			100*busy, 100*share(h.Self), 100*share(h.Cluster), 100*share(h.Others)))
	}
	if o := share(h.Others); o >= OthersShare {
		why = append(why, fmt.Sprintf("other processes used %.0f%% of the CPUs", 100*o))
	}
	if st := share(h.Steal); st >= StealShare {
		why = append(why, fmt.Sprintf("%.0f%% of the CPU time was stolen by the hypervisor", 100*st))
	}
	// The load average is shown but not judged: it trails by a minute and
	// counts the cluster's own start.
	if len(why) > 0 {
		add(Suspect, HostOverloaded, "%s", strings.Join(why, ", "))
	}
}

// Describe says the host's load in one line, for a report.
func Describe(h *results.Host) string {
	if h == nil || h.Wall <= 0 || h.CPUs <= 0 {
		return ""
	}
	capacity := float64(h.Wall) * float64(h.CPUs)
	return fmt.Sprintf("host: %d CPUs, load average %.1f → %.1f; CPU time over %.1f s: kbf %.0f%%, the cluster %.0f%%, other processes %.0f%%, stolen %.0f%%",
		h.CPUs, h.LoadStart, h.LoadEnd, h.Wall.Seconds(),
		100*float64(h.Self)/capacity, 100*float64(h.Cluster)/capacity, 100*float64(h.Others)/capacity, 100*float64(h.Steal)/capacity)
}
