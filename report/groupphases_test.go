package report

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestJavaStringHash checks the hash against values Java's String.hashCode
// returns.
func TestJavaStringHash(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int32
	}{
		{"", 0},
		{"a", 97},
		{"test", 3556498},
		{"hello", 99162322},
		{"Aa", 2112}, {"BB", 2112}, // Java's well-known collision
		{"polygenelubricants", -1 << 31},
		{"é", 233},
		{"😀", 1772899}, // a surrogate pair: 31*0xD83D + 0xDE00
	} {
		if got := javaStringHash(c.s); got != c.want {
			t.Errorf("javaStringHash(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

// TestGroupOffsetsPartition checks Kafka's placement: Utils.abs of the
// hash, the smallest int taken as 0, modulo the partitions.
func TestGroupOffsetsPartition(t *testing.T) {
	for _, c := range []struct {
		id   string
		n    int32
		want int32
	}{
		{"test", 50, 3556498 % 50},
		{"polygenelubricants", 50, 0},
		// The recorded trial's group: its coordinator loaded
		// __consumer_offsets-45 when the group first joined.
		{"kbf-probe-f00639c2712e", 50, 45},
		{"kbf-probe-f00639c2712e", 1, 0},
	} {
		if got := groupOffsetsPartition(c.id, c.n); got != c.want {
			t.Errorf("groupOffsetsPartition(%q, %d) = %d, want %d", c.id, c.n, got, c.want)
		}
	}
}

// TestScanLoads reads the coordinator's load lines as Kafka 4.3 logged
// them: only the group's partition, only after the fault, the
// scheduling line paired with its epoch's finish, unloads ignored.
func TestScanLoads(t *testing.T) {
	log := `[2026-12-05 06:04:16,795] INFO [GroupCoordinator id=2] Scheduling loading of metadata from __consumer_offsets-45 with epoch 0 (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)
[2026-12-05 06:04:16,844] INFO [GroupCoordinator id=2] Finished loading of metadata from __consumer_offsets-45 with epoch 0 in 22ms where 22ms was spent in the scheduler. Loaded 0 records which total to 0 bytes. (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)
[2026-12-05 06:04:47,008] INFO [GroupCoordinator id=1] Scheduling unloading of metadata for __consumer_offsets-45 with epoch OptionalInt[1] (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)
[2026-12-05 06:04:47,050] INFO [GroupCoordinator id=1] Scheduling loading of metadata from __consumer_offsets-4 with epoch 1 (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)
[2026-12-05 06:04:47,063] INFO [GroupCoordinator id=1] Scheduling loading of metadata from __consumer_offsets-45 with epoch 1 (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)
[2026-12-05 06:04:47,100] INFO [GroupCoordinator id=1] Finished loading of metadata from __consumer_offsets-4 with epoch 1 in 50ms where 1ms was spent in the scheduler. Loaded 9 records which total to 90 bytes. (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)
[2026-12-05 06:04:47,209] INFO [GroupCoordinator id=1] Finished loading of metadata from __consumer_offsets-45 with epoch 1 in 143ms where 32ms was spent in the scheduler. Loaded 1782 records which total to 291985 bytes. (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)
[2026-12-05 06:04:48,000] INFO [TransactionCoordinator id=1] Finished loading of metadata from __transaction_state-45 with epoch 1 in 1ms where 1ms was spent in the scheduler. Loaded 0 records which total to 0 bytes. (x)
`
	path := filepath.Join(t.TempDir(), "server.log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	F := time.Date(2026, 12, 5, 6, 4, 36, 741e6, time.UTC)
	got := scanLoads(context.Background(), path, "k1/server.log", 45, F)
	if len(got) != 1 {
		t.Fatalf("scanLoads = %d loads, want 1: %+v", len(got), got)
	}
	l := got[0]
	if l.node != 1 || l.epoch != 1 || l.records != 1782 || l.took != 143*time.Millisecond {
		t.Errorf("load = node %d epoch %d records %d took %s, want 1, 1, 1782, 143ms", l.node, l.epoch, l.records, l.took)
	}
	if l.schedSrc != "k1/server.log:5" || l.doneSr != "k1/server.log:7" {
		t.Errorf("sources %s, %s, want k1/server.log:5, k1/server.log:7", l.schedSrc, l.doneSr)
	}
	if !l.scheduled.Equal(time.Date(2026, 12, 5, 6, 4, 47, 63e6, time.UTC)) || !l.done.Equal(time.Date(2026, 12, 5, 6, 4, 47, 209e6, time.UTC)) {
		t.Errorf("times %s, %s", l.scheduled, l.done)
	}
	if strings.Contains(l.text, "(org.apache") || !strings.HasPrefix(l.text, "[GroupCoordinator id=1] Finished loading") {
		t.Errorf("text %q", l.text)
	}
	// Before the fault: the first load is left out with the rest.
	if got := scanLoads(context.Background(), path, "k1/server.log", 45, F.Add(time.Hour)); len(got) != 0 {
		t.Errorf("after the last line: %d loads, want none", len(got))
	}
}

// lineAt is line n (from 1) of the file at path.
func lineAt(t *testing.T, path string, n int) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			return sc.Text()
		}
	}
	t.Fatalf("%s has no line %d", path, n)
	return ""
}

// cited is the line a source "k1/server.log:1775" names in the trial at
// dir: a node's log under logs/, or a file of the trial.
func cited(t *testing.T, dir, source string) string {
	t.Helper()
	file, n, ok := strings.Cut(source, ":")
	if !ok {
		t.Fatalf("source %q has no line", source)
	}
	line, err := strconv.Atoi(n)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, file)
	if strings.Contains(file, "/") {
		path = filepath.Join(dir, "logs", file)
	}
	return lineAt(t, path, line)
}

