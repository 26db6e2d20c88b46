package timeline

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A rule recognises one Kafka log message. Adding a wording variant (another
// Kafka version, a line a real cluster wrote differently) is one more entry
// in rules; the first rule that matches wins.
//
// The pattern is matched against the message alone: what follows "[date]
// LEVEL " with the trailing " (logger.name)" removed, including any logging
// context such as "[QuorumController id=100] ". Named groups fill the event:
//
//	broker, topic, partition, leader, prev, epoch, offset, count, isr
//
// Other groups are ignored. Where a value may or may not appear, or may move
// between versions, put it in more: each is searched anywhere in the message.
type rule struct {
	kind Kind
	// key is a literal every matching message contains, tested before the
	// pattern to keep the scan of a large server.log cheap.
	key  string
	re   *regexp.Regexp
	more []*regexp.Regexp
	// self: the event concerns the node that logged it, so Broker is the
	// node's id when the message does not name one.
	self bool
	// leads: the broker the event concerns leads the partition.
	leads bool
	// topic is the topic of a message that names only the partition.
	topic string
	// voter: the message is a node's state in the KRaft quorum that lists
	// the quorum's voters (group voters); it counts only when they include
	// the node that logged it (group broker). A broker, an observer of the
	// quorum, follows its leader too, but is not one of its controllers.
	voter bool
	// after: when the message names no broker, take the broker of the event
	// just before it in the same file, if that is one of these kinds and
	// less than a second older. The controller logs "handleBrokerFenced:
	// changing N partition(s)" right after the line that says which broker.
	after []Kind
}

// Logging contexts, as LogContext and Logging.logIdent write them.
const (
	anyContext    = `^(?:\[[^\]]*\] )?`
	brokerContext = `^(?:\[Broker id=(?P<broker>\d+)[^\]]*\] )?` // StateChangeLogger
	raftContext   = `^(?:\[RaftManager id=(?P<broker>\d+)\] )?`  // KafkaRaftManager's LogContext
)

var rules = []rule{
	// org.apache.kafka.common.utils.LoggingSignalHandler:
	//	log.info("Terminating process due to signal {}", signal)
	{kind: KindSignalReceived, key: "Terminating process due to signal",
		re: regexp.MustCompile(`^Terminating process due to signal (?P<signal>\S+)`), self: true},

	// BrokerLifecycleManager (kafka.server in 3.x, org.apache.kafka.server in 4.x),
	// logIdent "[BrokerLifecycleManager id=N] ".
	{kind: KindShutdownBegin, key: "Beginning controlled shutdown",
		re:   regexp.MustCompile(`^(?:\[BrokerLifecycleManager id=(?P<broker>\d+)\] )?Beginning controlled shutdown`),
		self: true},
	{kind: KindShutdownReleased, key: "asked us to exit controlled shutdown",
		re:   regexp.MustCompile(`^(?:\[BrokerLifecycleManager id=(?P<broker>\d+)\] )?The controller has asked us to exit controlled shutdown`),
		self: true},
	{kind: KindBrokerRunning, key: "The broker has been unfenced",
		re:   regexp.MustCompile(`^(?:\[BrokerLifecycleManager id=(?P<broker>\d+)\] )?The broker has been unfenced\.`),
		self: true},
	// kafka.server.BrokerServer: info(s"Transition from $from to $to").
	{kind: KindBrokerStopped, key: "Transition from SHUTTING_DOWN to SHUTDOWN",
		re:   regexp.MustCompile(`^(?:\[BrokerServer id=(?P<broker>\d+)\] )?Transition from SHUTTING_DOWN to SHUTDOWN\b`),
		self: true},

	// A log directory that fails, as a full disk makes it: the storage's
	// LogDirFailureChannel logs the first failed write ("Error while
	// appending records to orders-0 in dir /var/lib/kafka/data", then the
	// IOException), ReplicaManager takes the directory's replicas offline,
	// and LogManager halts the broker when no directory is left (the
	// metadata log's directory failing halts it too).
	{kind: KindLogDirWriteFailed, key: "Error while ",
		re:   regexp.MustCompile(`^Error while .+ in dir (?P<dir>\S+)$`),
		self: true},
	{kind: KindLogDirOffline, key: "Stopping serving replicas in dir",
		re:   regexp.MustCompile(`^(?:\[ReplicaManager broker=(?P<broker>\d+)\] )?Stopping serving replicas in dir (?P<dir>\S+)`),
		self: true},
	{kind: KindLogDirsFailed, key: "Shutdown broker because",
		re:   regexp.MustCompile(`^Shutdown broker because (?:all log dirs in \S+ have failed|the metadata log dir \S+ has failed|none of the specified log dirs)`),
		self: true},
	// A failed write into the metadata log (a disk that answers EIO: its
	// KRaft client appends to the broker's copy every half second or so)
	// ends the process through the fault handler, before LogManager's own
	// halt: org.apache.kafka.server.fault.ProcessTerminatingFaultHandler,
	// "Encountered fatal fault: Unexpected error in raft IO thread".
	{kind: KindFatalFault, key: "Encountered fatal fault: ",
		re:   regexp.MustCompile(`^Encountered fatal fault: .+$`),
		self: true},

	// org.apache.kafka.controller.ReplicationControlManager.maybeFenceOneStaleBroker:
	//	4.x: "Fencing broker {} at epoch {} because its session has timed out."
	//	3.x: "Fencing broker {} because its session has timed out."
	{kind: KindFenced, key: "because its session has timed out",
		re: regexp.MustCompile(anyContext + `Fencing broker (?P<broker>\d+)(?: at epoch (?P<epoch>\d+))? because its session has timed out`)},

	// org.apache.kafka.controller.BrokerHeartbeatManager.calculateNextBrokerState.
	{kind: KindFenceRequested, key: "has requested and been granted fencing",
		re: regexp.MustCompile(anyContext + `Unfenced broker (?P<broker>\d+) has requested and been granted fencing`)},
	{kind: KindControlledShutdown, key: "has requested and been granted a controlled shutdown",
		re: regexp.MustCompile(anyContext + `Unfenced broker (?P<broker>\d+) has requested and been granted a controlled shutdown`)},
	{kind: KindImmediateShutdown, key: "has requested and been granted an immediate",
		re: regexp.MustCompile(anyContext + `(?:Unfenced|Fenced) broker (?P<broker>\d+) has requested and been granted an immediate\s+shutdown`)},
	{kind: KindShutdownGranted, key: "to shut down has been granted",
		re: regexp.MustCompile(anyContext + `The request from broker (?P<broker>\d+) to shut down has been granted`)},
	// "... because it has caught up with the offset of it's register broker
	// record {}." (the apostrophe is Kafka's; accept "its" too).
	{kind: KindUnfenceGranted, key: "to unfence has been granted",
		re: regexp.MustCompile(anyContext + `The request from broker (?P<broker>\d+) to unfence has been granted`)},

	// ClusterControlManager.registerBroker, for a broker restarted under the
	// same id: the controller refuses it while the previous incarnation's
	// session is valid, and takes it once that session has expired; when
	// the periodic check had not fenced the old one yet, the registration
	// itself removes it (K > 0 records: handleBrokerUncleanShutdown).
	{kind: KindNewIncarnation, key: "Registering a new incarnation of broker",
		re: regexp.MustCompile(anyContext + `Registering a new incarnation of broker (?P<broker>\d+)\. .*?Generated (?P<count>\d+) record\(s\) to clean up`)},

	// org.apache.kafka.controller.ClusterControlManager.replay(RegisterBrokerRecord).
	{kind: KindRegistered, key: "RegisterBrokerRecord",
		re:   regexp.MustCompile(anyContext + `Replayed (?:initial )?RegisterBrokerRecord (?:for|modifying the registration for|establishing a new incarnation of) broker (?P<broker>\d+):`),
		more: []*regexp.Regexp{regexp.MustCompile(`\bbrokerEpoch=(?P<epoch>\d+)`)}},

	// ReplicationControlManager.generateLeaderAndIsrUpdates, at INFO:
	//	log.info("{}: changing {} partition(s)", context, n)
	// with context handleBrokerFenced, enterControlledShutdown[N],
	// handleBrokerUnfenced, handleBrokerUnregistered, handleBrokerShutdown,
	// handleBrokerUncleanShutdown, handleDirectoriesOffline[N:dir].
	{kind: KindFenceChanges, key: "handleBrokerFenced: changing",
		re:    regexp.MustCompile(anyContext + `handleBrokerFenced: changing (?P<count>\d+) partition\(s\)`),
		after: []Kind{KindFenced, KindFenceRequested, KindImmediateShutdown, KindShutdownGranted}},
	{kind: KindShutdownChanges, key: "enterControlledShutdown[",
		re: regexp.MustCompile(anyContext + `enterControlledShutdown\[(?P<broker>\d+)\]: changing (?P<count>\d+) partition\(s\)`)},
	{kind: KindUnfenceChanges, key: "handleBrokerUnfenced: changing",
		re:    regexp.MustCompile(anyContext + `handleBrokerUnfenced: changing (?P<count>\d+) partition\(s\)`),
		after: []Kind{KindUnfenceGranted}},
	{kind: KindPartitionsChanged, key: ": changing ",
		re: regexp.MustCompile(anyContext + `(?P<context>\w+(?:\[(?P<broker>\d+)(?::[^\]]*)?\])?): changing (?P<count>\d+) partition\(s\)`)},

	// org.apache.kafka.metadata.PartitionRegistration.maybeLogPartitionChange:
	// INFO "UNCLEAN partition change for {}: {}", DEBUG "partition change for
	// {}: {}", the description "T-P with topic ID X" and the diff
	// "isr: [1, 2, 3] -> [2, 3], leader: 1 -> 2, leaderEpoch: 0 -> 1, ...".
	{kind: KindPartitionChange, key: "partition change for ",
		re: regexp.MustCompile(anyContext + `(?:UNCLEAN )?partition change for (?P<topic>\S+)-(?P<partition>\d+) with topic ID \S+: `),
		more: []*regexp.Regexp{
			regexp.MustCompile(`\bisr: \[[^\]]*\] -> \[(?P<isr>[^\]]*)\]`),
			regexp.MustCompile(`\bleader: (?P<prev>-?\d+) -> (?P<leader>-?\d+)`),
			regexp.MustCompile(`\bleaderEpoch: -?\d+ -> (?P<epoch>-?\d+)`),
		}},

	// org.apache.kafka.raft.QuorumState, to server.log, after each change
	// of the node's state in the KRaft quorum:
	//	log.info("Completed transition to {} from {}", newState, from)
	// newState's toString (4.3):
	//	"Leader(localVoterNode=VoterNode(voterKey=ReplicaKey(id=N, ...), ...), epoch=E, epochStartOffset=O, ...)"
	//	  (3.x: "Leader(localReplicaKey=ReplicaKey(id=N, ...), epoch=E, ...)")
	//	"CandidateState(localId=N, localDirectoryId=D, epoch=E, epochElection=..., ...)"
	//	"ProspectiveState(epoch=E, leaderId=OptionalInt[L] or OptionalInt.empty, votedKey=..., ...)" (4.1+, KIP-996)
	//	"FollowerState(fetchTimeoutMs=T, epoch=E, leader=L, leaderEndpoints=..., votedKey=..., voters=[100, 101, 102], ...)"
	// The lazy ".*?" stops at the new state's own fields, before " from "
	// and the old state's. "Attempting durable transition to" comes before
	// the change is made, and is not it. Only a voter is ever leader,
	// candidate or prospective.
	{kind: KindQuorumLeader, key: "Completed transition to Leader(",
		re:   regexp.MustCompile(raftContext + `Completed transition to Leader\(.*?\bepoch=(?P<epoch>\d+)`),
		self: true, leads: true},
	{kind: KindQuorumCandidate, key: "Completed transition to CandidateState(",
		re:   regexp.MustCompile(raftContext + `Completed transition to CandidateState\(.*?\bepoch=(?P<epoch>\d+)`),
		self: true},
	{kind: KindQuorumProspective, key: "Completed transition to ProspectiveState(",
		re:   regexp.MustCompile(raftContext + `Completed transition to ProspectiveState\(epoch=(?P<epoch>\d+)(?:, leaderId=OptionalInt\[(?P<leader>\d+)\])?`),
		self: true},
	{kind: KindQuorumFollower, key: "Completed transition to FollowerState(",
		re:    regexp.MustCompile(`^\[RaftManager id=(?P<broker>\d+)\] Completed transition to FollowerState\(.*?\bepoch=(?P<epoch>\d+), leader=(?P<leader>\d+).*?\bvoters=\[(?P<voters>[\d, ]*)\]`),
		voter: true},

	// kafka.cluster.Partition.makeLeader, to state.change.logger:
	//	4.x: "Leader $tp with topic id $topicId starts at leader epoch E from offset O
	//	      with partition epoch PE, high watermark H, ISR [..], adding replicas [..]
	//	      and removing replicas [..] (under-min-isr)?. Previous leader $opt and
	//	      previous leader epoch was PLE."
	//	3.x: "Leader $tp starts at leader epoch E from offset O with high watermark H
	//	      ISR [..] addingReplicas [..] removingReplicas [..]. Previous leader epoch was PLE."
	{kind: KindLeaderStarted, key: "starts at leader epoch",
		re: regexp.MustCompile(brokerContext + `Leader (?P<topic>\S+)-(?P<partition>\d+) (?:with topic id \S+ )?starts at leader epoch (?P<epoch>\d+) from offset (?P<offset>\d+)`),
		more: []*regexp.Regexp{
			regexp.MustCompile(`\bISR \[(?P<isr>[\d,\s]*)\]`),
			regexp.MustCompile(`\bPrevious leader (?:Some\()?(?P<prev>\d+)`),
		},
		self: true, leads: true},
	// Partition.makeFollower:
	//	"Follower $tp starts at leader epoch E from offset O with partition epoch PE
	//	 and high watermark H. Current leader is L. Previous leader $opt and ..."
	{kind: KindFollowerStarted, key: "starts at leader epoch",
		re:   regexp.MustCompile(brokerContext + `Follower (?P<topic>\S+)-(?P<partition>\d+) (?:with topic id \S+ )?starts at leader epoch (?P<epoch>\d+) from offset (?P<offset>\d+)`),
		more: []*regexp.Regexp{regexp.MustCompile(`\bCurrent leader is (?P<leader>-?\d+)`)},
		self: true},
	// Partition.makeLeader when the leader epoch did not change (an ISR
	// change reaching the leader through the metadata log):
	//	"Skipped the become-leader state change for $tp with topic id $topicId and
	//	 partition state $state since it is already the leader with leader epoch E.
	//	 Current high watermark H, ISR [..], adding replicas [..] and removing replicas [..]."
	{kind: KindLeaderUpdated, key: "Skipped the become-leader state change",
		re: regexp.MustCompile(brokerContext + `Skipped the become-leader state change for (?P<topic>\S+)-(?P<partition>\d+) .*?since it is already the leader with leader epoch (?P<epoch>\d+)`),
		more: []*regexp.Regexp{
			regexp.MustCompile(`Current high watermark \d+, ISR \[(?P<isr>[\d,\s]*)\]`),
		},
		self: true, leads: true},

	// kafka.cluster.Partition, logIdent "[Partition $tp broker=$id] ", to server.log:
	//	maybeShrinkIsr: "Shrinking ISR from 1,2,3 to 2,3. Leader: (highWatermark: H,
	//	  endOffset: E). Out of sync replicas: (brokerId: 1, endOffset: ..., lastCaughtUpTimeMs: ...)."
	//	handleAlterPartitionUpdate: "ISR updated to 2,3,1 (under-min-isr)? and version updated to V"
	//	Kafka 2.x: "Expanding ISR from 2,3 to 2,3,1"
	{kind: KindISRShrink, key: "Shrinking ISR from",
		re:   regexp.MustCompile(`^\[Partition (?P<topic>\S+)-(?P<partition>\d+) broker=(?P<broker>\d+)\] Shrinking ISR from (?P<from>[\d,\s]*) to (?P<isr>[\d,]*)`),
		self: true, leads: true},
	{kind: KindISRExpand, key: "Expanding ISR from",
		re:   regexp.MustCompile(`^\[Partition (?P<topic>\S+)-(?P<partition>\d+) broker=(?P<broker>\d+)\] Expanding ISR from (?P<from>[\d,\s]*) to (?P<isr>[\d,]*)`),
		self: true, leads: true},
	{kind: KindISRUpdated, key: "ISR updated to",
		re:   regexp.MustCompile(`^\[Partition (?P<topic>\S+)-(?P<partition>\d+) broker=(?P<broker>\d+)\] ISR updated to (?P<isr>[\d,]*)`),
		self: true, leads: true},

	// The group coordinator (Kafka 4.x CoordinatorRuntime, logIdent
	// "[GroupCoordinator id=N] ") loading a __consumer_offsets partition:
	//	"Scheduling loading of metadata from T-P with epoch E"
	//	"Finished loading of metadata from T-P with epoch E in Mms where Sms was spent in
	//	 the scheduler. Loaded N records which total to B bytes."
	{kind: KindCoordinatorLoading, key: "Scheduling loading of metadata from",
		re:   regexp.MustCompile(`^\[GroupCoordinator id=(?P<broker>\d+)\] Scheduling loading of metadata from (?P<topic>\S+)-(?P<partition>\d+) with epoch (?P<epoch>\d+)`),
		self: true},
	{kind: KindCoordinatorLoaded, key: "Finished loading of metadata from",
		re:   regexp.MustCompile(`^\[GroupCoordinator id=(?P<broker>\d+)\] Finished loading of metadata from (?P<topic>\S+)-(?P<partition>\d+) with epoch (?P<epoch>\d+) in (?P<took_ms>\d+)ms.*?Loaded (?P<count>\d+) records`),
		self: true},
	// The transaction coordinator (TransactionCoordinator and
	// TransactionStateManager, logIdent "[Transaction State Manager N]: ")
	// taking over a __transaction_state partition:
	//	"Elected as the txn coordinator for partition P at epoch E"
	//	"Loading transaction metadata from T-P at epoch E"
	//	"Finished loading N transaction metadata from T-P in M milliseconds, of which S milliseconds was spent in the scheduler."
	//	"Completed loading transaction metadata from T-P for coordinator epoch E"
	{kind: KindCoordinatorElected, key: "Elected as the txn coordinator for partition",
		re:   regexp.MustCompile(`^\[TransactionCoordinator id=(?P<broker>\d+)\] Elected as the txn coordinator for partition (?P<partition>\d+) at epoch (?P<epoch>\d+)`),
		self: true, topic: "__transaction_state"},
	{kind: KindCoordinatorLoading, key: "Loading transaction metadata from",
		re:   regexp.MustCompile(`^\[Transaction State Manager (?P<broker>\d+)\]: Loading transaction metadata from (?P<topic>\S+)-(?P<partition>\d+) at epoch (?P<epoch>\d+)`),
		self: true},
	{kind: KindCoordinatorLoadTook, key: "transaction metadata from",
		re:   regexp.MustCompile(`^\[Transaction State Manager (?P<broker>\d+)\]: Finished loading (?P<count>\d+) transaction metadata from (?P<topic>\S+)-(?P<partition>\d+) in (?P<took_ms>\d+) milliseconds`),
		self: true},
	{kind: KindCoordinatorLoaded, key: "Completed loading transaction metadata from",
		re:   regexp.MustCompile(`^\[Transaction State Manager (?P<broker>\d+)\]: Completed loading transaction metadata from (?P<topic>\S+)-(?P<partition>\d+) for coordinator epoch (?P<epoch>\d+)`),
		self: true},
}

// internalTopics are Kafka's topics of the coordinators' state: their
// partition events are kept in Timeline.Internal, apart from the probe's.
var internalTopics = map[string]bool{"__consumer_offsets": true, "__transaction_state": true}

// A clientRule recognises one franz-go log message in client.log by its
// exact text, and names the key=value pairs that fill the event, by the same
// field names the Kafka rules' groups use (and request, wait, err, reason
// for the client's own facts).
type clientRule struct {
	kind Kind
	msg  string
	// request: the message is msg, a request's name and its version,
	// "wrote Produce v13"; the name fills Request. requests, when set,
	// are the only names kept.
	request  bool
	requests []string
	keys     map[string]string // franz-go key → event field
	need     []string          // keys a line must have to count
}

var leaderKeys = map[string]string{"topic": "topic", "partition": "partition",
	"new_leader": "leader", "new_leader_epoch": "epoch", "old_leader": "prev"}

var clientRules = []clientRule{
	// franz-go pkg/kgo/metadata.go, mergeTopicPartitions:
	//	cl.cfg.logger.Log(LogLevelDebug, "metadata refresh topic partition data changed",
	//	    "topic", topic, "partition", part, "new_leader", newTP.leader,
	//	    "new_leader_epoch", newTP.leaderEpoch, "old_leader", oldTP.leader,
	//	    "old_leader_epoch", oldTP.leaderEpoch)
	{kind: KindClientLeader, msg: "metadata refresh topic partition data changed",
		keys: leaderKeys, need: []string{"topic", "partition", "new_leader"}},
	// franz-go pkg/kgo/topics_and_partitions.go: a broker's
	// NOT_LEADER_OR_FOLLOWER answer that names the new leader (KIP-951)
	// moves the partition before any metadata refresh.
	//	cl.cfg.logger.Log(LogLevelInfo, "moving producing partition due to kip-951 not_leader_for_partition",
	//	    "topic", ..., "partition", ..., "new_leader", ..., "new_leader_epoch", ...,
	//	    "old_leader", ..., "old_leader_epoch", ...)
	{kind: KindClientRedirect, msg: "moving producing partition due to kip-951 not_leader_for_partition",
		keys: leaderKeys, need: []string{"topic", "partition", "new_leader"}},
	{kind: KindClientRedirect, msg: "moving consuming partition due to kip-951 not_leader_for_partition",
		keys: leaderKeys, need: []string{"topic", "partition", "new_leader"}},

	// The client's own facts, kept in Timeline.Client to explain a stall.
	//
	// metadata.go, mergeTopicPartitions, when a refresh changed nothing:
	//	"metadata refresh has identical topic partition data", "topic", ..., "partition", ...,
	//	"leader", ..., "leader_epoch", ...
	{kind: KindClientMetadataSame, msg: "metadata refresh has identical topic partition data",
		keys: map[string]string{"topic": "topic", "partition": "partition", "leader": "leader", "leader_epoch": "epoch"},
		need: []string{"topic", "partition", "leader"}},
	// metadata.go, triggerUpdateMetadata: "metadata update triggered", "why", why.
	{kind: KindClientMetadataTriggered, msg: "metadata update triggered",
		keys: map[string]string{"why": "reason"}},
	// broker.go, after a request is written and after its response is read:
	//	"wrote %s v%d", "broker", ..., "bytes_written", ..., "write_wait", ..., "time_to_write", ..., "err", ...
	//	"read %s v%d", "broker", ..., "bytes_read", ..., "read_wait", ..., "time_to_read", ..., "err", ...
	// Only the requests an explanation weighs are kept: a consumer's
	// fetches would be most of the file.
	{kind: KindClientWrote, msg: "wrote", request: true, requests: weighedRequests,
		keys: map[string]string{"broker": "broker", "err": "err"}},
	{kind: KindClientRead, msg: "read", request: true, requests: weighedRequests,
		keys: map[string]string{"broker": "broker", "time_to_read": "wait", "err": "err"}},
	// client.go, retriable requests: "retrying request", "request", ..., "tries", ...,
	// "backoff", ..., "time_since_start", ..., "request_error", ..., "response_error", ...
	{kind: KindClientRetry, msg: "retrying request",
		keys: map[string]string{"request": "request", "backoff": "wait", "request_error": "err"},
		need: []string{"request"}},
}

// weighedRequests are the client requests an explanation weighs: the
// producer's, the metadata it asks for, and a coordinator's: how a client
// finds it and the group's and the transactions' requests it sends it.
var weighedRequests = []string{"Produce", "Metadata", "FindCoordinator",
	"OffsetCommit", "Heartbeat", "JoinGroup", "SyncGroup", "ConsumerGroupHeartbeat", "OffsetFetch",
	"EndTxn", "AddPartitionsToTxn", "InitProducerID", "AddOffsetsToTxn", "TxnOffsetCommit"}

var topicIDPattern = regexp.MustCompile(` with topic ID \S+`)

// match finds the rule that recognises msg and returns its event with the
// message's own fields set. ok is false for a message no rule knows; err is
// set for one a rule knows whose numbers do not parse.
func match(msg string) (Event, *rule, bool, error) {
	for i := range rules {
		r := &rules[i]
		if !strings.Contains(msg, r.key) {
			continue
		}
		m := r.re.FindStringSubmatch(msg)
		if m == nil || r.voter && !amongVoters(r.re, m) {
			continue
		}
		e := newEvent(time.Time{}, "", r.kind)
		e.Topic = r.topic
		if err := fill(&e, r.re, m); err != nil {
			return e, r, true, err
		}
		for _, re := range r.more {
			if m := re.FindStringSubmatch(msg); m != nil {
				if err := fill(&e, re, m); err != nil {
					return e, r, true, err
				}
			}
		}
		return e, r, true, nil
	}
	return Event{}, nil, false, nil
}

// amongVoters reports whether the node that logged a quorum state (group
// broker) is among the voters the state lists (group voters, "100, 101").
func amongVoters(re *regexp.Regexp, m []string) bool {
	node := m[re.SubexpIndex("broker")]
	for _, v := range strings.Split(m[re.SubexpIndex("voters")], ",") {
		if node != "" && strings.TrimSpace(v) == node {
			return true
		}
	}
	return false
}

func fill(e *Event, re *regexp.Regexp, m []string) error {
	for i, name := range re.SubexpNames() {
		if i == 0 || name == "" || m[i] == "" {
			continue
		}
		if err := setField(e, name, m[i]); err != nil {
			return err
		}
	}
	return nil
}

// setField sets the event field a rule's group or a client key names.
// Unknown names are ignored, so a pattern may capture for its own use.
func setField(e *Event, name, v string) error {
	var err error
	switch name {
	case "broker":
		e.Broker, err = parseID(v)
	case "topic":
		e.Topic = v
	case "partition":
		e.Partition, err = parseID(v)
		if err == nil && e.Partition < 0 {
			err = fmt.Errorf("negative partition %d", e.Partition)
		}
	case "leader":
		e.Leader, err = parseID(v)
	case "prev":
		e.PrevLeader, err = parseID(v)
	case "epoch":
		e.Epoch, err = strconv.ParseInt(v, 10, 64)
	case "offset":
		e.Offset, err = strconv.ParseInt(v, 10, 64)
	case "count":
		var n int64
		n, err = strconv.ParseInt(v, 10, 32)
		e.Count = int(n)
	case "isr":
		e.ISR, err = parseISR(v)
	case "request":
		e.Request = v
	case "wait":
		e.Wait, err = time.ParseDuration(v)
	case "took_ms":
		var n int64
		n, err = strconv.ParseInt(v, 10, 64)
		e.Wait = time.Duration(n) * time.Millisecond
	case "err":
		if v != "<nil>" {
			e.Err = v
		}
	case "reason":
		e.Reason = v
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %q: %w", name, v, err)
	}
	return nil
}

func parseID(v string) (int32, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	return int32(n), err
}

// parseISR reads a replica list as Kafka prints it: "2,3", "2, 3" or "[2,3]".
func parseISR(v string) ([]int32, error) {
	v = strings.Trim(strings.TrimSpace(v), "[]")
	isr := []int32{}
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
		id, err := parseID(f)
		if err != nil {
			return nil, err
		}
		isr = append(isr, id)
	}
	return isr, nil
}
