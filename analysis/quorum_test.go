package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// A quorum of three controllers, c1, c2 and c3 (nodes 100, 101 and 102),
// whose states are logged in the wording of Kafka 4.3.1's QuorumState, as
// the recorded trials hold it for their one controller. c2 leads the quorum
// at epoch 4 when the fault begins at handF.

func raftLine(d time.Duration, node int, state, from string) string {
	return kafkaLine(d, fmt.Sprintf("[RaftManager id=%d] Completed transition to %s from %s", node, state, from),
		"org.apache.kafka.raft.QuorumState")
}

func endpoints(node int) string {
	return fmt.Sprintf("Endpoints(endpoints={ListenerName(CONTROLLER)=c%d/<unresolved>:9093})", node-99)
}

func leaderState(node, epoch int) string {
	return fmt.Sprintf("Leader(localVoterNode=VoterNode(voterKey=ReplicaKey(id=%d, directoryId=J9h1RSLDflxjGqZOKxFaOw), listeners=%s, supportedKRaftVersion=SupportedVersionRange[min_version:0, max_version:1]), epoch=%d, epochStartOffset=%d, highWatermark=Optional.empty, voterStates={%d=ReplicaState(replicaKey=ReplicaKey(id=%[1]d, directoryId=<undefined>), endOffset=Optional.empty, lastFetchTimestamp=-1, lastCaughtUpTimestamp=-1, hasAcknowledgedLeader=true)})",
		node, endpoints(node), epoch, 2000+epoch, node)
}

func candidateState(node, epoch int) string {
	return fmt.Sprintf("CandidateState(localId=%d, localDirectoryId=J9h1RSLDflxjGqZOKxFaOw, epoch=%d, epochElection=EpochElection[voterStates={%[1]d=VoterState(replicaKey=ReplicaKey(id=%[1]d, directoryId=<undefined>), state=GRANTED)}], highWatermark=Optional.empty, electionTimeoutMs=1675)",
		node, epoch)
}

// prospectiveState is a voter asking for a pre-vote; leader -1 when it
// knows none.
func prospectiveState(epoch, leader int) string {
	known := "OptionalInt.empty"
	if leader >= 0 {
		known = fmt.Sprintf("OptionalInt[%d]", leader)
	}
	return fmt.Sprintf("ProspectiveState(epoch=%d, leaderId=%s, votedKey=Optional.empty, epochElection=EpochElection[voterStates={100=VoterState(replicaKey=ReplicaKey(id=100, directoryId=<undefined>), state=GRANTED)}], electionTimeoutMs=1492, highWatermark=Optional[LogOffsetMetadata(offset=2213, metadata=Optional.empty)])",
		epoch, known)
}

func followerState(epoch, leader int) string {
	return fmt.Sprintf("FollowerState(fetchTimeoutMs=2000, epoch=%d, leader=%d, leaderEndpoints=%s, votedKey=Optional.empty, voters=[100, 101, 102], highWatermark=Optional.empty, fetchingSnapshot=Optional.empty)",
		epoch, leader, endpoints(leader))
}

// quorumConfig is the block a controller logs at its start, as c1/server.log
// lines 1 to 4.
var quorumConfig = kafkaLine(-70*time.Second, "KafkaConfig values: ", "org.apache.kafka.common.config.AbstractConfig") +
	"\tcontroller.quorum.election.backoff.max.ms = 1000\n\tcontroller.quorum.election.timeout.ms = 1000\n\tcontroller.quorum.fetch.timeout.ms = 2000\n"

// c2Led is c2 becoming the quorum's leader at epoch 4, two seconds before
// the fault: just after the trial began (a second before handF).
var c2Led = raftLine(-2*time.Second, 101, leaderState(101, 4), candidateState(101, 4))

// electedAtOnce: c1 gives up on c2 first, c3 a moment later and wins the
// first election, at epoch 5. A broker, an observer, follows c3 too.
func electedAtOnce(config string) map[string]string {
	return map[string]string{
		"logs/c2/server.log": c2Led,
		"logs/c1/server.log": config +
			raftLine(-1900*msec, 100, followerState(4, 101), candidateState(100, 4)) +
			raftLine(1620*msec, 100, prospectiveState(4, 101), followerState(4, 101)) +
			raftLine(1670*msec, 100, followerState(5, 102), prospectiveState(4, 101)),
		"logs/c3/server.log": raftLine(-1900*msec, 102, followerState(4, 101), candidateState(102, 4)) +
			raftLine(1650*msec, 102, prospectiveState(4, 101), followerState(4, 101)) +
			raftLine(1655*msec, 102, candidateState(102, 5), prospectiveState(4, 101)) +
			raftLine(1662*msec, 102, leaderState(102, 5), candidateState(102, 5)),
		"logs/k1/server.log": raftLine(1700*msec, 1, followerState(5, 102), followerState(4, 101)),
	}
}

