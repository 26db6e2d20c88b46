package timeline

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// None marks an integer field of an Event that the source did not give.
const None = -1

// Kind is what an Event records. The zero Kind is not a valid kind.
type Kind uint8

// The kinds of event, by where they are read. Each names the Kafka log line
// (or the fault record) it comes from; rules.go holds the patterns.
const (
	KindUnknown Kind = iota

	// From the fault record (meta.json), node "kbf" or the faulted broker.
	KindSignalSent   // kbf asked the engine to signal the broker's container
	KindProcessEnded // the container's process ended, as the engine recorded it
	KindFrozen       // the engine had frozen the container (a pause fault)
	KindFaultSign    // a sign kbf saw of an external fault, at the time it dates it (results.Sign)
	KindReturned     // kbf undid a pause or a cut while probing (results.Fault.Returned): the fault's end

	// From a broker's server.log.
	KindSignalReceived    // "Terminating process due to signal SIGTERM" (LoggingSignalHandler)
	KindShutdownBegin     // "Beginning controlled shutdown." (BrokerLifecycleManager)
	KindShutdownReleased  // "The controller has asked us to exit controlled shutdown." (BrokerLifecycleManager)
	KindBrokerStopped     // "Transition from SHUTTING_DOWN to SHUTDOWN" (BrokerServer)
	KindBrokerRunning     // "The broker has been unfenced. Transitioning from RECOVERY to RUNNING." (BrokerLifecycleManager)
	KindLogDirWriteFailed // "Error while appending records to T-P in dir D" (LogDirFailureChannel): a write into a log directory failed
	KindLogDirOffline     // "Stopping serving replicas in dir D ... because the log directory has failed." (ReplicaManager)
	KindLogDirsFailed     // "Shutdown broker because all log dirs in D have failed" (LogManager): Kafka halts
	KindFatalFault        // "Encountered fatal fault: Unexpected error in raft IO thread" (ProcessTerminatingFaultHandler): Kafka halts

	// From the controller's controller.log.
	KindFenced             // "Fencing broker N at epoch E because its session has timed out."
	KindFenceRequested     // "Unfenced broker N has requested and been granted fencing"
	KindControlledShutdown // "Unfenced broker N has requested and been granted a controlled shutdown."
	KindImmediateShutdown  // "(Un)fenced broker N has requested and been granted an immediate shutdown."
	KindShutdownGranted    // "The request from broker N to shut down has been granted since ..."
	KindRegistered         // "Replayed ... RegisterBrokerRecord ... broker N: RegisterBrokerRecord(...)"
	KindNewIncarnation     // "Registering a new incarnation of broker N. ... Generated K record(s) to clean up previous incarnations."
	KindUnfenceGranted     // "The request from broker N to unfence has been granted because ..."
	KindFenceChanges       // "handleBrokerFenced: changing N partition(s)"
	KindShutdownChanges    // "enterControlledShutdown[N]: changing M partition(s)"
	KindUnfenceChanges     // "handleBrokerUnfenced: changing N partition(s)"
	KindPartitionsChanged  // "<any other context>: changing N partition(s)"
	KindPartitionChange    // "UNCLEAN partition change for T-P with topic ID X: isr: [..] -> [..], leader: a -> b, ..."

	// From a controller's server.log: its state in the KRaft quorum that
	// elects the active controller (org.apache.kafka.raft.QuorumState,
	// "[RaftManager id=N] Completed transition to ..."), a voter's only.
	// Broker is the controller's node id, Epoch the quorum's epoch.
	KindQuorumProspective // "ProspectiveState(epoch=E, leaderId=...)": asks the voters for a pre-vote (KIP-996)
	KindQuorumCandidate   // "CandidateState(localId=N, ..., epoch=E, ...)": asks the voters to elect it at a new epoch
	KindQuorumLeader      // "Leader(localVoterNode=..., epoch=E, ...)": leads the quorum, the active controller
	KindQuorumFollower    // "FollowerState(fetchTimeoutMs=T, epoch=E, leader=L, ..., voters=[..], ...)": follows leader L

	// From a broker's state-change.log (leaders and followers) and
	// server.log (the Partition logger's ISR changes).
	KindLeaderStarted   // "[Broker id=2] Leader T-P with topic id X starts at leader epoch E from offset O ..."
	KindFollowerStarted // "[Broker id=3] Follower T-P starts at leader epoch E from offset O ... Current leader is L."
	KindLeaderUpdated   // "[Broker id=2] Skipped the become-leader state change for T-P ... Current high watermark H, ISR [..]"
	KindISRShrink       // "[Partition T-P broker=2] Shrinking ISR from 1,2,3 to 2,3. ..."
	KindISRExpand       // "[Partition T-P broker=2] Expanding ISR from 2,3 to 2,3,1" (Kafka before 3.x)
	KindISRUpdated      // "[Partition T-P broker=2] ISR updated to 2,3,1 and version updated to V"

	// From a broker's server.log: a coordinator taking over a partition of
	// its internal topic (__consumer_offsets, __transaction_state). Broker
	// is the coordinator's node id, Topic and Partition the partition it
	// loads, Epoch the epoch it loads at, Count what it loaded (records,
	// transactional ids) and Wait how long the load took, by its own count.
	// They are kept in Timeline.Internal with the internal topics' other
	// partition events.
	KindCoordinatorElected  // "[TransactionCoordinator id=2] Elected as the txn coordinator for partition P at epoch E"
	KindCoordinatorLoading  // "[GroupCoordinator id=1] Scheduling loading of metadata from T-P with epoch E", "[Transaction State Manager 2]: Loading transaction metadata from T-P at epoch E"
	KindCoordinatorLoadTook // "[Transaction State Manager 2]: Finished loading N transaction metadata from T-P in M milliseconds, ..."
	KindCoordinatorLoaded   // "[GroupCoordinator id=1] Finished loading of metadata from T-P with epoch E in Mms ... Loaded N records ...", "[Transaction State Manager 2]: Completed loading transaction metadata from T-P for coordinator epoch E"

	// From the probe's client.log.
	KindClientLeader   // "metadata refresh topic partition data changed topic=T partition=P new_leader=L ..."
	KindClientRedirect // "moving producing partition due to kip-951 not_leader_for_partition topic=T ..."

	// The client's own facts in client.log, kept in Timeline.Client: they
	// explain a stall but are too many to list in a timeline.
	KindClientMetadataSame      // "metadata refresh has identical topic partition data topic=T partition=P leader=L"
	KindClientMetadataTriggered // "metadata update triggered why=..."
	KindClientWrote             // "wrote Produce v13 broker=B ..." (Produce and Metadata only)
	KindClientRead              // "read Produce v13 broker=B ... time_to_read=D err=E"
	KindClientRetry             // "retrying request request=Metadata backoff=D ..."

	kindEnd
)

