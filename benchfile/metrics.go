// Package benchfile owns kbf bench's results file, bench.txt: the metrics'
// names and units, the partition roles, the configuration keys, and reading
// and writing the file in the Go benchmark format with golang.org/x/perf's
// benchfmt. kbf bench writes it, kbf compare reads it, and benchstat reads
// it too:
//
//	Unit ack-stall-sec better=lower
//	...
//	kafka-version: 4.3.1
//	cores: 2
//	acks: all
//	probe-interval: 20ms
//
//	BenchmarkFailover/scenario=sigkill/role=leader 1 8.228 ack-stall-sec 7.987 detect-sec 0 lost-acked-records
//
// One line is one valid trial's values for one scenario (or sweep value)
// and role; durations are seconds, rounded to the millisecond, counts are
// whole records. The reader refuses what cannot be a measurement (NaN, an
// infinity, a negative duration or count) with the file and line. One
// shard of a benchmark cut for a CI matrix opens with its shard and plan
// lines (ReadOrigin), and CheckShards says whether shards make it whole.
package benchfile

import (
	"github.com/kbf-project/kbf/results"
)

// TextFile is the file a kbf bench directory holds its results in.
const TextFile = "bench.txt"

// BenchName is the base of every benchmark name in bench.txt.
const BenchName = "Failover"

// Configuration keys bench.txt sets per benchmark beside the file-wide
// ones (kafka-version, image, client, client-version, kbf-version, cores).
const (
	// ConfigAcks is the probe's acks: it changes what a lost record means.
	ConfigAcks = "acks"
	// ConfigProbeInterval is the probe's time between two records of one
	// partition: the resolution of every stall and phase it measured.
	ConfigProbeInterval = "probe-interval"
)

// Metric is one measure of a trial, per partition role.
type Metric struct {
	// Name is what --limit takes (ack_stall); Unit is the benchmark unit
	// (ack-stall-sec), in seconds unless it counts.
	Name, Unit string
	// Seconds is false for a count.
	Seconds bool
	Desc    string
	// MultiStep is set for a metric only a fault of several steps has.
	MultiStep bool
	// Group is set for a metric only a trial with a group reader has
	// (kbf run --consumer group).
	Group bool
	// Txn is set for a metric only a transactional probe has (kbf run
	// --producer transactional).
	Txn bool
	// Phased is set for a metric only a trial whose stalls the node logs
	// split into phases has.
	Phased bool
}

// Optional reports whether only some trials have the metric: bench.txt
// declares its unit only where one does.
func (m Metric) Optional() bool { return m.MultiStep || m.Group || m.Txn || m.Phased }

// Metrics are every metric, in the order bench.txt lists them. All are
// better=lower.
var Metrics = []Metric{
	{"ack_stall", "ack-stall-sec", true, "ack stall: the ack gap at the fault", false, false, false, false},
	{"receive_stall", "receive-stall-sec", true, "receive stall: the receive gap at the fault", false, false, false, false},
	{"detect", "detect-sec", true, "detect: fault → fence (or controlled shutdown granted)", false, false, false, false},
	{"elect", "elect-sec", true, "elect: → new leader (or the ISR without the broker)", false, false, false, false},
	{"client", "client-sec", true, "client: → the producer learns the new leader", false, false, false, false},
	{"first_ack", "first-ack-sec", true, "first ack: → the first ack", false, false, false, false},
	{"after_detect", "after-detect-sec", true, "ack stall after detection (elect + client + first ack): free of the heartbeat's phase", false, false, false, false},
	{"from_heartbeat", "from-heartbeat-sec", true, "ack stall from the broker's last heartbeat (after detect + session timeout): the stall had the fault come just after a heartbeat", false, false, false, false},
	{"lost_acked", "lost-acked-records", false, "acknowledged records lost", false, false, false, false},
	{"total_stall", "total-stall-sec", true, "total stall: a fault of several steps' ack stalls over the stall bound, summed (the roll's whole stall)", true, false, false, false},
	{"longest_stall", "longest-stall-sec", true, "longest stall: a fault of several steps' longest ack stall", true, false, false, false},
	{"group_stall", "group-stall-sec", true, "group stall: the group reader's processing gap at the fault", false, true, false, false},
	{"commit_stall", "commit-stall-sec", true, "commit stall: the group reader's longest time from a commit's start to the next successful commit's end, at the fault", false, true, false, false},
	{"txn_commit_stall", "txn-commit-stall-sec", true, "transaction commit stall: the transactional producer's longest time with no committed transaction, at the fault", false, false, true, false},
	{"lso_stall", "lso-stall-sec", true, "LSO stall: the read_committed reader's receive gap at the fault, how long the last stable offset stood still", false, false, true, false},
	{"coordinator_load", "coordinator-load-sec", true, "coordinator load: the new group coordinator's load of the group's __consumer_offsets partition, scheduled to finished, when the fault hit the coordinator", false, true, false, false},
	{"beyond_bound", "beyond-bound-sec", true, "beyond bound: how far the stall's phases (and the coordinators' recoveries') ran past what their settings allow, summed; 0 within (docs/bounds.md)", false, false, false, true},
}

// MetricByName returns the metric with this name (ack_stall) or unit
// (ack-stall-sec).
func MetricByName(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name || m.Unit == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Roles of a partition, as the stall's.
const (
	RoleLeader   = string(results.RoleLed)      // the faulted broker led it
	RoleFollower = string(results.RoleFollowed) // the faulted broker only followed it
)
