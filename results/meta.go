package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// The files of one trial, as named inside its directory.
const (
	MetaFile    = "meta.json"   // Meta, JSON
	ProbeFile   = "probe.csv"   // Message rows
	LogFile     = "log.csv"     // LogRecord rows: what the logs held afterwards
	ClientLog   = "client.log"  // the probe's Kafka clients' log, see ClientLogFormat
	LoadFile    = "load.csv"    // LoadSecond rows: the real traffic beside the probe (load.go), with kbf run --load
	NodeLogsDir = "logs"        // logs/<node>/: ServerLog, ControllerLog, StateChangeLog
	ReportFile  = "report.txt"  // the text report as kbf run printed it
	ReportJSON  = "report.json" // the same in JSON
	PlotFile    = "plot.svg"    // the trial as a picture (kbf plot)
	ReportHTML  = "report.html" // the trial (or run, or benchmark) as one offline page
	SummaryFile = "summary.txt" // a run directory's summary across trials
	SummaryJSON = "summary.json"
)

// Meta describes one trial or probe run. It is written when the run starts
// and again when anything is learnt (the fault, the end), atomically. It
// holds only what the run observed: whatever can be derived from the other
// files (the broker's SIGTERM line, the configuration each node logged) is
// derived again by the analysis, so a newer kbf re-reads an old run better.
//
// Format versions: 1 also wrote fault.term_logged, the broker's SIGTERM
// line as kbf run parsed it; ReadMeta still reads it (Fault.LoggedSignal).
// 2 no longer writes it, nor cluster.config, which no version filled.
// A field added since, with nothing removed or changed in meaning, keeps
// the version: it is optional, an older file lacks it and an older kbf
// skips it (fault.chosen_as and fault.group_coordinator are such).
type Meta struct {
	FormatVersion int       `json:"format_version"`
	Kind          string    `json:"kind"` // "probe", "trial" or "incident" (KindProbe, …)
	KBFVersion    string    `json:"kbf_version"`
	Command       []string  `json:"command"`
	Trial         int       `json:"trial,omitempty"` // 1-based, within a run of --repeat trials
	Started       time.Time `json:"started"`
	Ended         time.Time `json:"ended,omitzero"`

	Cluster Cluster `json:"cluster"`
	Probe   Probe   `json:"probe"`
	Fault   *Fault  `json:"fault,omitempty"`
	// Steps are the steps of a fault of several steps (two-brokers,
	// rolling, …), in order; Fault is then its first.
	Steps []Step `json:"steps,omitempty"`
	// Baseline is the wait for a healthy cluster before the fault; Host
	// the machine's load over the trial (see trust.go).
	Baseline *Baseline `json:"baseline,omitempty"`
	Host     *Host     `json:"host,omitempty"`

	// Replicas is what the replica view sampled, when the trial had one.
	Replicas *ReplicaStats `json:"replicas,omitempty"`
	// Load is the real traffic beside the probe (LoadFile), when the
	// trial had one.
	Load *LoadSettings `json:"load,omitempty"`

	// Recovery says what became of the cluster after the fault.
	Recovery *Recovery `json:"recovery,omitempty"`
	// Failback is the broker's return measured with the probe running
	// (kbf run --failback); nil when the trial restored it after probing.
	Failback *Failback `json:"failback,omitempty"`
	// Notes are things the run wants a reader to know (a phase that failed).
	Notes []string `json:"notes,omitempty"`
}

// Cluster is what the run knew of the cluster.
type Cluster struct {
	Bootstrap    []string         `json:"bootstrap"`
	Image        string           `json:"image,omitempty"`
	KafkaVersion string           `json:"kafka_version,omitempty"`
	Brokers      map[string]int32 `json:"brokers,omitempty"` // container service name → node id
	// Nodes is every node's configuration in effect, by service, read back
	// from the cluster when the trial started (DescribeConfigs for the
	// brokers, the written server.properties for the controllers). The
	// analysis prefers what each node logged at its start, which also
	// dates it; this answers where a log says nothing.
	Nodes map[string]map[string]string `json:"nodes,omitempty"`
}

