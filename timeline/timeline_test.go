package timeline

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/internal/testsupport/golden"

	"github.com/kbf-project/kbf/results"
)

// buildTrial builds the timeline of testdata/<name> as kbf report would.
func buildTrial(t *testing.T, name string, opt Options) *Timeline {
	t.Helper()
	dir := filepath.Join("testdata", name)
	meta, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	src, err := FromDir(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := Build(src, opt)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestGolden(t *testing.T) {
	for _, name := range []string{"sigkill", "sigterm"} {
		t.Run(name, func(t *testing.T) {
			tl := buildTrial(t, name, Options{})
			var text, js bytes.Buffer
			if err := WriteText(&text, tl); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&js, tl); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", name+".txt"), text.Bytes())
			golden.Check(t, filepath.Join("testdata", "golden", name+".json"), js.Bytes())
		})
	}
}

func at(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05.000000000", s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestSigkillTrial(t *testing.T) {
	tl := buildTrial(t, "sigkill", Options{})
	fault := tl.Fault.At()
	if want := at("2026-11-30 03:26:09.115830000"); !fault.Equal(want) {
		t.Fatalf("fault at %v, want the process's end %v", fault, want)
	}
	if len(tl.Missing) != 0 || tl.Unparsed != 0 {
		t.Errorf("missing %v, unparsed %d; want none", tl.Missing, tl.Unparsed)
	}

	fence, ok := tl.Fenced(1, fault)
	if !ok || !fence.Time.Equal(at("2026-11-30 03:26:17.385000000")) || fence.Node != "c1" || fence.Epoch != 14 {
		t.Errorf("Fenced(1) = %+v, %v; want c1 at 03:26:17.385, epoch 14", fence, ok)
	}
	if d := fence.Time.Sub(fault); d != 8269170*time.Microsecond {
		t.Errorf("detection took %v, want 8.26917s", d)
	}
	changes, ok := tl.First(fault, OfKind(KindFenceChanges))
	if !ok || changes.Broker != 1 || changes.Count != 54 {
		t.Errorf("fence changes = %+v, %v; want broker 1 (from the line before), 54 partitions", changes, ok)
	}

	lead, ok := tl.LeaderStarted("orders", 0, fault)
	if !ok || lead.Node != "k2" || lead.Leader != 2 || lead.Broker != 2 || lead.Epoch != 1 ||
		lead.Offset != 445 || lead.PrevLeader != 1 || !reflect.DeepEqual(lead.ISR, []int32{2, 3}) ||
		!lead.Time.Equal(at("2026-11-30 03:26:17.476000000")) {
		t.Errorf("LeaderStarted(orders-0) = %+v, %v", lead, ok)
	}
	for client, want := range map[results.Client]string{
		"producer": "2026-11-30 03:26:17.460123456",
		"consumer": "2026-11-30 03:26:17.459388000",
	} {
		e, ok := tl.ClientLearnedLeader(client, "orders", 0, fault)
		if !ok || !e.Time.Equal(at(want)) || e.Leader != 2 || e.PrevLeader != 1 || e.Epoch != 1 {
			t.Errorf("ClientLearnedLeader(%s, orders-0) = %+v, %v; want leader 2 at %s", client, e, ok, want)
		}
	}
	if e, ok := tl.ClientLearnedLeader("producer", "orders", 1, fault); ok {
		t.Errorf("producer learned a leader for orders-1: %+v; its leader never changed", e)
	}

	for p, want := range map[int32]struct {
		node string
		at   string
	}{
		0: {"k2", "2026-11-30 03:26:17.476000000"}, // the new leader's ISR [2,3]
		1: {"k2", "2026-11-30 03:26:17.477000000"}, // the staying leader's ISR [2,3]
		2: {"k3", "2026-11-30 03:26:17.471000000"},
	} {
		e, ok := tl.ISRShrunk("orders", p, 1, fault)
		if !ok || e.Node != want.node || !e.Time.Equal(at(want.at)) {
			t.Errorf("ISRShrunk(orders-%d, 1) = %+v, %v; want %s at %s", p, e, ok, want.node, want.at)
		}
	}

	for _, e := range tl.Events {
		if e.Topic != "" && e.Topic != "orders" {
			t.Errorf("event of an unprobed topic kept: %s %s", e.Source, e.Text)
		}
		if e.Source == "" || e.Time.Location() != time.UTC {
			t.Errorf("event without source or not in UTC: %+v", e)
		}
	}
	// Rotated files are read, in time order with the current ones.
	if e, ok := tl.First(time.Time{}, OfKind(KindBrokerRunning), OnNode("k2")); !ok || e.Source != "k2/server.log.2026-11-30-02:3" {
		t.Errorf("k2's start from its rotated server.log = %+v, %v", e, ok)
	}
	if n := len(tl.All(OfKind(KindRegistered))); n != 3 {
		t.Errorf("%d registrations from c1's rotated controller.log, want 3", n)
	}
	for i := 1; i < len(tl.Events); i++ {
		if tl.Events[i].Time.Before(tl.Events[i-1].Time) {
			t.Fatalf("events out of order at %d: %v after %v", i, tl.Events[i].Time, tl.Events[i-1].Time)
		}
	}
}

func TestSigtermTrial(t *testing.T) {
	tl := buildTrial(t, "sigterm", Options{})
	fault := tl.Fault.At()
	if want := at("2026-11-30 04:10:00.011000000"); !fault.Equal(want) {
		t.Fatalf("fault at %v, want the SIGTERM line %v", fault, want)
	}
	term := tl.All(OfKind(KindSignalReceived))
	if len(term) != 1 || term[0].Source != "k1/server.log:2" || term[0].Broker != 1 {
		t.Errorf("SIGTERM lines = %+v; want one, read from k1/server.log, not repeated from meta.json", term)
	}
	cs, ok := tl.ControlledShutdown(1, fault)
	if !ok || !cs.Time.Equal(at("2026-11-30 04:10:00.031000000")) {
		t.Errorf("ControlledShutdown(1) = %+v, %v", cs, ok)
	}
	moved, ok := tl.First(fault, OfKind(KindShutdownChanges), ForBroker(1))
	if !ok || moved.Count != 54 {
		t.Errorf("enterControlledShutdown[1] = %+v, %v; want 54 partitions", moved, ok)
	}
	granted, ok := tl.ShutdownGranted(1, fault)
	if !ok || granted.Time.Sub(fault) != 2093*time.Millisecond {
		t.Errorf("ShutdownGranted(1) = %+v, %v; want 2.093s after the signal", granted, ok)
	}
	if e, ok := tl.First(fault, OfKind(KindFenceChanges)); ok {
		t.Errorf("a fence changed partitions after a controlled shutdown: %+v", e)
	}

	restart := tl.Fault.Finished
	reg, ok := tl.First(restart, OfKind(KindRegistered), ForBroker(1))
	if !ok || reg.Epoch != 4127 {
		t.Errorf("re-registration = %+v, %v; want broker epoch 4127", reg, ok)
	}
	unfence, ok := tl.First(restart, OfKind(KindUnfenceChanges))
	if !ok || unfence.Broker != 1 || unfence.Count != 1 {
		t.Errorf("unfence changes = %+v, %v; want broker 1, 1 partition", unfence, ok)
	}
	for p, want := range map[int32]string{0: "04:10:37.914", 1: "04:10:37.920", 2: "04:10:37.902"} {
		e, ok := tl.ISRJoined("orders", p, 1, restart)
		if !ok || e.Kind != KindISRUpdated || e.Time.Format("15:04:05.000") != want {
			t.Errorf("ISRJoined(orders-%d, 1) = %+v, %v; want isr-updated at %s", p, e, ok, want)
		}
	}
}

func TestBuildOptions(t *testing.T) {
	all := buildTrial(t, "sigkill", Options{})
	from := all.Fault.At()
	to := from.Add(8270 * time.Millisecond) // the fence is at +8.269s, its changes at +8.278s
	tl := buildTrial(t, "sigkill", Options{From: from, To: to})
	if len(tl.Events) == 0 || len(tl.Events) >= len(all.Events) {
		t.Fatalf("%d events between %v and %v, of %d", len(tl.Events), from, to, len(all.Events))
	}
	if first := tl.Events[0]; first.Kind != KindProcessEnded {
		t.Errorf("first event %v, want the process's end, which is From", first.Kind)
	}
	if last := tl.Events[len(tl.Events)-1]; last.Kind != KindFenced {
		t.Errorf("last event %v, want the fence", last.Kind)
	}
}

func TestFromDir(t *testing.T) {
	dir := filepath.Join("testdata", "sigkill")
	meta, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	src, err := FromDir(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	names := func(node string) string {
		var s []string
		for _, p := range src.Nodes[node] {
			s = append(s, filepath.Base(p))
		}
		return strings.Join(s, " ")
	}
	for node, want := range map[string]string{
		"c1": "server.log controller.log.2026-11-30-02 controller.log",
		"k1": "server.log state-change.log",
		"k2": "server.log.2026-11-30-02 server.log state-change.log",
	} {
		if got := names(node); got != want {
			t.Errorf("%s files %q, want %q", node, got, want)
		}
	}
	if src.NodeIDs["k3"] != 3 || !reflect.DeepEqual(src.Topics, []string{"orders"}) || src.Fault == nil {
		t.Errorf("sources from meta: ids %v, topics %v, fault %v", src.NodeIDs, src.Topics, src.Fault)
	}
}

// TestFromDirFaultedNode: the faulted node is expected to have a broker's
// logs for a broker's fault, and a controller's for a controller fault, even
// when it left no directory under logs/.
func TestFromDirFaultedNode(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault results.Fault
		want  string
	}{
		{"broker", results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultSIGKILL}, "server.log state-change.log"},
		{"controller-kill", results.Fault{Broker: "c2", NodeID: 101, Kind: results.FaultControllerKill}, "server.log controller.log"},
		{"controller-pause", results.Fault{Broker: "c2", NodeID: 101, Kind: results.FaultControllerPause}, "server.log controller.log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta := &results.Meta{Cluster: results.Cluster{Brokers: map[string]int32{"k1": 1}}, Fault: &tc.fault}
			src, err := FromDir(t.TempDir(), meta)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range src.Nodes[tc.fault.Broker] {
				got = append(got, filepath.Base(p))
			}
			if strings.Join(got, " ") != tc.want || src.NodeIDs[tc.fault.Broker] != tc.fault.NodeID {
				t.Errorf("%s: files %q, id %d; want %q, id %d", tc.fault.Broker, got, src.NodeIDs[tc.fault.Broker], tc.want, tc.fault.NodeID)
			}
		})
	}
}