// splitVote: c1 and c3 stand at epoch 5 together and neither wins; c3 wins
// at epoch 6 once its election timeout and backoff have passed.
func splitVote() map[string]string {
	return map[string]string{
		"logs/c2/server.log": c2Led,
		"logs/c1/server.log": quorumConfig +
			raftLine(1620*msec, 100, prospectiveState(4, 101), followerState(4, 101)) +
			raftLine(1630*msec, 100, candidateState(100, 5), prospectiveState(4, 101)) +
			raftLine(3330*msec, 100, followerState(6, 102), candidateState(100, 5)),
		"logs/c3/server.log": raftLine(1625*msec, 102, prospectiveState(4, 101), followerState(4, 101)) +
			raftLine(1632*msec, 102, candidateState(102, 5), prospectiveState(4, 101)) +
			raftLine(3300*msec, 102, prospectiveState(5, -1), candidateState(102, 5)) +
			raftLine(3310*msec, 102, candidateState(102, 6), prospectiveState(5, -1)) +
			raftLine(3320*msec, 102, leaderState(102, 6), candidateState(102, 6)),
	}
}

// withFile is files with one of them replaced.
func withFile(files map[string]string, name, text string) map[string]string {
	files[name] = text
	return files
}

func controllerFault(kind results.FaultKind) *results.Fault {
	f := &results.Fault{Broker: "c2", NodeID: 101, Kind: kind, SignalSent: handF.Add(-30 * msec)}
	if kind.Freezes() {
		f.Paused = handF
	} else {
		f.Finished, f.ExitCode = handF, 137
	}
	return f
}

