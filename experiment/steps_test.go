package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// nodeWorld is world with each injection and restart logged by its node.
type nodeWorld struct {
	*world
	mu    sync.Mutex
	nodes []string
}

func (w *nodeWorld) note(s string) {
	w.mu.Lock()
	w.nodes = append(w.nodes, s)
	w.mu.Unlock()
}

func (w *nodeWorld) Inject(ctx context.Context, f cluster.Fault) (results.Fault, error) {
	w.note(string(f.Kind) + " " + f.Broker)
	return w.world.Inject(ctx, f)
}

func (w *nodeWorld) Restart(ctx context.Context, svc string) error {
	w.note("start " + svc)
	return w.world.Restart(ctx, svc)
}

func TestNext(t *testing.T) {
	brokers := map[string]int32{"k3": 3, "k1": 1, "k2": 2}
	for _, c := range []struct{ name, b, want string }{
		{"first", "k1", "k2"},
		{"middle", "k2", "k3"},
		{"wraps round", "k3", "k1"},
		{"unknown", "k9", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := next(brokers, c.b); got != c.want {
				t.Errorf("next(%s) = %q, want %q", c.b, got, c.want)
			}
		})
	}
	if got := next(map[string]int32{"k1": 1}, "k1"); got != "" {
		t.Errorf("next of the only broker = %q, want none", got)
	}
}

func TestTwoBrokers(t *testing.T) {
	for _, c := range []struct {
		name string
		// cancelOn is the call whose hook cancels the run (Ctrl-C); none: the trial runs whole.
		cancelOn string
		nodes    string // the injections and starts, in order
		steps    []results.StepAction
	}{
		{
			name:  "whole",
			nodes: "sigkill k1, sigkill k2, start k2, start k1",
			steps: []results.StepAction{results.StepKill, results.StepKill, results.StepStart},
		},
		{
			// Ctrl-C as the first broker dies: no second is killed,
			// and recovery starts the first.
			name:     "interrupted at the first kill",
			cancelOn: "inject",
			nodes:    "sigkill k1, start k1",
			steps:    []results.StepAction{results.StepKill},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := &nodeWorld{world: newWorld()}
			r, _, _ := newRunner(t, w.world, results.FaultTwoBrokers)
			r.Target = w
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.cancelOn != "" {
				cancelOn(w.world, c.cancelOn, cancel)
			}
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			err := r.Trial(ctx, 1, dir)
			if c.cancelOn == "" && err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(w.nodes, ", "); got != c.nodes {
				t.Errorf("nodes:\n got %s\nwant %s", got, c.nodes)
			}
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			if m.Fault == nil || m.Fault.Kind != results.FaultTwoBrokers || m.Fault.Broker != "k1" {
				t.Errorf("fault %+v, want two-brokers of k1", m.Fault)
			}
			var got []results.StepAction
			for _, s := range m.Steps {
				got = append(got, s.Action)
				if s.Node == "" || s.At.IsZero() || s.NodeID == 0 {
					t.Errorf("step %+v: want its node, id and time", s)
				}
			}
			if strings.Join(actions(got), " ") != strings.Join(actions(c.steps), " ") {
				t.Errorf("steps %v, want %v", got, c.steps)
			}
			if len(m.Steps) > 1 && m.Steps[1].Node != "k2" {
				t.Errorf("second kill of %s, want k2", m.Steps[1].Node)
			}
			if got := recordedFirstStep(t, dir); got != results.StepKill {
				t.Errorf("fault.first_step %q, want %q", got, results.StepKill)
			}
		})
	}
}