func TestMissingFiles(t *testing.T) {
	dir := t.TempDir()
	meta := &results.Meta{Cluster: results.Cluster{Brokers: map[string]int32{"k1": 1}}}
	if err := os.MkdirAll(filepath.Join(dir, "logs", "c1"), 0o755); err != nil {
		t.Fatal(err)
	}
	line := "[2026-11-30 03:26:17,385] INFO [QuorumController id=100] Fencing broker 1 at epoch 14 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)\n"
	if err := os.WriteFile(filepath.Join(dir, "logs", "c1", "controller.log"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := FromDir(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := Build(src, Options{})
	if err != nil {
		t.Fatalf("missing files made Build fail: %v", err)
	}
	want := []string{"c1 server.log", "k1 server.log", "k1 state-change.log", "client.log"}
	if !reflect.DeepEqual(tl.Missing, want) {
		t.Errorf("missing %q, want %q", tl.Missing, want)
	}
	if len(tl.Events) != 1 || tl.Events[0].Kind != KindFenced {
		t.Errorf("events %+v, want the one fence from the file that is there", tl.Events)
	}
	var text bytes.Buffer
	if err := WriteText(&text, tl); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "missing: c1 server.log, k1 server.log, k1 state-change.log, client.log\n") {
		t.Errorf("text does not report the missing files:\n%s", text.String())
	}
}

func TestUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "server.log") // a directory where the log should be
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Build(Sources{Nodes: map[string][]string{"k1": {path}}}, Options{})
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Build of an unreadable file: %v; want an error naming %s", err, path)
	}
}

