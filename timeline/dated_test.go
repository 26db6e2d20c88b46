package timeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const fenceAt = "[2026-11-30 16:42:17,996] INFO [QuorumController id=100] Fencing broker 1 at epoch 13 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)\n"

// Build counts each node log's events by where they fall against From and
// To, and reads nothing of a log that is not text.
func TestBuildDatedAndDamaged(t *testing.T) {
	at := time.Date(2026, 11, 30, 16, 42, 17, 996_000_000, time.UTC)
	for _, tc := range []struct {
		name     string
		text     string
		from, to time.Time
		events   int
		dated    Dated // File is filled in
		damaged  string
	}{
		{name: "within the trial", text: fenceAt, from: at.Add(-time.Minute), to: at.Add(time.Minute),
			events: 1, dated: Dated{Kept: 1}},
		{name: "after its end", text: fenceAt, from: at.Add(-time.Hour), to: at.Add(-30 * time.Minute),
			dated: Dated{After: 1, First: at, Last: at}},
		{name: "before its start", text: fenceAt, from: at.Add(time.Second),
			dated: Dated{Before: 1, First: at, Last: at}},
		{name: "binary", text: "\x7fELF\x00\x00" + fenceAt, damaged: "c1/controller.log: binary (a NUL byte at offset 4)"},
		{name: "not UTF-8", text: "[2026-11-30 16:42:17,996] \xff\xfe INFO\n" + fenceAt, damaged: "c1/controller.log: not text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "controller.log")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			tl, err := Build(Sources{Nodes: map[string][]string{"c1": {path}}}, Options{From: tc.from, To: tc.to})
			if err != nil {
				t.Fatal(err)
			}
			if len(tl.Events) != tc.events {
				t.Errorf("%d events, want %d", len(tl.Events), tc.events)
			}
			if tc.damaged != "" {
				if len(tl.Damaged) != 1 || !strings.HasPrefix(tl.Damaged[0], tc.damaged) || len(tl.Dated) != 0 {
					t.Errorf("damaged %q, dated %+v; want %q and nothing read", tl.Damaged, tl.Dated, tc.damaged)
				}
				return
			}
			want := tc.dated
			want.File = "c1/controller.log"
			if len(tl.Dated) != 1 || tl.Dated[0] != want || len(tl.Damaged) != 0 {
				t.Errorf("dated %+v, damaged %q; want [%+v]", tl.Dated, tl.Damaged, want)
			}
		})
	}
}
