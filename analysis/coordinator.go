package analysis

import (
	"fmt"
	"time"

	"github.com/kbf-project/kbf/results"
)

// GroupCoordinator is the probe's consumer group's coordinator as kbf found
// it just before the fault (results.Fault.GroupCoordinator), and whether
// the fault hit it.
type GroupCoordinator struct {
	Group string
	// NodeID is the coordinator's node id, -1 when none was found (Err
	// says why); Broker its service, when the cluster named one.
	NodeID int32
	Broker string
	Via    string // how it was found: FindCoordinator
	At     time.Time
	Err    string
	// Faulted is whether it was the faulted broker; Chosen whether the
	// broker was faulted for being it (--broker coordinator).
	Faulted bool
	Chosen  bool
}

// coordinatorOf is what the fault f says of its group's coordinator; nil
// for a trial with no group reader, or from a kbf that did not record it.
// The faulted broker is the fault's, or for an external fault the one the
// analysis named (ext).
func coordinatorOf(f *results.Fault, ext *ExternalBroker) *GroupCoordinator {
	if f == nil || f.GroupCoordinator == nil {
		return nil
	}
	c := f.GroupCoordinator
	faulted := f.NodeID
	if ext != nil {
		faulted = ext.NodeID
	}
	return &GroupCoordinator{Group: c.Key, NodeID: c.NodeID, Broker: c.Broker, Via: c.Via, At: c.At, Err: c.Err,
		Faulted: c.Found() && c.NodeID == faulted, Chosen: f.ChosenAs == results.ChosenGroupCoordinator}
}

// faultedNode is the node the fault f hit: its own, or for an external
// fault the one the analysis named (ext); -1 without a fault.
func faultedNode(f *results.Fault, ext *ExternalBroker) int32 {
	switch {
	case ext != nil:
		return ext.NodeID
	case f != nil:
		return f.NodeID
	}
	return -1
}

// String says, in one line, who coordinated the group and whether the
// fault hit it: "group g's coordinator, broker 2 (k2), was the faulted
// broker (FindCoordinator at 03:26:08.120)".
func (g *GroupCoordinator) String() string {
	how := fmt.Sprintf("%s at %s", g.Via, g.At.UTC().Format("15:04:05.000"))
	switch {
	case g.NodeID < 0:
		return fmt.Sprintf("group %s's coordinator was not found before the fault (%s: %s)", g.Group, how, g.Err)
	case g.Faulted && g.Chosen:
		return fmt.Sprintf("group %s's coordinator, broker %d%s, was the faulted broker, chosen as such (%s)", g.Group, g.NodeID, g.named(), how)
	case g.Faulted:
		return fmt.Sprintf("group %s's coordinator, broker %d%s, was the faulted broker (%s)", g.Group, g.NodeID, g.named(), how)
	}
	return fmt.Sprintf("group %s's coordinator was broker %d%s, not the faulted one (%s)", g.Group, g.NodeID, g.named(), how)
}

// named is " (k2)", or "" when the cluster named no service.
func (g *GroupCoordinator) named() string {
	if g.Broker == "" {
		return ""
	}
	return " (" + g.Broker + ")"
}
