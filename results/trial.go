package results

import (
	"strings"
)

// The names and kinds of a trial directory are this package's contract: the
// run writes them and the analysis reads them, so each is spelt once, here,
// and a producer or consumer that compared its own literal would drift from
// the other the day one of them changed.

// FaultKind is what was done to the broker, as Fault.Kind records it.
type FaultKind string

// The faults kbf injects.
const (
	// FaultSIGKILL kills the broker's process: no shutdown, no goodbye.
	FaultSIGKILL FaultKind = "sigkill"
	// FaultSIGTERM stops the broker gracefully: a controlled shutdown.
	FaultSIGTERM FaultKind = "sigterm"
	// FaultPause freezes every process of the broker's container, its
	// connections left open, as a long garbage collection would.
	FaultPause FaultKind = "pause"
	// FaultIsolate cuts the broker's every network link, clients' and
	// nodes' alike; its process runs on.
	FaultIsolate FaultKind = "isolate"
	// FaultIsolateController cuts it from the controller quorum only.
	FaultIsolateController FaultKind = "isolate-controller"
	// FaultIsolateClients cuts it from the clients only.
	FaultIsolateClients FaultKind = "isolate-clients"
	// FaultIsolateReplication cuts it from the other brokers only: the
	// controllers and the clients still reach it, so nothing fences it,
	// and acks=all waits until a leader drops the silent replica from its
	// ISR after replica.lag.time.max.ms.
	FaultIsolateReplication FaultKind = "isolate-replication"
	// FaultTwoBrokers SIGKILLs the broker and the next one, restarts the
	// second after a while and the first in recovery: under
	// min.insync.replicas=2 writes must be refused while reads go on.
	FaultTwoBrokers FaultKind = "two-brokers"
	// FaultRolling restarts every broker in turn, the faulted one first:
	// each stopped gracefully and started again, the next only once every
	// ISR is full again, as Strimzi's roller does.
	FaultRolling FaultKind = "rolling"
	// FaultControllerKill SIGKILLs the active controller of a quorum of
	// three; FaultControllerPause freezes it until recovery. The steps
	// record when a new leader of the quorum was seen.
	FaultControllerKill  FaultKind = "controller-kill"
	FaultControllerPause FaultKind = "controller-pause"
	// FaultLastReplica is the last replica standing on partition 0: one
	// follower stopped, then the other, leaving the leader alone in the
	// ISR, then the leader stopped (SIGKILL or SIGTERM), then the two
	// followers started, then the leader.
	FaultLastReplica FaultKind = "last-replica"
	// FaultDiskFull fills the filesystem of the broker's log directory (a
	// size-limited one, made for the trial) until a write fails with "No
	// space left on device"; its process runs on until Kafka itself gives
	// up on the directory.
	FaultDiskFull FaultKind = "disk-full"
	// FaultDiskSlow makes every write and fsync into the broker's log
	// directory wait a delay (Fault.Disk.Delay), through a FUSE layer
	// kbf serves the directory from; nothing is fenced, acks=all waits.
	FaultDiskSlow FaultKind = "disk-slow"
	// FaultDiskError makes the broker's log directory answer EIO to its
	// reads, writes and fsyncs, through the same layer: Kafka takes the
	// directory offline, and halts when it holds the metadata log.
	FaultDiskError FaultKind = "disk-error"
	// FaultPowerLoss cuts the power of the broker, or of every replica of
	// the probed partitions (Fault.Disk.Brokers): what their log
	// directories were written and not fsynced is lost, the brokers are
	// killed, and recovery starts them on what was synced.
	FaultPowerLoss FaultKind = "power-loss"
	// FaultExternal is a fault kbf does not make: something else (a
	// script, a chaos tool, a person) breaks the cluster once kbf says it
	// is ready, and kbf dates it from what it sees (Fault.Signs).
	FaultExternal FaultKind = "external"
	// FaultCPUStarve holds the broker's container to a sliver of a CPU
	// (Fault.CPUs) through the engine's CPU quota: its process runs on,
	// too slowly to heartbeat or answer in time, as a starved host or a
	// noisy neighbour would make it.
	FaultCPUStarve FaultKind = "cpu-starve"
	// FaultPacketLoss drops a share (Fault.Loss) of the packets in and
	// out of the broker's container, at random, on every link but the
	// loopback: a lossy network, not a cut.
	FaultPacketLoss FaultKind = "packet-loss"
)

// FaultKinds lists the known faults, in the order help texts name them.
func FaultKinds() []FaultKind {
	return []FaultKind{FaultSIGKILL, FaultSIGTERM, FaultPause, FaultIsolate, FaultIsolateController, FaultIsolateClients, FaultIsolateReplication, FaultTwoBrokers, FaultRolling, FaultControllerKill, FaultControllerPause, FaultLastReplica, FaultDiskFull, FaultDiskSlow, FaultDiskError, FaultPowerLoss, FaultCPUStarve, FaultPacketLoss, FaultExternal}
}

