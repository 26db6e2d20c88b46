package analysis

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// handF is the hand-made trials' fault: the end of k1's process. Kafka logs
// to the millisecond, so every time here is whole milliseconds.
var handF = time.Date(2026, 11, 30, 3, 26, 9, 115_000_000, time.UTC)

const msec = time.Millisecond

// every returns from, from+step, ... up to and including to.
func every(from, to, step time.Duration) []time.Duration {
	var out []time.Duration
	for d := from; d <= to; d += step {
		out = append(out, d)
	}
	return out
}

// The log lines a hand-made trial holds, each at a time relative to handF,
// in the wording Kafka 4.3 and franz-go wrote in the recorded trials.

func kafkaLine(d time.Duration, msg, logger string) string {
	return "[" + handF.Add(d).Format("2006-01-02 15:04:05,000") + "] INFO " + msg + " (" + logger + ")\n"
}

func fenceLine(d time.Duration) string {
	return kafkaLine(d, "[QuorumController id=100] Fencing broker 1 at epoch 14 because its session has timed out.",
		"org.apache.kafka.controller.ReplicationControlManager")
}

// leaderLine is broker 2 starting to lead partition p.
func leaderLine(d time.Duration, p int) string {
	return kafkaLine(d, fmt.Sprintf("[Broker id=2] Leader orders-%d with topic id Some(abc) starts at leader epoch 1 from offset 40 with partition epoch 1, high watermark 40, ISR [2,3], adding replicas [] and removing replicas [] . Previous leader Some(1) and previous leader epoch was 0.", p),
		"state.change.logger")
}

// shrunkLine is broker 2, leading partition p, applying the ISR without 1.
func shrunkLine(d time.Duration, p int) string {
	return kafkaLine(d, fmt.Sprintf("[Broker id=2] Skipped the become-leader state change for orders-%d with topic id Some(abc), partition registration PartitionRegistration(replicas=[2, 3, 1], isr=[2, 3], leader=2, leaderEpoch=0, partitionEpoch=1) and isNew=false since it is already the leader with leader epoch 0. Current high watermark 40, ISR [2,3], adding replicas [] and removing replicas [].", p),
		"state.change.logger")
}

// restartLines are broker 1, restarted, starting on the metadata that
// still names it: leading orders-0 at its old epoch, and following orders-1.
func restartLines(d time.Duration) string {
	return kafkaLine(d, "[Broker id=1] Leader orders-0 with topic id Some(abc) starts at leader epoch 0 from offset 40 with partition epoch 0, high watermark 38, ISR [1,2,3], adding replicas [] and removing replicas [] . Previous leader None and previous leader epoch was -1.",
		"state.change.logger") +
		kafkaLine(d, "[Broker id=1] Follower orders-1 with topic id Some(abc) starts at leader epoch 0 from offset 40 with partition epoch 0 and high watermark 38. Current leader is 2. Previous leader None and previous leader epoch was -1.",
			"state.change.logger")
}

// learntLine is the producer learning that broker 2 leads partition p.
func learntLine(d time.Duration, p int) string {
	return handF.Add(d).Format("2006-01-02T15:04:05.000000000Z") +
		fmt.Sprintf(" DEBUG producer metadata refresh topic partition data changed topic=orders partition=%d new_leader=2 new_leader_epoch=1 old_leader=1 old_leader_epoch=0\n", p)
}

// handTrial is a trial made by hand: broker k1 (node 1) leads orders-0 and
// follows orders-1 (led by 2); k1's process ends at handF.
type handTrial struct {
	// acks are each partition's ack times, relative to handF.
	acks map[int32][]time.Duration
	// files are the trial's other files by path inside its directory,
	// "logs/c1/controller.log" or "client.log".
	files map[string]string
	// replicas, when set, replace each partition's replicas.
	replicas map[int32][]int32
	// fault, when set, replaces k1's SIGKILL.
	fault *results.Fault
	// ended, when set, is the trial's end after handF, in place of 6 s.
	ended time.Duration
}

