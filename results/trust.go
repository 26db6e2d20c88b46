package results

import "time"

// What a run observed of its own trustworthiness, recorded in meta.json so
// that the analysis (package verdict) can judge a trial later: the
// baseline before the fault, the sends the probe could not make on time,
// and the load of the host.

// Baseline is the wait for a healthy cluster before the fault.
type Baseline struct {
	// Period is how long every probed partition had to ack and deliver
	// steadily; Bound the longest ack or receive gap that counts as steady.
	Period time.Duration `json:"period_ns"`
	Bound  time.Duration `json:"bound_ns"`
	// Due is when the fault was due (the probe's start + fault-after);
	// Timeout how long past it kbf would wait.
	Due     time.Time     `json:"due"`
	Timeout time.Duration `json:"timeout_ns"`
	// Healthy is when the baseline was found healthy; zero when it never
	// was, and Unhealthy then says why, naming the partition and the gap.
	Healthy   time.Time `json:"healthy,omitzero"`
	Unhealthy string    `json:"unhealthy,omitempty"`
	// Waited lists, in order and bounded, the reasons kbf waited past Due.
	Waited []string `json:"waited,omitempty"`
	// ClusterCPU is the share of every CPU's time the cluster's nodes used
	// over the last seconds before Healthy: a cluster still warming up
	// (freshly started JVMs compiling) is waited for as unsteady acks are.
	// Zero when not measured.
	ClusterCPU float64 `json:"cluster_cpu_share,omitempty"`
	// Unsettled says why the cluster's CPU had not settled when the
	// timeout came with the acks steady: the fault then went ahead.
	Unsettled string `json:"unsettled,omitempty"`
}

// MissedSends are the send slots of one partition that the probe could not
// keep: it sends on an absolute schedule, start + k × interval, and a slot
// that passed before its send could go is counted here, never dropped in
// silence.
type MissedSends struct {
	Count int64     `json:"count"`
	First time.Time `json:"first"` // the first missed slot's time
	Last  time.Time `json:"last"`  // the last missed slot's time
	// Runs are the missed slots as runs of consecutive slots, oldest first,
	// at most MaxMissedRuns of them; Count includes those past the bound.
	Runs []MissedRun `json:"runs,omitempty"`
}

// MaxMissedRuns bounds MissedSends.Runs.
const MaxMissedRuns = 100

// MissedRun is Slots consecutive missed slots from From.
type MissedRun struct {
	From  time.Time `json:"from"`
	Slots int64     `json:"slots"`
}

// Host is the load of the machine kbf ran on, over the trial, read from
// /proc: the load averages at the start and the end, and the CPU time of
// every CPU (from /proc/stat) split into what kbf itself used (from
// /proc/self/stat), what other processes used — the Kafka nodes among
// them — and what the hypervisor stole.
type Host struct {
	CPUs      int           `json:"cpus"`
	LoadStart float64       `json:"load1_start"`
	LoadEnd   float64       `json:"load1_end"`
	Wall      time.Duration `json:"wall_ns"`
	// Start is when Wall began: the first sample's interval starts there.
	Start time.Time `json:"start,omitzero"`
	// Self is kbf's CPU time, with its children's: the other clients'
	// probes (librdkafka, Java), which end before it is read.
	Self time.Duration `json:"self_cpu_ns"`
	// Cluster is the CPU time the cluster's nodes used (their containers'
	// accounting); Others is everything else's, kbf and the nodes apart.
	Cluster time.Duration `json:"cluster_cpu_ns,omitempty"`
	Others  time.Duration `json:"others_cpu_ns"`
	Steal   time.Duration `json:"steal_ns"`
	// Samples split the same CPU time into readings about a second apart,
	// oldest first, so that the load is judged inside the window that
	// decides the stall and the node that burnt it is named; empty from a
	// kbf that recorded only the totals.
	Samples []HostSample `json:"samples,omitempty"`
	// Err says what could not be read; the other fields are then partial.
	Err string `json:"error,omitempty"`
}

// HostSample is the CPU time used on the host between the previous
// sample (or the trial's start) and At.
type HostSample struct {
	At   time.Time     `json:"at"`
	Self time.Duration `json:"self_cpu_ns"`
	// Others is everything neither kbf nor a node used.
	Others time.Duration `json:"others_cpu_ns"`
	Steal  time.Duration `json:"steal_ns"`
	// Nodes is each node's CPU time, by service; a node absent used none
	// that was measured.
	Nodes map[string]time.Duration `json:"nodes_cpu_ns,omitempty"`
}

// ReplicaStats is what the replica view (ReplicasFile) did during a trial:
// the rows it wrote and the sampling it achieved.
type ReplicaStats struct {
	// Interval is the time it aimed at between two samples of a broker.
	Interval time.Duration `json:"interval_ns"`
	Rows     int           `json:"rows"`
	// LongestGap is, per broker, the longest time between two of its
	// answers (timed-out ones included): the interval achieved.
	LongestGap map[int32]time.Duration `json:"longest_gap_ns,omitempty"`
	// StateLongestGap is the same for the ISR/ELR state rows.
	StateLongestGap time.Duration `json:"state_longest_gap_ns,omitempty"`
}

// Load is the CPU time used on the host over a span, by whom.
type Load struct {
	Span                         time.Duration // the wall time the samples cover
	CPUs                         int
	Self, Others, Steal, Cluster time.Duration
	Nodes                        map[string]time.Duration
}

// Share is d as a share of every CPU's time over the span.
func (l Load) Share(d time.Duration) float64 {
	if l.Span <= 0 || l.CPUs <= 0 {
		return 0
	}
	return float64(d) / (float64(l.Span) * float64(l.CPUs))
}

// Busiest is the node that used the most CPU time, and how much; "" when
// none used any.
func (l Load) Busiest() (string, time.Duration) {
	name, most := "", time.Duration(0)
	for n, d := range l.Nodes {
		if d > most || d == most && d > 0 && n < name {
			name, most = n, d
		}
	}
	return name, most
}

// Window sums the samples over [from, to], each in proportion to the part
// of its interval inside, the load spread evenly over an interval; ok is
// false when no sample covers any of it.
func (h *Host) Window(from, to time.Time) (l Load, ok bool) {
	l = Load{CPUs: h.CPUs, Nodes: map[string]time.Duration{}}
	if h.Start.IsZero() || !to.After(from) {
		return l, false
	}
	prev := h.Start
	for _, s := range h.Samples {
		a, b := prev, s.At
		prev = s.At
		if !b.After(a) {
			continue
		}
		lo, hi := a, b
		if from.After(lo) {
			lo = from
		}
		if to.Before(hi) {
			hi = to
		}
		if !hi.After(lo) {
			continue
		}
		f := float64(hi.Sub(lo)) / float64(b.Sub(a))
		part := func(d time.Duration) time.Duration { return time.Duration(f * float64(d)) }
		l.Span += hi.Sub(lo)
		l.Self += part(s.Self)
		l.Others += part(s.Others)
		l.Steal += part(s.Steal)
		for n, d := range s.Nodes {
			l.Nodes[n] += part(d)
			l.Cluster += part(d)
		}
	}
	return l, l.Span > 0
}