// The quorum's leaderless gap after the active controller's kill or
// freeze, from the controllers' own lines, and what predicts it.
func TestQuorumGap(t *testing.T) {
	steady := every(-time.Second, 5*time.Second, 100*msec)
	stalled := slices.Concat(every(-time.Second, 0, 100*msec), every(3000*msec, 5*time.Second, 100*msec))
	for _, tc := range []struct {
		name  string
		kind  results.FaultKind
		acks  map[int32][]time.Duration
		files map[string]string
		// Expected of the gap; leaderless zero for none.
		leaderless  time.Duration
		epoch       int64
		newLeader   string
		newEpoch    int64
		noticed     string // the source of the first to give up
		candidacies int
		predicted   time.Duration
		window      time.Duration
		stalled     bool
		// text are lines the text report holds.
		text []string
	}{
		{
			name: "kill, the first election wins", kind: results.FaultControllerKill,
			acks: map[int32][]time.Duration{0: steady, 1: steady}, files: electedAtOnce(quorumConfig),
			leaderless: 1662 * msec, epoch: 4, newLeader: "c3", newEpoch: 5, noticed: "c1/server.log:6", candidacies: 1,
			predicted: 2 * time.Second, window: 1662 * msec,
			text: []string{
				"quorum: no leader for 1.66 s after the fault of its active controller c2 (node 101, leader at epoch 4):\n",
				"  led        -2.00 s, 03:26:07.115: c2 became leader of the quorum at epoch 4 [c2/server.log:1]\n",
				"  fault      +0.00 s, 03:26:09.115: c2 process ended (SIGKILL, exit 137) [meta.json]\n",
				"  noticed    +1.62 s, 03:26:10.735: c1 became prospective at epoch 4: asks the voters for a pre-vote, its last leader 101 [c1/server.log:6]\n",
				"  elected    +1.66 s, 03:26:10.777: c3 became leader of the quorum at epoch 5 [c3/server.log:4]\n",
				"why: the other controllers give up on their leader 2.00 s after their last successful fetch from it (controller.quorum.fetch.timeout.ms = 2000 ms)",
				"c1 gave up 1.62 s after the process ended, and c3 was elected 0.04 s later",
				"shorten: controller.quorum.fetch.timeout.ms on the controllers",
				"data path: the longest ack gap while the quorum had no leader was 0.10 s (p0), the longest elsewhere in the probe 0.10 s: no stall of the fault's",
				"+1.620s c1  became prospective at epoch 4: asks the voters for a pre-vote, its last leader 101\n",
			},
		},
		{
			name: "pause, the data path stalled", kind: results.FaultControllerPause,
			acks: map[int32][]time.Duration{0: stalled, 1: steady}, files: electedAtOnce(quorumConfig),
			leaderless: 1662 * msec, epoch: 4, newLeader: "c3", newEpoch: 5, noticed: "c1/server.log:6", candidacies: 1,
			predicted: 2 * time.Second, window: 1662 * msec, stalled: true,
			text: []string{
				"  fault      +0.00 s, 03:26:09.115: c2 frozen: every process paused by the engine [meta.json]\n",
				"c1 gave up 1.62 s after the freeze",
				"was 3.00 s (p0), the longest elsewhere in the probe 0.10 s: the data path stalled",
			},
		},
		{
			// c2 was elected long before the trial, out of the timeline:
			// the epoch it led is the one c1 lost it in.
			name: "the leader's own line before the trial", kind: results.FaultControllerKill,
			acks: map[int32][]time.Duration{0: steady}, files: withFile(electedAtOnce(quorumConfig), "logs/c2/server.log",
				raftLine(-time.Hour, 101, leaderState(101, 4), candidateState(101, 4))),
			leaderless: 1662 * msec, epoch: 4, newLeader: "c3", newEpoch: 5, noticed: "c1/server.log:6", candidacies: 1,
			predicted: 2 * time.Second, window: 1662 * msec,
			text: []string{"quorum: no leader for 1.66 s after the fault of its active controller c2 (node 101, leader at epoch 4):\n  fault "},
		},
		{
			name: "a split vote", kind: results.FaultControllerKill,
			acks: map[int32][]time.Duration{0: steady}, files: splitVote(),
			leaderless: 3320 * msec, epoch: 4, newLeader: "c3", newEpoch: 6, noticed: "c1/server.log:5", candidacies: 3,
			predicted: 2 * time.Second, window: 3320 * msec,
			text: []string{"it took 3 candidacies: an election lost or split waits out an election timeout (controller.quorum.election.timeout.ms = 1000 ms, randomised up to twice that) and a backoff (up to controller.quorum.election.backoff.max.ms = 1000 ms)"},
		},
		{
			name: "no configuration logged", kind: results.FaultControllerKill,
			acks: map[int32][]time.Duration{0: steady}, files: electedAtOnce(""),
			leaderless: 1662 * msec, epoch: 4, newLeader: "c3", newEpoch: 5, noticed: "c1/server.log:2", candidacies: 1,
			window: 1662 * msec,
			text: []string{"give up on their leader controller.quorum.fetch.timeout.ms after their last successful fetch from it (controller.quorum.fetch.timeout.ms unknown: ",
				"/server.log: no logged configuration; Kafka's default is 2000 ms)"},
		},
		{
			// c2 came back and led again, but no other controller took
			// over: the quorum's gap never closed.
			name: "no other controller elected", kind: results.FaultControllerKill,
			acks: map[int32][]time.Duration{0: steady},
			files: map[string]string{
				"logs/c2/server.log": c2Led + raftLine(3*time.Second, 101, leaderState(101, 6), candidateState(101, 6)),
				"logs/c1/server.log": quorumConfig + raftLine(1620*msec, 100, prospectiveState(4, 101), followerState(4, 101)),
			},
			epoch: 4, newEpoch: -1, noticed: "c1/server.log:5", window: 6 * time.Second,
			text: []string{
				"quorum: no new leader after the fault of its active controller c2 (node 101, leader at epoch 4):\n",
				"  note: no other controller logged becoming the quorum's leader before the logs end; missing: [",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := handTrial{acks: tc.acks, files: tc.files, fault: controllerFault(tc.kind)}.write(t)
			tr := analyzeHand(t, dir)
			q := tr.Quorum
			if q == nil {
				t.Fatal("no quorum gap")
			}
			noticed := ""
			if q.Noticed != nil {
				noticed = q.Noticed.Source
			}
			if q.Leaderless != tc.leaderless || q.Epoch != tc.epoch || q.NewLeader != tc.newLeader || q.NewEpoch != tc.newEpoch ||
				noticed != tc.noticed || q.Candidacies != tc.candidacies || q.Predicted != tc.predicted {
				t.Errorf("leaderless %v, epoch %d, new leader %q at %d, noticed %q, %d candidacies, predicted %v\nwant %v, %d, %q at %d, %q, %d, %v",
					q.Leaderless, q.Epoch, q.NewLeader, q.NewEpoch, noticed, q.Candidacies, q.Predicted,
					tc.leaderless, tc.epoch, tc.newLeader, tc.newEpoch, tc.noticed, tc.candidacies, tc.predicted)
			}
			if (q.Elected == nil) == (q.Note == "") {
				t.Errorf("elected %+v, note %q: want one of them", q.Elected, q.Note)
			}
			checkQuorumChain(t, q)
			if tr.Gaps.Window != tc.window {
				t.Errorf("fault window %v, want %v: a gap while the quorum had no leader is the fault's", tr.Gaps.Window, tc.window)
			}
			if d := q.DataPath; d == nil || d.Stalled != tc.stalled {
				t.Errorf("data path %+v, want stalled %v", d, tc.stalled)
			}
			if len(tr.Stalls) != 0 {
				t.Errorf("stalls %+v: a controller fault has none to split", tr.Stalls)
			}
			text := writeBoth(t, tr)
			for _, want := range tc.text {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q:\n%s", want, text)
				}
			}
		})
	}
}

