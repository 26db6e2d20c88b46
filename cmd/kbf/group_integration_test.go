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
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// TestIntegrationGroup kills a broker while a group reader reads beside
// the probe's own, committing after every poll, under each group protocol.
// It checks what must hold whatever the machine's load: every partition
// processed, commits recorded and one succeeding after the fault, the
// group's section in report.json (its commit stall where the report has
// one), and no committed offset going back.
func TestIntegrationGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	// kbf's default cluster, shared with the other tests of this package.
	stepsCluster(ctx, t, compose.Options{})
	for _, tc := range []struct{ proto, broker string }{
		{results.GroupProtocolClassic, "k1"},
		{results.GroupProtocolConsumer, "k1"},
		// The group's coordinator, whichever broker it is when the fault
		// is due (FindCoordinator).
		{results.GroupProtocolClassic, "coordinator"},
		{results.GroupProtocolConsumer, "coordinator"},
	} {
		t.Run(tc.proto+"/"+tc.broker, func(t *testing.T) {
			tr := stepsTrial(ctx, t, nil, "--kill", "sigkill", "--broker", tc.broker, "--duration", "25s", "--fault-after", trialFaultAfter.String(),
				"--consumer", "group", "--group-protocol", tc.proto, "--commit", "sync")
			checkGroup(t, tr, tc.proto)
			checkCoordinator(t, tr, tc.broker == "coordinator")
		})
	}
}

// checkCoordinator checks the group's coordinator was found before the
// fault and said to be, or not to be, the faulted broker; chosen: the
// broker was faulted for being it.
func checkCoordinator(t *testing.T, tr *analysis.Trial, chosen bool) {
	t.Helper()
	c, f := tr.Coordinator, tr.Meta.Fault
	if c == nil || f == nil || c.Err != "" || c.NodeID < 0 {
		t.Fatalf("the group's coordinator %+v, fault %+v: want it found before the fault", c, f)
	}
	t.Logf("the group's coordinator: node %d (%s), faulted %v, chosen %v; the fault hit node %d", c.NodeID, c.Broker, c.Faulted, c.Chosen, f.NodeID)
	if c.Faulted != (c.NodeID == f.NodeID) {
		t.Errorf("coordinator node %d, faulted node %d: the report says faulted %v", c.NodeID, f.NodeID, c.Faulted)
	}
	if chosen && (!c.Chosen || !c.Faulted || f.ChosenAs == "") {
		t.Errorf("--broker coordinator: coordinator %+v, fault chosen as %q; want the coordinator chosen and faulted", c, f.ChosenAs)
	}
	checkRecovery(t, tr)
}

// serverLogLine matches a line's source in a broker's server.log, the
// current file or one log4j rolled at the hour (server.log.2026-12-07-12).
var serverLogLine = regexp.MustCompile(`^k[0-9]+/` + regexp.QuoteMeta(results.ServerLog) + `(\.[0-9-]+)?:[0-9]+$`)

// checkRecovery checks the group's recovery against the coordinator: a
// faulted one was replaced by another broker whose load of the group's
// offsets partition its own server.log shows, and the client found it; a
// coordinator that survived gives no phases.
func checkRecovery(t *testing.T, tr *analysis.Trial) {
	t.Helper()
	r, c := tr.Recovery, tr.Coordinator
	if r == nil {
		t.Fatal("no group recovery in the report")
	}
	t.Logf("%s", strings.TrimSpace(r.Line()))
	if !c.Faulted {
		if r.Faulted || len(r.Phases) != 0 || r.Note == "" {
			t.Errorf("a coordinator that survived: recovery %+v, want no phases and a note", r)
		}
		return
	}
	if r.NewCoordinator < 0 || r.NewCoordinator == c.NodeID {
		t.Fatalf("new coordinator %d after coordinator %d (note %q)", r.NewCoordinator, c.NodeID, r.Note)
	}
	load, ok := r.Phase(analysis.GroupPhaseLoad)
	if !ok || !strings.Contains(load.Evidence, "Finished loading of metadata from __consumer_offsets-") || !serverLogLine.MatchString(load.Source) {
		t.Errorf("load phase %+v, want the new coordinator's own line", load)
	}
	if _, ok := r.Phase(analysis.GroupPhaseFind); !ok {
		t.Errorf("no find phase: %s", r.Note)
	}
	for _, pm := range tr.Metrics.Partitions {
		if _, ok := pm.Values[analysis.MeasureCoordinatorLoad]; !ok {
			t.Errorf("p%d has no coordinator_load", pm.Partition)
		}
	}
}

