//go:build integration

// TestIntegrationClientsGroup runs a SIGKILL trial with a group reader in
// each of the three clients (make probes first):
//
//	make probes && go test -tags integration ./cmd/kbf/ -run IntegrationClientsGroup -v -timeout 20m

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
	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// TestIntegrationClientsGroup kills broker k1 while franz-go, librdkafka
// and the Java client each read in a group of their own, committing after
// every poll, under each group protocol. It checks what must hold whatever
// the machine's load: each client's group reader processed records of
// every partition, recorded commits, one succeeding after the fault, and
// the clients' section of the report and report.json carry each one's
// group figures.
func TestIntegrationClientsGroup(t *testing.T) {
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
	ctx, cancel := context.WithTimeout(context.Background(), 18*time.Minute)
	defer cancel()
	stepsCluster(ctx, t, compose.Options{})
	for _, proto := range []string{results.GroupProtocolClassic, results.GroupProtocolConsumer} {
		t.Run(proto, func(t *testing.T) {
			root := os.Getenv("KBF_KEEP")
			if root == "" {
				root = t.TempDir()
			}
			out := filepath.Join(root, "clients-group-"+proto+"-"+time.Now().UTC().Format("150405"))
			// As TestIntegrationClients: three clients on two cores hold a
			// steady baseline every 50 ms. Exit 3 is the audit's
			// (librdkafka's duplicates, or a finding checked below).
			args := []string{"run", "--kill", "sigkill", "--broker", "k1", "--clients", "franz-go,librdkafka,java",
				"--consumer", "group", "--group-protocol", proto, "--commit", "sync",
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
			var text bytes.Buffer
			render.WriteText(&text, tr)
			t.Logf("report:\n%s", text.String())
			checkClientsGroup(t, tr, proto)
		})
	}
}

func checkClientsGroup(t *testing.T, tr *analysis.Trial, proto string) {
	t.Helper()
	if tr.Meta.Fault == nil || tr.FaultAt.IsZero() {
		t.Fatalf("no fault recorded; verdict %v", tr.Verdict)
	}
	if len(tr.Clients) != 3 {
		t.Fatalf("%d clients in the report, want 3", len(tr.Clients))
	}
	for _, cr := range tr.Clients {
		dir := tr.Dir
		if cr.Name != analysis.FranzGo {
			dir = results.ClientDir(tr.Dir, cr.Name)
		}
		processed := groupProcessed(t, dir)
		for _, p := range tr.Meta.Probe.Partitions {
			if processed[p] == 0 {
				t.Errorf("%s p%d: nothing processed by its group reader", cr.Name, p)
			}
		}
		commits, after := 0, 0
		for _, ev := range groupEvents(t, dir) {
			if ev.Kind != results.GroupCommit {
				continue
			}
			commits++
			if !ev.Failed() && ev.Time.After(tr.FaultAt) {
				after++
			}
		}
		if commits == 0 || after == 0 {
			t.Errorf("%s: %d commits, %d succeeded after the fault: want some", cr.Name, commits, after)
		}
		g := cr.Group
		switch {
		case cr.Err != "":
			t.Errorf("%s not analysed: %s", cr.Name, cr.Err)
		case g == nil:
			t.Errorf("%s: no group reader in the clients' comparison", cr.Name)
		case g.Protocol != proto || g.Commit != results.CommitSync || !g.Found:
			t.Errorf("%s: group %+v, want protocol %s, commit sync, something processed", cr.Name, g, proto)
		case g.Commits != commits:
			t.Errorf("%s: the report counts %d commits, its own %s %d: want them read from its own files", cr.Name, g.Commits, results.GroupEventsFile, commits)
		default:
			t.Logf("%s: processing stall %v on p%d (open %v), commit stall %v (open %v), %d of %d commits failed, %d rebalances",
				cr.Name, g.Processing, g.Partition, g.ProcessingOpen, g.CommitStall, g.CommitOpen, g.Failed, g.Commits, g.Rebalances)
		}
	}
	b, err := os.ReadFile(filepath.Join(tr.Dir, results.ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Clients []struct {
			Name  string `json:"name"`
			Group *struct {
				Protocol        string   `json:"protocol"`
				ProcessingStall *float64 `json:"processing_stall_seconds"`
			} `json:"group"`
		} `json:"clients"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Clients) != 3 {
		t.Fatalf("report.json has %d clients, want 3", len(doc.Clients))
	}
	for _, c := range doc.Clients {
		if c.Group == nil || c.Group.Protocol != proto || c.Group.ProcessingStall == nil {
			t.Errorf("report.json client %s: group %+v, want its protocol and processing stall", c.Name, c.Group)
		}
	}
	var text bytes.Buffer
	render.WriteText(&text, tr)
	for _, name := range []string{"franz-go", "librdkafka", "java"} {
		if !strings.Contains(text.String(), name+" group reader ("+proto) {
			t.Errorf("the report has no group reader line for %s", name)
		}
	}
}

// groupProcessed counts the records dir's group.csv holds per partition.
func groupProcessed(t *testing.T, dir string) map[int32]int {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, results.GroupFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := results.NewGroupDecoder(f, results.GroupFile)
	out := map[int32]int{}
	for {
		var r results.GroupRecord
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		out[r.Partition]++
	}
}
