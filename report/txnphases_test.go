package report

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestScanTxnLoad reads the transaction coordinator's lines as Kafka 4.3
// logged them: only the transactional id's partition, only after the
// fault, the faulted broker's own load left out, and the leadership from
// state-change.log.
func TestScanTxnLoad(t *testing.T) {
	server := `[2026-12-05 08:39:20,000] INFO [Transaction State Manager 2]: Completed loading transaction metadata from __transaction_state-30 for coordinator epoch 3 (kafka.coordinator.transaction.TransactionStateManager)
[2026-12-05 08:39:39,201] INFO [TransactionCoordinator id=2] Elected as the txn coordinator for partition 30 at epoch 4 (kafka.coordinator.transaction.TransactionCoordinator)
[2026-12-05 08:39:39,201] INFO [TransactionCoordinator id=2] Elected as the txn coordinator for partition 3 at epoch 3 (kafka.coordinator.transaction.TransactionCoordinator)
[2026-12-05 08:39:39,221] INFO [Transaction State Manager 2]: Completed loading transaction metadata from __transaction_state-3 for coordinator epoch 3 (kafka.coordinator.transaction.TransactionStateManager)
[2026-12-05 08:39:39,222] INFO [Transaction State Manager 2]: Loading transaction metadata from __transaction_state-30 at epoch 4 (kafka.coordinator.transaction.TransactionStateManager)
[2026-12-05 08:39:39,245] INFO [Transaction State Manager 2]: Finished loading 1 transaction metadata from __transaction_state-30 in 43 milliseconds, of which 21 milliseconds was spent in the scheduler. (kafka.coordinator.transaction.TransactionStateManager)
[2026-12-05 08:39:39,251] INFO [Transaction State Manager 2]: Completed loading transaction metadata from __transaction_state-30 for coordinator epoch 4 (kafka.coordinator.transaction.TransactionStateManager)
`
	stateChange := `[2026-12-05 08:38:29,000] INFO [Broker id=2] Leader __transaction_state-30 with topic id Some(RpVe) starts at leader epoch 3 from offset 80 with partition epoch 12, high watermark 80, ISR [2,3], adding replicas [] and removing replicas [] . Previous leader Some(1) and previous leader epoch was 2. (state.change.logger)
[2026-12-05 08:39:38,833] INFO [Broker id=2] Leader __transaction_state-30 with topic id Some(RpVe) starts at leader epoch 4 from offset 89 with partition epoch 13, high watermark 89, ISR [2,3], adding replicas [] and removing replicas [] . Previous leader Some(1) and previous leader epoch was 3. (state.change.logger)
[2026-12-05 08:39:38,834] INFO [Broker id=2] Leader __transaction_state-3 with topic id Some(RpVe) starts at leader epoch 4 from offset 0 with partition epoch 13, high watermark 0, ISR [2,3], adding replicas [] and removing replicas [] . Previous leader Some(1) and previous leader epoch was 3. (state.change.logger)
`
	dir := t.TempDir()
	node := filepath.Join(dir, results.NodeLogsDir, "k2")
	if err := os.MkdirAll(node, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{results.ServerLog: server, results.StateChangeLog: stateChange} {
		if err := os.WriteFile(filepath.Join(node, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	F := time.Date(2026, 12, 5, 8, 39, 30, 258e6, time.UTC)
	l, ok := readTxnLoad(context.Background(), dir, 30, 1, F)
	if !ok {
		t.Fatal("no load found")
	}
	if l.completed.node != 2 || l.epoch != 4 || l.loaded != 1 || l.took != 43*time.Millisecond {
		t.Errorf("load: node %d epoch %d loaded %d took %s, want 2, 4, 1, 43ms", l.completed.node, l.epoch, l.loaded, l.took)
	}
	for _, c := range []struct {
		name string
		got  citedLine
		src  string
	}{
		{"leader", l.leader, "k2/state-change.log:2"},
		{"elected", l.elected, "k2/server.log:2"},
		{"loading", l.loading, "k2/server.log:5"},
		{"finished", l.finished, "k2/server.log:6"},
		{"completed", l.completed, "k2/server.log:7"},
	} {
		if c.got.src != c.src {
			t.Errorf("%s cites %q, want %q", c.name, c.got.src, c.src)
		}
		if strings.Contains(c.got.text, "(kafka.") || strings.Contains(c.got.text, "(state.change") {
			t.Errorf("%s text %q keeps its logger", c.name, c.got.text)
		}
	}
	// The faulted broker, back, loading its partition again is no new
	// coordinator.
	if _, ok := readTxnLoad(context.Background(), dir, 30, 2, F); ok {
		t.Error("the faulted broker's own load taken as the new coordinator's")
	}
	// After the last line: nothing.
	if _, ok := readTxnLoad(context.Background(), dir, 30, 1, F.Add(time.Hour)); ok {
		t.Error("a load found after the last line")
	}
}

// TestTxnRecoveryRecorded reads the recorded trials of a SIGKILL of the
// transactional id's coordinator (each node's logs kept from its last
// start): each phase ends at the line it cites, which says what the phase
// says, and names the settings that would shorten it with their values.
func TestTxnRecoveryRecorded(t *testing.T) {
	for _, c := range []struct {
		archive             string
		partition           int32
		coord, newCoord     int32
		findBeforeLoadEnded bool
	}{
		{"txn-coordinator-1.tar.gz", 30, 1, 2, false},
		{"txn-coordinator-2.tar.gz", 29, 3, 1, true},
	} {
		t.Run(c.archive, func(t *testing.T) {
			dir := unpack(t, c.archive)
			tr := analyze(t, dir)
			r := tr.TxnRecovery
			if r == nil || !r.Faulted {
				t.Fatalf("recovery = %+v, want one of a faulted coordinator", r)
			}
			if r.StatePartition != c.partition || r.Coordinator != c.coord || r.NewCoordinator != c.newCoord || r.Note != "" {
				t.Errorf("partition %d, coordinator %d → %d, note %q; want %d, %d → %d, none", r.StatePartition, r.Coordinator, r.NewCoordinator, r.Note, c.partition, c.coord, c.newCoord)
			}
			if s := r.Partitions; s.Value != "50" || s.Source != SourceNodeConfig {
				t.Errorf("transaction.state.log.num.partitions %+v, want 50 from a node's config", s)
			}
			var names []string
			for i, ph := range r.Phases {
				names = append(names, ph.Name)
				if ph.Duration < 0 || ph.End.Sub(ph.Start) != ph.Duration {
					t.Errorf("%s: %s → %s, duration %s", ph.Name, ph.Start, ph.End, ph.Duration)
				}
				if i > 0 && !ph.Start.Equal(r.Phases[i-1].End) {
					t.Errorf("%s starts at %s, not where %s ended", ph.Name, ph.Start, r.Phases[i-1].Name)
				}
				if ph.Source == "" || ph.Why == "" || ph.Setting == "" || len(ph.Settings) == 0 {
					t.Errorf("%s: evidence %q at %q, why %q, setting %q", ph.Name, ph.Evidence, ph.Source, ph.Why, ph.Setting)
				}
				for _, s := range ph.Settings {
					if s.Source == SourceUnknown {
						t.Errorf("%s: setting %s unknown: %s", ph.Name, s.Name, s.Where)
					}
				}
			}
			want := []string{PhaseDetect, TxnPhaseLeader, TxnPhaseLoad, TxnPhaseFind, TxnPhaseCommit}
			if !slices.Equal(names, want) {
				t.Fatalf("phases %v, want %v", names, want)
			}
			if !r.Phases[0].Start.Equal(tr.FaultAt) {
				t.Errorf("first phase starts %s, not at the fault %s", r.Phases[0].Start, tr.FaultAt)
			}
			p := strconv.Itoa(int(c.partition))
			says := map[string]string{
				PhaseDetect:    "Fencing broker " + strconv.Itoa(int(c.coord)),
				TxnPhaseLeader: "Leader __transaction_state-" + p + " ",
				TxnPhaseLoad:   "Completed loading transaction metadata from __transaction_state-" + p + " ",
				TxnPhaseFind:   "read FindCoordinator",
			}
			for _, ph := range r.Phases {
				w, ok := says[ph.Name]
				if !ok {
					continue
				}
				line := cited(t, dir, ph.Source)
				if !strings.Contains(line, w) {
					t.Errorf("%s cites %s: %q, which does not say %q", ph.Name, ph.Source, line, w)
				}
				if !strings.Contains(line, ph.End.UTC().Format("15:04:05")) {
					t.Errorf("%s ends at %s, not at its line's time: %q", ph.Name, ph.End, line)
				}
			}
			// The new coordinator's requests went where the find says.
			find, _ := r.Phase(TxnPhaseFind)
			if !strings.Contains(find.Evidence, "went to broker "+strconv.Itoa(int(c.newCoord))) {
				t.Errorf("find evidence %q", find.Evidence)
			}
			if got := strings.Contains(find.Why, "before its load had finished"); got != c.findBeforeLoadEnded {
				t.Errorf("find why %q: want the answer before the load's end %v", find.Why, c.findBeforeLoadEnded)
			}
			// The first commit is a committed transaction of the trial's,
			// ending the commit stall the report measures.
			first, _ := r.Phase(TxnPhaseCommit)
			if cs := tr.Txn.CommitStall; cs == nil || !cs.End.Equal(first.End) {
				t.Errorf("first commit ends %s; commit stall %+v: want it to end there", first.End, cs)
			}
			load, _ := r.Phase(TxnPhaseLoad)
			if r.LoadTook <= 0 || r.LoadTook > load.Duration || r.Loaded < 1 {
				t.Errorf("load took %s by its count, loaded %d; phase %s", r.LoadTook, r.Loaded, load.Duration)
			}
			if line := r.Line(); !strings.Contains(line, "__transaction_state-"+p) || !slices.Contains(tr.TxnLines(), line) {
				t.Errorf("line %q, not among the transactions' lines %q", line, tr.TxnLines())
			}
		})
	}
}

// TestTxnRecoveryWithoutEvidence checks the stage on what it cannot split:
// no transactional probe or no fault gives none; a coordinator that
// survived, or no timeline, a note and no phases.
func TestTxnRecoveryWithoutEvidence(t *testing.T) {
	c := &results.Coordinator{Kind: results.CoordinatorTransaction, Key: "tx", NodeID: 2, Broker: "k2", Via: results.FoundByFindCoordinator}
	f := &results.Fault{Broker: "k2", NodeID: 2, Kind: results.FaultSIGKILL, TxnCoordinator: c}
	ev := &evidence{meta: &results.Meta{Fault: f}, F: time.Date(2026, 12, 5, 6, 0, 0, 0, time.UTC)}
	if r := txnRecoveryOf(context.Background(), ev, f, 2, nil); r != nil {
		t.Errorf("no transactional probe: %+v, want none", r)
	}
	if r := txnRecoveryOf(context.Background(), ev, nil, 2, &TxnView{}); r != nil {
		t.Errorf("no fault: %+v, want none", r)
	}
	r := txnRecoveryOf(context.Background(), ev, f, 2, &TxnView{})
	if r == nil || len(r.Phases) != 0 || !r.Faulted || !strings.Contains(r.Note, "no timeline") {
		t.Errorf("no timeline: %+v, want a faulted coordinator, a note and no phases", r)
	}
	dir := unpack(t, "txn-coordinator-1.tar.gz")
	trials, err := results.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	tt := trials[0]
	m := *tt.Meta
	fault := *m.Fault
	other := *fault.TxnCoordinator
	other.NodeID, other.Broker = 3, "k3"
	fault.TxnCoordinator, fault.ChosenAs = &other, ""
	m.Fault = &fault
	tt.Meta = &m
	tr, err := Analyze(tt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r = tr.TxnRecovery
	if r == nil || r.Faulted || len(r.Phases) != 0 || !strings.Contains(r.Note, "broker 3, was not the faulted broker") {
		t.Errorf("coordinator not faulted: %+v, want a note and no phases", r)
	}
	if slices.ContainsFunc(tr.TxnLines(), func(l string) bool { return strings.Contains(l, "txn coordinator recovery") }) {
		t.Errorf("lines %q: want no recovery line for a coordinator the fault missed", tr.TxnLines())
	}
}
