package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestHiccup: a pause with --return-after is undone while the probe runs,
// the return recorded as the fault's end; recovery then finds it running.
// An undo that fails leaves the fault to recovery, with a note.
func TestHiccup(t *testing.T) {
	for _, c := range []struct {
		name     string
		kind     results.FaultKind
		failOnce bool
		nodes    string
		returned bool
		hiccup   HiccupFault
	}{
		{name: "pause", kind: results.FaultPause, nodes: "pause k1, start k1, start k1", returned: true},
		{name: "cut", kind: results.FaultIsolate, nodes: "isolate k1, start k1, start k1", returned: true},
		{name: "cpu-starve", kind: results.FaultCPUStarve, hiccup: HiccupFault{CPUs: 0.05}, nodes: "cpu-starve k1, start k1, start k1", returned: true},
		{name: "packet-loss", kind: results.FaultPacketLoss, hiccup: HiccupFault{Loss: 0.3}, nodes: "packet-loss k1, start k1, start k1", returned: true},
		{name: "undo fails", kind: results.FaultPause, failOnce: true, nodes: "pause k1, start k1, start k1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := &nodeWorld{world: newWorld()}
			r, _, _ := newRunner(t, w.world, c.kind)
			r.Target = w
			r.Opt.Duration, r.Opt.ReturnAfter = 60*time.Millisecond, 20*time.Millisecond
			r.Opt.Hiccup = c.hiccup
			if c.failOnce {
				failed := false
				w.hooks["restart"] = func(context.Context) error {
					if failed {
						return nil
					}
					failed = true
					return errors.New("engine gone")
				}
			}
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			if err := r.Trial(context.Background(), 1, dir); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(w.nodes, ", "); got != c.nodes {
				t.Errorf("nodes:\n got %s\nwant %s", got, c.nodes)
			}
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			f := m.Fault
			if got := !f.Returned.IsZero(); got != c.returned {
				t.Fatalf("returned %v, want %v", f.Returned, c.returned)
			}
			if c.returned && f.Returned.Sub(f.At()) < r.Opt.ReturnAfter {
				t.Errorf("returned %v after the fault, want at least %v", f.Returned.Sub(f.At()), r.Opt.ReturnAfter)
			}
			noted := strings.Contains(strings.Join(m.Notes, "\n"), "not undone after --return-after")
			if noted == c.returned {
				t.Errorf("notes %q: want a note only when the undo failed", m.Notes)
			}
		})
	}
}

// TestReturnAfterRefused: a fault kbf cannot undo while probing is refused
// in one line naming those it can.
func TestReturnAfterRefused(t *testing.T) {
	for _, k := range []results.FaultKind{results.FaultSIGKILL, results.FaultSIGTERM, results.FaultDiskFull, results.FaultRolling} {
		o := Options{Kill: k, Broker: "k1", Duration: 10 * time.Second, Repeat: 1, Grace: time.Second,
			RecoveryTimeout: time.Second, ReturnAfter: 2 * time.Second}
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), "cannot be undone while probing") || !strings.Contains(err.Error(), "pause, isolate") {
			t.Errorf("%s: error %v, want a refusal naming the faults that can", k, err)
		}
	}
	for _, k := range []results.FaultKind{results.FaultPause, results.FaultIsolate, results.FaultIsolateClients, results.FaultIsolateController, results.FaultTwoBrokers, results.FaultCPUStarve, results.FaultPacketLoss} {
		if !returns(k) {
			t.Errorf("%s: refused, want undone", k)
		}
	}
}

// TestControllerPauseReturns: the active controller paused with
// --return-after is thawed then with the probe running, the thaw a step,
// and the quorum watched before and after it, each new leader recorded
// once.
func TestControllerPauseReturns(t *testing.T) {
	nw := &nodeWorld{world: newWorld()}
	r, _, _ := newRunner(t, nw.world, results.FaultControllerPause)
	r.Opt.Duration, r.Opt.ReturnAfter = 600*time.Millisecond, 300*time.Millisecond
	qw := quorumWorld{nw, map[int32]int{}}
	r.Target = qw
	dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
	if err := r.Trial(context.Background(), 1, dir); err != nil {
		t.Fatal(err)
	}
	// The thaw, then recovery's (c1 running already) and the broker's.
	if got, want := strings.Join(nw.nodes, ", "), "pause c1, start c1, start k1"; got != want {
		t.Errorf("nodes:\n got %s\nwant %s", got, want)
	}
	m, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	var leaders, starts int
	var thawed time.Time
	for _, s := range m.Steps {
		switch s.Action {
		case results.StepQuorumLeader:
			leaders++
		case results.StepStart:
			starts++
			thawed = s.At
			if !strings.Contains(s.Note, "--return-after") {
				t.Errorf("thaw step %+v: want its note to say --return-after", s)
			}
		}
	}
	if leaders != 1 || starts != 1 {
		t.Errorf("steps %+v: want one new leader and one thaw", m.Steps)
	}
	if d := thawed.Sub(m.Fault.SignalSent); d < r.Opt.ReturnAfter {
		t.Errorf("thawed %v after the pause, want at least %v", d, r.Opt.ReturnAfter)
	}
}

// TestHiccupOptions: cpu-starve needs its sliver and packet-loss its
// share, each within bounds, and neither setting goes with another fault.
func TestHiccupOptions(t *testing.T) {
	for _, c := range []struct {
		name string
		kind results.FaultKind
		h    HiccupFault
		want string // "" when valid
	}{
		{"starve", results.FaultCPUStarve, HiccupFault{CPUs: 0.05}, ""},
		{"starve without cpus", results.FaultCPUStarve, HiccupFault{}, "starve_cpus 0: want 0.01 to 1 of a CPU"},
		{"starve too little", results.FaultCPUStarve, HiccupFault{CPUs: 0.001}, "starve_cpus 0.001: want 0.01 to 1"},
		{"starve too much", results.FaultCPUStarve, HiccupFault{CPUs: 2}, "starve_cpus 2: want 0.01 to 1"},
		{"cpus of a pause", results.FaultPause, HiccupFault{CPUs: 0.05}, "only cpu-starve holds the broker's CPU, not pause"},
		{"loss", results.FaultPacketLoss, HiccupFault{Loss: 0.3}, ""},
		{"loss without a share", results.FaultPacketLoss, HiccupFault{}, `loss "0%": packet-loss needs a share between 0 and 100 %`},
		{"loss of everything", results.FaultPacketLoss, HiccupFault{Loss: 1}, `loss "100%"`},
		{"loss of a sigkill", results.FaultSIGKILL, HiccupFault{Loss: 0.3}, "only packet-loss drops packets, not sigkill"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Options{Kill: c.kind, Broker: "k1", Duration: 10 * time.Second, Repeat: 1, Grace: time.Second,
				RecoveryTimeout: time.Second, Hiccup: c.h}
			err := o.validateHiccup()
			if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}
