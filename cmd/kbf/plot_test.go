package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/plot"
	"github.com/kbf-project/kbf/results"
)

func TestPlotFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    plotOptions
		wantErr string // part of stderr when the exit code must be exitUsage
	}{
		{name: "defaults", args: []string{"plot", "run/trial-01"},
			want: plotOptions{width: plot.DefaultWidth, height: plot.DefaultHeight}},
		{name: "out and size", args: []string{"plot", "run", "--out", "-", "--width", "800", "--height", "600"},
			want: plotOptions{out: "-", width: 800, height: 600}},
		{name: "no path", args: []string{"plot"}, wantErr: "one PATH"},
		{name: "two paths", args: []string{"plot", "a", "b"}, wantErr: "one PATH"},
		{name: "narrow", args: []string{"plot", "a", "--width", "100"}, wantErr: "--width 100: want 640 to 8000 pixels"},
		{name: "wide", args: []string{"plot", "a", "--width", "100000"}, wantErr: "--width 100000"},
		{name: "short", args: []string{"plot", "a", "--height", "0"}, wantErr: "--height 0: want 480 to 4000 pixels"},
		{name: "tall", args: []string{"plot", "a", "--height", "5000"}, wantErr: "--height 5000"},
		{name: "width not a number", args: []string{"plot", "a", "--width", "wide"}, wantErr: "invalid argument"},
		{name: "empty out", args: []string{"plot", "a", "--out", ""}, wantErr: "--out: want a file name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *plotOptions
			var path string
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newPlotCmdF(g, func(_ context.Context, o *plotOptions, p string) error { got, path = o, p; return nil })
			}, tt.args...)
			if tt.wantErr != "" {
				checkUsageError(t, code, stderr, tt.wantErr, got != nil)
				return
			}
			if code != exitOK || got == nil {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if *got != tt.want || path != tt.args[1] {
				t.Errorf("options %+v, path %q; want %+v, %q", *got, path, tt.want, tt.args[1])
			}
		})
	}
}

// writeTrial writes a small trial into dir: meta.json with a SIGKILL of k1
// 2 s in, and a probe.csv of two partitions acked every 100 ms but for a
// 1.5 s gap at the fault.
func writeTrial(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 30, 3, 26, 0, 0, time.UTC)
	fault := start.Add(2 * time.Second)
	meta := &results.Meta{Kind: "trial", Started: start, Ended: start.Add(5 * time.Second),
		Cluster: results.Cluster{KafkaVersion: "4.3.1"},
		Probe:   results.Probe{Topic: "orders", Partitions: []int32{0, 1}, Interval: 100 * time.Millisecond, Acks: "all"},
		Fault:   &results.Fault{Broker: "k1", NodeID: 1, Kind: "sigkill", SignalSent: fault, Finished: fault}}
	if err := results.WriteMeta(dir, meta); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := results.NewEncoder(&b)
	for seq := range 50 {
		for p := range int32(2) {
			sent := start.Add(time.Duration(seq) * 100 * time.Millisecond)
			acked := sent.Add(5 * time.Millisecond)
			if sent.After(fault.Add(-50*time.Millisecond)) && sent.Before(fault.Add(1500*time.Millisecond)) {
				acked = fault.Add(1500 * time.Millisecond)
			}
			enc.Encode(&results.Message{Partition: p, Seq: int64(seq), Offset: int64(seq), Sent: sent, Acked: acked})
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.ProbeFile), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func checkSVG(t *testing.T, name string, doc []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed: %v", name, err)
		}
	}
	if !bytes.Contains(doc, []byte("<svg xmlns=\"http://www.w3.org/2000/svg\"")) || !bytes.Contains(doc, []byte("SIGKILL k1")) {
		t.Errorf("%s: not a picture of the trial:\n%.300s", name, doc)
	}
}

func TestPlotPath(t *testing.T) {
	run := t.TempDir()
	for _, trial := range []string{results.TrialDir(1), results.TrialDir(2)} {
		writeTrial(t, filepath.Join(run, trial))
	}
	one := filepath.Join(run, results.TrialDir(1))
	opt := plotOptions{width: plot.DefaultWidth, height: plot.DefaultHeight}

	t.Run("trial", func(t *testing.T) {
		var out bytes.Buffer
		if err := plotPath(context.Background(), &out, one, opt); err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(one, results.PlotFile)
		if out.String() != want+"\n" {
			t.Errorf("printed %q, want %q", out.String(), want+"\n")
		}
		doc, err := os.ReadFile(want)
		if err != nil {
			t.Fatal(err)
		}
		checkSVG(t, want, doc)
		if st, err := os.Stat(want); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("mode %v, %v; want 0644", st.Mode(), err)
		}
	})
	t.Run("run", func(t *testing.T) {
		var out bytes.Buffer
		if err := plotPath(context.Background(), &out, run, opt); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("printed %q, want two paths", out.String())
		}
		for i, trial := range []string{results.TrialDir(1), results.TrialDir(2)} {
			if want := filepath.Join(run, trial, results.PlotFile); lines[i] != want {
				t.Errorf("line %d %q, want %q", i, lines[i], want)
			}
		}
	})
	t.Run("stdout", func(t *testing.T) {
		var out bytes.Buffer
		o := opt
		o.out = "-"
		if err := plotPath(context.Background(), &out, one, o); err != nil {
			t.Fatal(err)
		}
		checkSVG(t, "stdout", out.Bytes())
	})
	t.Run("out file", func(t *testing.T) {
		var out bytes.Buffer
		o := opt
		o.out = filepath.Join(t.TempDir(), "p.svg")
		if err := plotPath(context.Background(), &out, one, o); err != nil {
			t.Fatal(err)
		}
		doc, err := os.ReadFile(o.out)
		if err != nil {
			t.Fatal(err)
		}
		checkSVG(t, o.out, doc)
	})
	t.Run("one out for a run", func(t *testing.T) {
		code, stderr := runOnly(t, newPlotCmd, "plot", run, "--out", "-")
		if code != exitUsage || !strings.Contains(stderr, "holds 2 trials") {
			t.Errorf("exit %d, stderr %q; want a usage error", code, stderr)
		}
	})
	t.Run("bad probe CSV", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), results.TrialDir(1))
		writeTrial(t, dir)
		if err := os.WriteFile(filepath.Join(dir, results.ProbeFile), []byte("partition,seq\n0,0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stderr := runOnly(t, newPlotCmd, "plot", dir)
		if code != exitError || !strings.Contains(stderr, "line 1, column 1: wrong header") {
			t.Errorf("exit %d, stderr %q; want exit %d with the located error", code, stderr, exitError)
		}
		if _, err := os.Stat(filepath.Join(dir, results.PlotFile)); err == nil {
			t.Error("a picture was written for a bad CSV")
		}
	})
}
