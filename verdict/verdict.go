// Package verdict judges whether a trial can be trusted. It reads what the
// run observed of itself — the baseline before the fault, the fault's
// confirmation, the sends the probe missed, the host's load, all in
// results.Meta — against the analysed stall (the gaps), and says valid,
// suspect or invalid with typed reasons, and notes that leave a trial
// valid. The probe's timing and the host's load are judged inside the
// window that decides the stall, the cluster's own CPU apart from load
// from outside the trial. The rule lives here, apart from the run, so an
// old trial is judged again by a newer kbf.
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
	// AcksBehind: the probe's records were not acknowledged in step with
	// sending, outside the window that decides the stall (over the run
	// for a probe run): records never acknowledged by the end, or acks
	// lagging the sends past the bound. The gaps it measured are then
	// the backlog's, not the cluster's failover; the reason names the
	// resource that was the floor when the host's samples tell it.
	AcksBehind Kind = "acks-behind"
	// HostOverloaded: inside the window that decides the stall, processes
	// other than kbf and the cluster, or the hypervisor, took the CPU; or
	// the CPUs were saturated and the probe missed sends.
	HostOverloaded Kind = "host-overloaded"
	// EvidenceDamaged: a file the analysis reads is missing, damaged or
	// dated outside the trial, so part of what the trial measured or
	// explains cannot be trusted. The analysis adds it (Verdict.Add).
	EvidenceDamaged Kind = "evidence-damaged"
	// TopicReplaced: the probe's topic was gone at the read-back, or
	// deleted and made again under the same name during the trial (its
	// topic ID changed: another kbf recreated the cluster under it). The
	// read-back is not of the records the probe sent, so the trial's loss
	// cannot be counted, and what it measured was disturbed from outside:
	// invalid. The analysis adds it (Verdict.Add).
	TopicReplaced Kind = "topic-replaced"
	// ClusterWarmup: the fault went ahead while the cluster's own CPU was
	// still settling after its start (the baseline's timeout came first).
	// Suspect when the CPUs were also saturated in the window that decides
	// the stall, else a note.
	ClusterWarmup Kind = "cluster-warmup"
	// ClusterBusy is a note, never a finding against the trial: the CPU
	// the cluster burnt in the window that decides the stall, and the node
	// that burnt the most — its response to the fault, not outside load.
	ClusterBusy Kind = "cluster-busy"
	// LoadOutsideWindow is a note: the host was loaded from outside, but
	// not inside the window that decides the stall.
	LoadOutsideWindow Kind = "load-outside-window"
)

// Reason is one finding against a trial, or, with Status Valid, a note
// that leaves the trial's standing as it is.
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

// Valid reports whether the trial counts: judged, and judged valid.
func (v *Verdict) Valid() bool { return v != nil && v.Status == Valid }

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

// Thresholds of the probe's self-check: past either, the probe's own
// timing is too coarse to trust the gaps it measures.
const (
	// MissedShare is the share of the records sent outside the window
	// that may go unacknowledged (judgeAcks).
	MissedShare = 0.01
	// MinMissed is the fewest missed slots a verdict speaks of, and
	// StarvedShare can judge: in a short window one late send is a large
	// share and says nothing of the probe's timing.
	MinMissed = 3
)

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
	w := window(m, g, faultAt, bound)
	load := hostLoadOf(m.Host, w, faultAt)
	probeBad := judgeProbe(m, g, w, bound, add)
	judgeAcks(m, g, w, load, faultAt, bound, add)
	judgeHost(m, load, w, faultAt, probeBad, add)
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
	case f.Kind == results.FaultCPUStarve && f.Starved.IsZero():
		add(Invalid, FaultNotConfirmed, "the engine did not confirm %s's CPU quota", f.Broker)
	case f.Kind == results.FaultPacketLoss && f.Cut.IsZero():
		add(Invalid, FaultNotConfirmed, "%s's packet-loss rules were not confirmed in place", f.Broker)
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

