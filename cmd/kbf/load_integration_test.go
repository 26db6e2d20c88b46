//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/load"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// TestIntegrationLoad SIGKILLs k1 with real traffic beside the probe
// (--load 1000/s of 1 KiB records). It checks what must hold whatever the
// machine's load: the load's own topic made like the probe's, load.csv one
// row per second through the fault, acknowledged records on both sides of
// it and no more acknowledged or failed than sent, the probe's figures its
// own (its records only, on its partitions), and the load's line in the
// printed digest, report.txt and report.json.
func TestIntegrationLoad(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	stepsCluster(ctx, t, compose.Options{})
	out := filepath.Join(t.TempDir(), "run")
	var stdout, stderr bytes.Buffer
	args := []string{"run", "--kill", "sigkill", "--baseline-gap", "1s", "--duration", "30s",
		"--fault-after", trialFaultAfter.String(), "--load", "1000/s", "--load-size", "1KiB", "--out", out}
	if code := run(ctx, args, &stdout, &stderr); code != exitOK && code != exitNoValid {
		t.Fatalf("kbf %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, stdout.String(), stderr.String())
	}
	t.Logf("stdout:\n%s", stdout.String())
	trials, err := results.Find(out)
	if err != nil || len(trials) != 1 {
		t.Fatalf("trials %v: %v", trials, err)
	}
	tr, err := analysis.Analyze(trials[0], analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := tr.Verdict; v == nil || v.Status == verdict.Invalid {
		t.Fatalf("verdict %v", v)
	}

	s := tr.Meta.Load
	if s == nil || s.Topic != tr.Meta.Probe.Topic+load.TopicSuffix || s.Rate != 1000 || s.Size != 1024 || s.Acks != "all" {
		t.Fatalf("meta's load %+v: want 1000/s of 1024 bytes on the probe's topic's -load", s)
	}
	if rf := len(tr.Meta.Probe.Replicas[0]); s.Replication != rf || s.Partitions < len(tr.Meta.Probe.Partitions) {
		t.Errorf("load topic %d partitions, replication %d: want the probe topic's shape (replication %d)", s.Partitions, s.Replication, rf)
	}

	rows := readLoad(t, tr.Dir)
	var sent, acked, failed int64
	ackedBefore, ackedAfter := false, false
	for i, r := range rows {
		if i > 0 && !r.Second.Equal(rows[i-1].Second.Add(time.Second)) {
			t.Errorf("row %d: %v after %v: want one row per second", i+1, r.Second, rows[i-1].Second)
		}
		sent, acked, failed = sent+r.Sent, acked+r.Acked, failed+r.Failed
		ackedBefore = ackedBefore || (r.Acked > 0 && r.Second.Add(time.Second).Before(tr.FaultAt))
		ackedAfter = ackedAfter || (r.Acked > 0 && r.Second.After(tr.FaultAt))
	}
	if len(rows) == 0 || rows[0].Second.After(tr.FaultAt) || rows[len(rows)-1].Second.Before(tr.FaultAt) {
		t.Fatalf("load.csv %d rows: want them through the fault at %v", len(rows), tr.FaultAt)
	}
	if sent == 0 || acked+failed > sent || !ackedBefore || !ackedAfter {
		t.Errorf("load: %d sent, %d acked, %d failed; acked before the fault %v, after %v: want acks on both sides, none beyond what was sent",
			sent, acked, failed, ackedBefore, ackedAfter)
	}
	v := tr.Load
	if v == nil || v.Sent != sent || v.AckedTotal != acked || v.LowAt.IsZero() {
		t.Fatalf("the report's load %+v: want load.csv's counts and the lowest second after the fault", v)
	}
	t.Logf("load: %d sent, %d acked, %d failed (%s), %d read; %.0f/s before the fault, %d/s at %v, back at %v",
		sent, acked, failed, v.FirstErr, v.Received, v.Acked, v.Low, v.LowAt.Sub(tr.FaultAt), v.BackAt.Sub(tr.FaultAt))

	// The probe's figures are its own: every probe.csv row is one of its
	// partitions', and the gaps know only those.
	if n := len(tr.Gaps.Partitions); n != len(tr.Meta.Probe.Partitions) {
		t.Errorf("gaps of %d partitions: want the probe's %d", n, len(tr.Meta.Probe.Partitions))
	}

	line := tr.LoadLine()
	if !strings.HasPrefix(line, "load: 1,000 rec/s offered (1000/s, 1024-byte records on ") || !strings.Contains(line, "throughput fell to") {
		t.Errorf("load line %q", line)
	}
	if !strings.Contains(stdout.String(), line) {
		t.Errorf("the printed digest lacks the load line %q", line)
	}
	txt, err := os.ReadFile(filepath.Join(tr.Dir, results.ReportFile))
	if err != nil || !strings.Contains(string(txt), line) {
		t.Errorf("report.txt lacks the load line %q (%v)", line, err)
	}
	b, err := os.ReadFile(filepath.Join(tr.Dir, results.ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Load *struct {
			Sent int64  `json:"sent"`
			Line string `json:"line"`
		} `json:"load"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Load == nil || doc.Load.Sent != sent || doc.Load.Line != line {
		t.Errorf("report.json's load %+v: want load.csv's %d sent and the line", doc.Load, sent)
	}
}

// readLoad reads a trial's load.csv.
func readLoad(t *testing.T, dir string) []results.LoadSecond {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, results.LoadFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := results.NewLoadDecoder(f, results.LoadFile)
	var out []results.LoadSecond
	for {
		var s results.LoadSecond
		if err := dec.Decode(&s); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatal(err)
		}
		out = append(out, s)
	}
}
