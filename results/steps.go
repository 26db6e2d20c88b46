package results

import "time"

// StepAction is what one step of a fault of several steps did to a node.
type StepAction string

// The steps kbf records. A fault of one step (sigkill, sigterm, pause, the
// network cuts) records none: its Fault says it all.
const (
	// StepKill: the node's process was SIGKILLed; At is the container's
	// finish as the engine recorded it.
	StepKill StepAction = "sigkill"
	// StepStop: the node was stopped gracefully (SIGTERM); At is the
	// container's finish. Escalated says it outlived its grace and was
	// SIGKILLed.
	StepStop StepAction = "sigterm"
	// StepPause: every process of the node's container was frozen; At is
	// when the engine reported it frozen.
	StepPause StepAction = "pause"
	// StepStart: the node's container was started again, or unpaused; At
	// is when the engine answered.
	StepStart StepAction = "start"
	// StepISRFull: every ISR of the probed topics held its whole replica
	// set again; Node is empty.
	StepISRFull StepAction = "isr-full"
	// StepQuorumLeader: the controller quorum answered with a new leader;
	// NodeID is its node id (Node its service when known), Note its epoch.
	// At is the first answer that named it, asked about every 100 ms.
	StepQuorumLeader StepAction = "quorum-leader"
)

// Step is one step of a fault of several steps, as meta.json's "steps"
// list records it, in the order they were done:
//
//	{"action": "sigkill", "node": "k2", "node_id": 2,
//	 "sent": "2026-12-01T12:40:01.5Z", "at": "2026-12-01T12:40:01.6Z", "exit_code": 137}
//
// Times are UTC. Sent is when kbf asked the engine; At is when the step
// took effect as the engine recorded it (see each StepAction).
type Step struct {
	Action    StepAction `json:"action"`
	Node      string     `json:"node,omitempty"` // service name; empty for StepISRFull
	NodeID    int32      `json:"node_id,omitempty"`
	Sent      time.Time  `json:"sent,omitzero"`
	At        time.Time  `json:"at"`
	ExitCode  int        `json:"exit_code,omitempty"`
	Escalated bool       `json:"escalated,omitempty"`
	// Note says why the step was taken when that is not obvious (which
	// controller was the quorum's leader).
	Note string `json:"note,omitempty"`
}