// span is the part of the trial the probe and the host are judged in,
// and how a verdict names it.
type span struct {
	from, to time.Time
	name     string // "in the window that decides the stall", …
}

// decidesStall names the window of a fault that stalled a partition.
const decidesStall = "in the window that decides the stall"

// window is the span that decides the stall: from a bound before the fault
// to the end of the longest fault gap (at least a bound past the fault).
// A fault that stalled no partition past the bound (a controller's, whose
// data path went on) has no stall to decide: its span is the fault's
// first moments, as long as the gaps' window after it (the quorum's
// leaderless time for a controller fault, gaps.DefaultWindow at least),
// and says so, rather than the two bounds around the fault. With no fault
// it is the probe's run after its start-up, to its end; zero times where
// the run says nothing of them.
func window(m *results.Meta, g *gaps.Report, faultAt time.Time, bound time.Duration) span {
	if faultAt.IsZero() {
		from, to := m.Started, m.Ended
		if g != nil {
			if from.IsZero() || g.Start.Before(from) {
				from = g.Start
			}
			if to.IsZero() {
				to = g.End
			}
		}
		if m.Probe.Ready.After(from) {
			from = m.Probe.Ready
		}
		return span{from, to, "over the run"}
	}
	w := span{faultAt.Add(-bound), faultAt.Add(bound), decidesStall}
	stalled := false
	if g != nil {
		for _, p := range g.Partitions {
			for _, gap := range []*gaps.Gap{p.Ack.Fault, p.Receive.Fault} {
				if gap == nil {
					continue
				}
				if gap.End.After(w.to) {
					w.to = gap.End
				}
				stalled = stalled || gap.Duration() > bound
			}
		}
	}
	if !stalled && g != nil && len(g.Partitions) > 0 {
		d := max(g.Window, bound)
		if end := faultAt.Add(d); end.After(w.to) {
			w.to = end
		}
		if !g.End.IsZero() && w.to.After(g.End) && g.End.After(faultAt) {
			w.to = g.End
		}
		w.name = fmt.Sprintf("in the fault's first %.1f s, no partition having stalled past the bound %.2f s", w.to.Sub(faultAt).Seconds(), bound.Seconds())
	}
	return w
}

// selfCheck is what the probe's missed slots say of its timing in a span.
type selfCheck struct {
	slots, missed int64
	longest       time.Duration // the longest send gap the missed runs left
	at            time.Time     // where it began
	// unplaced are the slots of runs past results.MaxMissedRuns counted
	// in the span: where they lay is not recorded.
	unplaced int64
}

// check counts the slots the probe missed in [from, to], runs cut at the
// edges; with from and to zero, the whole run. Runs are counted from the
// partition that missed the most: the send loop serves all alike.
func check(p results.Probe, from, to time.Time) selfCheck {
	var c selfCheck
	if p.Interval <= 0 {
		return c
	}
	if !from.IsZero() && to.After(from) {
		c.slots = int64(to.Sub(from) / p.Interval)
	}
	ms := mostMissed(p)
	if ms == nil {
		return c
	}
	var listed int64
	for _, r := range ms.Runs {
		listed += r.Slots
	}
	for _, r := range runsIn(p, from, to) {
		// Slots missed in a row leave a send gap one interval longer; a
		// run cut at an edge counts only its part inside.
		c.missed += max(int64((r.gap-p.Interval)/p.Interval), 1)
		if r.gap > c.longest {
			c.longest, c.at = r.gap, r.a
		}
	}
	if extra := ms.Count - listed; extra > 0 && (from.IsZero() || !ms.Last.Before(from) && !ms.Last.After(to)) {
		// Runs past MaxMissedRuns are the latest ones, up to Last: counted
		// where Last is in the span, where they cannot be placed.
		c.missed += extra
		c.unplaced = extra
	}
	return c
}

func (c selfCheck) share() float64 {
	if c.slots <= 0 {
		return 0
	}
	return float64(c.missed) / float64(c.slots)
}

