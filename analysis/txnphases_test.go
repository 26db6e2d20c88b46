package analysis

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

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
			if r.Partition != c.partition || r.Coordinator != c.coord || r.NewCoordinator != c.newCoord || r.Note != "" {
				t.Errorf("partition %d, coordinator %d → %d, note %q; want %d, %d → %d, none", r.Partition, r.Coordinator, r.NewCoordinator, r.Note, c.partition, c.coord, c.newCoord)
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
				// A phase starts where the latest boundary before it was,
				// or, out of the recipe's order, at its own line.
				if i > 0 && !ph.Start.Equal(latestEnd(r.Phases[:i])) && (ph.Overlap <= 0 || !ph.Start.Equal(ph.End)) {
					t.Errorf("%s starts at %s, neither where the phases before it ended nor at its own line", ph.Name, ph.Start)
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
			checkAtLines(t, dir, r.Phases)
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
	if r := txnRecoveryOf(ev, factsOf(ev, f, 2), nil); r != nil {
		t.Errorf("no transactional probe: %+v, want none", r)
	}
	if r := txnRecoveryOf(ev, factsOf(ev, nil, 2), &TxnView{}); r != nil {
		t.Errorf("no fault: %+v, want none", r)
	}
	r := txnRecoveryOf(ev, factsOf(ev, f, 2), &TxnView{})
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
