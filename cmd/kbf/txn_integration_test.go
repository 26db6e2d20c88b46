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
	"slices"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// TestIntegrationTxnCoordinator kills the coordinator of the probe's
// transactional id (--broker txn-coordinator) while the probe writes in
// transactions and reads at read_committed. It checks what must hold
// whatever the machine's load: the coordinator found by FindCoordinator
// before the fault and faulted, transactions committed after the fault,
// the read_committed reader reading on every partition, report.json's
// transactions, and no finding: no acknowledged record of a committed
// transaction lost or duplicated, none of an aborted one read.
func TestIntegrationTxnCoordinator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	stepsCluster(ctx, t, compose.Options{})
	tr := stepsTrial(ctx, t, nil, "--kill", "sigkill", "--broker", "txn-coordinator", "--duration", "30s",
		"--fault-after", trialFaultAfter.String(), "--producer", "transactional")
	var digest bytes.Buffer
	render.TextOptions{}.WriteDigest(&digest, tr)
	t.Logf("digest:\n%s", digest.String())

	f := tr.Meta.Fault
	if f == nil || f.TxnCoordinator == nil || !f.TxnCoordinator.Found() {
		t.Fatalf("fault %+v: want the transactional id's coordinator found before the fault", f)
	}
	c := f.TxnCoordinator
	if c.Kind != results.CoordinatorTransaction || c.Via != results.FoundByFindCoordinator || c.NodeID != f.NodeID ||
		f.ChosenAs != results.ChosenTxnCoordinator || c.At.After(f.SignalSent) {
		t.Errorf("coordinator %+v, fault on node %d chosen as %q: want the coordinator found before the fault and faulted", c, f.NodeID, f.ChosenAs)
	}
	if tr.Meta.Probe.Txn == nil || c.Key != tr.Meta.Probe.Txn.ID {
		t.Errorf("probe's transactions %+v, coordinator of %q: want the probe's transactional id's", tr.Meta.Probe.Txn, c.Key)
	}
	v := tr.Txn
	if v == nil {
		t.Fatal("no transactions in the report")
	}
	after := 0
	evs, err := readTxnEvents(tr.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Outcome == results.TxnCommitted && ev.End.After(tr.FaultAt) {
			after++
		}
	}
	if v.Committed == 0 || after == 0 {
		t.Errorf("%d transactions committed, %d after the fault: want some", v.Committed, after)
	}
	t.Logf("transactions %d: %d committed, %d aborted, %d timed out, %d unknown; commit stall %+v", v.Transactions, v.Committed, v.Aborted, v.TimedOut, v.Unknown, v.CommitStall)
	if v.AbortedRead > 0 || v.Torn > 0 || tr.Findings.Fail() {
		t.Errorf("findings: %v (aborted read %d, torn %d)", tr.Findings, v.AbortedRead, v.Torn)
	}
	if tr.Integrity == nil || tr.Integrity.Acknowledged == 0 {
		t.Errorf("integrity %+v: want the committed records read back", tr.Integrity)
	}
	for _, p := range tr.Gaps.Partitions {
		if p.Received == 0 {
			t.Errorf("p%d: nothing read at read_committed", p.Partition)
		}
	}
	b, err := os.ReadFile(filepath.Join(tr.Dir, results.ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Txn *struct {
			Committed   int             `json:"committed"`
			Faulted     bool            `json:"coordinator_faulted"`
			LSO         []any           `json:"read_committed_stall"`
			CommitStall json.RawMessage `json:"commit_stall"`
			Recovery    *struct {
				NewCoordinator int32 `json:"new_coordinator"`
				Phases         []struct {
					Name string `json:"name"`
				} `json:"phases"`
			} `json:"recovery"`
		} `json:"transactions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Txn == nil || doc.Txn.Committed != v.Committed || !doc.Txn.Faulted || len(doc.Txn.LSO) != len(tr.Gaps.Partitions) ||
		(v.CommitStall != nil) != (doc.Txn.CommitStall != nil) {
		t.Errorf("report.json's transactions %+v: want the report's, its coordinator faulted", doc.Txn)
	}
	checkTxnRecovery(t, tr)
	if r := tr.TxnRecovery; doc.Txn != nil && r != nil && (doc.Txn.Recovery == nil || len(doc.Txn.Recovery.Phases) != len(r.Phases) || doc.Txn.Recovery.NewCoordinator != r.NewCoordinator) {
		t.Errorf("report.json's transactions.recovery %+v: want the report's %d phases", doc.Txn.Recovery, len(r.Phases))
	}
}

// checkTxnRecovery checks the transaction coordinator's recovery of a
// trial that killed it: every phase found, from the fault on, each ending
// at its evidence, and a new coordinator other than the killed one that
// loaded the transactional id's __transaction_state partition.
func checkTxnRecovery(t *testing.T, tr *analysis.Trial) {
	t.Helper()
	r := tr.TxnRecovery
	if r == nil || !r.Faulted {
		t.Fatalf("transaction recovery %+v: want one of the faulted coordinator", r)
	}
	t.Logf("%s", r.Line())
	if r.NewCoordinator < 0 || r.NewCoordinator == tr.Meta.Fault.NodeID || r.Partition < 0 || r.Note != "" {
		t.Errorf("new coordinator %d of __transaction_state-%d, note %q: want another broker's load found", r.NewCoordinator, r.Partition, r.Note)
	}
	var names []string
	for i, ph := range r.Phases {
		names = append(names, ph.Name)
		if ph.Source == "" || ph.Why == "" || len(ph.Settings) == 0 || ph.Duration < 0 {
			t.Errorf("phase %s: source %q, why %q, settings %v, %s", ph.Name, ph.Source, ph.Why, ph.Settings, ph.Duration)
		}
		if i == 0 && !ph.Start.Equal(tr.FaultAt) {
			t.Errorf("first phase starts %s, not at the fault %s", ph.Start, tr.FaultAt)
		}
	}
	want := []string{analysis.PhaseDetect, analysis.TxnPhaseLeader, analysis.TxnPhaseLoad, analysis.TxnPhaseFind, analysis.TxnPhaseCommit}
	if !slices.Equal(names, want) {
		t.Errorf("phases %v, want %v", names, want)
	}
}

// readTxnEvents reads a trial's transactions.csv.
func readTxnEvents(dir string) ([]results.TxnEvent, error) {
	f, err := os.Open(filepath.Join(dir, results.TxnFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := results.NewTxnDecoder(f, results.TxnFile)
	var out []results.TxnEvent
	for {
		var ev results.TxnEvent
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		out = append(out, ev)
	}
}
