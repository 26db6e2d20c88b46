package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

var fault = time.Date(2026, 11, 30, 16, 42, 9, 0, time.UTC)

func at(ms int) time.Time { return fault.Add(time.Duration(ms) * time.Millisecond) }

// trial is a hand-made analysis of a SIGKILL of k1 with the stalls and
// clients given: what the renderers get from analysis.Analyze.
func trial(stalls []analysis.Stall, clients []analysis.ClientResult, diffs []analysis.ClientDiff) *analysis.Trial {
	return &analysis.Trial{
		Meta: &results.Meta{Kind: "trial", Fault: &results.Fault{Kind: results.FaultSIGKILL, Broker: "k1", NodeID: 1},
			Probe: results.Probe{Topic: "orders", Partitions: []int32{0}, Interval: 20 * time.Millisecond, Acks: "all"}},
		FaultAt: fault, Gaps: gaps.NewReport(gaps.Options{}), Stalls: stalls, Clients: clients, ClientDiffs: diffs,
	}
}

// led is p0's stall, led by the faulted broker: 1.00 s detect, 0.20 s
// client, 0.30 s first ack; the client phase names a flag's setting.
func led() analysis.Stall {
	return analysis.Stall{Partition: 0, Role: results.RoleLed, Leader: 1, NewLeader: 2, FirstAck: at(1500), Total: 1500 * time.Millisecond,
		Phases: []analysis.Phase{
			{Name: analysis.PhaseDetect, Start: at(0), End: at(1000), Duration: time.Second,
				Explanation: analysis.Explanation{Evidence: "Fencing broker 1", Source: "c1/controller.log:92", Why: "the session expired",
					Setting: "broker.session.timeout.ms", Settings: []analysis.Setting{{Name: "broker.session.timeout.ms", Node: "c1", Value: "1000", Source: analysis.SourceNodeConfig}}}},
			{Name: analysis.PhaseClient, Start: at(1000), End: at(1200), Duration: 200 * time.Millisecond,
				Explanation: analysis.Explanation{Why: "the producer refreshed its metadata", Setting: "metadata_min_age",
					Settings: []analysis.Setting{{Name: "metadata_min_age", Value: "100ms", Source: analysis.SourceClientConfig}}}},
			{Name: analysis.PhaseFirstAck, Start: at(1200), End: at(1500), Duration: 300 * time.Millisecond},
		}}
}