// judgeProbe is the probe's self-check in the window that decides the
// stall, by what its missed send slots could change in the answer
// (probecheck.go): a send gap at a stall's edge longer than EdgeTolerance,
// one outside the stalls as long as half the bound, or more slots missed
// than sent (StarvedShare) makes the trial suspect; missed slots that
// change nothing — a gap in the middle of a stall, short ones beside it —
// are said in a note and leave it valid. A probe run's start-up, until
// every partition's first ack, is said apart and not judged. It returns
// whether the probe failed its check.
func judgeProbe(m *results.Meta, g *gaps.Report, w span, bound time.Duration, add adder) bool {
	from, to := w.from, w.to
	p := m.Probe
	if len(p.Missed) == 0 {
		if p.LongestSendGap > bound && p.Ready.IsZero() {
			// A run that recorded no missed slots (an older kbf) has only
			// its longest send gap, anywhere in the run.
			add(Suspect, ProbeStalled, "the probe's longest send gap, %.2f s, is past the bound %.2f s (when is not recorded)",
				p.LongestSendGap.Seconds(), bound.Seconds())
			return true
		}
		return false
	}
	c := check(p, from, to)
	if c.missed == 0 {
		return false
	}
	var stalls []stall
	if m.Fault != nil {
		stalls = stallsOf(g, bound)
	}
	pv := judgeRuns(c, runsIn(p, from, to), stalls, bound)
	where := w.name
	if m.Fault == nil {
		where = "after its start-up"
		if p.Ready.IsZero() {
			where = "over the run"
		}
	}
	detail := fmt.Sprintf("the probe missed %.1f%% of its send slots %s (%d of %d)%s (interval %v)",
		100*c.share(), where, c.missed, c.slots, sendGapText(c), p.Interval)
	if m.Fault == nil && !p.Ready.IsZero() && !m.Started.IsZero() {
		if s := check(p, m.Started, p.Ready); s.missed > 0 {
			detail += fmt.Sprintf("; its start-up, the %.1f s to every partition's first ack, missed %d more with send gaps up to %.2f s, not judged",
				p.Ready.Sub(m.Started).Seconds(), s.missed, s.longest.Seconds())
		}
	}
	if !pv.bad {
		// Said where a share of the slots, or a gap, is worth a reader's
		// notice, though it changed nothing.
		if c.missed >= MinMissed && (c.share() > MissedShare || c.longest > bound/2) {
			add(Valid, ProbeStalled, "%s: none where it could change the answer", detail)
		}
		return false
	}
	add(Suspect, ProbeStalled, "%s: %s", detail, pv.why)
	return true
}

// sendGapText is the longest send gap c found, as the self-check's reason
// says it: when it began only where that is known, and nothing where the
// window held no gap — a zero time is no fact to print.
func sendGapText(c selfCheck) string {
	switch {
	case c.longest <= 0:
		return ""
	case c.at.IsZero():
		return fmt.Sprintf(", its longest send gap %.3f s (when is not recorded)", c.longest.Seconds())
	}
	return fmt.Sprintf(", its longest send gap %.3f s from %s", c.longest.Seconds(), c.at.UTC().Format("15:04:05.000"))
}

// cpu is one span's CPU time as the verdict weighs it: the load, each
// user's share of every CPU's time, and the node that burnt the most.
type cpu struct {
	results.Load
	self, cluster, others, steal float64
	// busy is kbf's, the cluster's and the other processes' share
	// together; all adds the stolen time's.
	busy, all float64
	// busiest is the node that used the most CPU time, most its share;
	// "" when none used any.
	busiest string
	most    float64
}

func cpuOf(l results.Load) cpu {
	c := cpu{Load: l, self: l.Share(l.Self), cluster: l.Share(l.Cluster), others: l.Share(l.Others), steal: l.Share(l.Steal),
		busy: l.Share(l.Self + l.Cluster + l.Others), all: l.Share(l.Self + l.Cluster + l.Others + l.Steal)}
	n, d := l.Busiest()
	c.busiest, c.most = n, l.Share(d)
	return c
}

