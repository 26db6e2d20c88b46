package timeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

func ExampleWriteText() {
	t0 := time.Date(2026, 11, 30, 3, 26, 9, 115e6, time.UTC)
	fenced := newEvent(t0.Add(8270*time.Millisecond), "c1", KindFenced)
	fenced.Broker, fenced.Epoch = 1, 14
	fenced.Text = "[QuorumController id=100] Fencing broker 1 at epoch 14 because its session has timed out."
	learned := newEvent(t0.Add(8345*time.Millisecond), "producer", KindClientLeader)
	learned.Topic, learned.Partition, learned.Leader, learned.PrevLeader, learned.Epoch = "orders", 0, 2, 1, 1
	leader := newEvent(t0.Add(8361*time.Millisecond), "k2", KindLeaderStarted)
	leader.Topic, leader.Partition, leader.Broker, leader.Leader = "orders", 0, 2, 2
	leader.Epoch, leader.Offset, leader.ISR = 1, 445, []int32{2, 3}
	ended := newEvent(t0, "k1", KindProcessEnded)
	ended.Text = "process ended (SIGKILL, exit 137)"

	tl := &Timeline{
		Fault:  &results.Fault{Broker: "k1", NodeID: 1, Kind: "sigkill", Finished: t0},
		Events: []Event{ended, fenced, learned, leader},
	}
	WriteText(os.Stdout, tl)
	// Output:
	// 03:26:09.115 +0.000s k1       process ended (SIGKILL, exit 137)
	// 03:26:17.385 +8.270s c1       Fencing broker 1 at epoch 14 because its session has timed out.
	// 03:26:17.460 +8.345s producer orders[0]: leader 1 -> 2 (epoch 1)
	// 03:26:17.476 +8.361s k2       Leader orders-0 starts at leader epoch 1 from offset 445, ISR [2,3]
}

func TestWriteTextWithoutFault(t *testing.T) {
	e := newEvent(time.Date(2026, 11, 30, 23, 59, 59, 999e6, time.UTC), "c1", KindFenced)
	e.Text = "Fencing broker 1 because its session has timed out."
	next := e
	next.Time = next.Time.Add(2 * time.Millisecond)
	var b bytes.Buffer
	if err := WriteText(&b, &Timeline{Events: []Event{e, next}, Unparsed: 2}); err != nil {
		t.Fatal(err)
	}
	want := "2026-11-30 23:59:59.999 c1 Fencing broker 1 because its session has timed out.\n" +
		"2026-12-01 00:00:00.001 c1 Fencing broker 1 because its session has timed out.\n" +
		"unreadable lines: 2\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, name := range []string{"sigkill", "sigterm"} {
		t.Run(name, func(t *testing.T) {
			tl := buildTrial(t, name, Options{})
			var b bytes.Buffer
			if err := WriteJSON(&b, tl); err != nil {
				t.Fatal(err)
			}
			back, err := ReadJSON(&b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back.Events, tl.Events) {
				for i := range tl.Events {
					if i >= len(back.Events) || !reflect.DeepEqual(back.Events[i], tl.Events[i]) {
						t.Fatalf("event %d changed in JSON:\n%+v\n%+v", i, tl.Events[i], back.Events[i])
					}
				}
				t.Fatalf("%d events back, want %d", len(back.Events), len(tl.Events))
			}
			if !back.FaultAt().Equal(tl.FaultAt()) || back.Unparsed != tl.Unparsed {
				t.Errorf("fault or counts changed: %+v", back)
			}
		})
	}
}

func TestReadJSONNewer(t *testing.T) {
	_, err := ReadJSON(strings.NewReader(`{"format_version": 99, "events": []}`))
	if !errors.Is(err, results.ErrNewerFormat) {
		t.Errorf("err = %v, want ErrNewerFormat", err)
	}
	_, err = ReadJSON(strings.NewReader(`{"format_version": 1, "events": [{"time": "2026-11-30T03:26:17Z", "node": "c1", "kind": "nonsense"}]}`))
	if err == nil || !strings.Contains(err.Error(), "nonsense") {
		t.Errorf("err = %v, want the unknown kind named", err)
	}
}

func TestEventJSONLeavesOutAbsentFields(t *testing.T) {
	e := newEvent(time.Date(2026, 11, 30, 3, 26, 17, 0, time.UTC), "k2", KindLeaderStarted)
	e.Topic, e.Partition, e.Epoch = "orders", 0, 0
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"time":"2026-11-30T03:26:17Z","node":"k2","kind":"leader-started","topic":"orders","partition":0,"epoch":0,"text":"","source":""}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kinds() {
		s := k.String()
		if s == "" || strings.HasPrefix(s, "kind(") || seen[s] {
			t.Errorf("kind %d has name %q (empty, missing or repeated)", k, s)
		}
		seen[s] = true
		back, err := ParseKind(s)
		if err != nil || back != k {
			t.Errorf("ParseKind(%q) = %v, %v", s, back, err)
		}
	}
	if _, err := KindUnknown.MarshalText(); err == nil {
		t.Error("the unknown kind marshals")
	}
	if _, err := ParseKind("unknown"); err == nil {
		t.Error(`ParseKind("unknown") succeeds`)
	}
	// Every kind a rule or the fault record produces has a name.
	for _, r := range rules {
		if !r.kind.Valid() {
			t.Errorf("rule %q has an invalid kind", r.key)
		}
	}
}

func TestFirstIsInclusive(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 3, 26, 17, 0, time.UTC)
	a := newEvent(t0, "c1", KindFenced)
	a.Broker = 1
	b := newEvent(t0.Add(time.Millisecond), "c1", KindFenced)
	b.Broker = 2
	tl := &Timeline{Events: []Event{a, b}}
	if e, ok := tl.Fenced(1, t0); !ok || e.Broker != 1 {
		t.Errorf("Fenced(1, at its own time) = %+v, %v", e, ok)
	}
	if _, ok := tl.Fenced(1, t0.Add(time.Nanosecond)); ok {
		t.Error("Fenced(1) found after its time")
	}
	if e, ok := tl.First(t0, OfKind(KindFenced), ForBroker(2)); !ok || e.Broker != 2 {
		t.Errorf("First(broker 2) = %+v, %v", e, ok)
	}
}

// TestQuorumSummary: a quorum state is one short line of a timeline, its
// numbers only: the state's logged toString runs to hundreds of characters.
func TestQuorumSummary(t *testing.T) {
	quorum := func(kind Kind, node, leader int32, epoch int64) Event {
		e := newEvent(time.Time{}, "c1", kind)
		e.Broker, e.Leader, e.Epoch = node, leader, epoch
		e.Text = "[RaftManager id=100] Completed transition to ... from ..."
		return e
	}
	for _, tc := range []struct {
		name string
		e    Event
		want string
	}{
		{"leader", quorum(KindQuorumLeader, 102, 102, 5), "became leader of the quorum at epoch 5"},
		{"candidate", quorum(KindQuorumCandidate, 100, None, 5), "became candidate at epoch 5: asks the voters to elect it"},
		{"prospective", quorum(KindQuorumProspective, 100, 101, 4), "became prospective at epoch 4: asks the voters for a pre-vote, its last leader 101"},
		{"prospective without a leader", quorum(KindQuorumProspective, 100, None, 0), "became prospective at epoch 0: asks the voters for a pre-vote"},
		{"follower", quorum(KindQuorumFollower, 100, 102, 5), "became follower of quorum leader 102 at epoch 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.e.Summary(); got != tc.want {
				t.Errorf("Summary = %q, want %q", got, tc.want)
			}
		})
	}
}