func TestWriteText(t *testing.T) {
	flag := func(s string) string {
		if s == "metadata_min_age" {
			return "--metadata-min-age"
		}
		return ""
	}
	cp := func(ack time.Duration) []analysis.ClientPartition {
		return []analysis.ClientPartition{{Partition: 0, Role: results.RoleLed, Ack: ack}}
	}
	two := []analysis.ClientResult{{Name: analysis.FranzGo, Partitions: cp(time.Second)}, {Name: "java", Partitions: cp(time.Second + 3*time.Millisecond)}}
	for _, tc := range []struct {
		name   string
		tr     *analysis.Trial
		flag   func(string) string
		want   []string
		absent []string
	}{
		{name: "phases with their ends and evidence", tr: trial([]analysis.Stall{led()}, nil, nil),
			want: []string{
				"sigkill of k1 (node 1) at 2026-11-30 16:42:09.000\n",
				"p0 (led by the broker; new leader 2) 1.50 s = 1.00 detect + 0.20 client + 0.30 first ack\n",
				"  detect     1.00 s, ends 16:42:10.000: Fencing broker 1 [c1/controller.log:92]\n            why: the session expired\n            shorten: broker.session.timeout.ms\n",
			}},
		{name: "a client setting's flag", tr: trial([]analysis.Stall{led()}, nil, nil), flag: flag,
			want:   []string{"shorten: metadata_min_age; flag --metadata-min-age\n"},
			absent: []string{"broker.session.timeout.ms; flag"}},
		{name: "a stall's start explained", tr: func() *analysis.Trial {
			st := led()
			st.Began = 500 * time.Millisecond
			st.Start = analysis.Explanation{Evidence: "Fencing broker 1", Source: "c1/controller.log:92", Why: "it led on until fenced"}
			return trial([]analysis.Stall{st}, nil, nil)
		}(), want: []string{"acked until 0.50 s after the fault, then stalled 1.50 s", "  began     Fencing broker 1 [c1/controller.log:92]\n            why: it led on until fenced\n"}},
		{name: "a difference the probes measured", tr: trial(nil, two, []analysis.ClientDiff{{Partition: 0, Longest: "java", Shortest: analysis.FranzGo,
			Diff: 300 * time.Millisecond, Measurable: true, Why: "java learnt the new leader later"}}),
			want: []string{"  p0: java stalled 0.30 s longer than franz-go: java learnt the new leader later\n"}},
		{name: "a difference below the probes' resolution", tr: trial(nil, two, []analysis.ClientDiff{{Partition: 0, Longest: "java", Shortest: analysis.FranzGo,
			Diff: 3 * time.Millisecond, Resolution: 20 * time.Millisecond, Why: "no measurable difference"}}),
			want: []string{"clients side by side"}, absent: []string{"longer than"}},
		{name: "the probe stalled itself", tr: func() *analysis.Trial {
			tr := trial(nil, nil, nil)
			tr.Meta.Probe.LongestSendGap = 300 * time.Millisecond
			return tr
		}(), want: []string{"probe self-check: longest gap between two sends to a partition 0.300 s: the probe itself stalled"}},
		{name: "the probe kept time", tr: func() *analysis.Trial {
			tr := trial(nil, nil, nil)
			tr.Meta.Probe.LongestSendGap = 30 * time.Millisecond
			return tr
		}(), want: []string{"probe self-check: longest gap between two sends to a partition 0.030 s\n"}, absent: []string{"the probe itself stalled"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := (TextOptions{Flag: tc.flag}).WriteText(&b, tc.tr); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("text lacks %q:\n%s", w, b.String())
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(b.String(), a) {
					t.Errorf("text has %q:\n%s", a, b.String())
				}
			}
		})
	}
}

// TestWriteJSONStall checks that a stall's explanations keep the JSON's
// flat fields, and a phase its end and seconds.
func TestWriteJSONStall(t *testing.T) {
	st := led()
	st.Start = analysis.Explanation{Evidence: "Fencing broker 1", Source: "c1/controller.log:92", Why: "it led on until fenced"}
	st.Receive = analysis.Explanation{Why: "the consumer backed off", Setting: "retry_backoff_max"}
	st.Consumer = analysis.Explanation{Why: "the consumer never moved"}
	var b bytes.Buffer
	if err := WriteJSON(&b, trial([]analysis.Stall{st}, nil, nil)); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Stalls []map[string]any `json:"stalls"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Stalls) != 1 {
		t.Fatalf("%d stalls in the JSON, want 1", len(got.Stalls))
	}
	s := got.Stalls[0]
	for key, want := range map[string]any{
		"start_why": "it led on until fenced", "start_evidence": "Fencing broker 1", "start_source": "c1/controller.log:92",
		"receive_why": "the consumer backed off", "receive_setting": "retry_backoff_max", "consumer_note": "the consumer never moved",
		"total_seconds": 1.5,
	} {
		if s[key] != want {
			t.Errorf("stall %s = %v, want %v", key, s[key], want)
		}
	}
	ph := s["phases"].([]any)[0].(map[string]any)
	if ph["seconds"] != 1.0 || ph["evidence"] != "Fencing broker 1" || ph["setting"] != "broker.session.timeout.ms" || ph["end"] == nil {
		t.Errorf("detect phase %v, want its end, 1 s, its evidence and setting", ph)
	}
}

// TestCoordinatorLine: a trial with a group says, on the line after its
// title, whether the group's coordinator was the faulted broker — one line
// in the digest, the same in the full text — and report.json carries it.
func TestCoordinatorLine(t *testing.T) {
	tr := trial(nil, nil, nil)
	tr.Coordinator = &analysis.GroupCoordinator{Group: "kbf-g", NodeID: 3, Broker: "k3", Via: results.FoundByFindCoordinator, At: at(-50)}
	const want = "group kbf-g's coordinator was broker 3 (k3), not the faulted one (FindCoordinator at 16:42:08.950)\n"
	var bare, text, digest bytes.Buffer
	if err := (TextOptions{}).WriteDigest(&bare, trial(nil, nil, nil)); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&text, tr); err != nil {
		t.Fatal(err)
	}
	if err := (TextOptions{}).WriteDigest(&digest, tr); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]string{"text": text.String(), "digest": digest.String()} {
		_, rest, _ := strings.Cut(b, "\n")
		if !strings.HasPrefix(rest, want) || strings.Count(b, "coordinator") != 1 {
			t.Errorf("%s:\n%s\nwant its second line %q", name, b, want)
		}
	}
	if n, m := strings.Count(digest.String(), "\n"), strings.Count(bare.String(), "\n"); n != m+1 {
		t.Errorf("the digest has %d lines, %d without the group: want one more", n, m)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, tr); err != nil {
		t.Fatal(err)
	}
	var got struct {
		C *coordinatorJSON `json:"group_coordinator"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil || got.C == nil || got.C.NodeID != 3 || got.C.Faulted || got.C.Group != "kbf-g" {
		t.Errorf("report.json's group_coordinator %+v (%v)", got.C, err)
	}
}

