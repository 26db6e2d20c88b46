package experiment

// The cluster under test, wherever it lives, is asked only what package
// cluster's interfaces say. What it can do is stated (cluster.Abilities)
// and checked by Check before anything starts; nothing is discovered
// half-way through a trial.

import (
	"errors"
	"slices"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// Check refuses, in one line wrapping cluster.ErrUnsupported, a fault the target
// cannot do: a broker that is not one of its brokers, a fault its shape
// does not allow (isolate-controller or isolate-replication with no
// dedicated controller, a
// controller fault with fewer than three dedicated controllers or no
// quorum to ask, a fault of several steps with fewer than three brokers),
// or one the target says it cannot inject (Abilities.Supports). It
// contacts nothing: kbf run and kbf bench call it before the cluster is
// brought up.
func Check(o *Options, t cluster.Shape) error {
	if o.probeOnly() {
		return nil // nothing is faulted
	}
	brokers := t.Brokers()
	// An external fault's broker is picked by whatever makes it; kbf
	// learns which from what it sees (external.go). A broker named by its
	// role is found at the fault (coordinator.go).
	byRole := BrokerByRole(o.Broker)
	if _, ok := brokers[o.Broker]; !ok && o.Kill != results.FaultExternal && !byRole {
		return cluster.Unsupportedf("broker %s: not a broker of the cluster (%s)", o.Broker, brokerList(brokers))
	}
	controllers := len(controllersOf(t))
	switch {
	case o.Kill == results.FaultIsolateController && controllers == 0:
		return cluster.Unsupportedf("fault %s: the cluster has no dedicated controller to cut the broker from", o.Kill)
	case o.Kill == results.FaultIsolateReplication && controllers == 0:
		return cluster.Unsupportedf("fault %s: the cluster has no dedicated controller, so a cut from the other brokers would cut the broker from the quorum too", o.Kill)
	case o.Kill == results.FaultIsolateReplication && len(brokers) < 2:
		return cluster.Unsupportedf("fault %s: needs at least 2 brokers, the cluster has %d", o.Kill, len(brokers))
	case o.Kill.Controller() && controllers < 3:
		return cluster.Unsupportedf("fault %s: needs a quorum of three dedicated controllers, the cluster has %d", o.Kill, controllers)
	case o.Kill.Controller() && t.Quorum() == nil:
		return cluster.Unsupportedf("fault %s: the target cannot say which controller is active", o.Kill)
	case o.Kill.MultiStep() && len(brokers) < 3:
		return cluster.Unsupportedf("fault %s: needs at least 3 brokers, the cluster has %d", o.Kill, len(brokers))
	}
	if byRole {
		return checkRole(o, t)
	}
	if err := t.Supports(o.Kill, o.Broker); err != nil {
		if !errors.Is(err, cluster.ErrUnsupported) {
			err = cluster.Unsupportedf("%v", err)
		}
		return err
	}
	if err := checkAllLost(o, t); err != nil {
		return err
	}
	if o.Kill == results.FaultExternal && t.Observer() == nil {
		return cluster.Unsupportedf("fault %s: the target cannot show the cluster's metadata", o.Kill)
	}
	return nil
}

// controllersOf are the nodes that are not brokers: what isolate-controller
// cuts the broker from, and the quorum a controller fault hits.
func controllersOf(t cluster.Nodes) []string {
	var cs []string
	brokers := t.Brokers()
	for _, svc := range t.Services() {
		if _, broker := brokers[svc]; !broker {
			cs = append(cs, svc)
		}
	}
	return cs
}

// otherBrokers are the brokers but broker, by service, sorted: what
// isolate-replication cuts it from.
func otherBrokers(t cluster.Nodes, broker string) []string {
	var bs []string
	for svc := range t.Brokers() {
		if svc != broker {
			bs = append(bs, svc)
		}
	}
	slices.Sort(bs)
	return bs
}