// write lays the trial out in a new directory and returns it.
func (h handTrial) write(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	meta := &results.Meta{
		Kind:    "trial",
		Started: handF.Add(-3 * time.Second),
		Ended:   handF.Add(6 * time.Second),
		Cluster: results.Cluster{Brokers: map[string]int32{"k1": 1, "k2": 2, "k3": 3}},
		Probe: results.Probe{
			Topic: "orders", Partitions: []int32{0, 1}, Interval: 100 * msec, Acks: "all",
			Leaders:  map[int32]int32{0: 1, 1: 2},
			Replicas: map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}},
			Client:   map[string]string{"metadata_min_age": "100ms", "retry_backoff": "100ms", "retry_backoff_max": "1s"},
		},
		Fault: &results.Fault{Broker: "k1", NodeID: 1, Kind: "sigkill",
			SignalSent: handF.Add(-50 * msec), Finished: handF, ExitCode: 137},
	}
	if h.replicas != nil {
		meta.Probe.Replicas = h.replicas
	}
	if h.fault != nil {
		meta.Fault = h.fault
	}
	if h.ended > 0 {
		meta.Ended = handF.Add(h.ended)
	}
	if err := results.WriteMeta(dir, meta); err != nil {
		t.Fatal(err)
	}
	var probe bytes.Buffer
	enc := results.NewEncoder(&probe)
	for _, p := range slices.Sorted(maps.Keys(h.acks)) {
		for seq, d := range h.acks[p] {
			at := handF.Add(d)
			enc.Encode(&results.Message{Partition: p, Seq: int64(seq), Offset: int64(seq),
				Sent: at.Add(-3 * msec), Acked: at, Received: at.Add(2 * msec)})
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{results.ProbeFile: probe.String()}
	for name, text := range h.files {
		files[name] = text
	}
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// phase is what a test expects of one phase: its name and length.
type phase struct {
	name string
	d    time.Duration
}

func phaseLengths(st *Stall) []phase {
	var out []phase
	for _, ph := range st.Phases {
		out = append(out, phase{ph.Name, ph.Duration})
	}
	return out
}

// The stall of a partition split into phases, in the cases the recorded
// trials do not show.
func TestExplainEdges(t *testing.T) {
	// before is a second of acks every 100 ms, up to and including the fault.
	before := every(-time.Second, 0, 100*msec)
	after := func(from time.Duration) []time.Duration { return every(from, from+time.Second, 100*msec) }
	cat := func(parts ...[]time.Duration) []time.Duration { return slices.Concat(parts...) }

	for _, tc := range []struct {
		name  string
		trial handTrial
		p     int32
		// Expected of partition p's stall.
		role   results.Role
		began  time.Duration
		total  time.Duration
		open   bool
		phases []phase
		// text is a line the text report holds.
		text string
	}{
		{
			name: "every boundary logged",
			trial: handTrial{acks: map[int32][]time.Duration{0: cat(before, after(3000*msec))}, files: map[string]string{
				"logs/c1/controller.log":   fenceLine(2000 * msec),
				"logs/k2/state-change.log": leaderLine(2100*msec, 0),
				"client.log":               learntLine(2400*msec, 0),
			}},
			p: 0, role: "leader", total: 3000 * msec,
			phases: []phase{{PhaseDetect, 2000 * msec}, {PhaseElect, 100 * msec}, {PhaseClient, 300 * msec}, {PhaseFirstAck, 600 * msec}},
			text:   "p0 (led by the broker; new leader 2) 3.00 s = 2.00 detect + 0.10 elect + 0.30 client + 0.60 first ack\n",
		},
		{
			// p0 kept acking for half a second: the fence and the new
			// leader came before its stall and take none of it.
			name: "stall begins after the fault",
			trial: handTrial{acks: map[int32][]time.Duration{0: cat(before, every(100*msec, 500*msec, 100*msec), after(3000*msec))}, files: map[string]string{
				"logs/c1/controller.log":   fenceLine(200 * msec),
				"logs/k2/state-change.log": leaderLine(300*msec, 0),
				"client.log":               learntLine(1000*msec, 0),
			}},
			p: 0, role: "leader", began: 500 * msec, total: 2500 * msec,
			phases: []phase{{PhaseClient, 500 * msec}, {PhaseFirstAck, 2000 * msec}},
			text:   "p0 (led by the broker; new leader 2) acked until 0.50 s after the fault, then stalled 2.50 s = 0.50 client + 2.00 first ack\n",
		},
		{
			// The producer learnt the leader before the leader's own
			// line: the client boundary bounds no phase (a phase ends
			// at its line's time, never before it), and the note says
			// so, as it does for a stall that begins at the fault (the
			// next case).
			name: "boundary logged early, stall begins after the fault",
			trial: handTrial{acks: map[int32][]time.Duration{0: cat(before, every(100*msec, 500*msec, 100*msec), after(3000*msec))}, files: map[string]string{
				"logs/c1/controller.log":   fenceLine(600 * msec),
				"logs/k2/state-change.log": leaderLine(800*msec, 0),
				"client.log":               learntLine(700*msec, 0),
			}},
			// The producer learnt the leader before the leader's own
			// line: shown as it happened, at its line, taking none of
			// the time.
			p: 0, role: "leader", began: 500 * msec, total: 2500 * msec,
			phases: []phase{{PhaseDetect, 100 * msec}, {PhaseElect, 200 * msec}, {PhaseClient, 0}, {PhaseFirstAck, 2200 * msec}},
			text:   "out of order: its line came 0.10 s before the phase before it ended",
		},
		{
			name: "boundary logged early, stall begins at the fault",
			trial: handTrial{acks: map[int32][]time.Duration{0: cat(before, after(3000*msec))}, files: map[string]string{
				"logs/c1/controller.log":   fenceLine(600 * msec),
				"logs/k2/state-change.log": leaderLine(800*msec, 0),
				"client.log":               learntLine(700*msec, 0),
			}},
			p: 0, role: "leader", total: 3000 * msec,
			phases: []phase{{PhaseDetect, 600 * msec}, {PhaseElect, 200 * msec}, {PhaseClient, 0}, {PhaseFirstAck, 2200 * msec}},
			text:   "out of order: its line came 0.10 s before",
		},
		{
			// p0 never acked again: the phases the logs show are
			// there, but no first ack, and no total.
			name: "no ack after the fault",
			trial: handTrial{acks: map[int32][]time.Duration{0: before, 1: cat(before, every(100*msec, 5000*msec, 100*msec))}, files: map[string]string{
				"logs/c1/controller.log":   fenceLine(2000 * msec),
				"logs/k2/state-change.log": leaderLine(2100*msec, 0),
				"client.log":               learntLine(2400*msec, 0),
			}},
			p: 0, role: "leader", open: true,
			phases: []phase{{PhaseDetect, 2000 * msec}, {PhaseElect, 100 * msec}, {PhaseClient, 300 * msec}},
			text:   "p0 (led by the broker; new leader 2) no ack after the fault = 2.00 detect + 0.10 elect + 0.30 client\n",
		},
		{
			// k1 came back before the controller fenced it (a pod the
			// kubelet restarts): its follower of p1 fetched again, and
			// the fence, later, bounds none of p1's stall.
			name: "follower restarted before its fence",
			trial: handTrial{acks: map[int32][]time.Duration{1: cat(before, after(2200*msec))}, files: map[string]string{
				"logs/k1/state-change.log": restartLines(2000 * msec),
				"logs/c1/controller.log":   fenceLine(3000 * msec),
				"logs/k2/state-change.log": shrunkLine(3050*msec, 1),
			}},
			p: 1, role: "follower", total: 2200 * msec,
			phases: []phase{{PhaseReturn, 2000 * msec}, {PhaseFirstAck, 200 * msec}},
			text:   "p1 (the broker followed) 2.20 s = 2.00 return + 0.20 first ack\n",
		},
		{
			// The restarted k1's line as leader of p0, at its old epoch
			// and before the fence, is no election: k2's is.
			name: "leader restarted before its fence",
			trial: handTrial{acks: map[int32][]time.Duration{0: cat(before, after(3000*msec))}, files: map[string]string{
				"logs/k1/state-change.log": restartLines(1500 * msec),
				"logs/c1/controller.log":   fenceLine(2000 * msec),
				"logs/k2/state-change.log": leaderLine(2100*msec, 0),
				"client.log":               learntLine(2400*msec, 0),
			}},
			p: 0, role: "leader", total: 3000 * msec,
			phases: []phase{{PhaseDetect, 2000 * msec}, {PhaseElect, 100 * msec}, {PhaseClient, 300 * msec}, {PhaseFirstAck, 600 * msec}},
			text:   "p0 (led by the broker; new leader 2) 3.00 s = 2.00 detect + 0.10 elect + 0.30 client + 0.60 first ack\n",
		},
		{
			// k1's restart registered after its session had expired but
			// before the periodic check fenced it: the registration is
			// the detection, and no fence is logged.
			name: "new incarnation in place of the fence",
			trial: handTrial{acks: map[int32][]time.Duration{0: cat(before, after(3000*msec))}, files: map[string]string{
				"logs/c1/controller.log": kafkaLine(2000*msec, "[QuorumController id=100] Registering a new incarnation of broker 1. Previous incarnation ID was a; new incarnation ID is b. Generated 2 record(s) to clean up previous incarnations. Broker epoch will become 101.",
					"org.apache.kafka.controller.ClusterControlManager"),
				"logs/k2/state-change.log": leaderLine(2100*msec, 0),
				"client.log":               learntLine(2400*msec, 0),
			}},
			p: 0, role: "leader", total: 3000 * msec,
			phases: []phase{{PhaseDetect, 2000 * msec}, {PhaseElect, 100 * msec}, {PhaseClient, 300 * msec}, {PhaseFirstAck, 600 * msec}},
			text:   "why: broker 1, restarted under the same id, registered again 2.00 s after the process ended",
		},
		{
			// RF 1: the fence elects no one, and the stall says why.
			name: "only replica",
			trial: handTrial{acks: map[int32][]time.Duration{0: before}, replicas: map[int32][]int32{0: {1}, 1: {2, 3, 1}},
				files: map[string]string{"logs/c1/controller.log": fenceLine(2000 * msec)}},
			p: 0, role: "leader", open: true,
			phases: []phase{{PhaseDetect, 2000 * msec}},
			text:   "note: no other replica could take over: broker 1 holds the partition's only replica",
		},
		{
			// The controller's log holds no fence: the first phase
			// holds the detection too and is named for both, never
			// blamed on the election alone.
			name: "no fence line, leader",
			trial: handTrial{acks: map[int32][]time.Duration{0: cat(before, after(3000*msec))}, files: map[string]string{
				"logs/c1/controller.log":   kafkaLine(1000*msec, "[QuorumController id=100] Something else entirely.", "org.apache.kafka.controller.QuorumController"),
				"logs/k2/state-change.log": leaderLine(2100*msec, 0),
				"client.log":               learntLine(2400*msec, 0),
			}},
			p: 0, role: "leader", total: 3000 * msec,
			phases: []phase{{"detect+elect", 2100 * msec}, {PhaseClient, 300 * msec}, {PhaseFirstAck, 600 * msec}},
			text:   "p0 (led by the broker; new leader 2) 3.00 s = 2.10 detect+elect + 0.30 client + 0.60 first ack\n",
		},
		{
			name: "no fence line, follower",
			trial: handTrial{acks: map[int32][]time.Duration{1: cat(before, after(2200*msec))}, files: map[string]string{
				"logs/c1/controller.log":   "",
				"logs/k2/state-change.log": shrunkLine(2150*msec, 1),
			}},
			p: 1, role: "follower", total: 2200 * msec,
			phases: []phase{{"detect+elect", 2150 * msec}, {PhaseFirstAck, 50 * msec}},
			text:   "p1 (the broker followed) 2.20 s = 2.15 detect+elect + 0.05 first ack\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := analyzeHand(t, tc.trial.write(t))
			st := stallOf(t, tr, tc.p)
			checkPhases(t, tr, st)
			if st.Role != tc.role || st.Began != tc.began || st.Total != tc.total || st.FirstAck.IsZero() != tc.open {
				t.Errorf("p%d: role %q, began %v, total %v, first ack %v; want %q, %v, %v, open %v",
					tc.p, st.Role, st.Began, st.Total, st.FirstAck, tc.role, tc.began, tc.total, tc.open)
			}
			if got := phaseLengths(st); !slices.Equal(got, tc.phases) {
				t.Errorf("p%d phases %v, want %v", tc.p, got, tc.phases)
			}
			for _, ph := range st.Phases {
				if ph.Why == "" {
					t.Errorf("p%d %s: no explanation", tc.p, ph.Name)
				}
			}
			text := writeBoth(t, tr)
			if tc.text != "" && !strings.Contains(text, tc.text) {
				t.Errorf("text lacks %q:\n%s", tc.text, text)
			}
		})
	}
}

// analyzeHand analyses a hand-made trial, which has no log.csv.
func analyzeHand(t *testing.T, dir string) *Trial {
	t.Helper()
	trials, err := results.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Analyze(trials[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Integrity != nil || !slices.ContainsFunc(tr.Notes, func(n string) bool { return strings.HasPrefix(n, "no "+results.LogFile) }) {
		t.Errorf("a trial without %s: integrity %+v, notes %q", results.LogFile, tr.Integrity, tr.Notes)
	}
	return tr
}

// writeBoth renders tr as text and JSON and returns the text.
func writeBoth(t *testing.T, tr *Trial) string {
	t.Helper()
	var text, js bytes.Buffer
	if err := WriteText(&text, tr); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, tr); err != nil {
		t.Fatal(err)
	}
	return text.String()
}

// Without the nodes' logs, or with logs that hold nothing kbf knows, there
// is nothing to split a stall by; the report says the evidence is missing
// rather than putting the whole stall in one phase.
func TestExplainWithoutNodeLogs(t *testing.T) {
	acks := map[int32][]time.Duration{
		0: slices.Concat(every(-time.Second, 0, 100*msec), every(3000*msec, 4000*msec, 100*msec)),
		1: slices.Concat(every(-time.Second, 0, 100*msec), every(2200*msec, 3000*msec, 100*msec)),
	}
	for _, tc := range []struct {
		name    string
		files   map[string]string
		missing string // what the timeline lists as missing
	}{
		{"no logs at all", nil, "missing: k1 server.log, k1 state-change.log"},
		{"client log only", map[string]string{"client.log": learntLine(2400*msec, 0)}, "missing: k1 server.log, k1 state-change.log"},
		{"empty logs", map[string]string{"logs/c1/controller.log": "", "logs/c1/server.log": "", "logs/k1/server.log": "",
			"logs/k1/state-change.log": "", "logs/k2/state-change.log": "\n\n"}, "missing: k2 server.log, k3 server.log"},
		{"logs of nothing kbf knows", map[string]string{"logs/c1/controller.log": kafkaLine(time.Second, "[QuorumController id=100] Nothing to see.", "org.apache.kafka.controller.QuorumController"),
			"logs/k1/server.log": "garbage\n"}, "unreadable lines: 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := analyzeHand(t, handTrial{acks: acks, files: tc.files}.write(t))
			if len(tr.Stalls) != 0 {
				t.Errorf("stalls %+v from a trial without node logs", tr.Stalls)
			}
			if !slices.ContainsFunc(tr.Notes, func(n string) bool { return strings.Contains(n, results.NodeLogsDir+"/") }) {
				t.Errorf("notes %q do not say the node logs are missing", tr.Notes)
			}
			if g := tr.Gaps.Partitions[0].Ack.Fault; g == nil || g.Duration() != 3000*msec {
				t.Errorf("p0 ack gap %+v, want 3 s: the gaps need no logs", g)
			}
			text := writeBoth(t, tr)
			for _, want := range []string{"\nnote: no event in the node logs", tc.missing} {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q:\n%s", want, text)
				}
			}
		})
	}
}

