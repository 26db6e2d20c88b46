package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// groupTrial writes a trial of three partitions with a group reader: the
// assign reader's receives stall 9 s at the fault on p0, the group
// reader's processing 10 s; its commits fail for 9.5 s, and, when
// backwards is set, a last commit moves p1's offset back.
func groupTrial(t *testing.T, backwards bool) results.Trial {
	t.Helper()
	return groupTrialShaped(t, groupShape{backwards: backwards})
}

// groupShape shapes groupTrial's trial: backwards as there; readBack
// writes the partitions' read-back; skipped are records, by partition and
// seq, the group reader never processed, and again those it processed
// twice.
type groupShape struct {
	backwards, readBack bool
	skipped, again      map[[2]int64]bool
}

func groupTrialShaped(t *testing.T, sh groupShape) results.Trial {
	t.Helper()
	backwards := sh.backwards
	dir := t.TempDir()
	start := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	F := start.Add(10 * time.Second)
	end := start.Add(30 * time.Second)
	m := &results.Meta{Kind: results.KindTrial, KBFVersion: "test", Command: []string{"kbf", "run"}, Started: start, Ended: end,
		Cluster: results.Cluster{Bootstrap: []string{"localhost:9092"}},
		Probe: results.Probe{Topic: "orders", Partitions: []int32{0, 1, 2}, Interval: 100 * time.Millisecond, Acks: "all",
			Client: map[string]string{"idempotent": "true"}, RunID: "r",
			Group: &results.GroupSettings{ID: "kbf-probe-r", Protocol: results.GroupProtocolClassic, Commit: results.CommitSync}},
		Fault: &results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultSIGKILL, SignalSent: F, Finished: F}}
	if err := results.WriteMeta(dir, m); err != nil {
		t.Fatal(err)
	}
	var probe, group, events, log bytes.Buffer
	pe, ge, ee := results.NewEncoder(&probe), results.NewGroupEncoder(&group), results.NewGroupEventEncoder(&events)
	le := results.NewLogEncoder(&log)
	ee.Encode(&results.GroupEvent{Time: start.Add(500 * time.Millisecond), Kind: results.GroupAssigned, Generation: 1, Partitions: []int32{0, 1, 2}})
	offset := map[int32]int64{}
	for i := 0; i < 280; i++ {
		at := start.Add(time.Second + time.Duration(i)*100*time.Millisecond)
		for p := int32(0); p < 3; p++ {
			recv, proc := at.Add(time.Millisecond), at.Add(2*time.Millisecond)
			if p == 0 && at.After(F.Add(-50*time.Millisecond)) && at.Before(F.Add(9*time.Second)) {
				recv = F.Add(9 * time.Second)
			}
			if p == 0 && at.After(F.Add(-50*time.Millisecond)) && at.Before(F.Add(10*time.Second)) {
				proc = F.Add(10 * time.Second)
			}
			pe.Encode(&results.Message{Partition: p, Seq: int64(i), Offset: offset[p], Sent: at, Acked: at, Received: recv})
			k := [2]int64{int64(p), int64(i)}
			if !sh.skipped[k] {
				ge.Encode(&results.GroupRecord{Partition: p, Offset: offset[p], Seq: int64(i), Processed: proc})
			}
			if sh.again[k] {
				ge.Encode(&results.GroupRecord{Partition: p, Offset: offset[p], Seq: int64(i), Processed: proc.Add(time.Millisecond)})
			}
			le.Encode(&results.LogRecord{Partition: p, Offset: offset[p], Seq: int64(i)})
			offset[p]++
		}
		if i%10 == 5 {
			ev := &results.GroupEvent{Time: at.Add(5 * time.Millisecond), Start: at.Add(3 * time.Millisecond), Kind: results.GroupCommit, Generation: 1,
				Offsets: []results.PartitionOffset{{Partition: 0, Offset: offset[0]}, {Partition: 1, Offset: offset[1]}, {Partition: 2, Offset: offset[2]}}}
			if at.After(F) && at.Before(F.Add(9500*time.Millisecond)) {
				ev.Err = "NOT_COORDINATOR: this is not the correct coordinator."
			}
			ee.Encode(ev)
		}
	}
	ee.Encode(&results.GroupEvent{Time: F.Add(9600 * time.Millisecond), Kind: results.GroupRevoked, Generation: 1, Partitions: []int32{0, 1, 2}})
	ee.Encode(&results.GroupEvent{Time: F.Add(9700 * time.Millisecond), Kind: results.GroupAssigned, Generation: 2, Partitions: []int32{0, 1, 2}})
	if backwards {
		ee.Encode(&results.GroupEvent{Time: end.Add(-time.Second), Start: end.Add(-2 * time.Second), Kind: results.GroupCommit, Generation: 2,
			Offsets: []results.PartitionOffset{{Partition: 1, Offset: 3}}})
	}
	for _, f := range []struct {
		name  string
		flush func() error
		buf   *bytes.Buffer
	}{{results.ProbeFile, pe.Flush, &probe}, {results.GroupFile, ge.Flush, &group}, {results.GroupEventsFile, ee.Flush, &events}, {results.LogFile, le.Flush, &log}} {
		if f.name == results.LogFile && !sh.readBack {
			continue
		}
		if err := f.flush(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), f.buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trials, err := results.Find(dir)
	if err != nil || len(trials) != 1 {
		t.Fatalf("%d trials, %v", len(trials), err)
	}
	return trials[0]
}

