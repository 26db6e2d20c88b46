package plot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
