package experiment

// The cluster under test is a target: whatever place it lives in (local
// Docker, Kubernetes, a cluster reached over the network), the protocol
// asks it only what these interfaces say, phase by phase. What a target
// can do is stated (Abilities) and checked by Check
// before anything starts; nothing is discovered half-way through a trial.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/results"
)

// Nodes says who the target's nodes are.
type Nodes interface {
	// Brokers maps each broker's name (a compose service) to its node id.
	Brokers() map[string]int32
	// Services names every node, brokers and controllers, in start order.
	Services() []string
}

// Addresses is where the clients reach the target.
type Addresses interface {
	Bootstrap() []string
}

// Health is what bringing the target up, the baseline and recovery ask of
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
	// is not led by its first replica.
	EnsurePreferred(ctx context.Context) error
	// LeadersPreferred says whether every partition of topics is led by
	// its first replica.
	LeadersPreferred(ctx context.Context, topics ...string) (bool, error)
	// TopicNames are the topics recovery waits for.
	TopicNames() []string
}

// Facts are what a trial's metadata records of the target.
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

// Abilities are what a target says, up front, it can do.
type Abilities interface {
	// Supports says, before anything starts, whether the target can
	// inject kind into broker: nil when it can, else an error wrapping
	// ErrUnsupported that says why not (Unsupportedf). Check has already
	// refused what no target can do (the cluster's shape).
	Supports(kind results.FaultKind, broker string) error
	// Quorum is the controllers' quorum as the target sees it; nil when it
	// cannot tell, and the controller faults are then refused.
	Quorum() Quorum
}

// Faults are how a target injects a fault and undoes it.
type Faults interface {
	// Inject injects f and returns what it saw. Once a signal may have
	// been sent, the returned fault names its broker.
	Inject(ctx context.Context, f chaos.Fault) (results.Fault, error)
	// Restart starts (or unpauses) a faulted node again; a node that runs
	// is an error wrapping chaos.ErrAlreadyRunning.
	Restart(ctx context.Context, service string) error
}

// Logs is how a node's logs are read.
type Logs interface {
	// CollectLogs copies a node's logs written since since into dst, one
	// file per logger (results.ControllerLog and the like).
	CollectLogs(ctx context.Context, service string, since time.Time, dst string) error
}

// Target is the cluster a trial runs against.
type Target interface {
	Nodes
	Addresses
	Health
	Facts
	Abilities
	Faults
	Logs
}

// Shape is what Check asks of a target: its nodes and its abilities.
type Shape interface {
	Nodes
	Abilities
}

// Quorum is what a controller fault asks of the target: which controller
// leads the metadata quorum, by service and node id, and at which epoch.
type Quorum interface {
	ActiveController(ctx context.Context) (service string, id, epoch int32, err error)
	// Rejoined reports whether controller id has caught up with the
	// quorum's leader since since; the string says where it stands when
	// it has not.
	Rejoined(ctx context.Context, id int32, since time.Time) (bool, string, error)
}

// UpInfo is what Health.Up did.
type UpInfo struct {
	Reused bool // every node already ran as configured
	Took   time.Duration
	// Changes says what was done to the nodes ("recreated c1 k1"), so
	// that a trial that reshaped the cluster to its settings says so.
	Changes string
}

// Partition is one partition's replicas as the target describes them.
type Partition struct {
	Partition int32
	Leader    int32   // -1: none
	Replicas  []int32 // the preferred leader first
	ISR       []int32
}

// ErrUnsupported marks a trial the target cannot run: refused before
// anything starts.
var ErrUnsupported = errors.New("the target cannot run this fault")

type unsupported struct{ msg string }

func (e unsupported) Error() string        { return e.msg }
func (e unsupported) Is(target error) bool { return target == ErrUnsupported }

// Unsupportedf is an error wrapping ErrUnsupported with the message
// format says, for a target's Supports.
func Unsupportedf(format string, a ...any) error {
	return unsupported{fmt.Sprintf(format, a...)}
}

// Check refuses, in one line wrapping ErrUnsupported, a fault the target
// cannot do: a broker that is not one of its brokers, a fault its shape
// does not allow (isolate-controller with no dedicated controller, a
// controller fault with fewer than three dedicated controllers or no
// quorum to ask, a fault of several steps with fewer than three brokers),
// or one the target says it cannot inject (Abilities.Supports). It
// contacts nothing: kbf run and kbf bench call it before the cluster is
// brought up.
func Check(o *Options, t Shape) error {
	brokers := t.Brokers()
	// An external fault's broker is picked by whatever makes it; kbf
	// learns which from what it sees (external.go).
	if _, ok := brokers[o.Broker]; !ok && o.Kill != results.FaultExternal {
		names := make([]string, 0, len(brokers))
		for b := range brokers {
			names = append(names, b)
		}
		slices.SortFunc(names, func(a, b string) int { return int(brokers[a]) - int(brokers[b]) })
		return Unsupportedf("broker %s: not a broker of the cluster (%s)", o.Broker, strings.Join(names, " "))
	}
	controllers := len(controllersOf(t))
	switch {
	case o.Kill == chaos.IsolateController && controllers == 0:
		return Unsupportedf("fault %s: the cluster has no dedicated controller to cut the broker from", o.Kill)
	case o.Kill.Controller() && controllers < 3:
		return Unsupportedf("fault %s: needs a quorum of three dedicated controllers, the cluster has %d", o.Kill, controllers)
	case o.Kill.Controller() && t.Quorum() == nil:
		return Unsupportedf("fault %s: the target cannot say which controller is active", o.Kill)
	case o.Kill.MultiStep() && len(brokers) < 3:
		return Unsupportedf("fault %s: needs at least 3 brokers, the cluster has %d", o.Kill, len(brokers))
	}
	if err := t.Supports(o.Kill, o.Broker); err != nil {
		if !errors.Is(err, ErrUnsupported) {
			err = unsupported{err.Error()}
		}
		return err
	}
	if o.Kill == results.FaultExternal && !observes(t) {
		return Unsupportedf("fault %s: the target cannot show the cluster's metadata", o.Kill)
	}
	return nil
}

// observes says whether the target can show the cluster's view (Observer),
// which an external fault is dated from: asked here, before anything
// starts, not found out in the middle of a trial.
func observes(t Shape) bool {
	_, ok := t.(Observer)
	return ok
}

// controllersOf are the nodes that are not brokers: what isolate-controller
// cuts the broker from, and the quorum a controller fault hits.
func controllersOf(t Nodes) []string {
	var cs []string
	brokers := t.Brokers()
	for _, svc := range t.Services() {
		if _, broker := brokers[svc]; !broker {
			cs = append(cs, svc)
		}
	}
	return cs
}
