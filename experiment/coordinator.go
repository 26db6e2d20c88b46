package experiment

// The broker a fault hits may be named by the part it plays rather than
// by its name: --broker coordinator is whichever broker coordinates the
// probe's consumer group at the moment of the fault. It is found then, not
// before the trial, since a coordinator is the leader of a partition of
// __consumer_offsets and moves with it; the trial records how it was
// found (results.Fault.ChosenAs, GroupCoordinator).

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// The roles Options.Broker may name instead of a broker.
const (
	// BrokerCoordinator is the coordinator of the probe's consumer group
	// (probe.Config.Group).
	BrokerCoordinator = "coordinator"
	// BrokerTxnCoordinator is the coordinator of the probe's transactional
	// id (probe.Config.TxnID), with --producer transactional.
	BrokerTxnCoordinator = "txn-coordinator"
)

// CoordinatorTimeout bounds the question of who coordinates the probe's
// group, asked just before the fault.
const CoordinatorTimeout = 10 * time.Second

// BrokerByRole reports whether broker names a role (BrokerCoordinator)
// rather than a broker: the cluster is then shaped for no broker in
// particular, and the broker is found at the fault.
func BrokerByRole(broker string) bool {
	return broker == BrokerCoordinator || broker == BrokerTxnCoordinator
}

// validateRole refuses a role the trial cannot fault: a transactional
// coordinator (no transactional producer), a group's with no group, and a
// fault that does not take a broker or needs the one it faults known
// before the trial.
func (o *Options) validateRole() error {
	if !BrokerByRole(o.Broker) {
		return nil
	}
	b := list(o.Broker)
	switch {
	case o.Broker == BrokerTxnCoordinator && !o.Probe.Transactional():
		return invalid("broker", b, "needs --producer transactional, the transactional id whose coordinator to fault")
	case o.Broker == BrokerCoordinator && !o.Probe.GroupReader():
		return invalid("broker", b, "needs --consumer group, the group whose coordinator to fault")
	case o.Kill.Controller():
		return invalid("broker", b, "fault %s hits the quorum's active controller, not a broker", o.Kill)
	case o.Kill == results.FaultExternal:
		return invalid("broker", b, "an external fault hits whatever something else breaks; kbf names it from what it sees")
	case o.Kill == results.FaultLastReplica:
		return invalid("broker", b, "fault %s stops partition 0's leader and followers, known before the trial, not a broker found at the fault", o.Kill)
	}
	return nil
}

// checkRole is Check for a broker found at the fault: any of the
// cluster's brokers may be it, so the target must be able to fault each.
func checkRole(o *Options, t cluster.Shape) error {
	for _, b := range sortedBrokers(t.Brokers()) {
		if err := t.Supports(o.Kill, b); err != nil {
			return cluster.Unsupportedf("--broker %s: any broker may be it at the fault: %v", o.Broker, err)
		}
	}
	return nil
}

// findCoordinator asks, just before the fault, who coordinates the
// probe's group and its transactional id (none: nothing is asked). A
// broker named by its role becomes the trial's broker; one that cannot be
// found fails the trial before anything is faulted. A trial that named its
// broker only records the answers, whatever they are.
func (t *trial) findCoordinator(ctx context.Context) error {
	var err error
	if t.coordinator, err = t.findOne(ctx, results.CoordinatorGroup, t.group, BrokerCoordinator, results.ChosenGroupCoordinator); err != nil {
		return err
	}
	t.txnCoordinator, err = t.findOne(ctx, results.CoordinatorTransaction, t.txnID, BrokerTxnCoordinator, results.ChosenTxnCoordinator)
	return err
}

// findOne asks who coordinates key, of kind (empty: nothing is asked,
// nil); when the trial's broker is role, it becomes the one found.
func (t *trial) findOne(ctx context.Context, kind results.CoordinatorKind, key, role string, chosen results.ChosenRole) (*results.Coordinator, error) {
	if key == "" {
		return nil, nil
	}
	what := "group " + key
	if kind == results.CoordinatorTransaction {
		what = "transactional id " + key
	}
	actx, cancel := context.WithTimeout(ctx, CoordinatorTimeout)
	id, err := t.r.Target.Coordinator(actx, kind, key)
	cancel()
	c := &results.Coordinator{Kind: kind, Key: key, NodeID: id,
		Via: results.FoundByFindCoordinator, At: time.Now().UTC()}
	if err != nil {
		c.NodeID, c.Err = -1, err.Error()
	} else {
		c.Broker = serviceOf(t.r.Target.Brokers(), id)
	}
	byRole := t.o.Broker == role
	if byRole {
		t.chosenAs = chosen
	}
	switch {
	case byRole && err != nil:
		return c, fmt.Errorf("--broker %s: %w", role, err)
	case byRole && c.Broker == "":
		return c, fmt.Errorf("--broker %s: %s's coordinator, node %d, is no broker of the cluster (%s)", role, what, id, brokerList(t.r.Target.Brokers()))
	case byRole:
		t.o.Broker = c.Broker // the trial's options are its own (Runner.Trial)
		t.r.say("%s's coordinator is broker %d (%s): it is the one faulted", what, id, c.Broker)
	case err != nil:
		t.r.say("%s's coordinator not found: %v", what, err)
	default:
		t.r.say("%s's coordinator is broker %d (%s)", what, id, c.Broker)
	}
	return c, nil
}

// noteChoice records in f how its broker was chosen and the group's
// coordinator found before it.
func (t *trial) noteChoice(f *results.Fault) {
	if f == nil {
		return
	}
	if t.coordinator != nil {
		c := *t.coordinator
		f.GroupCoordinator = &c
	}
	if t.txnCoordinator != nil {
		c := *t.txnCoordinator
		f.TxnCoordinator = &c
	}
	f.ChosenAs = t.chosenAs
}

// serviceOf is the service of broker id; "" when none has it.
func serviceOf(brokers map[string]int32, id int32) string {
	for svc, b := range brokers {
		if b == id {
			return svc
		}
	}
	return ""
}

// sortedBrokers are the brokers' services in node id order.
func sortedBrokers(brokers map[string]int32) []string {
	names := make([]string, 0, len(brokers))
	for b := range brokers {
		names = append(names, b)
	}
	slices.SortFunc(names, func(a, b string) int { return int(brokers[a]) - int(brokers[b]) })
	return names
}

// brokerList names the brokers in node id order, for a message.
func brokerList(brokers map[string]int32) string {
	return strings.Join(sortedBrokers(brokers), " ")
}