// Known reports whether k is one of FaultKinds.
func (k FaultKind) Known() bool {
	for _, f := range FaultKinds() {
		if k == f {
			return true
		}
	}
	return false
}

// MultiStep reports whether k is done in several steps, recorded in
// Meta.Steps.
func (k FaultKind) MultiStep() bool {
	switch k {
	case FaultTwoBrokers, FaultRolling, FaultControllerKill, FaultControllerPause, FaultLastReplica:
		return true
	}
	return false
}

// SingleNode reports whether k is a fault one node takes at once, which a
// cluster injects (cluster.Faults.Inject): a signal, a pause, a cut, a full
// disk. The others are made of these in steps, or by something else.
func (k FaultKind) SingleNode() bool {
	switch k {
	case FaultSIGKILL, FaultSIGTERM, FaultPause, FaultDiskFull, FaultDiskSlow, FaultDiskError, FaultPowerLoss:
		return true
	}
	return k.Network() || k.Hinders()
}

// SingleNodeFaults lists the single-node faults for a message: "sigkill,
// sigterm, …, isolate-clients or disk-full".
func SingleNodeFaults() string {
	var names []string
	for _, k := range FaultKinds() {
		if k.SingleNode() {
			names = append(names, string(k))
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// FaultFS reports whether k is made by the FUSE layer the broker's log
// directory is served through (chaos/faultfs): disk-slow, disk-error,
// power-loss.
func (k FaultKind) FaultFS() bool {
	return k == FaultDiskSlow || k == FaultDiskError || k == FaultPowerLoss
}

// Degrades reports whether k slows the broker for as long as it holds
// rather than stopping, freezing or cutting it (disk-slow): every ack
// after the fault may come late by the fault's own doing, a backlog
// included, which is what such a trial measures.
func (k FaultKind) Degrades() bool {
	return k == FaultDiskSlow
}

// Controller reports whether k faults the active controller rather than a
// broker.
func (k FaultKind) Controller() bool {
	return k == FaultControllerKill || k == FaultControllerPause
}

// Freezes reports whether k freezes a node's processes, its connections
// left open, rather than ending them: the fault starts when the engine has
// frozen the container (Fault.Paused), not when it was asked to.
func (k FaultKind) Freezes() bool {
	return k == FaultPause || k == FaultControllerPause
}

// Network reports whether k cuts network links rather than signalling the
// process: the broker runs through it, and its clients' connections hang
// rather than close.
func (k FaultKind) Network() bool {
	return k == FaultIsolate || k == FaultIsolateController || k == FaultIsolateClients || k == FaultIsolateReplication
}

// Hinders reports whether k slows or thins the broker's work without
// stopping, freezing or cutting it, a hiccup a healthy cluster may have:
// cpu-starve, packet-loss. Whether the controller fences the broker
// meanwhile is what such a trial answers.
func (k FaultKind) Hinders() bool {
	return k == FaultCPUStarve || k == FaultPacketLoss
}

// Undoable reports whether kbf can undo k while the probe still runs
// (kbf run --return-after): a freeze is thawed, a cut healed, a starved
// broker given its CPU back, a lossy link mended, and the node
// goes on as it was. A process that ended, or a full disk, is not undone
// but restarted, which is recovery's; two-brokers' second broker is
// started again by its own step.
func (k FaultKind) Undoable() bool {
	return k.Freezes() || k.Network() || k.Hinders()
}

// Signal spells the fault as its signal, "SIGKILL"; "PAUSE" for a pause,
// of a broker or of the active controller; "signal" for none.
func (k FaultKind) Signal() string {
	switch k {
	case "":
		return "signal"
	case FaultControllerKill:
		return "SIGKILL"
	case FaultControllerPause:
		return "PAUSE"
	}
	return strings.ToUpper(string(k))
}

// Role is what the faulted broker was to a partition when the fault began.
// Its values are the JSON report's, kept as they were.
type Role string

// The roles of the faulted broker.
const (
	RoleLed      Role = "leader"   // the broker led the partition
	RoleFollowed Role = "follower" // the broker was a follower in its ISR
	RoleNone     Role = "none"     // the broker held no replica of it
)

// Client names one of the probe's Kafka clients, as client.log and the
// timeline's events name it.
type Client string

// The probe's clients.
const (
	ClientProducer Client = "producer"
	ClientConsumer Client = "consumer"
	ClientAdmin    Client = "admin"
	// ClientGroup is the group reader (Probe.Group), when there is one.
	ClientGroup Client = "group"
)

// The log files of a Kafka node under NodeLogsDir/<node>/, as the image's
// log4j2 configuration names them. Rotated files carry a suffix:
// server.log.2026-11-30-03.
const (
	ServerLog      = "server.log"       // everything not routed elsewhere
	ControllerLog  = "controller.log"   // org.apache.kafka.controller
	StateChangeLog = "state-change.log" // state.change.logger
)

// NodeLogs lists the node log files in the order a timeline reads them.
func NodeLogs() []string { return []string{ServerLog, ControllerLog, StateChangeLog} }