// TestGroupRecoveryRecorded reads the recorded trials of a SIGKILL of the
// group's coordinator, classic and consumer protocol: each phase ends at
// the line it cites, which says what the phase says.
func TestGroupRecoveryRecorded(t *testing.T) {
	for _, c := range []struct {
		archive   string
		partition int32
		newCoord  int32
		phases    []string
	}{
		{"group-coordinator-classic.tar.gz", 45, 1, []string{GroupPhaseDetect, GroupPhaseElect, GroupPhaseLoad, GroupPhaseFind, GroupPhaseCommit, GroupPhaseRebalance, GroupPhaseProcess}},
		{"group-coordinator-consumer.tar.gz", 19, 1, []string{GroupPhaseDetect, GroupPhaseElect, GroupPhaseLoad, GroupPhaseFind, GroupPhaseCommit}},
	} {
		t.Run(c.archive, func(t *testing.T) {
			dir := unpack(t, c.archive)
			tr := analyze(t, dir)
			r := tr.Recovery
			if r == nil || !r.Faulted {
				t.Fatalf("recovery = %+v, want one of a faulted coordinator", r)
			}
			if r.OffsetsPartition != c.partition || r.NewCoordinator != c.newCoord || r.Note != "" {
				t.Errorf("partition %d, new coordinator %d, note %q; want %d, %d, none", r.OffsetsPartition, r.NewCoordinator, r.Note, c.partition, c.newCoord)
			}
			var names []string
			for i, ph := range r.Phases {
				names = append(names, ph.Name)
				if ph.Duration < 0 || ph.End.Sub(ph.Start) != ph.Duration {
					t.Errorf("%s: %s → %s, duration %s", ph.Name, ph.Start, ph.End, ph.Duration)
				}
				if i > 0 && !ph.Start.Equal(r.Phases[i-1].End) {
					t.Errorf("%s starts at %s, not where %s ended", ph.Name, ph.Start, r.Phases[i-1].Name)
				}
				if ph.Source == "" || ph.Why == "" || ph.Setting == "" || len(ph.Settings) == 0 {
					t.Errorf("%s: evidence %q at %q, why %q, setting %q", ph.Name, ph.Evidence, ph.Source, ph.Why, ph.Setting)
				}
			}
			if !slices.Equal(names, c.phases) {
				t.Fatalf("phases %v, want %v", names, c.phases)
			}
			if !r.Phases[0].Start.Equal(tr.FaultAt) {
				t.Errorf("first phase starts %s, not at the fault %s", r.Phases[0].Start, tr.FaultAt)
			}
			want := map[string]string{
				GroupPhaseDetect: "Fencing broker 2",
				GroupPhaseElect:  "Scheduling loading of metadata from __consumer_offsets-" + strconv.Itoa(int(c.partition)) + " ",
				GroupPhaseLoad:   "Finished loading of metadata from __consumer_offsets-" + strconv.Itoa(int(c.partition)) + " ",
				GroupPhaseFind:   "read FindCoordinator",
			}
			for _, ph := range r.Phases {
				w, ok := want[ph.Name]
				if !ok {
					continue
				}
				line := cited(t, dir, ph.Source)
				if !strings.Contains(line, w) {
					t.Errorf("%s cites %s: %q, which does not say %q", ph.Name, ph.Source, line, w)
				}
				if !strings.Contains(line, ph.End.UTC().Format("15:04:05")) {
					t.Errorf("%s ends at %s, not at its line's time: %q", ph.Name, ph.End, line)
				}
			}
			load, _ := r.Phase(GroupPhaseLoad)
			for _, pm := range tr.Metrics.Partitions {
				if got := pm.Values[MeasureCoordinatorLoad]; got != load.Duration {
					t.Errorf("p%d coordinator_load %s, want the load phase's %s", pm.Partition, got, load.Duration)
				}
			}
			if s := r.Partitions; s.Value != "50" || s.Source != SourceNodeConfig {
				t.Errorf("offsets.topic.num.partitions %+v, want 50 from a node's config", s)
			}
			if line := r.Line(); !strings.Contains(line, "load") || !strings.Contains(line, "__consumer_offsets-"+strconv.Itoa(int(c.partition))) {
				t.Errorf("line %q", line)
			}
		})
	}
}

