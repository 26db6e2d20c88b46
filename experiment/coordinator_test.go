package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// coordinatorRunner is newRunner with a group reader in the probe and the
// fault aimed at broker (a name or BrokerCoordinator), injections logged
// by their node.
func coordinatorRunner(t *testing.T, kill results.FaultKind, broker string) (*Runner, *nodeWorld, *recorder) {
	t.Helper()
	w := &nodeWorld{world: newWorld()}
	r, _, rep := newRunner(t, w.world, kill)
	// A group reader in the probe, its group chosen by the probe as kbf
	// run's is: the trial must know it before the probe joins it.
	r.Target, r.Opt.Broker = w, broker
	r.Opt.Probe.Consumer, r.Opt.Probe.RunID = results.ConsumerGroup, "g"
	return r, w, rep
}

// TestCoordinatorFaulted: --broker coordinator faults the broker the
// cluster names as the group's coordinator when asked, after the baseline
// and just before the injection, for every fault that takes a broker; the
// steps that follow go from it, recovery restarts it, and meta.json says
// how it was chosen.
func TestCoordinatorFaulted(t *testing.T) {
	for _, c := range []struct {
		kill  results.FaultKind
		first string // the first injection
	}{
		{results.FaultSIGKILL, "sigkill k3"},
		{results.FaultSIGTERM, "sigterm k3"},
		{results.FaultPause, "pause k3"},
		{results.FaultIsolate, "isolate k3"},
		{results.FaultTwoBrokers, "sigkill k3, sigkill k1"},
		{results.FaultRolling, "sigterm k3, start k3, sigterm k1"},
	} {
		t.Run(string(c.kill), func(t *testing.T) {
			r, w, rep := coordinatorRunner(t, c.kill, BrokerCoordinator)
			w.coordinator = 3
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			if err := r.Trial(context.Background(), 1, dir); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(w.nodes, ", "); !strings.HasPrefix(got, c.first) || !strings.HasSuffix(got, "start k3") {
				t.Errorf("injections and starts: %s; want them to begin %q and recovery to start k3", got, c.first)
			}
			if got := w.log(); !strings.HasPrefix(got, "up probe coordinator inject") {
				t.Errorf("calls %s: want the coordinator asked once, after the baseline, just before the injection", got)
			}
			if got := strings.Join(w.coordinatorAsked, ", "); got != "group kbf-probe-g" {
				t.Errorf("asked for %q, want group kbf-probe-g's coordinator", got)
			}
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			f := m.Fault
			if f == nil || f.Broker != "k3" || f.NodeID != 3 || f.ChosenAs != results.ChosenGroupCoordinator {
				t.Fatalf("fault %+v: want k3 (node 3), chosen as the group coordinator", f)
			}
			gc := f.GroupCoordinator
			if gc == nil || gc.Kind != results.CoordinatorGroup || gc.Key != "kbf-probe-g" || gc.NodeID != 3 || gc.Broker != "k3" ||
				gc.Via != results.FoundByFindCoordinator || gc.At.IsZero() || gc.At.After(f.SignalSent) {
				t.Errorf("group coordinator %+v: want group kbf-probe-g's, node 3 (k3), found by FindCoordinator before the fault at %v", gc, f.SignalSent)
			}
			if !strings.Contains(rep.String(), "group kbf-probe-g's coordinator is broker 3 (k3): it is the one faulted") {
				t.Errorf("the trial did not say which broker it found:\n%s", rep)
			}
		})
	}
}

// TestCoordinatorEachTrial: each trial of a run faults the coordinator
// found at its own fault, not the one the first found.
func TestCoordinatorEachTrial(t *testing.T) {
	r, w, rep := coordinatorRunner(t, results.FaultSIGKILL, BrokerCoordinator)
	r.Opt.Repeat = 2
	w.coordinator = 2
	trials := 0
	w.hooks["leaders"] = func(context.Context) error { // the end of a trial's recovery
		trials++
		w.mu.Lock()
		w.coordinator = 1
		w.mu.Unlock()
		return nil
	}
	if err := r.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.injectedInto, " "); got != "k2 k1" || trials != 2 {
		t.Errorf("faulted %q in %d trials, want k2 then k1", got, trials)
	}
	if r.Opt.Broker != BrokerCoordinator {
		t.Errorf("the run's options now fault %q: a trial changed them", r.Opt.Broker)
	}
	if !strings.Contains(rep.String(), "trial 2 of 2: sigkill of the probe's group's coordinator, found at the fault") {
		t.Errorf("the run did not say what it faults:\n%s", rep)
	}
}