// hostLoad is the host's CPU time, read once for every judgement of it:
// over the whole trial, and over the span judged (in), from the fault (or
// the span's start, from) to the span's end, where the samples cover it
// (windowed).
type hostLoad struct {
	whole, in cpu
	windowed  bool
	from      time.Time
}

// hostLoadOf is the load of host h in the span w, judged from faultAt;
// nil when the host's load was not sampled.
func hostLoadOf(h *results.Host, w span, faultAt time.Time) *hostLoad {
	if h == nil || h.CPUs <= 0 || h.Wall <= 0 {
		return nil
	}
	hl := &hostLoad{whole: cpuOf(results.Load{Span: h.Wall, CPUs: h.CPUs, Self: h.Self, Cluster: h.Cluster, Others: h.Others, Steal: h.Steal}), from: w.from}
	hl.in = hl.whole
	if !faultAt.IsZero() && faultAt.After(hl.from) {
		hl.from = faultAt
	}
	if lw, ok := h.Window(hl.from, w.to); ok && !hl.from.IsZero() {
		hl.in, hl.windowed = cpuOf(lw), true
	}
	return hl
}

// judgeHost judges the host's load hl inside the window that decides the
// stall (from the fault), where the samples cover it, else over the whole
// trial. Load from outside the trial — other processes, stolen time —
// makes it suspect. The cluster's own CPU does not: before the fault the
// baseline waited for it to settle (ClusterWarmup if it went ahead
// anyway), and after it the cluster burns what the fault makes it burn
// (ClusterBusy, naming the node), suspect only when it saturated the CPUs
// and the probe missed sends.
func judgeHost(m *results.Meta, hl *hostLoad, w span, faultAt time.Time, probeBad bool, add adder) {
	if hl == nil {
		return
	}
	l, where := hl.whole, "over the trial"
	if hl.windowed {
		l, where = hl.in, fmt.Sprintf("%s (%s–%s)", w.name, hl.from.UTC().Format("15:04:05"), w.to.UTC().Format("15:04:05"))
		if faultAt.IsZero() {
			where = "over the run"
		}
	}
	busy := l.busy
	cluster := fmt.Sprintf("the cluster %.0f%%", 100*l.cluster)
	if l.busiest != "" {
		cluster += fmt.Sprintf(", %s the most at %.0f%%", l.busiest, 100*l.most)
	}
	breakdown := fmt.Sprintf("the CPUs were %.0f%% busy %s (kbf %.0f%%, %s, other processes %.0f%%)",
		100*busy, where, 100*l.self, cluster, 100*l.others)
	var why []string
	if busy >= BusyShare {
		why = append(why, breakdown)
	}
	outside := false
	if o := l.others; o >= OthersShare {
		why, outside = append(why, fmt.Sprintf("other processes used %.0f%% of the CPUs %s", 100*o, where)), true
	}
	if st := l.steal; st >= StealShare {
		why, outside = append(why, fmt.Sprintf("%.0f%% of the CPU time %s was stolen by the hypervisor", 100*st, where)), true
	}
	// The load average is shown but not judged: it trails by a minute and
	// counts the cluster's own start.
	unsettled := ""
	if b := m.Baseline; b != nil {
		unsettled = b.Unsettled
	}
	switch {
	case outside:
		add(Suspect, HostOverloaded, "%s", strings.Join(why, ", "))
	case busy >= BusyShare && probeBad:
		add(Suspect, HostOverloaded, "%s, and the probe missed sends", breakdown)
	case busy >= BusyShare && unsettled != "":
		add(Suspect, ClusterWarmup, "the fault went ahead before the cluster's CPU settled (%s), and %s", unsettled, breakdown)
	default:
		if unsettled != "" {
			add(Valid, ClusterWarmup, "the fault went ahead before the cluster's CPU settled (%s)", unsettled)
		}
		if l.cluster >= ClusterNoted || busy >= BusyShare {
			kept := ", and the probe kept its sends"
			if probeBad {
				kept = "" // its own finding says what it missed
			}
			add(Valid, ClusterBusy, "%s: kbf's and the cluster's own work, not outside load%s", breakdown, kept)
		}
	}
	if !outside && hl.windowed {
		if o, st := hl.whole.others, hl.whole.steal; o >= OthersShare || st >= StealShare {
			add(Valid, LoadOutsideWindow, "over the whole trial other processes used %.0f%% of the CPUs and %.0f%% was stolen, but not %s",
				100*o, 100*st, w.name)
		}
	}
}