// Probe is the probe's configuration, and the client configuration in effect.
type Probe struct {
	Topic      string        `json:"topic"`
	Partitions []int32       `json:"partitions"`
	Interval   time.Duration `json:"interval_ns"`
	Acks       string        `json:"acks"` // "all" or "1"
	// StartOffsets are each partition's end offset before the first send:
	// where the read-back begins.
	StartOffsets map[int32]int64 `json:"start_offsets,omitempty"`
	// TopicID is the topic's ID (Kafka's topic UUID, as Kafka writes it)
	// when the probe started, and ReadBackTopicID when the partitions were
	// read back: a topic deleted and made again under the same name (a
	// cluster recreated during the trial) has another, and its read-back
	// is not of the records the probe sent. ReadBackTopicGone says the
	// topic was gone at the read-back. All three are absent from a trial
	// recorded before kbf kept them, or when the cluster did not say.
	TopicID           string `json:"topic_id,omitempty"`
	ReadBackTopicID   string `json:"read_back_topic_id,omitempty"`
	ReadBackTopicGone bool   `json:"read_back_topic_gone,omitempty"`
	// Leaders are each partition's leader when the probe started.
	Leaders map[int32]int32 `json:"leaders,omitempty"`
	// Replicas are each partition's replicas, preferred leader first.
	Replicas map[int32][]int32 `json:"replicas,omitempty"`
	// Client is the franz-go configuration in effect, by option name.
	Client map[string]string `json:"client"`
	// Security is how every client was secured (--command-config); nil
	// for PLAINTEXT without one.
	Security *Security `json:"security,omitempty"`
	// RunID marks this run's records, so a read-back skips others'.
	RunID string `json:"run_id"`
	// LongestSendGap is the longest time between two sends to one
	// partition: the probe's own stalls. Near Interval, the probe kept time.
	LongestSendGap time.Duration `json:"longest_send_gap_ns,omitempty"`
	// Ready is when every probed partition had acked once: before it the
	// probe was starting (loading metadata, its first batches), and its
	// self-check labels what it missed then as start-up. Zero when some
	// partition never acked, or from a kbf that did not record it.
	Ready time.Time `json:"ready,omitzero"`
	// Missed are, per partition, the send slots the probe could not keep.
	Missed map[int32]*MissedSends `json:"missed_sends,omitempty"`
	// Group is the group reader's settings (GroupFile, GroupEventsFile);
	// nil when the probe read without a group reader.
	Group *GroupSettings `json:"group,omitempty"`
	// Txn is the transactional producer's settings (TxnFile); nil for an
	// idempotent producer.
	Txn *TxnSettings `json:"transactions,omitempty"`
}

// Security is what may be recorded of the clients' security settings:
// never a password, a key or a store's path.
type Security struct {
	Protocol  string `json:"protocol"`
	Mechanism string `json:"mechanism,omitempty"`
	// Principal is the SASL user name.
	Principal string `json:"principal,omitempty"`
	// CASubjects are the trusted CAs' subjects; none with TLS means the
	// system's CAs.
	CASubjects []string `json:"ca_subjects,omitempty"`
	// ClientSubject is the client certificate's subject (mutual TLS).
	ClientSubject string `json:"client_subject,omitempty"`
	// HostnameCheck is whether brokers' certificates must name their host.
	HostnameCheck bool `json:"hostname_check,omitempty"`
}

