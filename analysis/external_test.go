package analysis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// TestExternalBroker names an external fault's broker from recorded
// evidence: the cluster's sign first, then the replica view, then the
// clients' leader moves, and never one the evidence contradicts.
func TestExternalBroker(t *testing.T) {
	F := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return F.Add(d) }
	brokers := map[string]int32{"k1": 1, "k2": 2, "k3": 3}
	probeOnly := &results.Fault{Kind: results.FaultExternal, NodeID: -1, Broker: results.BrokerUnknown,
		Signs: []results.Sign{{At: F, Source: results.SignProbe, NodeID: -1, What: "partition 2: no ack (3 of 3 partitions stalled)"}}}
	fenced := &results.Fault{Kind: results.FaultExternal, NodeID: 1, Signs: append(probeOnly.Signs,
		results.Sign{At: at(9 * time.Second), Source: results.SignCluster, NodeID: 1, What: "broker 1 fenced"})}
	whole := &results.Fault{Kind: results.FaultExternal, NodeID: -1, Signs: append(probeOnly.Signs,
		results.Sign{At: at(2 * time.Second), Source: results.SignCluster, NodeID: -1, What: "no broker answered"})}
	// k1 killed: its answers turn to errors, the others answer on.
	killed := &ReplicaView{
		Silent:   []SilentBroker{{Broker: 1, LastAnswer: at(-50 * time.Millisecond), FirstError: at(60 * time.Millisecond), Err: "connection refused"}},
		Answered: map[int32]time.Time{1: at(-50 * time.Millisecond), 2: at(5 * time.Second), 3: at(5 * time.Second)},
	}
	frozenFirst := func(first int32) *ReplicaView {
		v := &ReplicaView{Answered: map[int32]time.Time{1: at(5 * time.Second), 2: at(5 * time.Second), 3: at(5 * time.Second)}}
		for p := int32(0); p < 3; p++ {
			pr := PartitionReplicas{Partition: p}
			for b := int32(1); b <= 3; b++ {
				stopped := at(100 * time.Millisecond)
				if b == first {
					stopped = at(-200 * time.Millisecond)
				}
				pr.Frozen = append(pr.Frozen, ReplicaStop{Broker: b, Stop: Stop{Stopped: stopped}})
			}
			v.Partitions = append(v.Partitions, pr)
		}
		return v
	}
	tied := frozenFirst(0) // every replica froze together
	leftISR := &ReplicaView{Partitions: []PartitionReplicas{
		{Partition: 0, Changes: []StateChange{{Leader: 1, ISR: []int32{1, 2, 3}}, {Time: at(9 * time.Second), Leader: 2, ISR: []int32{2, 3}}}},
		{Partition: 1, Changes: []StateChange{{Leader: 2, ISR: []int32{2, 3, 1}}, {Time: at(9 * time.Second), Leader: 2, ISR: []int32{2, 3}}}},
	}}
	allSilent := &ReplicaView{
		Silent: []SilentBroker{{Broker: 1, FirstError: at(2 * time.Second), Err: "timed out"}, {Broker: 2, FirstError: at(2 * time.Second), Err: "timed out"},
			{Broker: 3, FirstError: at(2100 * time.Millisecond), Err: "timed out"}},
		Answered: map[int32]time.Time{1: at(-10 * time.Millisecond), 2: at(-10 * time.Millisecond), 3: at(-10 * time.Millisecond)},
	}
	move := func(client string, p, from, to int32, d time.Duration) timeline.Event {
		return timeline.Event{Time: at(d), Node: client, Kind: timeline.KindClientLeader, Partition: p, PrevLeader: from, Leader: to}
	}
	awayFrom1 := []timeline.Event{move("producer", 0, 1, 2, 9*time.Second), move("consumer", 0, 1, 2, 9*time.Second)}
	awayFrom3 := []timeline.Event{move("producer", 2, 3, 1, 9*time.Second)}
	before := []timeline.Event{move("producer", 0, 3, 1, -time.Minute)}
	tests := []struct {
		name   string
		f      *results.Fault
		rv     *ReplicaView
		moves  []timeline.Event
		id     int32
		broker string
		by     string
		says   string
	}{
		{"the cluster's fence", fenced, nil, nil, 1, "k1", ByCluster, "broker 1 fenced"},
		{"the fence, the replica view and the clients agree", fenced, killed, awayFrom1, 1, "k1", ByCluster, "the clients moved away from leader 1"},
		{"the fence came after the trial: the broker that stopped answering", probeOnly, killed, nil, 1, "k1", ByReplicas, "broker 1 stopped answering"},
		{"no fence, and the clients moved away from the broker that stopped answering", probeOnly, killed, awayFrom1, 1, "k1", ByReplicas, "p0 1 -> 2"},
		{"whose LEO froze first", probeOnly, frozenFirst(1), nil, 1, "k1", ByReplicas, "froze first"},
		{"LEOs frozen together name no one", probeOnly, tied, nil, -1, results.BrokerUnknown, ByNone, "no sign"},
		{"the broker out of the ISRs", probeOnly, leftISR, nil, 1, "k1", ByReplicas, "left the ISRs"},
		{"the clients alone", probeOnly, nil, awayFrom1, 1, "k1", ByClients, "producer p0 1 -> 2"},
		{"a leader move before the fault is not evidence", probeOnly, nil, before, -1, results.BrokerUnknown, ByNone, "no sign"},
		{"evidence that disagrees names no one", probeOnly, killed, awayFrom3, -1, results.BrokerUnknown, ByNone, "disagrees"},
		{"the probe alone, every partition stalled: unknown, not the stalled partition's leader", probeOnly, nil, nil, -1, results.BrokerUnknown, ByNone, "no sign"},
		{"the whole cluster by the run's sign", whole, allSilent, nil, -1, results.BrokerCluster, ByCluster, "no broker answered"},
		{"the whole cluster by the replica view", probeOnly, allSilent, nil, -1, results.BrokerCluster, ByReplicas, "every broker stopped answering"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tl *timeline.Timeline
			if tc.moves != nil {
				tl = &timeline.Timeline{Events: tc.moves}
			}
			got := externalBroker(tc.f, tc.rv, tl, F, brokers)
			if got.NodeID != tc.id || got.Broker != tc.broker || got.By != tc.by || !strings.Contains(got.Evidence, tc.says) {
				t.Errorf("got %+v, want node %d %q by %s saying %q", got, tc.id, tc.broker, tc.by, tc.says)
			}
		})
	}
}

