// Package cluster is the contract between kbf's trial protocol and the
// places a Kafka cluster lives: what a cluster offers a trial (its nodes,
// its addresses, its health, its coordinators, the facts a trial records, the faults it can
// make and undo, its nodes' logs) and what it says, up front, it can do.
// Package experiment asks a cluster only what these interfaces say;
// packages platform/docker, platform/k8s and platform/remote implement
// them, and platform.Open makes one from a spec.
//
// It imports nothing of kbf's but the trial directory's contract
// (results), whose fault kinds are the one vocabulary of faults from the
// command line to meta.json.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kbf-project/kbf/results"
)

// Nodes says who the cluster's nodes are.
type Nodes interface {
	// Brokers maps each broker's name (a compose service, a pod) to its
	// node id.
	Brokers() map[string]int32
	// Services names every node, brokers and controllers, in start order.
	Services() []string
}

// Addresses is where the clients reach the cluster.
type Addresses interface {
	Bootstrap() []string
	// Identify checks that the brokers at Bootstrap are this cluster, not
	// another that holds its addresses; a cluster known only by its
	// addresses is whoever answers there.
	Identify(ctx context.Context) error
}

// Health is what bringing the cluster up, the baseline and recovery ask of
// it.
type Health interface {
	// Up makes sure every node runs and every ISR is full.
	Up(ctx context.Context) (UpInfo, error)
	// Partitions describes the partitions of topic.
	Partitions(ctx context.Context, topic string) ([]Partition, error)
	// PartitionsSeenBy describes the partitions of topic as broker id
	// alone sees them: what the cluster decided, asked of a broker that
	// is not the faulted one, whose own view may be stale (cut from the
	// controller, a broker serves the metadata it had).
	PartitionsSeenBy(ctx context.Context, topic string, id int32) ([]Partition, error)
	// WaitISRFull waits until every partition of topics has its whole
	// replica set in sync.
	WaitISRFull(ctx context.Context, topics ...string) error
	// EnsurePreferred runs a preferred leader election where a partition
	// of topics (none: the cluster's own topics) is not led by its first
	// replica.
	EnsurePreferred(ctx context.Context, topics ...string) error
	// LeadersPreferred says whether every partition of topics is led by
	// its first replica.
	LeadersPreferred(ctx context.Context, topics ...string) (bool, error)
	// TopicNames are the topics recovery waits for.
	TopicNames() []string
}

// Facts are what a trial's metadata records of the cluster.
type Facts interface {
	Image() string
	KafkaVersion(ctx context.Context) (string, error)
	// NodeConfigs reads back every node's configuration in effect, by
	// service: what the trial's settings really were.
	NodeConfigs(ctx context.Context) (map[string]map[string]string, error)
	// CPUTimes is the CPU time each running node has used so far, by
	// service: what the host's load owes to the cluster rather than to
	// others.
	CPUTimes(ctx context.Context) (map[string]time.Duration, error)
}

// Coordinators tells who coordinates a consumer group or a transactional
// id: the broker a fault aimed at the coordinator hits, found at the
// moment of the fault, since it moves with the leader of the internal
// topic's partition the key hashes to.
type Coordinators interface {
	// Coordinator is the node id of the broker coordinating key (a group's
	// id, a transactional id) of kind now, as the brokers answer Kafka's
	// FindCoordinator (results.FoundByFindCoordinator).
	Coordinator(ctx context.Context, kind results.CoordinatorKind, key string) (int32, error)
}

// Abilities are what a cluster says, up front, it can do: nothing is
// found out half-way through a trial.
type Abilities interface {
	// Supports says whether the cluster can inject kind into broker: nil
	// when it can, else an error wrapping ErrUnsupported that says why not
	// (Unsupportedf). What no cluster can do (a fault its shape does not
	// allow) is refused by the protocol before it asks.
	Supports(kind results.FaultKind, broker string) error
	// Quorum is the controllers' quorum as the cluster sees it; nil when
	// it cannot tell, and the controller faults are then refused.
	Quorum() Quorum
	// Observer shows the cluster's metadata, which a fault made by
	// something else is dated from; nil when the cluster cannot, and the
	// external fault is then refused.
	Observer() Observer
}

// Faults are how a cluster injects a fault and undoes it.
type Faults interface {
	// Inject injects f and returns what it saw. Once a signal may have
	// been sent, the returned fault names its broker.
	Inject(ctx context.Context, f Fault) (results.Fault, error)
	// Restart starts (or unpauses, or heals) a faulted node again; a node
	// that runs is an error wrapping ErrAlreadyRunning.
	Restart(ctx context.Context, service string) error
}

// Logs is how a node's logs are read.
type Logs interface {
	// CollectLogs copies a node's logs written since since into dst, one
	// file per logger (results.ControllerLog and the like).
	CollectLogs(ctx context.Context, service string, since time.Time, dst string) error
}

// Cluster is a cluster a trial runs against. Close closes kbf's clients
// of it; the cluster itself runs on.
type Cluster interface {
	Nodes
	Addresses
	Health
	Coordinators
	Facts
	Abilities
	Faults
	Logs
	io.Closer
}

// Shape is what a check before anything starts asks of a cluster: its
// nodes and its abilities. It contacts nothing.
type Shape interface {
	Nodes
	Abilities
}