// ClusterNoted is the cluster's share of the CPUs at which a verdict says
// what the cluster burnt, and which node burnt the most.
const ClusterNoted = 0.5

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

// Thresholds of the acks' check.
const (
	// PendingInvalid is the share of the judged records never acknowledged
	// by the end past which the trial measured a backlog, not the cluster:
	// invalid rather than suspect.
	PendingInvalid = 0.10
	// LateSeconds is the fewest seconds of sending, and LateShare the
	// least share of the judged ones, whose acks lagged past the bound
	// for the acks to be behind, the lag still past it in the last
	// second judged.
	LateSeconds = 2
	LateShare   = 0.10
)

// acks is what the gaps' lag says of the sends judged.
type acks struct {
	seconds, late int // seconds of sending judged, and those whose acks lagged past the bound
	sent, pending int
	worst         time.Duration // the longest send-to-ack judged
	first, last   time.Duration // the lag in the first and last judged seconds that had an ack
	lastAt        time.Time
}

// countAcks reads g's lag in the seconds judged: after the probe's start-up
// (every partition's first ack), and, with a fault, outside the window w
// that decides the stall, where acks are late because the cluster stalled,
// and outside the time a fault that slows the broker held (Degrades), where
// late acks are what the trial measures.
func countAcks(m *results.Meta, g *gaps.Report, w span, faultAt time.Time, bound time.Duration) acks {
	var a acks
	firstSeen := false
	degraded := degradedSpan(m, faultAt)
	for _, ls := range g.Lag {
		end := ls.From.Add(time.Second)
		if !m.Probe.Ready.IsZero() && ls.From.Before(m.Probe.Ready) {
			continue
		}
		if !faultAt.IsZero() && end.After(w.from) && ls.From.Before(w.to) {
			continue
		}
		if end.After(degraded.from) && ls.From.Before(degraded.to) {
			continue
		}
		a.seconds++
		a.sent += ls.Sent
		a.pending += ls.Pending
		if ls.MaxLatency > bound {
			a.late++
		}
		a.worst = max(a.worst, ls.MaxLatency)
		if ls.MaxLatency > 0 {
			if !firstSeen {
				a.first, firstSeen = ls.MaxLatency, true
			}
			a.last, a.lastAt = ls.MaxLatency, ls.From
		}
	}
	return a
}