// TestGroupCoordinatorRecorded: a trial with a group that names its
// broker records the group's coordinator too, found just before the
// fault, whoever it is; a coordinator not found is recorded as such and
// costs the trial nothing; a trial with no group asks nothing.
func TestGroupCoordinatorRecorded(t *testing.T) {
	for _, c := range []struct {
		name  string
		group bool
		err   error
		want  *results.Coordinator // nil: none recorded
	}{
		{name: "another broker", group: true, want: &results.Coordinator{NodeID: 2, Broker: "k2"}},
		{name: "not found", group: true, err: errors.New("wait for the coordinator of group kbf-probe-g: context deadline exceeded"),
			want: &results.Coordinator{NodeID: -1, Err: "wait for the coordinator of group kbf-probe-g: context deadline exceeded"}},
		{name: "no group"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, w, _ := coordinatorRunner(t, results.FaultSIGKILL, "k1")
			if !c.group {
				r.Opt.Probe.Consumer = results.ConsumerAssign
			}
			w.coordinatorErr = c.err
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			if err := r.Trial(context.Background(), 1, dir); err != nil {
				t.Fatal(err)
			}
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			if m.Fault == nil || m.Fault.Broker != "k1" || m.Fault.ChosenAs != "" {
				t.Fatalf("fault %+v: want k1, named", m.Fault)
			}
			gc := m.Fault.GroupCoordinator
			if c.want == nil {
				if gc != nil || strings.Contains(w.log(), "coordinator") {
					t.Errorf("a trial with no group recorded %+v, calls %s", gc, w.log())
				}
				return
			}
			if gc == nil || gc.NodeID != c.want.NodeID || gc.Broker != c.want.Broker || gc.Err != c.want.Err || gc.Key != "kbf-probe-g" {
				t.Errorf("group coordinator %+v, want %+v", gc, c.want)
			}
		})
	}
}

// TestCoordinatorNotFound: a coordinator that cannot be found, or is no
// broker of the cluster, fails the trial before anything is faulted, and
// nothing is restarted.
func TestCoordinatorNotFound(t *testing.T) {
	for _, c := range []struct {
		name string
		node int32
		err  error
		want string
	}{
		{name: "no answer", err: errors.New("wait for the coordinator of group kbf-probe-g: context deadline exceeded"),
			want: "--broker coordinator: wait for the coordinator of group kbf-probe-g: context deadline exceeded"},
		{name: "not a broker", node: 7, want: "--broker coordinator: group kbf-probe-g's coordinator, node 7, is no broker of the cluster (k1 k2 k3)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, w, _ := coordinatorRunner(t, results.FaultSIGKILL, BrokerCoordinator)
			w.coordinator, w.coordinatorErr = c.node, c.err
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			err := r.Trial(context.Background(), 1, dir)
			if err == nil || err.Error() != c.want {
				t.Errorf("Trial: %v, want %q", err, c.want)
			}
			if len(w.nodes) != 0 || w.injected {
				t.Errorf("injected or restarted %v", w.nodes)
			}
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			if m.Fault != nil {
				t.Errorf("fault recorded: %+v", m.Fault)
			}
		})
	}
}

// TestValidateRole: a role the trial cannot fault is refused in one line
// before anything starts.
func TestValidateRole(t *testing.T) {
	for _, c := range []struct {
		name   string
		kill   results.FaultKind
		broker string
		group  string
		want   string // "": valid
	}{
		{name: "coordinator", kill: results.FaultSIGKILL, broker: BrokerCoordinator, group: "g"},
		{name: "coordinator, rolling", kill: results.FaultRolling, broker: BrokerCoordinator, group: "g"},
		{name: "no group", kill: results.FaultSIGKILL, broker: BrokerCoordinator,
			want: "broker coordinator: needs --consumer group, the group whose coordinator to fault"},
		{name: "transactional", kill: results.FaultSIGKILL, broker: BrokerTxnCoordinator, group: "g",
			want: "broker txn-coordinator: needs --producer transactional, the transactional id whose coordinator to fault"},
		{name: "last-replica", kill: results.FaultLastReplica, broker: BrokerCoordinator, group: "g",
			want: "broker coordinator: fault last-replica stops partition 0's leader and followers, known before the trial, not a broker found at the fault"},
		{name: "controller-kill", kill: results.FaultControllerKill, broker: BrokerCoordinator, group: "g",
			want: "broker coordinator: fault controller-kill hits the quorum's active controller, not a broker"},
		{name: "external", kill: results.FaultExternal, broker: BrokerCoordinator, group: "g",
			want: "broker coordinator: an external fault hits whatever something else breaks; kbf names it from what it sees"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _, _ := newRunner(t, newWorld(), c.kill)
			r.Opt.Broker, r.Opt.Probe.Group = c.broker, c.group
			err := r.Opt.Validate()
			if c.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || err.Error() != c.want || !errors.Is(err, ErrInvalidOption) {
				t.Errorf("Validate: %v, want %q", err, c.want)
			}
		})
	}
}