// TestGroupJSON checks the group reader's part of report.json: durations in
// seconds, the rebalances counted after the first assignment.
func TestGroupJSON(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	fault := &gaps.Gap{Start: t0.Add(9902 * time.Millisecond), End: t0.Add(20 * time.Second)}
	v := &analysis.GroupView{
		Settings:    results.GroupSettings{ID: "kbf-probe-r", Protocol: "classic", Commit: "sync"},
		Partitions:  []analysis.GroupPartition{{Partition: 0, Processed: 280, Stalls: gaps.Stalls{Fault: fault}}},
		Commits:     28,
		CommitStall: &analysis.CommitStall{Start: t0.Add(10503 * time.Millisecond), End: t0.Add(19505 * time.Millisecond)},
		Changes: []results.GroupEvent{
			{Time: t0.Add(500 * time.Millisecond), Kind: results.GroupAssigned, Generation: 1, Partitions: []int32{0}},
			{Time: t0.Add(19600 * time.Millisecond), Kind: results.GroupRevoked, Generation: 1, Partitions: []int32{0}},
			{Time: t0.Add(19700 * time.Millisecond), Kind: results.GroupAssigned, Generation: 2, Partitions: []int32{0}},
		},
	}
	b, err := json.Marshal(groupDoc(v, nil))
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		CommitStall struct{ Sec float64 } `json:"commit_stall"`
		Partitions  []struct {
			StallSec float64 `json:"stall_sec"`
		}
		Rebalances int
	}
	if err := json.Unmarshal(b, &back); err != nil || back.CommitStall.Sec != 9.002 || len(back.Partitions) != 1 || back.Partitions[0].StallSec != 10.098 || back.Rebalances != 2 {
		t.Errorf("JSON %s: %+v %v", b, back, err)
	}
	if b, _ := json.Marshal(groupDoc(nil, nil)); string(b) != "null" {
		t.Errorf("no group reader: %s", b)
	}
}