func TestTermFromFault(t *testing.T) {
	// Without k1's server.log, the SIGTERM line comes from the fault
	// record, where a kbf of format version 1 wrote it.
	m, err := results.DecodeMeta(strings.NewReader(`{"format_version": 1, "kind": "trial",
		"started": "2026-11-30T04:09:00Z", "fault": {"broker": "k1", "node_id": 1, "kind": "sigterm",
		"signal_sent": "2026-11-30T04:10:00.002Z", "term_logged": "2026-11-30T04:10:00.011Z"}}`), "meta.json")
	if err != nil {
		t.Fatal(err)
	}
	f := m.Fault
	logged := at("2026-11-30 04:10:00.011000000")
	tl, err := Build(Sources{Fault: f}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	term := tl.All(OfKind(KindSignalReceived))
	if len(term) != 1 || term[0].Source != results.MetaFile || !term[0].Time.Equal(logged) || term[0].Broker != 1 {
		t.Errorf("SIGTERM events %+v, want one from meta.json at %v", term, logged)
	}
	if !tl.FaultAt().Equal(logged) {
		t.Errorf("fault at %v, want the SIGTERM line %v", tl.FaultAt(), logged)
	}
	if e, ok := tl.First(time.Time{}, OfKind(KindProcessEnded)); ok {
		t.Errorf("process end %+v from a fault without a finish time", e)
	}
}

// TestFaultAtFirstStep: a fault of several steps is dated as its first
// step: a roll's first stop, a SIGTERM, by the broker's own SIGTERM line, as
// a sigterm is; two brokers' first kill by the process's end. The recorded
// SIGTERM's fault is made anew in each kind, as a newer kbf writes it,
// without the SIGTERM line that format version 1 kept beside it.
func TestFaultAtFirstStep(t *testing.T) {
	dir := filepath.Join("testdata", "sigterm")
	meta, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := meta.Fault
	line := at("2026-11-30 04:10:00.011000000") // k1's server.log
	for _, c := range []struct {
		kind  results.FaultKind
		first results.StepAction
		want  time.Time
		sent  string
	}{
		{results.FaultSIGTERM, "", line, "sent SIGTERM to k1"},
		{results.FaultRolling, results.StepStop, line, "sent SIGTERM to k1"},
		{results.FaultLastReplica, results.StepStop, line, "sent SIGTERM to k1"},
		{results.FaultTwoBrokers, results.StepKill, rec.Finished, "sent SIGKILL to k1"},
		// A first step not recorded is not taken for a graceful stop.
		{results.FaultRolling, "", rec.Finished, "sent ROLLING to k1"},
	} {
		t.Run(string(c.kind)+"/"+string(c.first), func(t *testing.T) {
			f := &results.Fault{Broker: rec.Broker, NodeID: rec.NodeID, Kind: c.kind, FirstStep: c.first,
				SignalSent: rec.SignalSent, Finished: rec.Finished, ExitCode: rec.ExitCode}
			src, err := FromDir(dir, meta)
			if err != nil {
				t.Fatal(err)
			}
			src.Fault = f
			tl, err := Build(src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := tl.FaultAt(); !got.Equal(c.want) {
				t.Errorf("fault at %v, want %v", got, c.want)
			}
			if e, ok := tl.First(time.Time{}, OfKind(KindSignalSent)); !ok || e.Text != c.sent {
				t.Errorf("sending %+v, want %q", e, c.sent)
			}
		})
	}
}

func TestGzippedRotatedFile(t *testing.T) {
	dir := t.TempDir()
	node := filepath.Join(dir, "logs", "c1")
	if err := os.MkdirAll(node, 0o755); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("[2026-11-30 02:10:00,000] INFO [QuorumController id=100] Fencing broker 3 at epoch 9 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)\n"))
	zw.Close()
	if err := os.WriteFile(filepath.Join(node, "controller.log.2026-11-30-02.gz"), z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := FromDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := Build(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := tl.Fenced(3, time.Time{}); !ok || e.Source != "c1/controller.log.2026-11-30-02.gz:1" {
		t.Errorf("fence from the gzipped rotated file = %+v, %v (missing %v)", e, ok, tl.Missing)
	}
}

// TestExternalFaultEvents: an external fault's events are its signs, each
// at the time it dates, with its source; kbf's ready time, when it sent
// nothing, is no event.
func TestExternalFaultEvents(t *testing.T) {
	ready := at("2026-12-01 22:00:00.000000000")
	probeAt, fenceAt := ready.Add(16800*time.Millisecond), ready.Add(27*time.Second)
	f := &results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultExternal, SignalSent: ready, Signs: []results.Sign{
		{At: probeAt, Seen: probeAt.Add(time.Second), Source: results.SignProbe, NodeID: -1, What: "partition 0: no ack for 0.40 s"},
		{At: fenceAt, Seen: fenceAt, Source: results.SignCluster, NodeID: 1, What: "broker 1 fenced"},
	}}
	tl, err := Build(Sources{Fault: f}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := tl.First(time.Time{}, OfKind(KindSignalSent)); ok {
		t.Errorf("an external fault has a sending event: %+v", e)
	}
	signs := tl.All(OfKind(KindFaultSign))
	if len(signs) != 2 {
		t.Fatalf("sign events %+v, want 2", signs)
	}
	for i, want := range []struct {
		at     time.Time
		text   string
		broker int32
	}{
		{probeAt, "external fault, dated by the probe: partition 0", None},
		{fenceAt, "then seen by the cluster: broker 1 fenced", 1},
	} {
		if e := signs[i]; !e.Time.Equal(want.at) || !strings.HasPrefix(e.Text, want.text) || e.Broker != want.broker || e.Node != NodeKBF {
			t.Errorf("sign %d: %+v, want at %v %q broker %d", i, e, want.at, want.text, want.broker)
		}
	}
	if !tl.FaultAt().Equal(probeAt) {
		t.Errorf("fault at %v, want the probe's date %v", tl.FaultAt(), probeAt)
	}
}

// TestReturnedEvent: a pause undone while probing is an event of its own,
// the fault's end, dated from meta.json.
func TestReturnedEvent(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 17, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		f    results.Fault
		want string
	}{
		{"thawed", results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultPause, SignalSent: t0, Paused: t0.Add(10 * time.Millisecond), Returned: t0.Add(2010 * time.Millisecond)},
			"thawed: every process running again, 2.00 s after it began (--return-after)"},
		{"healed", results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultIsolate, SignalSent: t0, Cut: t0.Add(10 * time.Millisecond), Returned: t0.Add(1010 * time.Millisecond)},
			"healed: the cut undone, 1.00 s after it began (--return-after)"},
		{"fed", results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultCPUStarve, CPUs: 0.05, SignalSent: t0, Starved: t0.Add(10 * time.Millisecond), Returned: t0.Add(2010 * time.Millisecond)},
			"fed: the container's CPU given back, 2.00 s after it began (--return-after)"},
		{"mended", results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultPacketLoss, Loss: 0.3, SignalSent: t0, Cut: t0.Add(10 * time.Millisecond), Returned: t0.Add(2010 * time.Millisecond)},
			"mended: no packet dropped any more, 2.00 s after it began (--return-after)"},
		{"not returned", results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultPause, SignalSent: t0, Paused: t0}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []Event
			faultEvents(&c.f, func(e Event) {
				if e.Kind == KindReturned {
					got = append(got, e)
				}
			})
			if c.want == "" {
				if len(got) != 0 {
					t.Errorf("events %v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Text != c.want || !got[0].Time.Equal(c.f.Returned) || got[0].Node != "k1" || got[0].Broker != 1 {
				t.Errorf("events %+v, want one at %v: %s", got, c.f.Returned, c.want)
			}
		})
	}
}