// Fault is one injected fault and the times it was seen.
type Fault struct {
	Broker string    `json:"broker"` // service name, e.g. k1
	NodeID int32     `json:"node_id"`
	Kind   FaultKind `json:"kind"`
	// SignalSent is when kbf asked the engine to signal the container.
	SignalSent time.Time `json:"signal_sent"`
	// Finished is the container's finish time as the engine recorded it.
	Finished time.Time `json:"finished,omitzero"`
	// Paused is when the engine reported the container frozen, for a pause:
	// every process of it stops at some moment between SignalSent and this.
	Paused time.Time `json:"paused,omitzero"`
	// Cut is when a network fault's rules took effect (isolate,
	// isolate-controller, isolate-clients, packet-loss): packets drop from
	// then on.
	Cut time.Time `json:"cut,omitzero"`
	// Starved is when the engine had cut a cpu-starve's broker to CPUs.
	Starved time.Time `json:"starved,omitzero"`
	// CPUs is the sliver of a CPU a cpu-starve held the broker to (0.05).
	CPUs float64 `json:"cpus,omitempty"`
	// Loss is the share of packets a packet-loss dropped each way (0.3
	// for 30 %), from Cut, when its rules took effect.
	Loss float64 `json:"loss,omitempty"`
	// Filled is when a disk-full fault's filler met "No space left on
	// device": the broker's next write into the log directory fails.
	Filled time.Time `json:"filled,omitzero"`
	// Returned is when kbf undid a pause or a cut while the probe still
	// ran (kbf run --return-after, FaultKind.Undoable): the engine had
	// thawed the container or the rules were gone. The fault lasted from
	// At to Returned; zero when it was undone only at recovery.
	Returned time.Time `json:"returned,omitzero"`
	ExitCode int       `json:"exit_code"`
	// Disk is what a fault of the log directory's FUSE layer did
	// (disk-slow, disk-error, power-loss); nil for the others.
	Disk *DiskFault `json:"disk,omitempty"`
	// Escalated is true when a graceful stop outlived its grace period and
	// was ended with SIGKILL.
	Escalated bool `json:"escalated,omitempty"`
	// FirstStep is what a fault of several steps did first, the action of
	// the step this record is (Meta.Steps[0]): a rolling restart's first
	// broker is stopped gracefully, two-brokers' killed. A fault of one
	// step leaves it empty, its Kind saying it. A file written before kbf
	// recorded it gets it from its first step when read (DecodeMeta).
	FirstStep StepAction `json:"first_step,omitempty"`
	// Signs are, for an external fault, what kbf saw of it, earliest first:
	// the first of the cluster's own (a broker gone from the metadata or
	// fenced, a leader moved, an ISR shrunk) and the first of the probe's
	// (a partition stalled). SignalSent is then when kbf said it was ready.
	Signs []Sign `json:"signs,omitempty"`
	// Recovered is, for an incident kbf watch found, when every partition
	// had been steady for its settle time; zero when it ended otherwise
	// (its notes say how).
	Recovered time.Time `json:"recovered,omitzero"`
	// ChosenAs is the role the broker was faulted for when the command
	// named a role rather than a broker (--broker coordinator): the broker
	// is the one that held it at the moment of the fault, as
	// GroupCoordinator says. Empty: the broker was named.
	ChosenAs ChosenRole `json:"chosen_as,omitempty"`
	// GroupCoordinator is the probe's consumer group's coordinator as kbf
	// found it just before the fault, for a trial with a group reader,
	// whatever its broker: whether the fault hit the group's coordinator.
	GroupCoordinator *Coordinator `json:"group_coordinator,omitempty"`
	// TxnCoordinator is the coordinator of the probe's transactional id as
	// kbf found it just before the fault, for a transactional probe,
	// whatever its broker.
	TxnCoordinator *Coordinator `json:"txn_coordinator,omitempty"`

	// termLogged is format version 1's term_logged, read and never written.
	termLogged time.Time
}

// DiskFault is what a fault of the FUSE layer under the brokers' log
// directories did: SignalSent is when the layer switched.
type DiskFault struct {
	// Delay is disk-slow's wait before every write and fsync.
	Delay time.Duration `json:"delay,omitempty"`
	// Brokers are the services whose power a power-loss cut at once, the
	// faulted broker first.
	Brokers []string `json:"brokers,omitempty"`
	// LostFiles and LostBytes are what a power-loss dropped: the files
	// put back to their last fsync, and the bytes cut from their ends.
	LostFiles int   `json:"lost_files,omitempty"`
	LostBytes int64 `json:"lost_bytes,omitempty"`
}