// A node log that exists but cannot be read leaves the stalls unsplit, with
// a note naming it; the gaps are reported all the same.
func TestExplainUnreadableNodeLogs(t *testing.T) {
	acks := map[int32][]time.Duration{0: slices.Concat(every(-time.Second, 0, 100*msec), every(3000*msec, 4000*msec, 100*msec))}
	dir := handTrial{acks: acks, files: map[string]string{"logs/k2/state-change.log": leaderLine(2900*msec, 0)}}.write(t)
	bad := filepath.Join(dir, results.NodeLogsDir, "c1", results.ControllerLog)
	if err := os.MkdirAll(bad, 0o755); err != nil { // a directory where the log should be
		t.Fatal(err)
	}
	tr := analyzeHand(t, dir)
	if len(tr.Stalls) != 0 || tr.Timeline != nil {
		t.Errorf("stalls %+v from unreadable logs", tr.Stalls)
	}
	if !slices.ContainsFunc(tr.Notes, func(n string) bool {
		return strings.Contains(n, "unreadable") && strings.Contains(n, results.ControllerLog)
	}) {
		t.Errorf("notes %q do not name the unreadable log", tr.Notes)
	}
	if g := tr.Gaps.Partitions[0].Ack.Fault; g == nil || g.Duration() != 3000*msec {
		t.Errorf("p0 ack gap %+v, want 3 s", g)
	}
}