var kindNames = [...]string{
	KindUnknown:            "unknown",
	KindSignalSent:         "signal-sent",
	KindProcessEnded:       "process-ended",
	KindFrozen:             "frozen",
	KindFaultSign:          "fault-sign",
	KindReturned:           "returned",
	KindSignalReceived:     "signal-received",
	KindShutdownBegin:      "shutdown-begin",
	KindShutdownReleased:   "shutdown-released",
	KindBrokerStopped:      "broker-stopped",
	KindBrokerRunning:      "broker-running",
	KindLogDirWriteFailed:  "log-dir-write-failed",
	KindLogDirOffline:      "log-dir-offline",
	KindLogDirsFailed:      "log-dirs-failed",
	KindFatalFault:         "fatal-fault",
	KindFenced:             "fenced",
	KindFenceRequested:     "fence-requested",
	KindControlledShutdown: "controlled-shutdown",
	KindImmediateShutdown:  "immediate-shutdown",
	KindShutdownGranted:    "shutdown-granted",
	KindRegistered:         "registered",
	KindNewIncarnation:     "new-incarnation",
	KindUnfenceGranted:     "unfence-granted",
	KindFenceChanges:       "fence-changes",
	KindShutdownChanges:    "shutdown-changes",
	KindUnfenceChanges:     "unfence-changes",
	KindPartitionsChanged:  "partitions-changed",
	KindPartitionChange:    "partition-change",
	KindQuorumProspective:  "quorum-prospective",
	KindQuorumCandidate:    "quorum-candidate",
	KindQuorumLeader:       "quorum-leader",
	KindQuorumFollower:     "quorum-follower",
	KindLeaderStarted:      "leader-started",
	KindFollowerStarted:    "follower-started",
	KindLeaderUpdated:      "leader-updated",
	KindISRShrink:          "isr-shrink",
	KindISRExpand:          "isr-expand",
	KindISRUpdated:         "isr-updated",

	KindCoordinatorElected:  "coordinator-elected",
	KindCoordinatorLoading:  "coordinator-loading",
	KindCoordinatorLoadTook: "coordinator-load-took",
	KindCoordinatorLoaded:   "coordinator-loaded",
	KindClientLeader:        "client-leader",
	KindClientRedirect:      "client-redirect",

	KindClientMetadataSame:      "client-metadata-same",
	KindClientMetadataTriggered: "client-metadata-triggered",
	KindClientWrote:             "client-wrote",
	KindClientRead:              "client-read",
	KindClientRetry:             "client-retry",
}

// ClientFact reports whether k is one of the client's own facts, kept in
// Timeline.Client rather than Timeline.Events.
func (k Kind) ClientFact() bool { return k >= KindClientMetadataSame && k < kindEnd }

