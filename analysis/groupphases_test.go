package analysis

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
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
		if got := keyPartition(c.id, c.n); got != c.want {
			t.Errorf("keyPartition(%q, %d) = %d, want %d", c.id, c.n, got, c.want)
		}
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
			if r.Partition != c.partition || r.NewCoordinator != c.newCoord || r.Note != "" {
				t.Errorf("partition %d, new coordinator %d, note %q; want %d, %d, none", r.Partition, r.NewCoordinator, r.Note, c.partition, c.newCoord)
			}
			var names []string
			for i, ph := range r.Phases {
				names = append(names, ph.Name)
				if ph.Duration < 0 || ph.End.Sub(ph.Start) != ph.Duration {
					t.Errorf("%s: %s → %s, duration %s", ph.Name, ph.Start, ph.End, ph.Duration)
				}
				// A phase starts where the latest boundary before it was,
				// or, out of the recipe's order, at its own line.
				if i > 0 && !ph.Start.Equal(latestEnd(r.Phases[:i])) && (ph.Overlap <= 0 || !ph.Start.Equal(ph.End)) {
					t.Errorf("%s starts at %s, neither where the phases before it ended nor at its own line", ph.Name, ph.Start)
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
			checkAtLines(t, dir, r.Phases)
			want := map[string]string{
				GroupPhaseDetect: "Fencing broker 2",
				GroupPhaseElect:  "Leader __consumer_offsets-" + strconv.Itoa(int(c.partition)) + " ",
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
	tl := trialTimeline(t, dir)
	e := isrWithout(tl, "k3", offsetsTopic, 44, 2, F)
	if e.Source != "k3/state-change.log:117" || !strings.Contains(e.Evidence, "[3, 1]") {
		t.Fatalf("got %+v, want k3/state-change.log:117 with ISR [3, 1]", e)
	}
	if line := cited(t, dir, e.Source); !strings.Contains(line, "become-leader state change for __consumer_offsets-44 ") {
		t.Errorf("cites %q", line)
	}
	// Broker 1 stayed in the ISR: no line drops it.
	if e := isrWithout(tl, "k3", offsetsTopic, 44, 1, F); e.Source != "" {
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
	if r.Coordinator != 3 || r.Partition != 5 {
		t.Errorf("coordinator %d, partition %d; want 3, 5", r.Coordinator, r.Partition)
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
	c := &results.Coordinator{Kind: results.CoordinatorGroup, Key: "g", NodeID: 2, Broker: "k2", Via: results.FoundByFindCoordinator}
	f := &results.Fault{Broker: "k2", NodeID: 2, Kind: results.FaultSIGKILL, GroupCoordinator: c}
	ev := &evidence{meta: &results.Meta{Fault: f}, F: time.Date(2026, 12, 5, 6, 0, 0, 0, time.UTC)}
	ff := factsOf(ev, f, 2)
	if r := groupRecoveryOf(ev, ff, nil, nil); r != nil {
		t.Errorf("no group reader: %+v, want none", r)
	}
	if r := groupRecoveryOf(ev, factsOf(ev, nil, 2), &GroupView{}, nil); r != nil {
		t.Errorf("no fault: %+v, want none", r)
	}
	r := groupRecoveryOf(ev, ff, &GroupView{}, nil)
	if r == nil || len(r.Phases) != 0 || !strings.Contains(r.Note, "no timeline") {
		t.Errorf("no timeline: %+v, want a note and no phases", r)
	}
}

// TestFindWhy checks the find phase's explanation on both sides of the
// load's end: an answer before it is said as a wait on the load.
func TestFindWhy(t *testing.T) {
	if w := findWhyOf("group", 2, 230*time.Millisecond); !strings.Contains(w, "came 0.23 s after the load finished") {
		t.Errorf("after: %q", w)
	}
	if w := findWhyOf("group", 2, -400*time.Millisecond); !strings.Contains(w, "told of broker 2 0.40 s before its load had finished") || strings.Contains(w, "-") {
		t.Errorf("before: %q", w)
	}
}

// trialTimeline is the timeline the analysis of the trial at dir read.
func trialTimeline(t *testing.T, dir string) *timeline.Timeline {
	t.Helper()
	tr := analyze(t, dir)
	if tr.Timeline == nil {
		t.Fatal("no timeline")
	}
	return tr.Timeline
}

// latestEnd is the latest end of phases ps.
func latestEnd(ps Phases) time.Time {
	var end time.Time
	for _, p := range ps {
		if p.End.After(end) {
			end = p.End
		}
	}
	return end
}

// checkAtLines checks that every phase of ps that cites a line of a node's
// log or of client.log ends at that line's very time, to its precision.
func checkAtLines(t *testing.T, dir string, ps Phases) {
	t.Helper()
	for _, ph := range ps {
		if !strings.Contains(ph.Source, ".log:") {
			continue
		}
		line := cited(t, dir, ph.Source)
		var at time.Time
		var err error
		if strings.HasPrefix(line, "[") {
			at, err = time.Parse("2006-01-02 15:04:05,000", line[1:24])
		} else {
			at, err = time.Parse(time.RFC3339Nano, strings.Fields(line)[0])
		}
		if err != nil {
			t.Fatalf("%s cites %s, whose time does not parse: %v", ph.Name, ph.Source, err)
		}
		if !ph.End.Equal(at) {
			t.Errorf("%s ends at %s, its line [%s] at %s", ph.Name, ph.End.Format(time.RFC3339Nano), ph.Source, at.Format(time.RFC3339Nano))
		}
	}
}