func TestGroupAnalysis(t *testing.T) {
	tr, err := Analyze(groupTrial(t, false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := tr.Group
	if g == nil {
		t.Fatal("no group view")
	}
	if len(g.Partitions) != 3 || g.Processed != 840 || g.Reprocessed != 0 {
		t.Fatalf("partitions %d, processed %d (%d again), want 3, 840, 0", len(g.Partitions), g.Processed, g.Reprocessed)
	}
	w, ok := g.Worst()
	if !ok || w.Partition != 0 || w.Stalls.Fault == nil || w.Receive == nil {
		t.Fatalf("worst %+v", w)
	}
	if d := w.Stalls.Fault.Duration(); d < 9900*time.Millisecond || d > 10100*time.Millisecond {
		t.Errorf("p0 processing stall %v, want about 10 s", d)
	}
	if d := w.Receive.Duration(); d < 8900*time.Millisecond || d > 9100*time.Millisecond {
		t.Errorf("p0 assign reader's receive stall %v, want about 9 s", d)
	}
	// Commits every second, at F+0.5 s, F+1.5 s…; those up to F+8.5 s
	// fail, so the stall runs from the first of them to the F+9.5 s
	// success's end.
	c := g.CommitStall
	if c == nil || c.Failed != 9 || c.Open {
		t.Fatalf("commit stall %+v, want one of 9 failures, closed", c)
	}
	if d := c.Duration(); d != 9002*time.Millisecond {
		t.Errorf("commit stall %v, want 9.002s", d)
	}
	if g.Failed != 9 || g.Commits != 28 || g.Rebalances() != 2 {
		t.Errorf("%d commits, %d failed, %d rebalances; want 28, 9, 2", g.Commits, g.Failed, g.Rebalances())
	}
	for p, pm := range tr.Metrics.Partitions {
		if _, ok := pm.Values[MeasureGroupStall]; !ok {
			t.Errorf("p%d: no group stall measure", p)
		}
		if pm.Values[MeasureCommitStall] != 9002*time.Millisecond {
			t.Errorf("p%d: commit stall measure %v", p, pm.Values[MeasureCommitStall])
		}
	}
	if tr.Findings.Fail() {
		t.Errorf("findings %v: a failure without offsets going backwards", tr.Findings)
	}
	lines := tr.GroupLines()
	if len(lines) != 2 || !strings.Contains(lines[0], "processing stall at the fault 10.10 s on p0 (the assign reader's receive stall 9.10 s)") ||
		!strings.Contains(lines[1], "commit stall 9.00 s") || !strings.Contains(lines[1], "2 rebalance(s), revoked") {
		t.Errorf("lines:\n%s", strings.Join(lines, "\n"))
	}
}

func TestGroupOffsetsBackwards(t *testing.T) {
	tr, err := Analyze(groupTrial(t, true), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tr.Group.Backwards); n != 1 {
		t.Fatalf("%d backwards commits, want 1", n)
	}
	if !tr.Findings.Fail() || !strings.Contains(tr.Findings.Why(), "1 committed offset(s) went backwards") {
		t.Errorf("findings %v: want offsets going backwards to fail the trial", tr.Findings)
	}
	if lines := tr.GroupLines(); len(lines) != 3 || !strings.Contains(lines[2], "FINDING") {
		t.Errorf("lines:\n%s", strings.Join(lines, "\n"))
	}
}

// TestGroupAudit: with the partitions read back, a record below the
// group's highest committed offset that the group reader never processed
// is a finding (exit 3), one past it is not yet promised; records
// processed again are counted and said as what at-least-once allows.
func TestGroupAudit(t *testing.T) {
	for _, c := range []struct {
		name          string
		sh            groupShape
		audited, fail bool
		skipped       int
		why, allowed  string
	}{
		{name: "no read-back", sh: groupShape{skipped: map[[2]int64]bool{{1, 40}: true}}},
		{name: "clean", sh: groupShape{readBack: true}, audited: true},
		// Seq 40 is far below the last commit (at seq 275); seq 279,
		// the last record, is past every commit: not promised.
		{name: "skipped below a commit", sh: groupShape{readBack: true, skipped: map[[2]int64]bool{{1, 40}: true, {2, 279}: true}},
			audited: true, fail: true, skipped: 1, why: "1 record(s) below a committed offset never processed by the group reader"},
		{name: "processed again", sh: groupShape{readBack: true, again: map[[2]int64]bool{{0, 7}: true, {2, 8}: true}},
			audited: true, allowed: "the group reader processed 2 record(s) again, which at-least-once"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Analyze(groupTrialShaped(t, c.sh), Options{})
			if err != nil {
				t.Fatal(err)
			}
			g := tr.Group
			if g.Audited != c.audited || g.SkippedN != c.skipped || !strings.HasPrefix(g.Promise, "at-least-once") {
				t.Fatalf("audited %v, %d skipped, promise %q; want %v, %d", g.Audited, g.SkippedN, g.Promise, c.audited, c.skipped)
			}
			if c.skipped > 0 && (g.Skipped[0] != GroupSkip{Partition: 1, Offset: 40, Seq: 40}) {
				t.Errorf("skipped %+v, want p1 offset 40", g.Skipped)
			}
			if tr.Findings.Fail() != c.fail || !strings.Contains(tr.Findings.Why(), c.why) {
				t.Errorf("findings fail %v (%s), want %v (%s)", tr.Findings.Fail(), tr.Findings.Why(), c.fail, c.why)
			}
			if c.allowed != "" && (len(tr.Findings) == 0 || !strings.Contains(tr.Findings[0].String(), c.allowed)) {
				t.Errorf("findings %v: want %q", tr.Findings, c.allowed)
			}
			if c.fail && !strings.Contains(strings.Join(tr.GroupLines(), "\n"), "FINDING: 1 record(s) below a committed offset never processed") {
				t.Errorf("lines:\n%s", strings.Join(tr.GroupLines(), "\n"))
			}
		})
	}
}