// recordedFirstStep is fault.first_step as the trial wrote it in
// meta.json, before any reader fills it from the first step.
func recordedFirstStep(t *testing.T, dir string) results.StepAction {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, results.MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Fault struct {
			FirstStep results.StepAction `json:"first_step"`
		} `json:"fault"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Fault.FirstStep
}

func actions(s []results.StepAction) []string {
	var out []string
	for _, a := range s {
		out = append(out, string(a))
	}
	return out
}

func TestRolling(t *testing.T) {
	w := &nodeWorld{world: newWorld()}
	r, _, _ := newRunner(t, w.world, results.FaultRolling)
	r.Target = w
	dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
	if err := r.Trial(context.Background(), 1, dir); err != nil {
		t.Fatal(err)
	}
	// Recovery's start of k1 comes last; the roll started it already.
	want := "sigterm k1, start k1, sigterm k2, start k2, sigterm k3, start k3, start k1"
	if got := strings.Join(w.nodes, ", "); got != want {
		t.Errorf("nodes:\n got %s\nwant %s", got, want)
	}
	m, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range m.Steps {
		got = append(got, string(s.Action)+" "+s.Node)
	}
	wantSteps := "sigterm k1,start k1,isr-full ,sigterm k2,start k2,isr-full ,sigterm k3,start k3,isr-full "
	if strings.Join(got, ",") != wantSteps {
		t.Errorf("steps:\n got %s\nwant %s", strings.Join(got, ","), wantSteps)
	}
	if m.Fault == nil || m.Fault.Kind != results.FaultRolling {
		t.Errorf("fault %+v, want rolling", m.Fault)
	}
	// The roll begins with a graceful stop, and the analysis must know it.
	if got := recordedFirstStep(t, dir); got != results.StepStop {
		t.Errorf("fault.first_step %q, want %q", got, results.StepStop)
	}
}

// escalatingWorld is nodeWorld whose graceful stop of one broker outlives
// its grace and ends in a SIGKILL, as chaos.Injector reports it.
type escalatingWorld struct {
	*nodeWorld
	broker string
}

func (w escalatingWorld) Inject(ctx context.Context, f cluster.Fault) (results.Fault, error) {
	rf, err := w.nodeWorld.Inject(ctx, f)
	if f.Broker == w.broker && f.Kind == results.FaultSIGTERM {
		rf.Escalated, rf.ExitCode = true, 137
	}
	return rf, err
}

// The step of a graceful stop records whether it escalated, so the report
// can say which stop of a roll turned into a SIGKILL.
func TestRollingEscalation(t *testing.T) {
	for _, broker := range []string{"k1", "k2"} {
		t.Run(broker, func(t *testing.T) {
			t.Parallel() // each waits out the roll's tail
			w := &nodeWorld{world: newWorld()}
			r, _, _ := newRunner(t, w.world, results.FaultRolling)
			r.Target = escalatingWorld{w, broker}
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			if err := r.Trial(context.Background(), 1, dir); err != nil {
				t.Fatal(err)
			}
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			var escalated []string
			for _, s := range m.Steps {
				if s.Escalated {
					escalated = append(escalated, string(s.Action)+" "+s.Node)
				}
			}
			if got, want := strings.Join(escalated, ", "), "sigterm "+broker; got != want {
				t.Errorf("escalated steps %q, want %q", got, want)
			}
			if first := broker == "k1"; m.Fault == nil || m.Fault.Escalated != first {
				t.Errorf("fault %+v: escalated should be %v, as its first step", m.Fault, first)
			}
		})
	}
}

// quorumWorld is a cluster whose quorum is led by c1 until the fault, then
// by c2.
type quorumWorld struct {
	*nodeWorld
	rejoinAsked map[int32]int
}

func (w quorumWorld) ActiveController(context.Context) (string, int32, int32, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.nodes) == 0 {
		return "c1", 100, 5, nil
	}
	return "c2", 101, 6, nil
}

// Quorum is the world itself: it can say which controller leads.
func (w quorumWorld) Quorum() cluster.Quorum { return w }

// Services are a quorum of three dedicated controllers and the brokers.
func (w quorumWorld) Services() []string { return []string{"c1", "c2", "c3", "k1", "k2", "k3"} }

// Rejoined says no once, then yes: recovery must ask again.
func (w quorumWorld) Rejoined(_ context.Context, id int32, _ time.Time) (bool, string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rejoinAsked[id]++
	return w.rejoinAsked[id] > 1, "behind", nil
}

func TestControllerFaults(t *testing.T) {
	for _, c := range []struct {
		name  string
		kind  results.FaultKind
		nodes string
		first results.StepAction
		// settle: probing ends the margin after the quorum's new leader,
		// well before the cap, rather than at it.
		settle bool
	}{
		{"controller-kill", results.FaultControllerKill, "sigkill c1, start c1, start k1", results.StepKill, false},
		{"controller-pause", results.FaultControllerPause, "pause c1, start c1, start k1", results.StepPause, false},
		{"controller-kill settles after the new leader", results.FaultControllerKill, "sigkill c1, start c1, start k1", results.StepKill, true},
		{"controller-pause settles after the new leader", results.FaultControllerPause, "pause c1, start c1, start k1", results.StepPause, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			nw := &nodeWorld{world: newWorld()}
			r, _, _ := newRunner(t, nw.world, c.kind)
			r.Opt.Duration = 500 * time.Millisecond // room for the quorum's watch to look
			if c.settle {
				r.Opt.Duration, r.Opt.Settle = time.Minute, 50*time.Millisecond
				r.Opt.Baseline.Gap = 20 * time.Millisecond
			}
			qw := quorumWorld{nw, map[int32]int{}}
			r.Target = qw
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			if err := r.Trial(context.Background(), 1, dir); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(nw.nodes, ", "); got != c.nodes {
				t.Errorf("nodes:\n got %s\nwant %s", got, c.nodes)
			}
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			if m.Fault == nil || m.Fault.Broker != "c1" || m.Fault.NodeID != 100 || m.Fault.Kind != c.kind {
				t.Errorf("fault %+v, want %s of c1 (node 100)", m.Fault, c.kind)
			}
			if len(m.Steps) < 2 || m.Steps[0].Action != c.first || m.Steps[1].Action != results.StepQuorumLeader || m.Steps[1].NodeID != 101 {
				t.Errorf("steps %+v: want %s of c1, then node 101 leading", m.Steps, c.first)
			}
			if r := m.Recovery; r == nil || r.QuorumRejoined.IsZero() || qw.rejoinAsked[100] < 2 {
				t.Errorf("recovery %+v, asked %v: want it to wait until node 100 rejoined the quorum", r, qw.rejoinAsked)
			}
			if got := recordedFirstStep(t, dir); got != c.first {
				t.Errorf("fault.first_step %q, want %q", got, c.first)
			}
			took, note := m.Ended.Sub(m.Fault.SignalSent), strings.Join(m.Notes, "; ")
			switch {
			case !c.settle && took < r.Opt.Duration-r.Opt.FaultAfter:
				t.Errorf("probing ended %v after the fault, want the cap %v", took, r.Opt.Duration-r.Opt.FaultAfter)
			case c.settle && len(m.Steps) > 1 && (m.Ended.Sub(m.Steps[1].At) < r.Opt.Settle || took > r.Opt.Duration/2):
				t.Errorf("probing ended %v after the fault, %v after the new leader; want at least --settle %v after it, well before the cap %v",
					took, m.Ended.Sub(m.Steps[1].At), r.Opt.Settle, r.Opt.Duration)
			case c.settle && !strings.Contains(note, "probing ended"):
				t.Errorf("notes %q do not say the trial ended early", note)
			}
		})
	}
	t.Run("no quorum to ask", func(t *testing.T) {
		// Three controllers, but a target that cannot say which leads.
		w := threeControllers{newWorld()}
		r, _, _ := newRunner(t, w.world, results.FaultControllerKill)
		r.Target = w
		err := r.Trial(context.Background(), 1, filepath.Join(r.Opt.Out, results.TrialDir(1)))
		if !errors.Is(err, cluster.ErrUnsupported) || !strings.Contains(err.Error(), "cannot say which controller is active") {
			t.Errorf("err %v, want a refusal saying the active controller cannot be found", err)
		}
		if w.log() != "" {
			t.Errorf("refused after %q; want before anything", w.log())
		}
	})
}

// threeControllers is a world with a quorum of three dedicated
// controllers and no way to ask it.
type threeControllers struct{ *world }

func (threeControllers) Services() []string { return []string{"c1", "c2", "c3", "k1", "k2", "k3"} }

func TestLastReplica(t *testing.T) {
	for _, c := range []struct {
		name  string
		last  results.FaultKind
		nodes string
	}{
		{"sigkill", "", "sigterm k2, sigterm k3, sigkill k1, start k2, start k3, start k1, start k1"},
		{"sigterm", results.FaultSIGTERM, "sigterm k2, sigterm k3, sigterm k1, start k2, start k3, start k1, start k1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := &nodeWorld{world: newWorld()}
			r, _, _ := newRunner(t, w.world, results.FaultLastReplica)
			r.Target, r.Opt.LastStep = w, c.last
			r.Opt.Duration = 200 * time.Millisecond
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			if err := r.Trial(context.Background(), 1, dir); err != nil {
				t.Fatal(err)
			}
			// Recovery's start of k1 comes last; the steps started it already.
			if got := strings.Join(w.nodes, ", "); got != c.nodes {
				t.Errorf("nodes:\n got %s\nwant %s", got, c.nodes)
			}
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Steps) != 6 || m.Fault == nil || m.Fault.Broker != "k2" || m.Fault.Kind != results.FaultLastReplica {
				t.Errorf("fault %+v, %d steps: want last-replica starting at k2, 6 steps", m.Fault, len(m.Steps))
			}
		})
	}
}

func TestQuorumSucceeded(t *testing.T) {
	before := quorumState{svc: "c1", id: 100, epoch: 5}
	for _, tc := range []struct {
		name      string
		id, epoch int32
		want      bool
	}{
		{"another controller at a higher epoch", 101, 6, true},
		{"the same controller re-elected", 100, 7, true},
		{"the leader before the fault, as a broker still names it", 100, 5, false},
		{"a stale answer from an older epoch", 102, 4, false},
		{"another id at the same epoch cannot be newer", 101, 5, false},
		{"an election under way", -1, 6, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := before.succeeded(tc.id, tc.epoch); got != tc.want {
				t.Errorf("succeeded(%d, %d) = %v, want %v", tc.id, tc.epoch, got, tc.want)
			}
		})
	}
}