// TestGroupRecoveryRender checks the group's recovery in report.json
// (under group.recovery, seconds, each phase's evidence and settings) and
// in the text (each phase at its source, the settings' values and where
// they were read).
func TestGroupRecoveryRender(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 6, 4, 36, 741e6, time.UTC)
	load := analysis.Phase{Name: analysis.GroupPhaseLoad, Start: t0, End: t0.Add(146 * time.Millisecond), Duration: 146 * time.Millisecond,
		Explanation: analysis.Explanation{Evidence: "[GroupCoordinator id=1] Finished loading", Source: "k1/server.log:1775", Why: "it reads the partition",
			Setting: "a smaller partition", Settings: []analysis.Setting{{Name: "offsets.load.buffer.size", Node: "k1", Value: "5242880", Source: analysis.SourceNodeConfig, Where: "k1/server.log:1074"}}}}
	r := &analysis.GroupRecovery{Key: "kbf-g", Partition: 45, Coordinator: 2, NewCoordinator: 1, Faulted: true, Loaded: 1782,
		Partitions: analysis.Setting{Name: "offsets.topic.num.partitions", Value: "50", Source: analysis.SourceNodeConfig, Where: "k2/server.log:1080"},
		Phases:     []analysis.Phase{load}}
	b, err := json.Marshal(groupDoc(&analysis.GroupView{}, r))
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Recovery struct {
			OffsetsPartition int32   `json:"offsets_partition"`
			NewCoordinator   int32   `json:"new_coordinator"`
			TotalSec         float64 `json:"total_sec"`
			Phases           []struct {
				Name     string
				Source   string
				Seconds  float64
				Settings []struct{ Name, Value, Where string }
			}
		}
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	rc := back.Recovery
	if rc.OffsetsPartition != 45 || rc.NewCoordinator != 1 || rc.TotalSec != 0.146 || len(rc.Phases) != 1 ||
		rc.Phases[0].Source != "k1/server.log:1775" || rc.Phases[0].Seconds != 0.146 || len(rc.Phases[0].Settings) != 1 || rc.Phases[0].Settings[0].Value != "5242880" {
		t.Errorf("JSON %s", b)
	}
	var txt bytes.Buffer
	TextOptions{}.writeGroupRecovery(&txt, r)
	for _, want := range []string{"partition 45", "= 50 [k2/server.log:1080]", "load", "0.15 s", "[k1/server.log:1775]", "offsets.load.buffer.size = 5242880, k1/server.log:1074"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
	if b, _ := json.Marshal(groupRecoveryDoc(nil)); string(b) != "null" {
		t.Errorf("no recovery: %s", b)
	}
}

// TestSpanJSON pins the bytes of the intervals report.json writes with
// their length: a failback phase and the two commit stalls.
func TestSpanJSON(t *testing.T) {
	ph := analysis.Phase{Name: "elect", Start: fault, End: fault.Add(1500 * time.Millisecond), Duration: 1500 * time.Millisecond,
		Explanation: analysis.Explanation{Evidence: "line", Source: "k1", Why: "why"}}
	fb := failbackDoc(&analysis.FailbackView{Partitions: []analysis.FailbackPartition{{Phases: analysis.Phases{ph}}}})
	b, err := json.Marshal(fb.Partitions[0].Phases[0])
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"name":"elect","start":"2026-11-30T16:42:09Z","end":"2026-11-30T16:42:10.5Z","sec":1.5,"evidence":"line","source":"k1","why":"why"}`
	if string(b) != want {
		t.Errorf("failback phase:\n got %s\nwant %s", b, want)
	}
	s := &analysis.CommitStall{Start: fault, End: fault.Add(2 * time.Second), Open: true, Failed: 3}
	b, err = json.Marshal(txnDoc(&analysis.Trial{Txn: &analysis.TxnView{CommitStall: s}}).CommitStall)
	if err != nil {
		t.Fatal(err)
	}
	const wantTxn = `{"start":"2026-11-30T16:42:09Z","end":"2026-11-30T16:42:11Z","sec":2,"open":true,"not_committed_within":3}`
	if string(b) != wantTxn {
		t.Errorf("transactions' commit stall:\n got %s\nwant %s", b, wantTxn)
	}
	b, err = json.Marshal(groupDoc(&analysis.GroupView{CommitStall: s}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if wantGroup := `"commit_stall":{"start":"2026-11-30T16:42:09Z","end":"2026-11-30T16:42:11Z","sec":2,"open":true,"failed":3}`; !strings.Contains(string(b), wantGroup) {
		t.Errorf("group's commit stall: %s lacks %s", b, wantGroup)
	}
}