// TestInternalTopics checks that the partition events of Kafka's internal
// topics are kept apart from the timeline's (Internal), within its times,
// and that other topics' events are dropped.
func TestInternalTopics(t *testing.T) {
	tl := buildTrial(t, "sigkill", Options{})
	for _, e := range tl.Events {
		if internalTopics[e.Topic] {
			t.Fatalf("an internal topic's event among the timeline's: %+v", e)
		}
	}
	for _, e := range tl.Internal {
		if !internalTopics[e.Topic] {
			t.Fatalf("a non-internal event in Internal: %+v", e)
		}
	}
	t0 := at("2026-11-30 03:26:09.000000000")
	var kept Timeline
	opt := Options{From: t0, To: t0.Add(time.Minute)}
	for _, e := range []Event{
		{Time: t0.Add(time.Second), Topic: "__consumer_offsets", Kind: KindCoordinatorLoaded},
		{Time: t0.Add(-time.Second), Topic: "__transaction_state", Kind: KindCoordinatorLoaded},
		{Time: t0.Add(time.Second), Topic: "other", Kind: KindLeaderStarted},
	} {
		kept.keepInternal(e, opt)
	}
	if len(kept.Internal) != 1 || kept.Internal[0].Topic != "__consumer_offsets" {
		t.Errorf("kept %+v, want the one internal event within the times", kept.Internal)
	}
}
