package results

import "time"

// Failback is what a trial run with --failback recorded of the broker's
// return while the probe still ran: the restart (or the heal, or the
// unpause), every ISR of the probed topic holding it again, the preferred
// leader election giving it back its leaderships, and the end of the
// probing that followed. The analysis dates the failback's stall and its
// latency from these and from the nodes' lines.
type Failback struct {
	// Restarted is when kbf asked for the broker back: its container
	// started, unpaused or its cut healed.
	Restarted time.Time `json:"restarted,omitzero"`
	// ISRFull is when every ISR of the probed topic held every replica
	// again: the broker had caught up.
	ISRFull time.Time `json:"isr_full,omitzero"`
	// Elected is when the preferred leader election kbf asked for
	// returned: the broker led its preferred partitions again.
	Elected time.Time `json:"elected,omitzero"`
	// After is how long the probe ran on after the election.
	After time.Duration `json:"after"`
	// Ended is when the probing after the election stopped.
	Ended time.Time `json:"ended,omitzero"`
	// Err says what of the failback failed; the steps after it were not
	// taken.
	Err string `json:"error,omitempty"`
}
