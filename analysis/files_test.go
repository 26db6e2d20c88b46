package analysis

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// withLoad gives the recorded trial at dir a load (meta.json's load
// section) and its load.csv rows, one a second over the trial, 100 sent
// and acked in each.
func withLoad(t *testing.T, dir string) {
	t.Helper()
	m, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Load = &results.LoadSettings{Topic: "kbf-probe-load", Partitions: 3, Replication: 3, Rate: 100, Size: 1024, Acks: "all", Offered: "100/s"}
	if err := results.WriteMeta(dir, m); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	enc := results.NewLoadEncoder(&b)
	for s := m.Started.Truncate(time.Second); !s.After(m.Ended); s = s.Add(time.Second) {
		enc.Encode(&results.LoadSecond{Second: s, Sent: 100, Acked: 100, Received: 100})
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, results.LoadFile), b.String())
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// headerOnly cuts the file at path to its header.
func headerOnly(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(b), "\n")
	writeFile(t, path, head+"\n")
}

// TestResultFilesDamaged: a file meta.json says the trial wrote, missing
// or holding only its header while the probe read records, is damaged
// evidence — the verdict suspect, no figure read from it — never a
// count of zero.
func TestResultFilesDamaged(t *testing.T) {
	for _, tc := range []struct {
		archive, file string
		load          bool
		gone          func(*Trial) bool // the file's figures are not reported
	}{
		{"group-coordinator-classic.tar.gz", results.GroupFile, false, func(tr *Trial) bool { return tr.Group == nil }},
		{"group-coordinator-classic.tar.gz", results.GroupEventsFile, false, func(tr *Trial) bool { return tr.Group == nil }},
		{"txn-coordinator-1.tar.gz", results.TxnFile, false, func(tr *Trial) bool { return tr.Txn == nil }},
		{"sigkill.tar.gz", results.LoadFile, true, func(tr *Trial) bool { return tr.Load == nil }},
		// An empty read-back, from a trial that recorded no topic IDs, is
		// a topic recreated under it, a damaged file or every record lost:
		// no loss is counted (readbacktopic_test.go has the same topic's),
		// and the trial is suspect.
		{"sigkill.tar.gz", results.LogFile, false, func(tr *Trial) bool {
			return tr.Integrity == nil && tr.AuditVoid != "" && !tr.Findings.Fail()
		}},
	} {
		for _, how := range []string{"missing", "header only"} {
			if tc.file == results.LogFile && how == "missing" {
				continue // no read-back at all: said, not damaged (the trial may not have read back)
			}
			t.Run(tc.file+"/"+how, func(t *testing.T) {
				dir := unpack(t, tc.archive)
				if tc.load {
					withLoad(t, dir)
				}
				if good := analyze(t, dir); tc.gone(good) {
					t.Fatalf("the intact trial already shows what damaging %s does", tc.file)
				}
				path := filepath.Join(dir, tc.file)
				if how == "missing" {
					if err := os.Remove(path); err != nil {
						t.Fatal(err)
					}
				} else {
					headerOnly(t, path)
				}
				tr := analyze(t, dir)
				if !tc.gone(tr) {
					t.Errorf("%s %s: its figures are still reported, as zeros", tc.file, how)
				}
				if tr.Verdict.Valid() {
					t.Fatalf("verdict %s, want suspect", tr.Verdict)
				}
				found := false
				for _, r := range tr.Verdict.Reasons {
					found = found || r.Kind == verdict.EvidenceDamaged && strings.Contains(r.Detail, tc.file)
				}
				if !found {
					t.Errorf("verdict %s: want evidence-damaged naming %s", tr.Verdict, tc.file)
				}
			})
		}
	}
}

// TestResultFilesBounded: a row of a partition the trial did not probe,
// dated outside it, or counting past what can have happened is refused
// at its line.
func TestResultFilesBounded(t *testing.T) {
	for _, tc := range []struct {
		name, archive, file string
		load                bool
		edit                func(string) string
		want                string
	}{
		{"group row of a partition not probed", "group-coordinator-classic.tar.gz", results.GroupFile, false,
			func(s string) string { return strings.Replace(s, "\n1,0,0,", "\n7,0,0,", 1) }, "group.csv: line 2, column 1: partition: partition not probed in this run: 7"},
		{"group row after the trial", "group-coordinator-classic.tar.gz", results.GroupFile, false,
			func(s string) string { return s + "1,99999,99999,2026-12-05T07:00:00.000000000Z\n" }, "outside the trial"},
		{"transaction of a partition not probed", "txn-coordinator-1.tar.gz", results.TxnFile, false,
			func(s string) string { return strings.Replace(s, " 2:", " 9:", 1) }, "partition not probed in this run: 9"},
		{"transaction of 10^18 records", "txn-coordinator-1.tar.gz", results.TxnFile, false,
			func(s string) string {
				return strings.Replace(s, ",committed,0:0-33 ", ",committed,0:0-999999999999999999 ", 1)
			}, "more records than the 100 a transaction holds"},
		{"load acked past sent", "sigkill.tar.gz", results.LoadFile, true,
			func(s string) string { return strings.Replace(s, ",100,100,0,100,\n", ",100,9100,0,100,\n", 1) }, "more than the 100 sent"},
		{"load sent past its rate", "sigkill.tar.gz", results.LoadFile, true,
			func(s string) string {
				return strings.Replace(s, ",100,100,0,100,\n", ",9223372036854775807,100,0,100,\n", 2)
			}, "more than the load's 100/s can have offered"},
		{"load longer than the trial", "sigkill.tar.gz", results.LoadFile, true,
			func(s string) string { return s + "2026-12-06T00:00:00Z,100,100,0,100,\n" }, "outside the trial"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := unpack(t, tc.archive)
			if tc.load {
				withLoad(t, dir)
			}
			path := filepath.Join(dir, tc.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			edited := tc.edit(string(b))
			if edited == string(b) {
				t.Fatal("the edit changed nothing")
			}
			writeFile(t, path, edited)
			trials, err := results.Find(dir)
			if err != nil {
				t.Fatal(err)
			}
			_, err = AnalyzeContext(context.Background(), trials[0], Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one holding %q", err, tc.want)
			}
		})
	}
}