// TestExplainFetchBackoff checks the first ack is put down to the followers'
// replica.fetch.backoff.ms only when the broker held the produce request for
// about a whole number of backoffs, as the leader logged the setting.
func TestExplainFetchBackoff(t *testing.T) {
	config := kafkaLine(-10*time.Second, "KafkaConfig values: ", "org.apache.kafka.common.config.AbstractConfig") +
		"\treplica.fetch.backoff.ms = 700\n\tbroker.id = 2\n"
	readProduce := func(d, held time.Duration) string {
		return handF.Add(d).Format("2006-01-02T15:04:05.000000000Z") +
			fmt.Sprintf(" DEBUG producer read Produce v13 broker=2 bytes_read=66 read_wait=10µs time_to_read=%s err=<nil>\n", held)
	}
	for _, tc := range []struct {
		name     string
		held     time.Duration // how long broker 2 held the produce request
		firstAck time.Duration // after handF
		want     string
	}{
		{"two backoffs", 1380 * msec, 3800 * msec, "about 2 × replica.fetch.backoff.ms = 700 ms"},
		{"one backoff", 690 * msec, 3100 * msec, "about replica.fetch.backoff.ms = 700 ms"},
		{"between backoffs", 1050 * msec, 3460 * msec, "held the produce request 1.05 s"},
		{"the producer's own wait", 50 * msec, 3100 * msec, "retry backoff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acks := slices.Concat(every(-time.Second, 0, 100*msec), every(tc.firstAck, tc.firstAck+time.Second, 100*msec))
			h := handTrial{acks: map[int32][]time.Duration{0: acks}, files: map[string]string{
				"logs/c1/controller.log":   fenceLine(2000 * msec),
				"logs/k2/state-change.log": leaderLine(2300*msec, 0),
				"logs/k2/server.log":       config,
				"client.log":               learntLine(2400*msec, 0) + readProduce(tc.firstAck-time.Millisecond, tc.held),
			}}
			tr := analyzeHand(t, h.write(t))
			st := stallOf(t, tr, 0)
			last := st.Phases[len(st.Phases)-1]
			if last.Name != PhaseFirstAck || !strings.Contains(last.Why, tc.want) {
				t.Errorf("last phase %s: %q, want it to say %q", last.Name, last.Why, tc.want)
			}
		})
	}
}