func checkGroup(t *testing.T, tr *analysis.Trial, proto string) {
	t.Helper()
	var digest bytes.Buffer
	render.TextOptions{}.WriteDigest(&digest, tr)
	t.Logf("digest:\n%s", digest.String())
	g := tr.Group
	if g == nil {
		t.Fatal("no group reader in the report")
	}
	if g.Settings.Protocol != proto || g.Settings.Commit != results.CommitSync || !strings.HasPrefix(g.Settings.ID, "kbf-probe-") {
		t.Errorf("group settings %+v", g.Settings)
	}
	processed := map[int32]int{}
	for _, p := range g.Partitions {
		processed[p.Partition] = p.Processed
	}
	for _, p := range tr.Meta.Probe.Partitions {
		if processed[p] == 0 {
			t.Errorf("p%d: nothing processed by the group reader", p)
		}
	}
	events := groupEvents(t, tr.Dir)
	commits, after := 0, 0
	for _, ev := range events {
		if ev.Kind != results.GroupCommit {
			continue
		}
		commits++
		if !ev.Failed() && ev.Time.After(tr.FaultAt) {
			after++
		}
	}
	if commits == 0 || after == 0 {
		t.Errorf("%d commits, %d succeeded after the fault: want some", commits, after)
	}
	// Every record below a committed offset processed at least once,
	// weighed against the partitions as read back.
	if !g.Audited || g.SkippedN > 0 {
		t.Errorf("group audit: audited %v, %d skipped (%+v)", g.Audited, g.SkippedN, g.Skipped)
	}
	if len(g.Backwards) > 0 || tr.Findings.Fail() {
		t.Errorf("offsets committed backwards %+v; findings %v", g.Backwards, tr.Findings)
	}
	b, err := os.ReadFile(filepath.Join(tr.Dir, results.ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Group *struct {
			Partitions []struct {
				StallSec *float64 `json:"stall_sec"`
			} `json:"partitions"`
			CommitStall *struct {
				Sec float64 `json:"sec"`
			} `json:"commit_stall"`
		} `json:"group"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Group == nil || len(doc.Group.Partitions) == 0 {
		t.Fatalf("report.json has no group section with partitions")
	}
	for i, p := range doc.Group.Partitions {
		if p.StallSec == nil || *p.StallSec < 0 {
			t.Errorf("report.json group partition %d: stall %v, want ≥ 0", i, p.StallSec)
		}
	}
	// A commit stall is a commit in flight at the fault: one waiting on
	// the group's __consumer_offsets partition (its ISR, its leader, its
	// coordinator). A reader with nothing to process at the fault has
	// none, and report.json then has none either.
	switch c := doc.Group.CommitStall; {
	case g.CommitStall == nil && c != nil:
		t.Errorf("report.json group commit stall %+v, the report none", c)
	case g.CommitStall != nil && (c == nil || c.Sec < 0):
		t.Errorf("report.json group commit stall %+v, want ≥ 0 as the report's %v", c, g.CommitStall.Duration())
	case g.CommitStall == nil:
		t.Log("no commit in flight at the fault: no commit stall")
	}
	// The protocol asked for is the one spoken: KIP-848's heartbeat, or
	// the classic join.
	clog, err := os.ReadFile(filepath.Join(tr.Dir, results.ClientLog))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{results.GroupProtocolClassic: "JoinGroup", results.GroupProtocolConsumer: "ConsumerGroupHeartbeat"}[proto]
	if !bytes.Contains(clog, []byte(want)) {
		t.Errorf("client.log names no %s request: the group reader did not speak the %s protocol", want, proto)
	}
	for _, p := range g.Partitions {
		if p.Stalls.Fault != nil && p.Receive != nil {
			t.Logf("p%d: group processing stall %v (open %v), assign reader's receive stall %v", p.Partition,
				p.Stalls.Fault.Duration(), p.Stalls.Fault.Open, p.Receive.Duration())
		}
	}
	if c := g.CommitStall; c != nil {
		t.Logf("commit stall %v (%v ~ %v, %d failed within); %d commits, %d failed; %d rebalances",
			c.Duration(), c.Start.UTC().Format("15:04:05.000"), c.End.UTC().Format("15:04:05.000"), c.Failed, g.Commits, g.Failed, g.Rebalances())
	}
	for _, ev := range events {
		if ev.Kind != results.GroupCommit || ev.Failed() {
			t.Logf("event %s %s gen %d %v %s", ev.Time.UTC().Format("15:04:05.000"), ev.Kind, ev.Generation, ev.Partitions, ev.Err)
		}
	}
}

func groupEvents(t *testing.T, dir string) []results.GroupEvent {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, results.GroupEventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := results.NewGroupEventDecoder(f, results.GroupEventsFile)
	var out []results.GroupEvent
	for {
		var ev results.GroupEvent
		err := dec.Decode(&ev)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
}