// Kinds returns every valid kind, in declaration order.
func Kinds() []Kind {
	ks := make([]Kind, 0, kindEnd-1)
	for k := KindUnknown + 1; k < kindEnd; k++ {
		ks = append(ks, k)
	}
	return ks
}

// Valid reports whether k is one of the declared kinds.
func (k Kind) Valid() bool { return k > KindUnknown && k < kindEnd }

func (k Kind) String() string {
	if k < kindEnd {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKind returns the kind String names.
func ParseKind(s string) (Kind, error) {
	for k := KindUnknown + 1; k < kindEnd; k++ {
		if kindNames[k] == s {
			return k, nil
		}
	}
	return KindUnknown, fmt.Errorf("unknown event kind %q", s)
}

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("invalid event kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Event is one thing that happened, as one source recorded it. Integer
// fields hold None (-1) when the source did not give them.
type Event struct {
	Time time.Time // UTC
	// Node is who recorded it: a container (c1, k1, ...), a probe client
	// (producer, consumer) or kbf itself.
	Node string
	Kind Kind
	// Broker is the node id the event concerns: the fenced broker, the
	// broker that became leader, the broker whose process ended, the
	// controller whose state in the quorum changed.
	Broker int32
	// Topic and Partition name the partition, for partition events.
	Topic     string
	Partition int32
	// Leader is the partition's leader after the event (the quorum's, for
	// a quorum event, where it is known); PrevLeader before it, where the
	// source says.
	Leader     int32
	PrevLeader int32
	// Epoch is the partition's leader epoch for partition events, the
	// broker epoch for broker events (fenced, registered) and the quorum's
	// epoch for quorum events.
	Epoch int64
	// Offset is the log offset a new leader's epoch starts at (or a
	// follower's log end offset when it starts following).
	Offset int64
	// Count is how many partitions the controller changed.
	Count int
	// ISR is the partition's in-sync replica set after the event, in the
	// order the source wrote it; nil when the source did not give it.
	ISR []int32
	// Request is the Kafka request a client fact concerns: Produce,
	// Metadata.
	Request string
	// Wait is how long a client fact says something took: a response's
	// time to read, a retry's backoff.
	Wait time.Duration
	// Err is the error a client fact reports; "" for none.
	Err string
	// Reason is why the client did it, as it said ("why=...").
	Reason string
	// Text is the message as logged: without the timestamp, level and
	// logger, only its first line, trimmed.
	Text string
	// Source is where the event was read: "k2/state-change.log:17",
	// "client.log:42" or "meta.json".
	Source string
}

func newEvent(t time.Time, node string, kind Kind) Event {
	return Event{Time: t.UTC(), Node: node, Kind: kind, Broker: None, Partition: None,
		Leader: None, PrevLeader: None, Epoch: None, Offset: None, Count: None}
}

// HasISR reports whether the event gives the partition's ISR.
func (e *Event) HasISR() bool { return e.ISR != nil }

// InISR reports whether the event's ISR holds broker id. It is false when
// the ISR is unknown.
func (e *Event) InISR(id int32) bool {
	for _, r := range e.ISR {
		if r == id {
			return true
		}
	}
	return false
}

// TopicPartition names the event's partition as Kafka does, "orders-0";
// "" for an event that concerns no partition.
func (e *Event) TopicPartition() string {
	if e.Topic == "" || e.Partition < 0 {
		return ""
	}
	return e.Topic + "-" + strconv.Itoa(int(e.Partition))
}

// Summary is the event as one line of a timeline: the message without its
// logging context, or for the kinds with numbers, those numbers.
func (e *Event) Summary() string {
	switch e.Kind {
	case KindClientLeader, KindClientRedirect:
		return fmt.Sprintf("%s[%d]: leader %s -> %s (epoch %s)", e.Topic, e.Partition,
			num(int64(e.PrevLeader)), num(int64(e.Leader)), num(e.Epoch))
	case KindLeaderStarted:
		s := fmt.Sprintf("Leader %s starts at leader epoch %s from offset %s",
			e.TopicPartition(), num(e.Epoch), num(e.Offset))
		if e.HasISR() {
			s += ", ISR " + isrString(e.ISR)
		}
		return s
	case KindFollowerStarted:
		s := fmt.Sprintf("Follower %s starts at leader epoch %s from offset %s",
			e.TopicPartition(), num(e.Epoch), num(e.Offset))
		if e.Leader >= 0 {
			s += fmt.Sprintf(", leader %d", e.Leader)
		}
		return s
	case KindLeaderUpdated:
		return fmt.Sprintf("Leader %s stays at leader epoch %s, ISR %s",
			e.TopicPartition(), num(e.Epoch), isrString(e.ISR))
	case KindISRShrink, KindISRExpand, KindISRUpdated:
		return e.TopicPartition() + ": " + firstSentence(stripContext(e.Text))
	case KindPartitionChange:
		return topicIDPattern.ReplaceAllString(stripContext(e.Text), "")
	case KindQuorumLeader:
		return "became leader of the quorum at epoch " + num(e.Epoch)
	case KindQuorumCandidate:
		return "became candidate at epoch " + num(e.Epoch) + ": asks the voters to elect it"
	case KindQuorumProspective:
		s := "became prospective at epoch " + num(e.Epoch) + ": asks the voters for a pre-vote"
		if e.Leader >= 0 {
			s += fmt.Sprintf(", its last leader %d", e.Leader)
		}
		return s
	case KindQuorumFollower:
		return fmt.Sprintf("became follower of quorum leader %s at epoch %s", num(int64(e.Leader)), num(e.Epoch))
	case KindRegistered:
		s := stripContext(e.Text)
		if i := strings.Index(s, ": "); i >= 0 {
			s = s[:i]
		}
		if e.Epoch >= 0 {
			s += fmt.Sprintf(", broker epoch %d", e.Epoch)
		}
		return s
	}
	return collapse(stripContext(e.Text))
}

func num(v int64) string {
	if v == None {
		return "?"
	}
	return strconv.FormatInt(v, 10)
}

func isrString(isr []int32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, r := range isr {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(r)))
	}
	b.WriteByte(']')
	return b.String()
}

// stripContext removes a leading logging context such as "[QuorumController
// id=100] " or "[Broker id=2] ".
func stripContext(s string) string {
	if strings.HasPrefix(s, "[") {
		if i := strings.Index(s, "] "); i > 0 {
			return s[i+2:]
		}
	}
	return s
}

// firstSentence cuts s at its first ". ", and collapses runs of spaces.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	return collapse(s)
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// eventJSON is an Event on the wire: fields a source did not give are left
// out rather than written as -1.
type eventJSON struct {
	Time       time.Time `json:"time"`
	Node       string    `json:"node"`
	Kind       Kind      `json:"kind"`
	Broker     *int32    `json:"broker,omitempty"`
	Topic      string    `json:"topic,omitempty"`
	Partition  *int32    `json:"partition,omitempty"`
	Leader     *int32    `json:"leader,omitempty"`
	PrevLeader *int32    `json:"prev_leader,omitempty"`
	Epoch      *int64    `json:"epoch,omitempty"`
	Offset     *int64    `json:"offset,omitempty"`
	Count      *int      `json:"count,omitempty"`
	ISR        []int32   `json:"isr,omitempty"`
	Request    string    `json:"request,omitempty"`
	Wait       float64   `json:"wait_seconds,omitempty"`
	Err        string    `json:"err,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Text       string    `json:"text"`
	Source     string    `json:"source"`
}

func some32(v int32) *int32 {
	if v == None {
		return nil
	}
	return &v
}

func some64(v int64) *int64 {
	if v == None {
		return nil
	}
	return &v
}

func someInt(v int) *int {
	if v == None {
		return nil
	}
	return &v
}

// MarshalJSON writes the event with absent fields left out.
func (e Event) MarshalJSON() ([]byte, error) {
	return json.Marshal(eventJSON{
		Time: e.Time.UTC(), Node: e.Node, Kind: e.Kind,
		Broker: some32(e.Broker), Topic: e.Topic, Partition: some32(e.Partition),
		Leader: some32(e.Leader), PrevLeader: some32(e.PrevLeader),
		Epoch: some64(e.Epoch), Offset: some64(e.Offset), Count: someInt(e.Count),
		ISR: e.ISR, Request: e.Request, Wait: e.Wait.Seconds(), Err: e.Err, Reason: e.Reason,
		Text: e.Text, Source: e.Source,
	})
}

// UnmarshalJSON reads an event MarshalJSON wrote; absent fields become None.
func (e *Event) UnmarshalJSON(b []byte) error {
	var j eventJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if !j.Kind.Valid() {
		return fmt.Errorf("event at %s: no kind", j.Time.Format(time.RFC3339Nano))
	}
	v := newEvent(j.Time, j.Node, j.Kind)
	v.Topic, v.ISR, v.Text, v.Source = j.Topic, j.ISR, j.Text, j.Source
	v.Request, v.Err, v.Reason = j.Request, j.Err, j.Reason
	v.Wait = time.Duration(math.Round(j.Wait * float64(time.Second)))
	for _, f := range []struct {
		dst *int32
		src *int32
	}{{&v.Broker, j.Broker}, {&v.Partition, j.Partition}, {&v.Leader, j.Leader}, {&v.PrevLeader, j.PrevLeader}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if j.Epoch != nil {
		v.Epoch = *j.Epoch
	}
	if j.Offset != nil {
		v.Offset = *j.Offset
	}
	if j.Count != nil {
		v.Count = *j.Count
	}
	*e = v
	return nil
}
