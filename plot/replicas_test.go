package plot

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

// copyTrial copies the hand-made trial's top files into a new directory.
func copyTrial(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{results.MetaFile, results.ProbeFile, "client.log"} {
		b, err := os.ReadFile(filepath.Join(handMade, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The replica panels: one per partition with a replica view, a dashed LEO
// line per broker and a solid HW line per leader that answered.
func TestReplicaPanels(t *testing.T) {
	dir := copyTrial(t)
	fault := time.Date(2026, 11, 30, 3, 26, 8, 0, time.UTC)
	var buf bytes.Buffer
	enc := results.NewReplicaEncoder(&buf)
	for at := -5 * time.Second; at <= 10*time.Second; at += 100 * time.Millisecond {
		off := int64(1000 + at/(20*time.Millisecond))
		for b := int32(1); b <= 3; b++ {
			s := results.ReplicaSample{Time: fault.Add(at), Partition: 0, Broker: b, LEO: off, HW: -1}
			if b == 1 {
				if at > 0 {
					continue // dead: no answer
				}
				s.HW = off
			}
			if b == 2 && at > 5*time.Second {
				s.HW = off
			}
			enc.Encode(&s)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.ReplicasFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	without := draw(t, handMade, Options{})
	got := draw(t, dir, Options{})
	checkXML(t, got)
	if bytes.Contains(without, []byte("replicas, offsets")) {
		t.Error("a trial without replicas.csv has a replica panel")
	}
	if n := strings.Count(string(got), "replicas, offsets"); n != 1 {
		t.Errorf("%d replica panels, want one (p0's)", n)
	}
	if n := strings.Count(string(got), `stroke-dasharray="4 2"`); n != 3 {
		t.Errorf("%d dashed LEO lines, want one per broker (3)", n)
	}
	if !bytes.Contains(got, []byte(`clip-path="url(#replicas-p0)"`)) {
		t.Error("the panel's lines are not clipped to it")
	}
}

// While a partition has no leader its HW is unknown: the leader's HW line
// breaks there, rather than run flat across, and the live replicas' LEO
// lines go on.
func TestReplicaPanelsLeaderless(t *testing.T) {
	dir := copyTrial(t)
	fault := time.Date(2026, 11, 30, 3, 26, 8, 0, time.UTC)
	var buf bytes.Buffer
	enc := results.NewReplicaEncoder(&buf)
	for at := -5 * time.Second; at <= 10*time.Second; at += 100 * time.Millisecond {
		none := at > 0 && at < 3*time.Second // broker 1, the last replica, dead until 3 s
		off := int64(1000 + at/(20*time.Millisecond))
		for b := int32(1); b <= 3; b++ {
			s := results.ReplicaSample{Time: fault.Add(at), Partition: 0, Broker: b, LEO: off, HW: -1}
			switch {
			case none && b == 1:
				continue
			case none:
				s.LEO = 1000
			case b == 1:
				s.HW = off
			}
			enc.Encode(&s)
		}
		st := results.ReplicaSample{Time: fault.Add(at + time.Millisecond), Partition: 0, Broker: -1, LEO: -1, HW: -1, Leader: 1, ISR: []int32{1}}
		if none {
			st.Leader = -1
		}
		enc.Encode(&st)
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.ReplicasFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got := string(draw(t, dir, Options{}))
	panel := got[strings.Index(got, "replicas, offsets"):]
	if n := strings.Count(panel, `stroke-width="2"`); n != 2 {
		t.Errorf("%d HW lines, want broker 1's twice: before and after the time without a leader", n)
	}
	if n := strings.Count(panel, `stroke-dasharray="4 2"`); n != 3 {
		t.Errorf("%d dashed LEO lines, want one per broker (3)", n)
	}
}

func TestSplitAt(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 3, 26, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	xs := []analysis.ReplicaOffset{{Time: at(0)}, {Time: at(1)}, {Time: at(5)}, {Time: at(6)}}
	for _, c := range []struct {
		name string
		none []analysis.Leaderless
		want []int // the runs' lengths
	}{
		{"always a leader", nil, []int{4}},
		{"none between two answers", []analysis.Leaderless{{From: at(2), To: at(4)}}, []int{2, 2}},
		{"none from an answer's time", []analysis.Leaderless{{From: at(5), To: at(6)}}, []int{2, 2}},
		{"none before the first answer", []analysis.Leaderless{{From: t0.Add(-time.Second), To: at(0)}}, []int{4}},
		{"none after the last, never again", []analysis.Leaderless{{From: at(7)}}, []int{4}},
		{"twice", []analysis.Leaderless{{From: at(1), To: at(2)}, {From: at(3), To: at(4)}}, []int{1, 1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []int
			for _, r := range splitAt(xs, c.none) {
				got = append(got, len(r))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("runs %v, want %v", got, c.want)
			}
		})
	}
}
