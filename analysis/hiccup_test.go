package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
	"github.com/kbf-project/kbf/verdict"
)

func TestHiccupOf(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 17, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	ev := func(s float64, kind timeline.Kind, broker int32, topic string, p int32) timeline.Event {
		return timeline.Event{Time: at(s), Kind: kind, Broker: broker, Topic: topic, Partition: p, Source: "c1/controller.log:1"}
	}
	fault := func(returned float64) *results.Meta {
		f := &results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultPause, SignalSent: at(0), Paused: at(0.01)}
		if returned > 0 {
			f.Returned = at(returned)
		}
		return &results.Meta{Fault: f, Ended: at(20)}
	}
	starved := &results.Meta{Fault: &results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultCPUStarve, CPUs: 0.05,
		SignalSent: at(0), Starved: at(0.01), Returned: at(2.01)}, Ended: at(20)}
	lossy := &results.Meta{Fault: &results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultPacketLoss, Loss: 0.3,
		SignalSent: at(0), Cut: at(0.01), Returned: at(4.01)}, Ended: at(20)}
	for _, c := range []struct {
		name   string
		meta   *results.Meta
		events []timeline.Event
		want   string // "" for no hiccup
	}{
		{name: "not undone while probing", meta: fault(0), want: ""},
		{name: "fenced nobody", meta: fault(2.01), events: []timeline.Event{
			ev(-5, timeline.KindFenced, 1, "", -1), // before the hiccup: not its
			ev(3, timeline.KindFenced, 2, "", -1),  // another broker
		}, want: "k1 for 2.00 s: not fenced, no leadership moved"},
		{name: "fenced, leaderships moved", meta: fault(10.01), events: []timeline.Event{
			ev(9.1, timeline.KindFenced, 1, "", -1),
			ev(9.2, timeline.KindLeaderStarted, 2, "orders", 0),
			ev(9.3, timeline.KindLeaderStarted, 2, "orders", 0), // the same partition again
			ev(9.3, timeline.KindLeaderStarted, 3, "orders", 1),
			ev(12, timeline.KindLeaderStarted, 1, "orders", 0), // the broker itself, back
			ev(25, timeline.KindLeaderStarted, 3, "orders", 2), // after probing
		}, want: "k1 for 10.00 s: fenced 9.09 s after it began (c1/controller.log:1), 2 leadership(s) moved"},
		{name: "starved, not fenced", meta: starved, want: "k1 starved to 0.05 CPU for 2.00 s: not fenced, no leadership moved"},
		{name: "packets lost, fenced", meta: lossy, events: []timeline.Event{
			ev(3.5, timeline.KindFenced, 1, "", -1),
			ev(3.6, timeline.KindLeaderStarted, 2, "orders", 0),
		}, want: "k1 losing 30% of its packets for 4.00 s: fenced 3.49 s after it began (c1/controller.log:1), 1 leadership(s) moved"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := HiccupOf(c.meta, &timeline.Timeline{Fault: c.meta.Fault, Events: c.events})
			if c.want == "" {
				if h != nil {
					t.Fatalf("hiccup %v, want none", h)
				}
				return
			}
			if h == nil {
				t.Fatal("no hiccup")
			}
			if got := h.String(); !strings.HasPrefix(got, c.want) {
				t.Errorf("hiccup:\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestHiccupOfRecorded reads hiccups from recorded trials' own logs, as
// if kbf had undone their cut while probing: a cut from every node that
// the controller fenced (its line cited) and whose leaderships moved, and
// a cut from the clients alone, which the cluster never saw.
func TestHiccupOfRecorded(t *testing.T) {
	for _, c := range []struct {
		archive string
		lasted  time.Duration
		want    string
	}{
		{isolateArchive, 15 * time.Second, "k1 for 15.00 s: fenced "},
		{isolateClientsArchive, 2 * time.Second, "k1 for 2.00 s: not fenced, no leadership moved"},
	} {
		t.Run(c.archive, func(t *testing.T) {
			tr := analyze(t, unpack(t, c.archive))
			m := *tr.Meta
			f := *m.Fault
			f.Returned = f.At().Add(c.lasted)
			m.Fault = &f
			h := HiccupOf(&m, tr.Timeline)
			if h == nil || !strings.HasPrefix(h.String(), c.want) {
				t.Fatalf("hiccup %v, want %q", h, c.want)
			}
			if h.Fenced() && (!strings.Contains(h.Fence.Source, "controller.log") || len(h.LeaderMoves) == 0) {
				t.Errorf("hiccup %v: want the controller's line and the leaderships that moved", h)
			}
		})
	}
}

// TestFaultEndedHiccups: a starved or lossy broker did not end: the
// phases' sentences count from the starvation or the packet loss.
func TestFaultEndedHiccups(t *testing.T) {
	for k, want := range map[results.FaultKind]string{
		results.FaultCPUStarve:  "the starvation",
		results.FaultPacketLoss: "the packet loss",
		results.FaultPause:      "the freeze",
		results.FaultSIGKILL:    "the process ended",
	} {
		if got := faultEnded(k); got != want {
			t.Errorf("faultEnded(%s) = %q, want %q", k, got, want)
		}
	}
}

// TestUnfencedHiccupRecorded: a 2 s pause undone before the controller
// fenced its broker (recorded by kbf tune's hiccup trial, session 6000 ms)
// is a hiccup not fenced, and its trial valid: the fence the logs do not
// hold is the answer, not evidence missing.
func TestUnfencedHiccupRecorded(t *testing.T) {
	tr := analyze(t, unpack(t, "pause-hiccup-2s.tar.gz"))
	if tr.Hiccup == nil || tr.Hiccup.Fenced() || !strings.HasPrefix(tr.Hiccup.String(), "k1 for 2.03 s: not fenced") {
		t.Fatalf("hiccup %v, want k1 for 2.03 s, not fenced", tr.Hiccup)
	}
	for _, n := range tr.Notes {
		if strings.Contains(n, "fence of broker") {
			t.Errorf("note %q: a hiccup undone before any fence misses no evidence", n)
		}
	}
	if tr.Verdict == nil || tr.Verdict.Status != verdict.Valid {
		t.Errorf("verdict %+v, want valid", tr.Verdict)
	}
}