// picky can fault every broker but one.
type picky struct {
	*world
	not string
}

func (p picky) Supports(kind results.FaultKind, broker string) error {
	if broker == p.not {
		return cluster.Unsupportedf("fault %s: %s's log directory is no tmpfs of its own to fill", kind, broker)
	}
	return nil
}

// TestCheckRole: a broker found at the fault is none of the cluster's
// names, and may be any of its brokers, so each must be one the target
// can fault.
func TestCheckRole(t *testing.T) {
	r, w, _ := coordinatorRunner(t, results.FaultDiskFull, BrokerCoordinator)
	r.Target = picky{world: w.world}
	if err := r.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	r.Target = picky{world: w.world, not: "k2"}
	want := "--broker coordinator: any broker may be it at the fault: fault disk-full: k2's log directory is no tmpfs of its own to fill"
	if err := r.Check(); err == nil || err.Error() != want || !errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("Check: %v, want %q", err, want)
	}
}

// TestCoordinatorAnalysed: the analysis of a trial that faulted the
// group's coordinator, and of one that did not, says which it was.
func TestCoordinatorAnalysed(t *testing.T) {
	for _, c := range []struct {
		broker  string
		faulted bool
	}{{BrokerCoordinator, true}, {"k1", false}} {
		t.Run(c.broker, func(t *testing.T) {
			r, w, _ := coordinatorRunner(t, results.FaultSIGKILL, c.broker)
			w.coordinator = 2
			tr, err := analysed(context.Background(), r, 1, filepath.Join(r.Opt.Out, results.TrialDir(1)))
			if err != nil {
				t.Fatal(err)
			}
			g := tr.Coordinator
			if g == nil || g.NodeID != 2 || g.Broker != "k2" || g.Faulted != c.faulted || g.Chosen != c.faulted {
				t.Errorf("the analysis's coordinator %+v, want node 2 (k2), faulted and chosen: %v", g, c.faulted)
			}
		})
	}
}

// TestTxnCoordinatorFaulted: --broker txn-coordinator faults the broker
// the cluster names as the coordinator of the probe's transactional id,
// chosen before the probe starts, and meta.json records it apart from a
// group's.
func TestTxnCoordinatorFaulted(t *testing.T) {
	r, w, rep := coordinatorRunner(t, results.FaultSIGKILL, BrokerTxnCoordinator)
	r.Opt.Probe.Consumer, r.Opt.Probe.Producer = "", results.ProducerTransactional
	w.coordinator = 2
	dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
	if err := r.Trial(context.Background(), 1, dir); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.coordinatorAsked, ", "); got != "transaction kbf-probe-g-tx" {
		t.Errorf("asked for %q, want transactional id kbf-probe-g-tx's coordinator alone", got)
	}
	if got := strings.Join(w.nodes, ", "); !strings.HasPrefix(got, "sigkill k2") {
		t.Errorf("injections and starts: %s; want k2 killed first", got)
	}
	m, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := m.Fault
	if f == nil || f.Broker != "k2" || f.ChosenAs != results.ChosenTxnCoordinator || f.GroupCoordinator != nil {
		t.Fatalf("fault %+v: want k2, chosen as the transaction coordinator, no group's", f)
	}
	if tc := f.TxnCoordinator; tc == nil || tc.Kind != results.CoordinatorTransaction || tc.Key != "kbf-probe-g-tx" || tc.NodeID != 2 {
		t.Errorf("transaction coordinator %+v: want kbf-probe-g-tx's, node 2", tc)
	}
	if !strings.Contains(rep.String(), "transactional id kbf-probe-g-tx's coordinator is broker 2 (k2): it is the one faulted") {
		t.Errorf("the trial did not say which broker it found:\n%s", rep)
	}
}