// TestExplainUnknownConfig: a configuration that could not be read is
// "unknown" in the explanation and its settings, never taken for Kafka's
// default; one that was read says where.
func TestExplainUnknownConfig(t *testing.T) {
	config := kafkaLine(-10*time.Second, "KafkaConfig values: ", "org.apache.kafka.common.config.AbstractConfig") +
		"\tbroker.heartbeat.interval.ms = 2000\n\tbroker.session.timeout.ms = 6000\n"
	acks := map[int32][]time.Duration{0: slices.Concat(every(-time.Second, 0, 100*msec), every(3000*msec, 4000*msec, 100*msec))}
	for _, tc := range []struct {
		name      string
		server    map[string]string // c1's server.log, when there is one
		source    SettingSource
		where     string
		want, not string
	}{
		{"no server.log", nil, SourceUnknown, "no such file", "broker.session.timeout.ms unknown", "= 9000 ms"},
		{"no configuration block", map[string]string{"logs/c1/server.log": "garbage\n"}, SourceUnknown, timeline.ErrNoConfig.Error(),
			"broker.session.timeout.ms unknown", "= 9000 ms"},
		{"logged", map[string]string{"logs/c1/server.log": config}, SourceNodeConfig, "c1/server.log:3",
			"broker.session.timeout.ms = 6000 ms", "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"logs/c1/controller.log": fenceLine(2000 * msec), "logs/k2/state-change.log": leaderLine(2300*msec, 0)}
			for k, v := range tc.server {
				files[k] = v
			}
			tr := analyzeHand(t, handTrial{acks: acks, files: files}.write(t))
			st := stallOf(t, tr, 0)
			detect := st.Phases[0]
			if detect.Name != PhaseDetect || !strings.Contains(detect.Why, tc.want) || strings.Contains(detect.Why, tc.not) {
				t.Errorf("%s: %q; want %q and not %q", detect.Name, detect.Why, tc.want, tc.not)
			}
			if len(detect.Settings) == 0 {
				t.Fatal("no settings")
			}
			s := detect.Settings[0]
			if s.Name != "broker.session.timeout.ms" || s.Source != tc.source || !strings.Contains(s.Where, tc.where) ||
				(tc.source == SourceUnknown) != (s.Value == "") {
				t.Errorf("setting %+v, want source %s where %q", s, tc.source, tc.where)
			}
		})
	}
}