// ChosenRole is a part a broker plays for some clients, which the fault
// may be aimed at instead of a broker by name.
type ChosenRole string

// ChosenGroupCoordinator is the coordinator of the probe's consumer group.
const ChosenGroupCoordinator ChosenRole = "group coordinator"

// ChosenTxnCoordinator is the coordinator of the probe's transactional id.
const ChosenTxnCoordinator ChosenRole = "transaction coordinator"

// CoordinatorKind is what a coordinator coordinates, as Kafka's
// FindCoordinator asks: a consumer group or a transactional id.
type CoordinatorKind string

// The coordinators' kinds.
const (
	CoordinatorGroup       CoordinatorKind = "group"
	CoordinatorTransaction CoordinatorKind = "transaction"
)

// Known reports whether k is a coordinator's kind kbf knows.
func (k CoordinatorKind) Known() bool { return k == CoordinatorGroup || k == CoordinatorTransaction }

// Coordinator is the broker that coordinated a group (or a transactional
// id) at one moment, as the cluster answered when asked.
type Coordinator struct {
	Kind CoordinatorKind `json:"kind"`
	Key  string          `json:"key"` // the group's id, or the transactional id
	// NodeID is the coordinator's node id; -1 when none was found (Err
	// says why).
	NodeID int32 `json:"node_id"`
	// Broker is the node's service name (a compose service, a pod); empty
	// when the cluster names no broker with that id.
	Broker string `json:"broker,omitempty"`
	// Via is how it was found: the request kbf sent (FoundByFindCoordinator).
	Via string `json:"via"`
	// At is when the answer came.
	At  time.Time `json:"at"`
	Err string    `json:"error,omitempty"`
}

// FoundByFindCoordinator is Coordinator.Via for an answer to Kafka's
// FindCoordinator request.
const FoundByFindCoordinator = "FindCoordinator"

// Found reports whether a coordinator was found.
func (c *Coordinator) Found() bool { return c != nil && c.NodeID >= 0 && c.Err == "" }

// LoggedSignal returns the broker's "Terminating process due to signal
// SIGTERM" line as a kbf of format version 1 parsed it into meta.json; newer
// files leave it to the analysis, which reads it from the broker's log.
func (f *Fault) LoggedSignal() (time.Time, bool) { return f.termLogged, !f.termLogged.IsZero() }

// Action is what the fault did first to its node's process: StepKill,
// StepStop or StepPause, from Kind for a fault of one step and from
// FirstStep for one of several; "" for a fault that signals no process (a
// network cut, a full disk) or whose first step is not recorded.
func (f *Fault) Action() StepAction {
	switch f.Kind {
	case FaultSIGKILL, FaultPowerLoss: // a power loss kills the process once the unsynced writes are gone
		return StepKill
	case FaultSIGTERM:
		return StepStop
	case FaultPause:
		return StepPause
	}
	if f.Kind.MultiStep() {
		return f.FirstStep
	}
	return ""
}

// Graceful reports whether the fault began with a graceful stop (SIGTERM),
// as a sigterm, a rolling restart and last-replica do: the analysis then
// dates it by the broker's own SIGTERM line and expects a controlled
// shutdown, not a fence once the broker's session timed out.
func (f *Fault) Graceful() bool { return f.Action() == StepStop }

// Signal spells what the fault did first as its signal, so a rolling
// restart's first stop reads as the SIGTERM it was; a fault that signals
// no process is spelt by its kind (FaultKind.Signal).
func (f *Fault) Signal() string {
	if f.Kind == FaultPowerLoss {
		return f.Kind.Signal() // a kill, but after the unsynced writes were lost
	}
	switch f.Action() {
	case StepKill:
		return "SIGKILL"
	case StepStop:
		return "SIGTERM"
	case StepPause:
		return "PAUSE"
	}
	return f.Kind.Signal()
}

