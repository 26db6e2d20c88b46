//go:build integration

// These tests run kbf's faults of several steps against the real cluster in
// Docker (KBF_IMAGE, e.g. kbf/kafka:4.3.1), one at a time:
//
//	KBF_IMAGE=kbf/kafka:4.3.1 go test -tags integration -p 1 ./cmd/kbf/ -run TestIntegrationTwoBrokers -v
//
// They assert what Kafka guarantees and what the steps must record, never a
// timing tuned to one machine, and leave the cluster up and whole.

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// stepsCluster brings the cluster of opt up, or reuses it, for one test;
// the integration tests of this package share it.
func stepsCluster(ctx context.Context, t *testing.T, opt compose.Options) *compose.Cluster {
	t.Helper()
	cl, err := compose.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	if _, err := cl.Up(ctx); err != nil {
		t.Fatalf("up: %v", err)
	}
	return cl
}

// stepsTrial runs kbf run with args (which name the fault) into a fresh
// directory and analyses its one trial. codes are the exits accepted
// besides 0 and 6 (a suspect trial on a loaded machine).
func stepsTrial(ctx context.Context, t *testing.T, codes []int, args ...string) *analysis.Trial {
	t.Helper()
	tr, _ := stepsTrialCode(ctx, t, codes, args...)
	return tr
}

// stepsTrialCode is stepsTrial, returning kbf run's exit code too.
func stepsTrialCode(ctx context.Context, t *testing.T, codes []int, args ...string) (*analysis.Trial, int) {
	t.Helper()
	// KBF_KEEP names a directory to keep the trial in, to read it after.
	root := os.Getenv("KBF_KEEP")
	if root == "" {
		root = t.TempDir()
	}
	out := filepath.Join(root, t.Name()+"-"+time.Now().UTC().Format("150405"))
	var stdout, stderr bytes.Buffer
	// The shared machine's load makes 0.2 s gaps common; these tests
	// check what the steps do, not a stall's length.
	code := run(ctx, append(append([]string{"run", "--baseline-gap", "1s"}, args...), "--out", out), &stdout, &stderr)
	ok := code == exitOK || code == exitNoValid
	for _, c := range codes {
		ok = ok || code == c
	}
	if !ok {
		t.Fatalf("kbf run %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, stdout.String(), stderr.String())
	}
	trials, err := results.Find(out)
	if err != nil || len(trials) != 1 {
		t.Fatalf("trials %v: %v", trials, err)
	}
	tr, err := analysis.Analyze(trials[0], analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			var b bytes.Buffer
			render.WriteText(&b, tr)
			t.Logf("report of the failed trial:\n%s\nstderr:\n%s", b.String(), stderr.String())
		}
	})
	if v := tr.Verdict; v == nil || v.Status == verdict.Invalid {
		t.Fatalf("verdict %v", v)
	}
	logCost(t, tr)
	return tr, code
}