// TestOffsetsISRShrunk reads, in the recorded trial's state-change.log, the
// line where an offsets partition's leader applied an ISR without the
// faulted broker 2: __consumer_offsets-44, led by broker 3 throughout.
func TestOffsetsISRShrunk(t *testing.T) {
	dir := unpack(t, "group-coordinator-classic.tar.gz")
	F := time.Date(2026, 12, 5, 6, 4, 36, 741e6, time.UTC)
	e := offsetsISRShrunk(context.Background(), dir, "k3", 44, 2, F)
	if e.Source != "k3/state-change.log:117" || !strings.Contains(e.Evidence, "[3, 1]") {
		t.Fatalf("got %+v, want k3/state-change.log:117 with ISR [3, 1]", e)
	}
	if line := cited(t, dir, e.Source); !strings.Contains(line, "become-leader state change for __consumer_offsets-44 ") {
		t.Errorf("cites %q", line)
	}
	// Broker 1 stayed in the ISR: no line drops it.
	if e := offsetsISRShrunk(context.Background(), dir, "k3", 44, 1, F); e.Source != "" {
		t.Errorf("broker 1: got %+v, want none", e)
	}
}

// TestGroupRecoveryNotCoordinator reads the recorded trial of a SIGKILL of
// k1 when broker 3 coordinated the group: no phases, the survivor said,
// the partitions' stall as the group's, and its commits' wait on the
// offsets partition's ISR cited from the coordinator's own log.
func TestGroupRecoveryNotCoordinator(t *testing.T) {
	dir := unpack(t, "group-not-coordinator.tar.gz")
	tr := analyze(t, dir)
	r := tr.Recovery
	if r == nil || r.Faulted || len(r.Phases) != 0 {
		t.Fatalf("recovery = %+v, want one of a coordinator that survived, without phases", r)
	}
	if r.Coordinator != 3 || r.OffsetsPartition != 5 {
		t.Errorf("coordinator %d, partition %d; want 3, 5", r.Coordinator, r.OffsetsPartition)
	}
	if !strings.Contains(r.Note, "broker 3, was not the faulted broker") || !strings.Contains(r.Note, "p0's leader was the faulted broker") {
		t.Errorf("note %q", r.Note)
	}
	c := r.Cause
	if c.Source != "k3/state-change.log:128" || len(c.Settings) != 1 || c.Settings[0].Name != "broker.session.timeout.ms" || c.Settings[0].Value != "9000" {
		t.Fatalf("cause %+v", c)
	}
	if line := cited(t, dir, c.Source); !strings.Contains(line, "__consumer_offsets-5 ") || !strings.Contains(line, "isr=[3, 2]") {
		t.Errorf("cause cites %q", line)
	}
	// Its commits waited until then: the commit stall ends just after.
	if cs := tr.Group.CommitStall; cs == nil || cs.End.Before(time.Date(2026, 12, 5, 6, 21, 49, 554e6, time.UTC)) {
		t.Errorf("commit stall %+v ends before the ISR without broker 1", cs)
	}
	for _, pm := range tr.Metrics.Partitions {
		if _, ok := pm.Values[MeasureCoordinatorLoad]; ok {
			t.Errorf("p%d has a coordinator_load without a new coordinator", pm.Partition)
		}
	}
}

// TestGroupRecoveryWithoutEvidence checks the stage on what it cannot
// split: no group or no fault gives none; no timeline a note, no phases.
func TestGroupRecoveryWithoutEvidence(t *testing.T) {
	f := &results.Fault{Broker: "k2", NodeID: 2, Kind: results.FaultSIGKILL}
	c := &GroupCoordinator{Group: "g", NodeID: 2, Faulted: true}
	ev := &evidence{meta: &results.Meta{Fault: f}, F: time.Date(2026, 12, 5, 6, 0, 0, 0, time.UTC)}
	if r := groupRecoveryOf(context.Background(), ev, f, c, nil, nil); r != nil {
		t.Errorf("no group reader: %+v, want none", r)
	}
	if r := groupRecoveryOf(context.Background(), ev, nil, c, &GroupView{}, nil); r != nil {
		t.Errorf("no fault: %+v, want none", r)
	}
	r := groupRecoveryOf(context.Background(), ev, f, c, &GroupView{}, nil)
	if r == nil || len(r.Phases) != 0 || !strings.Contains(r.Note, "no timeline") {
		t.Errorf("no timeline: %+v, want a note and no phases", r)
	}
}

// TestFindWhy checks the find phase's explanation on both sides of the
// load's end: an answer before it is said as a wait on the load.
func TestFindWhy(t *testing.T) {
	if w := findWhy(2, 230*time.Millisecond); !strings.Contains(w, "came 0.23 s after the load finished") {
		t.Errorf("after: %q", w)
	}
	if w := findWhy(2, -400*time.Millisecond); !strings.Contains(w, "told of broker 2 0.40 s before its load had finished") || strings.Contains(w, "-") {
		t.Errorf("before: %q", w)
	}
}