// Quorum is what a controller fault asks of the cluster: which controller
// leads the metadata quorum, by service and node id, and at which epoch.
type Quorum interface {
	ActiveController(ctx context.Context) (service string, id, epoch int32, err error)
	// Rejoined reports whether controller id has caught up with the
	// quorum's leader since since; the string says where it stands when
	// it has not.
	Rejoined(ctx context.Context, id int32, since time.Time) (bool, string, error)
}

// Observer shows the cluster as its metadata shows it now.
type Observer interface {
	View(ctx context.Context, topic string) (View, error)
}

// View is the cluster as its metadata shows it at one moment.
type View struct {
	At time.Time
	// Brokers are the registered brokers, by node id: true when fenced.
	Brokers    map[int32]bool
	Partitions []Partition
	// Silent are the brokers that did not answer the requests for this
	// view while another did (a paused broker, one cut off), by id.
	Silent []int32
}

// UpInfo is what Health.Up did.
type UpInfo struct {
	Reused bool // every node already ran as configured
	Took   time.Duration
	// Changes says what was done to the nodes ("recreated c1 k1"), so
	// that a trial that reshaped the cluster to its settings says so.
	Changes string
}

// Partition is one partition's replicas as the cluster describes them.
type Partition struct {
	Partition int32
	Leader    int32   // -1: none
	Replicas  []int32 // the preferred leader first
	ISR       []int32
	// TopicID is the partition's topic's ID as Kafka writes it; "" when
	// the cluster does not say. A topic deleted and made again under the
	// same name has another.
	TopicID string
}

// Fault is one fault to inject into one node.
type Fault struct {
	Broker string            // the node's service name, e.g. k1
	Kind   results.FaultKind // a single-node fault: a signal, a pause, a cut, a full disk
	// Grace is how long a SIGTERM may take before SIGKILL follows; zero
	// means DefaultGrace.
	Grace time.Duration
	// Controllers are the controller services an isolate-controller cut
	// separates the broker from.
	Controllers []string
	// Peers are the other broker services an isolate-replication cut
	// separates the broker from.
	Peers []string
	// HaltWait is how long a disk-full fault waits for the broker's
	// process to end once the disk is full; zero means DefaultHaltWait.
	HaltWait time.Duration
	// DiskDelay is disk-slow's wait before every write and fsync.
	DiskDelay time.Duration
	// AlsoLose are the other brokers a power-loss cuts the power of at
	// the same moment (every replica of the probed partitions).
	AlsoLose []string
	// CPUs is the sliver of a CPU a cpu-starve holds the broker to.
	CPUs float64
	// Loss is the share of packets a packet-loss drops each way, 0 to 1.
	Loss float64
}

// DefaultGrace is how long a SIGTERM'd broker may take to exit before it
// is killed: longer than any controlled shutdown, like compose.yaml's
// stop_grace_period.
const DefaultGrace = 120 * time.Second

// DefaultHaltWait is how long a disk-full fault waits, once the disk is
// full, for Kafka to give up on the directory and the process to end.
const DefaultHaltWait = 60 * time.Second

// Validate checks f without a cluster: a broker, a fault one node can
// take, no negative wait.
func (f Fault) Validate() error {
	switch {
	case f.Broker == "":
		return errors.New("a fault needs a broker")
	case !f.Kind.SingleNode():
		return fmt.Errorf("fault %q: want %s", f.Kind, results.SingleNodeFaults())
	case f.Grace < 0:
		return fmt.Errorf("grace %v: must not be negative", f.Grace)
	case f.HaltWait < 0:
		return fmt.Errorf("halt wait %v: must not be negative", f.HaltWait)
	case f.Kind == results.FaultDiskSlow && f.DiskDelay <= 0:
		return fmt.Errorf("disk-slow: delay %v: must be positive", f.DiskDelay)
	case f.Kind == results.FaultCPUStarve && (f.CPUs < results.MinCPUs || f.CPUs > results.MaxCPUs):
		return fmt.Errorf("cpu-starve: %g CPU: want %g to %g", f.CPUs, results.MinCPUs, results.MaxCPUs)
	case f.Kind == results.FaultPacketLoss && (f.Loss <= 0 || f.Loss >= 1):
		return fmt.Errorf("packet-loss: %g: want a share between 0 and 1", f.Loss)
	case len(f.AlsoLose) > 0 && f.Kind != results.FaultPowerLoss:
		return fmt.Errorf("fault %s: only a power-loss takes other brokers along", f.Kind)
	}
	return nil
}

// ErrAlreadyRunning marks a Restart of a node that runs.
var ErrAlreadyRunning = errors.New("container is already running")

// ErrNoTopic marks Health.Partitions of a topic the cluster does not
// have: never made, or deleted.
var ErrNoTopic = errors.New("no such topic")

// ErrUnsupported marks a trial the cluster cannot run: refused before
// anything starts.
var ErrUnsupported = errors.New("the target cannot run this fault")

type unsupported struct{ msg string }

func (e unsupported) Error() string        { return e.msg }
func (e unsupported) Is(target error) bool { return target == ErrUnsupported }

// Unsupportedf is an error wrapping ErrUnsupported with the message format
// says, for a cluster's Supports.
func Unsupportedf(format string, a ...any) error {
	return unsupported{fmt.Sprintf(format, a...)}
}