// The settings that predict the gap are read from a surviving controller's
// logged configuration, and say where, in the JSON report too.
func TestQuorumGapJSON(t *testing.T) {
	dir := handTrial{acks: map[int32][]time.Duration{0: every(-time.Second, 5*time.Second, 100*msec)},
		files: electedAtOnce(quorumConfig), fault: controllerFault(results.FaultControllerKill)}.write(t)
	tr := analyzeHand(t, dir)
	var js bytes.Buffer
	if err := WriteJSON(&js, tr); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Quorum struct {
			Leaderless float64   `json:"leaderless_seconds"`
			Predicted  float64   `json:"predicted_seconds"`
			Elected    LogLine   `json:"elected"`
			Fault      LogLine   `json:"fault"`
			Settings   []Setting `json:"settings"`
			DataPath   struct {
				Gap     float64 `json:"gap_seconds"`
				Stalled bool    `json:"stalled"`
			} `json:"data_path"`
		} `json:"quorum"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	q := got.Quorum
	if q.Leaderless != 1.662 || q.Predicted != 2 || q.Elected.Source != "c3/server.log:4" || q.Fault.Source != results.MetaFile ||
		q.DataPath.Gap != 0.1 || q.DataPath.Stalled {
		t.Errorf("quorum in report.json: %+v", q)
	}
	want := []Setting{
		{Name: "controller.quorum.fetch.timeout.ms", Node: "c1", Value: "2000", Source: SourceNodeConfig, Where: "c1/server.log:4"},
		{Name: "controller.quorum.election.timeout.ms", Node: "c1", Value: "1000", Source: SourceNodeConfig, Where: "c1/server.log:3"},
		{Name: "controller.quorum.election.backoff.max.ms", Node: "c1", Value: "1000", Source: SourceNodeConfig, Where: "c1/server.log:2"},
	}
	if !slices.Equal(q.Settings, want) {
		t.Errorf("settings %+v\nwant %+v", q.Settings, want)
	}
	var digest bytes.Buffer
	if err := (TextOptions{}).WriteDigest(&digest, tr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(digest.String(), "quorum 1.66 s (c2 -> c3, epoch 5): the other controllers give up") {
		t.Errorf("digest lacks the quorum's gap:\n%s", digest.String())
	}
}

// checkQuorumChain checks the gap's chain: from the fault to the new
// leader, each phase at the line it cites, notice bounded by the fetch
// timeout when it is known.
func checkQuorumChain(t *testing.T, q *QuorumGap) {
	t.Helper()
	if q.Elected == nil {
		if len(q.Phases) != 0 {
			t.Errorf("phases %+v without a new leader", q.Phases)
		}
		return
	}
	last := q.Phases[len(q.Phases)-1]
	if !q.Phases[0].Start.Equal(q.Fault.Time) || last.Name != QuorumPhaseElect || !last.End.Equal(q.Elected.Time) || q.Phases.Total() != q.Leaderless {
		t.Errorf("phases %+v: want fault → elected, %v in all", q.Phases, q.Leaderless)
	}
	if n, ok := q.Phases.Named(QuorumPhaseNotice); ok {
		if !n.End.Equal(q.Noticed.Time) || n.Source != q.Noticed.Source {
			t.Errorf("notice ends %v [%s], not at its line %v [%s]", n.End, n.Source, q.Noticed.Time, q.Noticed.Source)
		}
		if q.Predicted > 0 && (!n.Bound.Stated || n.Bound.High != q.Predicted || n.Bound.Beyond() != (n.Duration > q.Predicted+logResolution)) {
			t.Errorf("notice %v: bound %+v, want [0, %v]", n.Duration, n.Bound, q.Predicted)
		}
	}
}
