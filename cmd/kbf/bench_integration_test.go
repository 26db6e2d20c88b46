//go:build integration

// A benchmark on the real cluster: two scenarios of two short trials each,
// through kbf bench, read back as kbf compare reads it. It asserts what the
// files must hold, never timings, and takes the cluster down at the end.
//
//	KBF_IMAGE=kbf/kafka:4.3.1 go test -tags integration ./cmd/kbf/ -run IntegrationBench -v -timeout 20m

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/compare"
	"github.com/kbf-project/kbf/compose"
)

func TestIntegrationBench(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 18*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cl, err := compose.New(compose.Options{})
		if err != nil {
			t.Errorf("down: %v", err)
			return
		}
		defer cl.Close()
		if _, err := cl.Down(ctx); err != nil {
			t.Errorf("down: %v", err)
		}
	})
	dir := t.TempDir()
	file := filepath.Join(dir, "bench.yaml")
	const scenarios = `trials: 2
scenarios:
  - name: kill
    fault: sigkill
    duration: 25s
    fault_after: 5s
  - name: term
    fault: sigterm
    duration: 15s
    fault_after: 5s
`
	if err := os.WriteFile(file, []byte(scenarios), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"bench", file, "--out", out}, &stdout, &stderr); code != exitOK {
		t.Fatalf("kbf bench: exit %d\n%s", code, stderr.String())
	}

	// The trials ran interleaved, each into its own directory, and each was
	// valid: the cluster was healthy again between them.
	var st bench.State
	b, err := os.ReadFile(filepath.Join(out, bench.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range st.Done {
		ids = append(ids, d.ID)
		if d.Error != "" {
			t.Errorf("%s failed: %s", d.ID, d.Error)
		}
	}
	if got, want := strings.Join(ids, " "), "kill/trial-01 term/trial-01 kill/trial-02 term/trial-02"; got != want {
		t.Errorf("trials ran %s, want %s", got, want)
	}
	for _, id := range ids {
		if _, err := os.Stat(filepath.Join(out, id, "meta.json")); err != nil {
			t.Errorf("trial directory %s: %v", id, err)
		}
	}

	// bench.txt holds a result per valid trial, scenario and role, with no
	// acknowledged record lost. A trial the verdict left out (a suspect one
	// on a loaded machine) must say why, in summary.md too.
	side, err := compare.Read(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, bench.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kill", "term"} {
		valid := 0
		for _, rep := range []string{"trial-01", "trial-02"} {
			m, err := bench.Measure(filepath.Join(out, name, rep))
			if err != nil {
				t.Fatal(err)
			}
			if m.Valid {
				valid++
				continue
			}
			t.Logf("%s/%s left out: %s", name, rep, m.Reason)
			if !strings.Contains(string(md), name+"/"+rep+" did not count: "+m.Reason) {
				t.Errorf("summary.md does not say why %s/%s did not count", name, rep)
			}
		}
		if !strings.Contains(string(md), fmt.Sprintf("Trials valid: %d of 2", valid)) {
			t.Errorf("summary.md does not count %d valid trials of %s:\n%s", valid, name, md)
		}
		for _, role := range []string{bench.RoleLeader, bench.RoleFollower} {
			k := compare.Key{Name: bench.BenchName + "/scenario=" + name + "/role=" + role, Unit: "ack-stall-sec"}
			if n := len(side.Samples[k]); n != valid {
				t.Errorf("%s: %d ack stalls, want one per valid trial, %d", k.Name, n, valid)
			}
			for _, lost := range side.Samples[compare.Key{Name: k.Name, Unit: "lost-acked-records"}] {
				if lost != 0 {
					t.Errorf("%s: %v acknowledged records lost", k.Name, lost)
				}
			}
		}
	}

	// Run again: the benchmark is done, nothing runs, the files stay.
	stderr.Reset()
	if code := run(ctx, []string{"bench", file, "--out", out}, &stdout, &stderr); code != exitOK || strings.Contains(stderr.String(), "bench: trial") {
		t.Errorf("a finished benchmark ran again: exit %d\n%s", code, stderr.String())
	}
	// Two trials a side are too few to conclude. A copy on one side:
	// compare refuses one file on both.
	again := filepath.Join(t.TempDir(), bench.TextFile)
	if b, err := os.ReadFile(filepath.Join(out, bench.TextFile)); err != nil || os.WriteFile(again, b, 0o644) != nil {
		t.Fatalf("copy %s: %v", bench.TextFile, err)
	}
	if code := run(ctx, []string{"compare", out, again}, &stdout, &stderr); code != exitTooFew {
		t.Errorf("compare of two trials a side: exit %d, want %d", code, exitTooFew)
	}
}