// Sign is one thing seen of an external fault.
type Sign struct {
	At     time.Time `json:"at"`     // when it happened, as closely as kbf can date it
	Seen   time.Time `json:"seen"`   // when kbf saw it
	Source string    `json:"source"` // SignCluster or SignProbe
	NodeID int32     `json:"node_id"`
	What   string    `json:"what"`
}

// The sources of a Sign.
const (
	SignCluster = "cluster" // the brokers' metadata
	SignProbe   = "probe"   // the probe's acks and reads
)

// The Broker of an external fault that names no single broker (NodeID -1).
const (
	// BrokerUnknown: no sign of the cluster's named the broker, and kbf
	// does not guess; the analysis names it from what was measured where
	// the evidence does (the analysis).
	BrokerUnknown = "unknown"
	// BrokerCluster: the whole cluster — no broker answered while every
	// partition stalled (every node paused, the network gone).
	BrokerCluster = "cluster"
)

// At is the fault's start as far as the fault record tells it: for a
// SIGKILL the process's end, for a pause (of a broker or of the active
// controller) the moment the engine had frozen the container, for a cut,
// a full disk or a slow or failing one the moment it took effect, for a graceful stop the broker's
// own SIGTERM line where an old file recorded it; the signal's sending time
// where none of these is known. The analysis prefers the SIGTERM line it
// reads from the broker's log (timeline.Timeline.FaultAt).
func (f *Fault) At() time.Time {
	switch {
	case f.Kind == FaultExternal && len(f.Signs) > 0:
		return f.Signs[0].At
	case f.Graceful() && !f.termLogged.IsZero():
		return f.termLogged
	case f.Kind.Freezes() && !f.Paused.IsZero():
		return f.Paused
	case !f.Cut.IsZero():
		return f.Cut
	case !f.Starved.IsZero():
		return f.Starved
	case !f.Filled.IsZero():
		return f.Filled
	case f.Kind == FaultDiskSlow || f.Kind == FaultDiskError:
		return f.SignalSent // the layer switched: the next write waits, or fails
	case !f.Graceful() && !f.Finished.IsZero():
		return f.Finished
	}
	return f.SignalSent
}

// Recovery records the cluster's return to its starting shape.
type Recovery struct {
	Restarted time.Time `json:"restarted,omitzero"`
	// QuorumRejoined is when the controller a controller fault hit had
	// caught up with the quorum's leader again.
	QuorumRejoined time.Time `json:"quorum_rejoined,omitzero"`
	ISRFull        time.Time `json:"isr_full,omitzero"`
	LeadersBack    bool      `json:"leaders_back"`
	PreferredElec  time.Time `json:"preferred_election,omitzero"`
	Err            string    `json:"error,omitempty"`
}

// WriteMeta writes m to dir/meta.json atomically, its secrets hidden
// first, in m too (see Hidden).
func WriteMeta(dir string, m *Meta) error {
	m.FormatVersion = FormatVersion
	m.maskSecrets()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode metadata: %w", err)
	}
	return WriteFileAtomic(filepath.Join(dir, MetaFile), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// WriteFileAtomic writes path through write into a temporary file beside it
// and renames that into place, so a reader sees the old file or the new,
// never half of one, and a failed write leaves the old file as it was.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ErrNewerFormat is reported for files written by a newer kbf.
var ErrNewerFormat = errors.New("written by a newer kbf")

// ReadMeta reads and validates dir/meta.json (DecodeMeta).
func ReadMeta(dir string) (*Meta, error) {
	path := filepath.Join(dir, MetaFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return DecodeMeta(f, path)
}

// PartitionSet returns the probed partitions as a set, or nil when unknown.
func (m *Meta) PartitionSet() map[int32]bool {
	if len(m.Probe.Partitions) == 0 {
		return nil
	}
	s := make(map[int32]bool, len(m.Probe.Partitions))
	for _, p := range m.Probe.Partitions {
		s[p] = true
	}
	return s
}