// stepsOf returns the trial's steps, failing unless their actions and nodes
// are want, in order.
func stepsOf(t *testing.T, tr *analysis.Trial, want ...string) []results.Step {
	t.Helper()
	var got []string
	for _, s := range tr.Meta.Steps {
		got = append(got, string(s.Action)+" "+s.Node)
		if s.At.IsZero() {
			t.Errorf("step %+v: no time", s)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("steps %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("steps %q, want %q", got, want)
		}
	}
	return tr.Meta.Steps
}

// probeRows reads the trial's probe.csv.
func probeRows(t *testing.T, tr *analysis.Trial) []results.Message {
	t.Helper()
	f, err := os.Open(filepath.Join(tr.Dir, results.ProbeFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := results.NewDecoder(f, results.ProbeFile)
	var ms []results.Message
	for {
		var m results.Message
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return ms
		}
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
}

// TestIntegrationTwoBrokers kills k1 and k2 of three: under acks=all and
// min.insync.replicas=2 no record may be acknowledged while k3 alone runs,
// and once k2 returns every partition must ack again, with nothing lost.
func TestIntegrationTwoBrokers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cl := stepsCluster(ctx, t, compose.Options{})
	tr := stepsTrial(ctx, t, nil, "--fault", "two-brokers", "--duration", "40s", "--fault-after", "5s", "--return-after", "18s")
	steps := stepsOf(t, tr, "sigkill k1", "sigkill k2", "start k2")
	if f := tr.Meta.Fault; f == nil || f.Kind != results.FaultTwoBrokers || f.Broker != "k1" || f.ExitCode != 137 {
		t.Errorf("fault %+v: want two-brokers of k1, exit 137", tr.Meta.Fault)
	}
	// A record k2 had fetched before it died may be acked once the
	// controller drops k1 from the ISR; one sent after k2 died may not be
	// until k2 is back. The engine's and the probe's clocks are the
	// host's.
	alone, back := steps[1].At, steps[2].At
	acked := map[int32]bool{}
	failed := 0
	for _, m := range probeRows(t, tr) {
		if m.Failed() {
			failed++
		}
		if m.Acked.IsZero() {
			continue
		}
		if m.Sent.After(alone) && m.Acked.Before(back) {
			t.Errorf("p%d seq %d sent at %s and acked at %s, while only k3 ran (%s to %s)", m.Partition, m.Seq,
				m.Sent.Format(time.RFC3339Nano), m.Acked.Format(time.RFC3339Nano), alone.Format(time.RFC3339Nano), back.Format(time.RFC3339Nano))
		}
		if m.Acked.After(back) {
			acked[m.Partition] = true
		}
	}
	b, _ := os.ReadFile(filepath.Join(tr.Dir, results.ClientLog))
	t.Logf("failed sends %d; client.log lines naming NOT_ENOUGH_REPLICAS: %d", failed, bytes.Count(b, []byte("NOT_ENOUGH_REPLICAS")))
	for _, p := range tr.Meta.Probe.Partitions {
		if !acked[p] {
			t.Errorf("p%d: nothing acked after k2 returned", p)
		}
	}
	if tr.Integrity == nil {
		t.Fatal("no integrity check: the partitions were not read back")
	}
	if !tr.Integrity.OK() || tr.Integrity.Lost != 0 {
		t.Errorf("acks=all, two brokers down: integrity %+v", tr.Integrity.Counts)
	}
	checkRecovered(ctx, t, cl, tr)
}

// TestIntegrationRolling rolls the three brokers: each stopped gracefully,
// started, and the next only once every ISR is full. Under acks=all no
// acknowledged record may be lost, and the probe must run past the roll.
func TestIntegrationRolling(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	cl := stepsCluster(ctx, t, compose.Options{})
	tr := stepsTrial(ctx, t, nil, "--fault", "rolling", "--duration", "20s", "--fault-after", "5s")
	steps := stepsOf(t, tr, "sigterm k1", "start k1", "isr-full ", "sigterm k2", "start k2", "isr-full ",
		"sigterm k3", "start k3", "isr-full ")
	for _, s := range steps {
		if s.Action == results.StepStop {
			t.Logf("%s stopped with exit %d, escalated to SIGKILL: %v", s.Node, s.ExitCode, s.Escalated)
			if s.ExitCode != 143 && !s.Escalated {
				t.Errorf("%s: exit %d after SIGTERM, want 143", s.Node, s.ExitCode)
			}
		}
	}
	if last := steps[len(steps)-1].At; !tr.Meta.Ended.After(last) {
		t.Errorf("the probe ended %s, before the roll's last ISR filled at %s", tr.Meta.Ended, last)
	}
	if tr.Integrity == nil {
		t.Fatal("no integrity check: the partitions were not read back")
	}
	if !tr.Integrity.OK() || tr.Integrity.Lost != 0 {
		t.Errorf("acks=all, a rolling restart: integrity %+v", tr.Integrity.Counts)
	}
	checkRecovered(ctx, t, cl, tr)
}