// TestExplainStuckProducer checks an open stall whose new leader the logs
// show is put down to the producer's requests hanging on the faulted broker.
func TestExplainStuckProducer(t *testing.T) {
	line := func(d time.Duration, rest string) string {
		return handF.Add(d).Format("2006-01-02T15:04:05.000000000Z") + " DEBUG producer " + rest + "\n"
	}
	h := handTrial{acks: map[int32][]time.Duration{0: every(-time.Second, 0, 100*msec)}, files: map[string]string{
		"logs/c1/controller.log":   fenceLine(2000 * msec),
		"logs/k2/state-change.log": leaderLine(2100*msec, 0),
		"client.log": line(4000*msec, `read Produce v13 broker=1 bytes_read=0 time_to_read=4s err="read tcp 127.0.0.1:1->127.0.0.1:19092: i/o timeout"`) +
			line(4001*msec, "wrote Metadata v13 broker=1 bytes_written=46 err=<nil>"),
	}}
	tr := analyzeHand(t, h.write(t))
	st := stallOf(t, tr, 0)
	if !st.FirstAck.IsZero() || !strings.Contains(st.Note, "1 of its requests to broker 1 timed out") ||
		!strings.Contains(st.Note, "1 metadata request(s) to that same broker") {
		t.Errorf("first ack %v, note %q", st.FirstAck, st.Note)
	}
}