// TestNameExternal: the trial's fault record says the broker the evidence
// names, and its heading says an unknown broker or the whole cluster as
// such, while the record read from disk is left as the run wrote it.
func TestNameExternal(t *testing.T) {
	F := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		signs []results.Sign
		title string
	}{
		{"probe only", []results.Sign{{At: F, Source: results.SignProbe, NodeID: -1}}, "external of an unknown broker at 2026-12-01 22:00:00.000"},
		{"whole cluster", []results.Sign{{At: F, Source: results.SignCluster, NodeID: -1, What: "no broker answered"}}, "external of the whole cluster at 2026-12-01 22:00:00.000"},
		{"fenced", []results.Sign{{At: F, Source: results.SignProbe, NodeID: -1}, {At: F.Add(9 * time.Second), Source: results.SignCluster, NodeID: 2, What: "broker 2 fenced"}}, "external of k2 (node 2) at 2026-12-01 22:00:00.000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			disk := &results.Meta{Kind: "trial", Cluster: results.Cluster{Brokers: map[string]int32{"k1": 1, "k2": 2}},
				Fault: &results.Fault{Kind: results.FaultExternal, NodeID: 3, Broker: "k3", Signs: tc.signs}}
			ev, n := externalOf(&evidence{meta: disk, F: F}, nil)
			tr := &Trial{Meta: ev.meta, FaultAt: F}
			if got := tr.FaultTitle(); got != tc.title {
				t.Errorf("title %q, want %q", got, tc.title)
			}
			if disk.Fault.NodeID != 3 || n.broker == nil || len(n.notes) != 1 {
				t.Errorf("record on disk %+v, external %+v, notes %v", disk.Fault, n.broker, n.notes)
			}
		})
	}
}

// TestExternalNamedBrokerStages: an external fault the run could not name
// (meta.json says broker unknown, node -1: only the probe's sign) whose
// broker the replica view names is analysed as a fault of that broker by
// every stage after the naming — roles, phases, metrics — as the heading
// already says. The trial is the recorded SIGKILL of k1 with its fault
// record rewritten as such an external fault.
func TestExternalNamedBrokerStages(t *testing.T) {
	dir := unpack(t, sigkillReplicasArchive)
	path := filepath.Join(dir, results.MetaFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	kill := m["fault"].(map[string]any)
	ended, err := time.Parse(time.RFC3339Nano, kill["finished"].(string))
	if err != nil {
		t.Fatal(err)
	}
	m["fault"] = map[string]any{
		"broker": results.BrokerUnknown, "node_id": -1, "kind": results.FaultExternal, "signal_sent": kill["signal_sent"],
		"signs": []map[string]any{{"at": ended, "seen": ended.Add(time.Second), "source": results.SignProbe, "node_id": -1, "what": "the probe stalled"}},
	}
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}

	tr := analyze(t, dir)
	if e := tr.External; e == nil || e.NodeID != 1 || e.By != ByReplicas {
		t.Fatalf("external %+v, want node 1 named by the replica view", e)
	}
	// k1 led p0 and followed p1 and p2 (meta.json's leaders and ISRs).
	want := map[int32]results.Role{0: results.RoleLed, 1: results.RoleFollowed, 2: results.RoleFollowed}
	for p, role := range want {
		if got := tr.Role(p); got != role {
			t.Errorf("p%d: role %q, want %q", p, got, role)
		}
		if st := stallOf(t, tr, p); st.Role != role || !slices.Contains(phaseNames(st), PhaseDetect) {
			t.Errorf("p%d: stall of role %q, phases %v; want %q, split from the fence of k1", p, st.Role, phaseNames(st), role)
		}
	}
	if tr.Metrics == nil {
		t.Fatal("no metrics")
	}
	for _, pm := range tr.Metrics.Partitions {
		if pm.Role != want[pm.Partition] {
			t.Errorf("metrics p%d: role %q, want %q", pm.Partition, pm.Role, want[pm.Partition])
		}
	}
	for _, n := range tr.Notes {
		if strings.Contains(n, "broker -1") {
			t.Errorf("note about the record's unknown broker: %s", n)
		}
	}
}
