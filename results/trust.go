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
	// Self is kbf's CPU time, with its children's: the other clients'
	// probes (librdkafka, Java), which end before it is read.
	Self time.Duration `json:"self_cpu_ns"`
	// Cluster is the CPU time the cluster's nodes used (their containers'
	// accounting); Others is everything else's, kbf and the nodes apart.
	Cluster time.Duration `json:"cluster_cpu_ns,omitempty"`
	Others  time.Duration `json:"others_cpu_ns"`
	Steal   time.Duration `json:"steal_ns"`
	// Err says what could not be read; the other fields are then partial.
	Err string `json:"error,omitempty"`
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
