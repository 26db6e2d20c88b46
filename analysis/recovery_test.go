package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestChainOutOfOrder checks that evidence out of the recipe's order is
// drawn as it happened: a phase whose line came before the latest boundary
// ends at its own line and takes none of the time, and the next phase
// starts at the latest boundary, not at the early line.
func TestChainOutOfOrder(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 15, 20, 43, 0, time.UTC)
	load := t0.Add(9848 * time.Millisecond)
	find := t0.Add(9677 * time.Millisecond) // told 0.17 s before the load ended
	commit := t0.Add(9900 * time.Millisecond)
	c := chain{prev: t0}
	c.add("load", load, Explanation{}, Bound{})
	c.add("find", find, Explanation{}, Bound{})
	c.add("first commit", commit, Explanation{}, Bound{})
	ps := c.phases
	if f := ps[1]; !f.End.Equal(find) || !f.Start.Equal(find) || f.Duration != 0 || f.Overlap != 171*time.Millisecond {
		t.Errorf("find %s → %s (%s), overlap %s; want zero-length at its line, 0.171 s before the load's end", f.Start, f.End, f.Duration, f.Overlap)
	}
	if cm := ps[2]; !cm.Start.Equal(load) || cm.Duration != 52*time.Millisecond {
		t.Errorf("first commit starts %s (%s), want at the load's end", cm.Start, cm.Duration)
	}
	if got := ps.Total(); got != commit.Sub(t0) {
		t.Errorf("total %s, want %s", got, commit.Sub(t0))
	}
}

// TestBeyondBound reads the recorded SIGKILL trial with its controller's
// logged broker.session.timeout.ms made 6000 (the trial's own was 9000): its
// fence, 8.42 s after the fault, is then beyond what that setting allows,
// (4 s, 6.75 s], by 1.67 s, and every reader of the analysis says so: the
// detect phase, the stall, the trial's expectation and beyond_bound.
func TestBeyondBound(t *testing.T) {
	dir := unpack(t, "sigkill.tar.gz")
	path := filepath.Join(dir, results.NodeLogsDir, "c1", results.ServerLog)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	shorter := strings.Replace(string(b), "broker.session.timeout.ms = 9000", "broker.session.timeout.ms = 6000", -1)
	if shorter == string(b) {
		t.Fatal("the controller's log does not state broker.session.timeout.ms = 9000")
	}
	if err := os.WriteFile(path, []byte(shorter), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := analyze(t, dir)
	const excess = 8418*time.Millisecond - 6750*time.Millisecond
	for _, st := range tr.Stalls {
		d, ok := Phases(st.Phases).Named(PhaseDetect)
		if !ok {
			t.Fatalf("p%d has no detect phase", st.Partition)
		}
		if bd := d.Bound; !bd.Stated || bd.Low != 4*time.Second || bd.High != 6750*time.Millisecond || !bd.Beyond() || (bd.Excess-excess).Abs() > time.Millisecond {
			t.Errorf("p%d detect %s: bound %+v, want (4 s, 6.75 s] and %s beyond", st.Partition, d.Duration, bd, excess)
		}
		if e := st.Expected(); e.Beyond != 1 || (e.Excess-excess).Abs() > time.Millisecond {
			t.Errorf("p%d expected %+v", st.Partition, e)
		}
	}
	x := tr.Expected()
	if len(x.Overruns) != 1 || x.Overruns[0].Phase.Name != PhaseDetect || len(x.Overruns[0].Where) != len(tr.Stalls) {
		t.Fatalf("overruns %+v, want the detection, once, on every partition", x.Overruns)
	}
	if l := x.Line(); !strings.Contains(l, "1 phase(s) beyond") || !strings.Contains(l, "1.67 s beyond (4.00 s, 6.75 s]") || !strings.Contains(l, "c1/controller.log:") {
		t.Errorf("line %q", l)
	}
	for _, pm := range tr.Metrics.Partitions {
		if got := pm.Values[MeasureBeyondBound]; (got - excess).Abs() > time.Millisecond {
			t.Errorf("p%d beyond_bound %s, want %s", pm.Partition, got, excess)
		}
	}
}

// TestBoundMeasure checks the excess against the logs' resolution: a phase
// within a millisecond or two of its bound is within it.
func TestBoundMeasure(t *testing.T) {
	for _, c := range []struct {
		d      time.Duration
		excess time.Duration
	}{{9 * time.Second, 0}, {9*time.Second + time.Millisecond, 0}, {9*time.Second + 10*time.Millisecond, 10 * time.Millisecond}} {
		b := Bound{Stated: true, Low: 7 * time.Second, High: 9 * time.Second}
		b.measure(c.d)
		if b.Excess != c.excess || b.Beyond() != (c.excess > 0) {
			t.Errorf("%s: excess %s, want %s", c.d, b.Excess, c.excess)
		}
	}
	none := noBound("no setting")
	none.measure(time.Hour)
	if none.Beyond() || none.Excess != 0 {
		t.Errorf("a phase with no bound ran beyond it: %+v", none)
	}
}