// judgeAcks compares the acks to the sends: a trial whose records were
// not acknowledged in step with sending — a share of them never acked by
// the end, or acks lagging past the bound in many seconds — measured the
// probe's backlog, and is never valid. The reason names the floor (floor).
func judgeAcks(m *results.Meta, g *gaps.Report, w span, hl *hostLoad, faultAt time.Time, bound time.Duration, add adder) {
	if g == nil || len(g.Lag) == 0 {
		return
	}
	a := countAcks(m, g, w, faultAt, bound)
	if a.sent == 0 {
		return
	}
	pendingShare := float64(a.pending) / float64(a.sent)
	pendingBad := a.pending >= MinMissed && pendingShare > MissedShare
	// Acks that lagged and caught up again (a probe's warm-up, a trial
	// recorded before Ready was) are not behind, nor is a steady lag: it
	// delays every ack alike and leaves the gaps between them as they
	// were. A lag that grew by more than the bound, and still held in the
	// last second judged, is a backlog.
	lateBad := a.late >= LateSeconds && float64(a.late) >= LateShare*float64(a.seconds) &&
		a.last > bound && a.last-a.first > bound
	if !pendingBad && !lateBad {
		return
	}
	where := "outside the window that decides the stall"
	if faultAt.IsZero() {
		where = "after the probe's start-up"
	}
	var what []string
	if a.pending > 0 {
		what = append(what, fmt.Sprintf("%d of the %d records sent %s were never acknowledged by the end (%.0f%%)",
			a.pending, a.sent, where, 100*pendingShare))
	}
	if a.late > 0 {
		what = append(what, fmt.Sprintf("in %d of %d seconds of sending the acks lagged the sends past the bound %.2f s, by up to %.2f s (%.2f s in the first second, %.2f s in the last acked, at %s)",
			a.late, a.seconds, bound.Seconds(), a.worst.Seconds(), a.first.Seconds(), a.last.Seconds(), a.lastAt.UTC().Format("15:04:05")))
	}
	s := Suspect
	if pendingShare >= PendingInvalid {
		s = Invalid
	}
	add(s, AcksBehind, "the acks did not keep up with the sends: %s; %s", strings.Join(what, "; "), floor(m, hl, faultAt))
}

// floor names the resource that held the acks back, from the host's
// load hl over the span judged (the whole trial where the samples do not
// cover it, and with a fault) and the probe's missed send slots: the host
// when its CPUs were saturated; the probe process when it used a CPU of
// its own whole or missed its send slots while the host had room; else
// the cluster, which had the CPU to answer and did not.
func floor(m *results.Meta, hl *hostLoad, faultAt time.Time) string {
	if hl == nil {
		return "the floor is not known: the host's load was not sampled"
	}
	l := hl.whole
	if faultAt.IsZero() && hl.windowed {
		l = hl.in
	}
	busy := l.all
	// kbf's share of one CPU: the probe's send loop and its callbacks
	// run on one at a time.
	selfCores := float64(l.Self) / float64(l.Span)
	missed := check(m.Probe, time.Time{}, time.Time{}).missed
	// The shares come from /proc and the containers' accounting, sampled
	// apart: their sum may pass 100 % by a little.
	load := fmt.Sprintf("the CPUs %.0f%% busy: kbf %.0f%% (%.2f CPUs), the cluster %.0f%%, other processes %.0f%%, stolen %.0f%%",
		100*min(busy, 1), 100*l.self, selfCores, 100*l.cluster, 100*l.others, 100*l.steal)
	switch {
	case busy >= BusyShare:
		// Name who took the CPUs: the cluster saturating them is the
		// cluster's own limit on this host, kbf doing so the probe's.
		user, most := "the cluster", l.Cluster
		if l.busiest != "" {
			user = fmt.Sprintf("the cluster (%s the most at %.0f%%)", l.busiest, 100*l.most)
		}
		if l.Self > most {
			user, most = "kbf", l.Self
		}
		if l.Others > most {
			user = "other processes"
		}
		return fmt.Sprintf("the floor is the host's CPUs, taken mostly by %s: %s", user, load)
	case selfCores >= SelfCores:
		return "the floor is the probe process's CPU: " + load
	case missed > 0:
		return fmt.Sprintf("the floor is the probe process: it missed %d send slots while the host had room (%s)", missed, load)
	default:
		return "the floor is the cluster: the host had room and the probe kept its sends (" + load + ")"
	}
}

// SelfCores is the CPUs kbf used past which the probe process is the
// floor.
const SelfCores = 0.9

// degradedSpan is the time a fault that slows the broker (Degrades) held:
// from the fault until it was undone, or on to the end; empty for any
// other fault.
func degradedSpan(m *results.Meta, faultAt time.Time) span {
	if m == nil || m.Fault == nil || !m.Fault.Kind.Degrades() || faultAt.IsZero() {
		return span{}
	}
	to := m.Fault.Returned
	if to.IsZero() {
		to = results.LatestTime
	}
	return span{from: faultAt, to: to}
}