// TestExplainRestartedBroker is a recorded SIGKILL on Kubernetes, where the
// kubelet restarted kafka-broker-2 (node 2) about a second after it died:
// the restarted broker followed p1 and p2 again before the controller
// fenced it, which ended their stalls, and it logged itself leader of p0
// at its old epoch, which was no election: broker 3's line is.
func TestExplainRestartedBroker(t *testing.T) {
	tr := analyze(t, unpack(t, "k8s-sigkill-restarted.tar.gz"))
	led := stallOf(t, tr, 0)
	checkPhases(t, tr, led)
	if got, want := phaseNames(led), []string{PhaseDetect, PhaseElect, PhaseClient, PhaseFirstAck}; !slices.Equal(got, want) || led.NewLeader != 3 {
		t.Errorf("p0: phases %q, new leader %d; want %q and 3", got, led.NewLeader, want)
	}
	for _, p := range []int32{1, 2} {
		st := stallOf(t, tr, p)
		checkPhases(t, tr, st)
		if got, want := phaseNames(st), []string{PhaseReturn, PhaseFirstAck}; st.Role != results.RoleFollowed || st.Unrelated || !slices.Equal(got, want) {
			t.Fatalf("p%d: role %q, not the fault's %v, phases %q; want a followed partition's %q", p, st.Role, st.Unrelated, got, want)
		}
		ret := st.Phases[0]
		if !strings.HasPrefix(ret.Source, "kafka-broker-2/state-change.log:") || !strings.Contains(ret.Why, "came back before the controller fenced it") {
			t.Errorf("p%d return: source %q, why %q", p, ret.Source, ret.Why)
		}
		// The fence came after the stall ended, and is said to.
		if fence, ok := tr.Timeline.Fenced(2, tr.FaultAt); !ok || !fence.Time.After(st.FirstAck) || !strings.Contains(ret.Why, "fenced at "+clock(fence.Time)) {
			t.Errorf("p%d: fence %v (%v) after the first ack %v, and named in %q", p, fence.Time, ok, st.FirstAck, ret.Why)
		}
	}
}
