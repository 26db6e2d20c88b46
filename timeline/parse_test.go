package timeline

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// fields is what a test expects of an event; None where absent.
type fields struct {
	kind                            Kind
	broker, partition, leader, prev int32
	topic                           string
	epoch, offset                   int64
	count                           int
	isr                             []int32
}

func fieldsOf(e Event) fields {
	return fields{kind: e.Kind, broker: e.Broker, partition: e.Partition, leader: e.Leader,
		prev: e.PrevLeader, topic: e.Topic, epoch: e.Epoch, offset: e.Offset, count: e.Count, isr: e.ISR}
}

// f returns the fields of an event of kind with nothing set; set fills them.
func f(kind Kind, set func(*fields)) fields {
	v := fields{kind: kind, broker: None, partition: None, leader: None, prev: None,
		epoch: None, offset: None, count: None}
	if set != nil {
		set(&v)
	}
	return v
}

// TestMatch checks each rule against the wording of the Kafka versions it
// names. A new variant seen in a real log belongs here and in rules.
func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  string
		want fields // kind KindUnknown: not recognised
	}{
		{"fence 4.x", "[QuorumController id=100] Fencing broker 1 at epoch 14 because its session has timed out.",
			f(KindFenced, func(v *fields) { v.broker, v.epoch = 1, 14 })},
		{"fence 3.x", "[QuorumController id=3000] Fencing broker 2 because its session has timed out.",
			f(KindFenced, func(v *fields) { v.broker = 2 })},
		{"fence changes", "[QuorumController id=100] handleBrokerFenced: changing 54 partition(s)",
			f(KindFenceChanges, func(v *fields) { v.count = 54 })},
		{"controlled shutdown", "[QuorumController id=100] Unfenced broker 1 has requested and been granted a controlled shutdown.",
			f(KindControlledShutdown, func(v *fields) { v.broker = 1 })},
		{"controlled shutdown changes", "[QuorumController id=100] enterControlledShutdown[1]: changing 54 partition(s)",
			f(KindShutdownChanges, func(v *fields) { v.broker, v.count = 1, 54 })},
		{"immediate shutdown, unfenced", "[QuorumController id=100] Unfenced broker 3 has requested and been granted an immediate shutdown.",
			f(KindImmediateShutdown, func(v *fields) { v.broker = 3 })},
		{"immediate shutdown, fenced", "[QuorumController id=100] Fenced broker 3 has requested and been granted an immediate shutdown.",
			f(KindImmediateShutdown, func(v *fields) { v.broker = 3 })},
		{"fencing requested", "[QuorumController id=100] Unfenced broker 2 has requested and been granted fencing",
			f(KindFenceRequested, func(v *fields) { v.broker = 2 })},
		{"shutdown granted", "[QuorumController id=100] The request from broker 1 to shut down has been granted since the lowest active offset 9032 is now greater than the broker's controlled shutdown offset 8991.",
			f(KindShutdownGranted, func(v *fields) { v.broker = 1 })},
		{"unfence, it's", "[QuorumController id=100] The request from broker 1 to unfence has been granted because it has caught up with the offset of it's register broker record 4127.",
			f(KindUnfenceGranted, func(v *fields) { v.broker = 1 })},
		{"unfence, its", "[QuorumController id=100] The request from broker 1 to unfence has been granted because it has caught up with the offset of its register broker record 4127.",
			f(KindUnfenceGranted, func(v *fields) { v.broker = 1 })},
		{"unfence changes", "[QuorumController id=100] handleBrokerUnfenced: changing 1 partition(s)",
			f(KindUnfenceChanges, func(v *fields) { v.count = 1 })},
		{"other context", "[QuorumController id=100] handleBrokerUncleanShutdown: changing 3 partition(s)",
			f(KindPartitionsChanged, func(v *fields) { v.count = 3 })},
		{"offline directory", "[QuorumController id=100] handleDirectoriesOffline[2:hDOtBqfmSyCJxSbLa0XZ3g]: changing 7 partition(s)",
			f(KindPartitionsChanged, func(v *fields) { v.broker, v.count = 2, 7 })},
		{"registered, initial", "[QuorumController id=100] Replayed initial RegisterBrokerRecord for broker 1: RegisterBrokerRecord(brokerId=1, isMigratingZkBroker=false, incarnationId=x, brokerEpoch=14, endPoints=[], rack=null, fenced=true)",
			f(KindRegistered, func(v *fields) { v.broker, v.epoch = 1, 14 })},
		{"registered, new incarnation", "[QuorumController id=100] Replayed RegisterBrokerRecord establishing a new incarnation of broker 1: RegisterBrokerRecord(brokerId=1, brokerEpoch=4127, fenced=true)",
			f(KindRegistered, func(v *fields) { v.broker, v.epoch = 1, 4127 })},
		{"registered, same incarnation", "[QuorumController id=100] Replayed RegisterBrokerRecord modifying the registration for broker 2: RegisterBrokerRecord(brokerId=2, brokerEpoch=20)",
			f(KindRegistered, func(v *fields) { v.broker, v.epoch = 2, 20 })},
		{"new incarnation, the old one already fenced", "[QuorumController id=100] Registering a new incarnation of broker 2. Previous incarnation ID was mp4nKCs4RyKgJYhsI-rrIQ; new incarnation ID is NkKfT9GXSeCdMnkS9P-NOA. Generated 0 record(s) to clean up previous incarnations. Broker epoch will become 101.",
			f(KindNewIncarnation, func(v *fields) { v.broker, v.count = 2, 0 })},
		{"new incarnation removing the old one", "[QuorumController id=100] Registering a new incarnation of broker 2. Previous incarnation ID was mp4nKCs4RyKgJYhsI-rrIQ; new incarnation ID is NkKfT9GXSeCdMnkS9P-NOA. Generated 3 record(s) to clean up previous incarnations. Broker epoch will become 101.",
			f(KindNewIncarnation, func(v *fields) { v.broker, v.count = 2, 3 })},
		{"registration change is not a registration", "[QuorumController id=100] Replayed BrokerRegistrationChangeRecord modifying the registration for broker 1: BrokerRegistrationChangeRecord(brokerId=1, brokerEpoch=14, fenced=1, inControlledShutdown=0, logDirs=[])",
			f(KindUnknown, nil)},
		{"unclean partition change", "[QuorumController id=100] UNCLEAN partition change for single-0 with topic ID q9Zr0dWkTmK2b1xY7cVh3Q: isr: [1] -> [2], leader: -1 -> 2, leaderEpoch: 3 -> 4, partitionEpoch: 7 -> 8",
			f(KindPartitionChange, func(v *fields) {
				v.topic, v.partition, v.isr, v.prev, v.leader, v.epoch = "single", 0, []int32{2}, None, 2, 4
			})},
		{"partition change at debug", "[QuorumController id=100] partition change for orders-1 with topic ID Lp3r5Yx3QGa0qv0m9nVx1A: isr: [2, 3, 1] -> [2, 3], partitionEpoch: 0 -> 1",
			f(KindPartitionChange, func(v *fields) { v.topic, v.partition, v.isr = "orders", 1, []int32{2, 3} })},

		// The quorum's own states, as c1 (node 100, the only voter) logged
		// them in the recorded 4.3.1 trials, and as a quorum of three
		// (100, 101, 102) writes the same toString.
		{"quorum leader 4.3", "[RaftManager id=100] Completed transition to Leader(localVoterNode=VoterNode(voterKey=ReplicaKey(id=100, directoryId=J9h1RSLDflxjGqZOKxFaOw), listeners=Endpoints(endpoints={ListenerName(CONTROLLER)=c1/<unresolved>:9093}), supportedKRaftVersion=SupportedVersionRange[min_version:0, max_version:1]), epoch=1, epochStartOffset=0, highWatermark=Optional.empty, voterStates={100=ReplicaState(replicaKey=ReplicaKey(id=100, directoryId=<undefined>), endOffset=Optional.empty, lastFetchTimestamp=-1, lastCaughtUpTimestamp=-1, hasAcknowledgedLeader=true)}) from CandidateState(localId=100, localDirectoryId=J9h1RSLDflxjGqZOKxFaOw, epoch=1, epochElection=EpochElection[voterStates={100=VoterState(replicaKey=ReplicaKey(id=100, directoryId=<undefined>), state=GRANTED)}], highWatermark=Optional.empty, electionTimeoutMs=1675)",
			f(KindQuorumLeader, func(v *fields) { v.broker, v.leader, v.epoch = 100, 100, 1 })},
		{"quorum leader 3.x", "[RaftManager id=100] Completed transition to Leader(localReplicaKey=ReplicaKey(id=100, directoryId=<undefined>), epoch=1, epochStartOffset=0, highWatermark=Optional[LogOffsetMetadata(offset=1012, metadata=Optional.empty)])",
			f(KindQuorumLeader, func(v *fields) { v.broker, v.leader, v.epoch = 100, 100, 1 })},
		{"quorum leader of three, from a candidate of another epoch", "[RaftManager id=102] Completed transition to Leader(localVoterNode=VoterNode(voterKey=ReplicaKey(id=102, directoryId=x2nV0hUqSPC8Ae1c6Zk7bw), listeners=Endpoints(endpoints={ListenerName(CONTROLLER)=c3/<unresolved>:9093}), supportedKRaftVersion=SupportedVersionRange[min_version:0, max_version:1]), epoch=5, epochStartOffset=2214, highWatermark=Optional.empty, voterStates={}) from CandidateState(localId=102, localDirectoryId=x2nV0hUqSPC8Ae1c6Zk7bw, epoch=5, epochElection=EpochElection[voterStates={}], highWatermark=Optional.empty, electionTimeoutMs=1402)",
			f(KindQuorumLeader, func(v *fields) { v.broker, v.leader, v.epoch = 102, 102, 5 })},
		{"quorum candidate 4.3", "[RaftManager id=100] Completed transition to CandidateState(localId=100, localDirectoryId=J9h1RSLDflxjGqZOKxFaOw, epoch=1, epochElection=EpochElection[voterStates={100=VoterState(replicaKey=ReplicaKey(id=100, directoryId=<undefined>), state=GRANTED)}], highWatermark=Optional.empty, electionTimeoutMs=1675) from ProspectiveState(epoch=0, leaderId=OptionalInt.empty, votedKey=Optional.empty, epochElection=EpochElection[voterStates={100=VoterState(replicaKey=ReplicaKey(id=100, directoryId=<undefined>), state=GRANTED)}], electionTimeoutMs=1492, highWatermark=Optional.empty)",
			f(KindQuorumCandidate, func(v *fields) { v.broker, v.epoch = 100, 1 })},
		{"quorum candidate 3.x, no space before epoch", "[RaftManager id=101] Completed transition to CandidateState(localId=101, localDirectoryId=<undefined>,epoch=4, retries=1, voteStates={101=GRANTED}, highWatermark=Optional.empty, electionTimeoutMs=1133) from FollowerState(fetchTimeoutMs=2000, epoch=3, leader=100, voters=[100, 101, 102], highWatermark=Optional.empty, fetchingSnapshot=Optional.empty)",
			f(KindQuorumCandidate, func(v *fields) { v.broker, v.epoch = 101, 4 })},
		{"quorum prospective, no leader", "[RaftManager id=100] Completed transition to ProspectiveState(epoch=0, leaderId=OptionalInt.empty, votedKey=Optional.empty, epochElection=EpochElection[voterStates={100=VoterState(replicaKey=ReplicaKey(id=100, directoryId=<undefined>), state=GRANTED)}], electionTimeoutMs=1492, highWatermark=Optional.empty) from UnattachedState(epoch=0, leaderId=OptionalInt.empty, votedKey=Optional.empty, voters=[100], electionTimeoutMs=1294, highWatermark=Optional.empty)",
			f(KindQuorumProspective, func(v *fields) { v.broker, v.epoch = 100, 0 })},
		{"quorum prospective, its leader gone", "[RaftManager id=100] Completed transition to ProspectiveState(epoch=4, leaderId=OptionalInt[101], votedKey=Optional.empty, epochElection=EpochElection[voterStates={100=VoterState(replicaKey=ReplicaKey(id=100, directoryId=<undefined>), state=GRANTED), 101=VoterState(replicaKey=ReplicaKey(id=101, directoryId=<undefined>), state=UNRECORDED), 102=VoterState(replicaKey=ReplicaKey(id=102, directoryId=<undefined>), state=UNRECORDED)}], electionTimeoutMs=1873, highWatermark=Optional[LogOffsetMetadata(offset=2213, metadata=Optional.empty)]) from FollowerState(fetchTimeoutMs=2000, epoch=4, leader=101, leaderEndpoints=Endpoints(endpoints={ListenerName(CONTROLLER)=c2/<unresolved>:9093}), votedKey=Optional.empty, voters=[100, 101, 102], highWatermark=Optional[LogOffsetMetadata(offset=2213, metadata=Optional.empty)], fetchingSnapshot=Optional.empty)",
			f(KindQuorumProspective, func(v *fields) { v.broker, v.leader, v.epoch = 100, 101, 4 })},
		{"quorum follower, a voter", "[RaftManager id=100] Completed transition to FollowerState(fetchTimeoutMs=2000, epoch=5, leader=102, leaderEndpoints=Endpoints(endpoints={ListenerName(CONTROLLER)=c3/<unresolved>:9093}), votedKey=Optional[ReplicaKey(id=102, directoryId=<undefined>)], voters=[100, 101, 102], highWatermark=Optional.empty, fetchingSnapshot=Optional.empty) from UnattachedState(epoch=5, leaderId=OptionalInt.empty, votedKey=Optional[ReplicaKey(id=102, directoryId=<undefined>)], voters=[100, 101, 102], electionTimeoutMs=1541, highWatermark=Optional.empty)",
			f(KindQuorumFollower, func(v *fields) { v.broker, v.leader, v.epoch = 100, 102, 5 })},
		{"quorum follower, a broker is an observer", "[RaftManager id=1] Completed transition to FollowerState(fetchTimeoutMs=2000, epoch=1, leader=100, leaderEndpoints=Endpoints(endpoints={ListenerName(CONTROLLER)=c1/<unresolved>:9093}), votedKey=Optional.empty, voters=[100], highWatermark=Optional.empty, fetchingSnapshot=Optional.empty) from UnattachedState(epoch=0, leaderId=OptionalInt.empty, votedKey=Optional.empty, voters=[100], electionTimeoutMs=1584, highWatermark=Optional.empty)",
			f(KindUnknown, nil)},
		{"quorum follower, an id that only starts like a voter's", "[RaftManager id=10] Completed transition to FollowerState(fetchTimeoutMs=2000, epoch=5, leader=102, votedKey=Optional.empty, voters=[100, 101, 102], highWatermark=Optional.empty, fetchingSnapshot=Optional.empty) from null",
			f(KindUnknown, nil)},
		{"quorum transition attempted is not made", "[RaftManager id=100] Attempting durable transition to Leader(localVoterNode=VoterNode(voterKey=ReplicaKey(id=100, directoryId=J9h1RSLDflxjGqZOKxFaOw), listeners=Endpoints(endpoints={}), supportedKRaftVersion=SupportedVersionRange[min_version:0, max_version:1]), epoch=1, epochStartOffset=0, highWatermark=Optional.empty, voterStates={}) from CandidateState(localId=100, epoch=1)",
			f(KindUnknown, nil)},
		{"quorum unattached", "[RaftManager id=100] Completed transition to UnattachedState(epoch=0, leaderId=OptionalInt.empty, votedKey=Optional.empty, voters=[100], electionTimeoutMs=1294, highWatermark=Optional.empty) from null",
			f(KindUnknown, nil)},

		{"leader 4.x", "[Broker id=2] Leader orders-0 with topic id Some(Lp3r5Yx3QGa0qv0m9nVx1A) starts at leader epoch 1 from offset 445 with partition epoch 1, high watermark 445, ISR [2,3], adding replicas [] and removing replicas [] . Previous leader Some(1) and previous leader epoch was 0.",
			f(KindLeaderStarted, func(v *fields) {
				v.broker, v.leader, v.prev, v.topic, v.partition, v.epoch, v.offset, v.isr = 2, 2, 1, "orders", 0, 1, 445, []int32{2, 3}
			})},
		{"leader 4.x, under min ISR, no previous leader", "[Broker id=1] Leader single-0 with topic id Some(q9Zr0dWkTmK2b1xY7cVh3Q) starts at leader epoch 0 from offset 0 with partition epoch 0, high watermark 0, ISR [1], adding replicas [] and removing replicas [] (under-min-isr). Previous leader None and previous leader epoch was -1.",
			f(KindLeaderStarted, func(v *fields) {
				v.broker, v.leader, v.topic, v.partition, v.epoch, v.offset, v.isr = 1, 1, "single", 0, 0, 0, []int32{1}
			})},
		{"leader 3.x", "[Broker id=2] Leader orders-0 starts at leader epoch 1 from offset 445 with high watermark 440 ISR [2,3] addingReplicas [] removingReplicas []. Previous leader epoch was 0.",
			f(KindLeaderStarted, func(v *fields) {
				v.broker, v.leader, v.topic, v.partition, v.epoch, v.offset, v.isr = 2, 2, "orders", 0, 1, 445, []int32{2, 3}
			})},
		{"leader of a topic with dashes", "[Broker id=3] Leader my-topic-2-17 with topic id Some(x) starts at leader epoch 5 from offset 9 with partition epoch 6, high watermark 9, ISR [3], adding replicas [] and removing replicas [] .",
			f(KindLeaderStarted, func(v *fields) {
				v.broker, v.leader, v.topic, v.partition, v.epoch, v.offset, v.isr = 3, 3, "my-topic-2", 17, 5, 9, []int32{3}
			})},
		{"follower", "[Broker id=3] Follower orders-0 starts at leader epoch 1 from offset 445 with partition epoch 1 and high watermark 445. Current leader is 2. Previous leader Some(2) and previous leader epoch was 1.",
			f(KindFollowerStarted, func(v *fields) {
				v.broker, v.leader, v.topic, v.partition, v.epoch, v.offset = 3, 2, "orders", 0, 1, 445
			})},
		{"staying leader", "[Broker id=2] Skipped the become-leader state change for orders-1 with topic id Some(x) and partition state PartitionState(topicName='orders', partitionIndex=1, isr=[2, 3], leaderEpoch=0) since it is already the leader with leader epoch 0. Current high watermark 431, ISR [2,3], adding replicas [] and removing replicas [].",
			f(KindLeaderUpdated, func(v *fields) {
				v.broker, v.leader, v.topic, v.partition, v.epoch, v.isr = 2, 2, "orders", 1, 0, []int32{2, 3}
			})},
		{"ReplicaManager's skip has no ISR", "[Broker id=2] Skipped the become-leader state change for orders-1 with topic id x because this partition is already a local leader.",
			f(KindUnknown, nil)},
		{"staying follower", "[Broker id=2] Skipped the become-follower state change for orders-2 with topic id Some(x) and partition state PartitionState(...) since it is already a follower with leader epoch 0.",
			f(KindUnknown, nil)},
		{"ISR shrink", "[Partition orders-1 broker=2] Shrinking ISR from 2,3,1 to 2,3. Leader: (highWatermark: 431, endOffset: 445). Out of sync replicas: (brokerId: 1, endOffset: 431, lastCaughtUpTimeMs: 1796009169100).",
			f(KindISRShrink, func(v *fields) { v.broker, v.leader, v.topic, v.partition, v.isr = 2, 2, "orders", 1, []int32{2, 3} })},
		{"ISR expand 2.x", "[Partition orders-1 broker=2] Expanding ISR from 2,3 to 2,3,1",
			f(KindISRExpand, func(v *fields) { v.broker, v.leader, v.topic, v.partition, v.isr = 2, 2, "orders", 1, []int32{2, 3, 1} })},
		{"ISR updated", "[Partition orders-0 broker=2] ISR updated to 2,3,1  and version updated to 2",
			f(KindISRUpdated, func(v *fields) { v.broker, v.leader, v.topic, v.partition, v.isr = 2, 2, "orders", 0, []int32{2, 3, 1} })},
		{"ISR updated under min ISR", "[Partition orders-0 broker=2] ISR updated to 2 (under-min-isr) and version updated to 3",
			f(KindISRUpdated, func(v *fields) { v.broker, v.leader, v.topic, v.partition, v.isr = 2, 2, "orders", 0, []int32{2} })},

		// A full disk, as Kafka 4.3.1 logged it in a disk-full trial.
		{"write failed", "Error while appending records to orders-0 in dir /var/lib/kafka/data", f(KindLogDirWriteFailed, nil)},
		{"a fetcher's error is no write of the directory's", "[ReplicaFetcher replicaId=1, leaderId=3, fetcherId=0] Error while processing data for partition orders-2 at offset 309",
			f(KindUnknown, nil)},
		{"directory offline", "[ReplicaManager broker=1] Stopping serving replicas in dir /var/lib/kafka/data with uuid Some(Y6kVyWXooH_mNj9SaQN24g) because the log directory has failed.",
			f(KindLogDirOffline, func(v *fields) { v.broker = 1 })},
		{"halt", "Shutdown broker because all log dirs in /var/lib/kafka/data have failed", f(KindLogDirsFailed, nil)},
		{"metadata dir halt", "Shutdown broker because the metadata log dir /var/lib/kafka/data has failed", f(KindLogDirsFailed, nil)},
		// A disk that answers EIO, as Kafka 4.3.1 logged it on a FUSE layer.
		{"metadata log write failed", "Error while appending records to __cluster_metadata-0 in dir /var/lib/kafka/data", f(KindLogDirWriteFailed, nil)},
		{"fatal fault", "Encountered fatal fault: Unexpected error in raft IO thread", f(KindFatalFault, nil)},

		{"SIGTERM", "Terminating process due to signal SIGTERM", f(KindSignalReceived, nil)},
		{"SIGINT", "Terminating process due to signal SIGINT", f(KindSignalReceived, nil)},
		{"shutdown begins", "[BrokerLifecycleManager id=1] Beginning controlled shutdown.",
			f(KindShutdownBegin, func(v *fields) { v.broker = 1 })},
		{"shutdown released", "[BrokerLifecycleManager id=1] The controller has asked us to exit controlled shutdown.",
			f(KindShutdownReleased, func(v *fields) { v.broker = 1 })},
		{"broker stopped", "[BrokerServer id=1] Transition from SHUTTING_DOWN to SHUTDOWN",
			f(KindBrokerStopped, func(v *fields) { v.broker = 1 })},
		{"broker shutting down is not stopped", "[BrokerServer id=1] Transition from STARTED to SHUTTING_DOWN",
			f(KindUnknown, nil)},
		{"broker running", "[BrokerLifecycleManager id=1] The broker has been unfenced. Transitioning from RECOVERY to RUNNING.",
			f(KindBrokerRunning, func(v *fields) { v.broker = 1 })},

		// The coordinators' loads (Kafka 4.3, as the recorded trials logged them).
		{"group load scheduled", "[GroupCoordinator id=1] Scheduling loading of metadata from __consumer_offsets-45 with epoch 1",
			f(KindCoordinatorLoading, func(v *fields) { v.broker, v.topic, v.partition, v.epoch = 1, "__consumer_offsets", 45, 1 })},
		{"group load finished", "[GroupCoordinator id=1] Finished loading of metadata from __consumer_offsets-45 with epoch 1 in 143ms where 32ms was spent in the scheduler. Loaded 1782 records which total to 291985 bytes.",
			f(KindCoordinatorLoaded, func(v *fields) {
				v.broker, v.topic, v.partition, v.epoch, v.count = 1, "__consumer_offsets", 45, 1, 1782
			})},
		{"group unload is no load", "[GroupCoordinator id=1] Scheduling unloading of metadata for __consumer_offsets-45 with epoch OptionalInt[1]",
			f(KindUnknown, nil)},
		{"txn coordinator elected", "[TransactionCoordinator id=2] Elected as the txn coordinator for partition 30 at epoch 4",
			f(KindCoordinatorElected, func(v *fields) { v.broker, v.topic, v.partition, v.epoch = 2, "__transaction_state", 30, 4 })},
		{"txn loading", "[Transaction State Manager 2]: Loading transaction metadata from __transaction_state-30 at epoch 4",
			f(KindCoordinatorLoading, func(v *fields) { v.broker, v.topic, v.partition, v.epoch = 2, "__transaction_state", 30, 4 })},
		{"txn load took", "[Transaction State Manager 2]: Finished loading 1 transaction metadata from __transaction_state-30 in 43 milliseconds, of which 21 milliseconds was spent in the scheduler.",
			f(KindCoordinatorLoadTook, func(v *fields) { v.broker, v.topic, v.partition, v.count = 2, "__transaction_state", 30, 1 })},
		{"txn load completed", "[Transaction State Manager 2]: Completed loading transaction metadata from __transaction_state-30 for coordinator epoch 4",
			f(KindCoordinatorLoaded, func(v *fields) { v.broker, v.topic, v.partition, v.epoch = 2, "__transaction_state", 30, 4 })},

		{"noise", "[ReplicaFetcherManager on broker 2] Removed fetcher for partitions Set(orders-0)", f(KindUnknown, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _, ok, err := match(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want.kind == KindUnknown {
				if ok {
					t.Errorf("recognised as %v: %+v", e.Kind, fieldsOf(e))
				}
				return
			}
			if !ok {
				t.Fatalf("not recognised, want %v", tc.want.kind)
			}
			// The parser, not match, fills in the node's own id and the
			// leader of a "leads" rule; do it here as it does.
			for i := range rules {
				if rules[i].kind == e.Kind && rules[i].leads && e.Leader == None {
					e.Leader = e.Broker
				}
			}
			if got := fieldsOf(e); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestCoordinatorLoadTook checks that a load's own count of its time is
// read, in milliseconds, from both coordinators' wordings.
func TestCoordinatorLoadTook(t *testing.T) {
	for msg, want := range map[string]time.Duration{
		"[GroupCoordinator id=1] Finished loading of metadata from __consumer_offsets-45 with epoch 1 in 143ms where 32ms was spent in the scheduler. Loaded 1782 records which total to 291985 bytes.": 143 * time.Millisecond,
		"[Transaction State Manager 2]: Finished loading 1 transaction metadata from __transaction_state-30 in 43 milliseconds, of which 21 milliseconds was spent in the scheduler.":                   43 * time.Millisecond,
	} {
		e, _, ok, err := match(msg)
		if !ok || err != nil || e.Wait != want {
			t.Errorf("%q: wait %s (ok %v, err %v), want %s", msg, e.Wait, ok, err, want)
		}
	}
}

func TestParseKafkaLog(t *testing.T) {
	const log = "" +
		"\tat a.stray.Continuation(Line.java:1)\n" + // before any record: unreadable
		"[2026-11-30 03:26:17,385] INFO [QuorumController id=100] Fencing broker 1 at epoch 14 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)\n" +
		"java.lang.IllegalStateException: a stack trace under it\n" +
		"\tat x.Y.z(Fencing broker 9 at epoch 1 because its session has timed out.)\n" +
		"Leader orders-0 with topic id Some(x) starts at leader epoch 9 from offset 1 with partition epoch 1\n" +
		"[2026-13-30 03:26:17,390] INFO Fencing broker 2 at epoch 3 because its session has timed out. (x.Y)\n" + // month 13
		"\tat a continuation of the unreadable record, not counted again\n" +
		"[2026-11-30 03:26:17,391 INFO no closing bracket where the time ends\n" +
		"[2026-11-30 03:26:17,394] INFO [QuorumController id=100] handleBrokerFenced: changing 54 partition(s) (org.apache.kafka.controller.ReplicationControlManager)\n" +
		"[2026-11-30 03:26:17,395] INFO [Broker id=2] Leader orders-0 with topic id Some(x) starts at leader epoch 1 from offset 99999999999999999999 with partition epoch 1 (state.change.logger)\n" + // offset overflows
		"\n" +
		"[2026-11-30 03:26:19,000] INFO [QuorumController id=100] handleBrokerFenced: changing 2 partition(s) (org.apache.kafka.controller.ReplicationControlManager)\r\n" + // too long after the fence
		"[2026-11-30 03:26:20,000] INFO Terminating process due to signal SIGTERM (org.apache.kafka.common.utils.LoggingSignalHandler)" // no newline: cut short
	var got []Event
	unparsed, err := parseKafkaLog(strings.NewReader(log), "c1", "c1/controller.log", 100, func(e Event) { got = append(got, e) })
	if err != nil {
		t.Fatal(err)
	}
	if unparsed != 4 {
		t.Errorf("unparsed %d, want 4 (stray continuation, month 13, no bracket, overflow)", unparsed)
	}
	type brief struct {
		kind   Kind
		broker int32
		count  int
		source string
		text   string
	}
	var b []brief
	for _, e := range got {
		b = append(b, brief{e.Kind, e.Broker, e.Count, e.Source, e.Text})
	}
	want := []brief{
		{KindFenced, 1, None, "c1/controller.log:2", "[QuorumController id=100] Fencing broker 1 at epoch 14 because its session has timed out."},
		{KindFenceChanges, 1, 54, "c1/controller.log:9", "[QuorumController id=100] handleBrokerFenced: changing 54 partition(s)"},
		{KindFenceChanges, None, 2, "c1/controller.log:12", "[QuorumController id=100] handleBrokerFenced: changing 2 partition(s)"},
		{KindSignalReceived, 100, None, "c1/controller.log:13", "Terminating process due to signal SIGTERM"},
	}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("events:\n%+v\nwant\n%+v", b, want)
	}
	if len(got) > 0 && !got[0].Time.Equal(time.Date(2026, 11, 30, 3, 26, 17, 385e6, time.UTC)) {
		t.Errorf("time %v", got[0].Time)
	}
}

func TestParseLog4jTime(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"2026-11-30 03:26:17,385", true},
		{"2026-11-30T03:26:17.385", true},
		{"2026-02-31 03:26:17,385", false},
		{"2026-11-30 24:00:00,000", false},
		{"2026-11-30 03:26:17", false},
		{"2026-11-30 03:26:17,38x", false},
		{"", false},
	} {
		if _, ok := parseLog4jTime(tc.in); ok != tc.ok {
			t.Errorf("parseLog4jTime(%q) ok = %v, want %v", tc.in, ok, tc.ok)
		}
	}
}

func TestStripLogger(t *testing.T) {
	for in, want := range map[string]string{
		"Fencing broker 1. (org.apache.kafka.controller.ReplicationControlManager)": "Fencing broker 1.",
		"x (kafka.server.ReplicaManager$LogDirFailureHandler)":                      "x",
		"ISR updated to 2 (under-min-isr)":                                          "ISR updated to 2 (under-min-isr)",
		"Leader: (highWatermark: 1, endOffset: 2)":                                  "Leader: (highWatermark: 1, endOffset: 2)",
		"(state.change.logger)":                                                     "(state.change.logger)",
	} {
		if got := stripLogger(in); got != want {
			t.Errorf("stripLogger(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseClientLog(t *testing.T) {
	const log = "" +
		"2026-11-30T03:26:17.459388000Z DEBUG consumer metadata refresh topic partition data changed topic=orders partition=0 new_leader=2 new_leader_epoch=1 old_leader=1 old_leader_epoch=0\n" +
		"2026-11-30T03:26:17.460123456Z DEBUG producer metadata refresh topic partition data changed topic=\"orders\" partition=1 new_leader=3 new_leader_epoch=4 old_leader=3 old_leader_epoch=3\n" +
		"2026-11-30T03:26:09.131202000Z WARN producer unable to open connection to broker addr=127.0.0.1:19092 broker=1 err=\"dial tcp 127.0.0.1:19092: connect: connection refused\"\n" +
		"2026-11-30T03:26:17.460200000Z DEBUG producer metadata refresh has identical topic partition data topic=orders partition=1 leader=2 leader_epoch=0\n" +
		"yesterday DEBUG producer metadata refresh topic partition data changed topic=orders partition=0\n" +
		"2026-11-30T03:26:17.500000000Z DEBUG\n" +
		"2026-11-30T03:26:17.510000000Z DEBUG producer metadata refresh topic partition data changed topic=orders partition=x new_leader=2\n" +
		"2026-11-30T03:26:17.520000000Z DEBUG producer metadata refresh topic partition data changed topic=\"orders partition=0\n" +
		"2026-11-30T03:26:17.525000000Z DEBUG producer metadata refresh topic partition data changed topic=orders new_leader=2\n" +
		"\n" +
		"2026-11-30T03:26:17.530000000Z DEBUG admin metadata refresh topic partition data changed topic=\"a b\" partition=2 new_leader=-1 new_leader_epoch=7 old_leader=2 old_leader_epoch=6\n" +
		"2026-11-30T03:26:17.540000000Z INFO producer moving producing partition due to kip-951 not_leader_for_partition topic=orders partition=0 new_leader=2 new_leader_epoch=1 old_leader=1 old_leader_epoch=0"
	var got []Event
	unparsed, err := parseClientLog(strings.NewReader(log), "client.log", func(e Event) { got = append(got, e) })
	if err != nil {
		t.Fatal(err)
	}
	if unparsed != 5 {
		t.Errorf("unparsed %d, want 5 (no time, no client, bad partition, open quote, no partition)", unparsed)
	}
	type brief struct {
		node              string
		topic             string
		partition, leader int32
		prev              int32
		epoch             int64
		source            string
	}
	var b []brief
	facts := 0
	for i, e := range got {
		switch {
		case e.Kind.ClientFact():
			facts++
			continue
		case e.Kind == KindClientRedirect && i == len(got)-1:
		case e.Kind != KindClientLeader:
			t.Errorf("kind %v", e.Kind)
		}
		b = append(b, brief{e.Node, e.Topic, e.Partition, e.Leader, e.PrevLeader, e.Epoch, e.Source})
	}
	want := []brief{
		{"consumer", "orders", 0, 2, 1, 1, "client.log:1"},
		{"producer", "orders", 1, 3, 3, 4, "client.log:2"},
		{"admin", "a b", 2, None, 2, 7, "client.log:11"},    // -1, Kafka's "no leader", is None
		{"producer", "orders", 0, 2, 1, 1, "client.log:12"}, // KIP-951: learnt from NOT_LEADER_OR_FOLLOWER
	}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("events:\n%+v\nwant\n%+v", b, want)
	}
	if facts != 1 {
		t.Errorf("%d client facts, want 1 (the identical metadata refresh)", facts)
	}
	if len(got) > 1 && !got[1].Time.Equal(time.Date(2026, 11, 30, 3, 26, 17, 460123456, time.UTC)) {
		t.Errorf("time %v keeps no nanoseconds", got[1].Time)
	}
}

func TestLongLine(t *testing.T) {
	long := "[2026-11-30 03:26:17,385] INFO [QuorumController id=100] Fencing broker 1 at epoch 14 because its session has timed out. " +
		strings.Repeat("x", 3*maxLine) + " (org.apache.kafka.controller.ReplicationControlManager)\n" +
		"[2026-11-30 03:26:17,394] INFO [QuorumController id=100] handleBrokerFenced: changing 54 partition(s) (org.apache.kafka.controller.ReplicationControlManager)\n"
	var got []Event
	unparsed, err := parseKafkaLog(strings.NewReader(long), "c1", "c1/controller.log", None, func(e Event) { got = append(got, e) })
	if err != nil || unparsed != 0 {
		t.Fatalf("unparsed %d, err %v", unparsed, err)
	}
	if len(got) != 2 || got[0].Kind != KindFenced || got[1].Source != "c1/controller.log:2" || got[1].Broker != 1 {
		t.Errorf("events %+v", got)
	}
}
