package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// count is how many times name was called so far.
func (w *world) count(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, c := range w.calls {
		if c == name {
			n++
		}
	}
	return n
}

// awaitCall waits until name has been called n times, or fails the test
// after a while: a protocol that waits for what the hook holds back would
// never get there.
func awaitCall(t *testing.T, w *world, name string, n int, why string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); w.count(name) < n; {
		if time.Now().After(deadline) {
			t.Errorf("%s: %s not called %d times; calls: %s", why, name, n, w.log())
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// failedOver is the probed partitions after k1's SIGKILL: p0 led by k2,
// k1 out of every ISR.
var failedOver = []cluster.Partition{
	{Partition: 0, Leader: 2, Replicas: []int32{1, 2, 3}, ISR: []int32{2, 3}},
	{Partition: 1, Leader: 2, Replicas: []int32{2, 3, 1}, ISR: []int32{2, 3}},
}

// TestRunOverlapsPutBack runs three SIGKILL trials back to back and checks
// the order: the next trial's probe starts while the trial before's
// put-back still waits for full ISRs, but its fault comes only once that
// put-back has ended, the trial's files complete and handed over, and a
// steady window after the cluster was whole; what the next trial records
// of the cluster is read once it is whole.
func TestRunOverlapsPutBack(t *testing.T) {
	w := newWorld()
	r, _, _ := newRunner(t, w, results.FaultSIGKILL)
	r.Opt.Repeat = 3
	r.Opt.Baseline.Period = 50 * time.Millisecond
	var mu sync.Mutex
	var whole []time.Time // when each trial's cluster was whole again
	var handed []int
	// The fault leaves p0 led by k2 until the put-back's election.
	w.hooks["inject"] = func(context.Context) error {
		n := w.count("inject")
		if n > 1 {
			dir := filepath.Join(r.Opt.Out, results.TrialDir(n-1))
			m, err := results.ReadMeta(dir)
			switch {
			case err != nil:
				t.Errorf("trial %d's fault before trial %d's meta.json: %v", n, n-1, err)
			case m.Recovery == nil || m.Recovery.PreferredElec.IsZero() || !m.Recovery.LeadersBack:
				t.Errorf("trial %d's fault before trial %d's recovery was recorded: %+v", n, n-1, m.Recovery)
			}
			if _, err := os.Stat(filepath.Join(dir, results.LogFile)); err != nil {
				t.Errorf("trial %d's fault before trial %d's read-back: %v", n, n-1, err)
			}
			mu.Lock()
			if !slices.Contains(handed, n-1) {
				t.Errorf("trial %d's fault before trial %d was handed over (%v)", n, n-1, handed)
			}
			if since := time.Since(whole[n-2]); since < r.Opt.Baseline.Period {
				t.Errorf("trial %d's fault %v after trial %d's put-back, want a steady window of %v after it", n, since, n-1, r.Opt.Baseline.Period)
			}
			mu.Unlock()
		}
		w.mu.Lock()
		w.parts = failedOver
		w.mu.Unlock()
		return nil
	}
	// The put-back's wait for full ISRs holds until the next trial's probe
	// has started: serial trials never get past it.
	w.hooks["isr"] = func(context.Context) error {
		if n := w.count("isr"); n < r.Opt.Repeat {
			awaitCall(t, w, "probe", n+1, "the next trial's probe during the put-back")
		}
		return nil
	}
	// A read-back longer than the steady window: the fault waits for it.
	w.hooks["readback"] = func(context.Context) error {
		time.Sleep(2 * r.Opt.Baseline.Period)
		return nil
	}
	w.hooks["leaders"] = func(context.Context) error {
		w.mu.Lock()
		w.parts = nil // healthy: p0 back on k1
		w.mu.Unlock()
		mu.Lock()
		whole = append(whole, time.Now())
		mu.Unlock()
		return nil
	}
	err := r.Run(context.Background(), func(_ context.Context, n int, dir string) error {
		m, err := results.ReadMeta(dir)
		if err != nil || m.Recovery == nil || !m.Recovery.LeadersBack {
			t.Errorf("trial %d handed over before its recovery was recorded: %v", n, err)
		}
		mu.Lock()
		handed = append(handed, n)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 2, 3}; !slices.Equal(handed, want) {
		t.Errorf("handed over %v, want %v", handed, want)
	}
	if n := w.count("inject"); n != 3 {
		t.Errorf("%d injections, want 3: %s", n, w.log())
	}
	if !strings.HasSuffix(w.log(), "isr elect leaders readback") {
		t.Errorf("the last trial not put back before Run returned: %s", w.log())
	}
	for n := 2; n <= 3; n++ {
		m, err := results.ReadMeta(filepath.Join(r.Opt.Out, results.TrialDir(n)))
		if err != nil {
			t.Fatal(err)
		}
		if m.Probe.Leaders[0] != 1 {
			t.Errorf("trial %d recorded p0's leader %d, want 1: read before the cluster was whole", n, m.Probe.Leaders[0])
		}
		if len(m.Cluster.Nodes) == 0 {
			t.Errorf("trial %d recorded no node settings", n)
		}
		if m.Baseline == nil || m.Baseline.Healthy.IsZero() || m.Fault == nil {
			t.Errorf("trial %d: baseline %+v, fault %+v", n, m.Baseline, m.Fault)
		}
	}
}

// TestRunPutBackFails checks that a put-back that fails in the background
// fails the next trial before its fault, with the reason, and is not
// swallowed: the run ends with the trial's recovery error, the failed
// trial's meta.json says why, and the next trial's says it was not
// faulted.
func TestRunPutBackFails(t *testing.T) {
	w := newWorld()
	r, _, _ := newRunner(t, w, results.FaultSIGKILL)
	r.Opt.Repeat = 3
	w.hooks["isr"] = func(context.Context) error {
		awaitCall(t, w, "probe", 2, "the next trial's probe during the put-back")
		return errors.New("k1 never caught up")
	}
	var handed []int
	err := r.Run(context.Background(), func(_ context.Context, n int, _ string) error {
		handed = append(handed, n)
		return nil
	})
	if err == nil || err.Error() != "trial 1: recovery: wait for full ISRs: k1 never caught up" {
		t.Errorf("error %v, want trial 1's recovery's", err)
	}
	if len(handed) != 0 {
		t.Errorf("handed over %v, want none", handed)
	}
	if n := w.count("inject"); n != 1 {
		t.Errorf("%d injections, want 1: the next trial is not faulted; %s", n, w.log())
	}
	m, err := results.ReadMeta(filepath.Join(r.Opt.Out, results.TrialDir(1)))
	if err != nil {
		t.Fatal(err)
	}
	if m.Recovery == nil || !strings.Contains(m.Recovery.Err, "k1 never caught up") {
		t.Errorf("trial 1's recovery %+v, want its error", m.Recovery)
	}
	m, err = results.ReadMeta(filepath.Join(r.Opt.Out, results.TrialDir(2)))
	if err != nil {
		t.Fatal(err)
	}
	if m.Fault != nil || !slices.ContainsFunc(m.Notes, func(s string) bool {
		return strings.HasPrefix(s, "no fault injected: trial 1: recovery: wait for full ISRs")
	}) {
		t.Errorf("trial 2: fault %+v, notes %q", m.Fault, m.Notes)
	}
	if _, err := os.Stat(filepath.Join(r.Opt.Out, results.TrialDir(3))); err == nil {
		t.Error("trial 3 started after the failed put-back")
	}
}

// TestRunInterruptedDuringPutBack checks that Ctrl-C during the next
// trial leaves the trial before whole: its put-back and read-back end,
// its meta.json complete and not marked interrupted, before Run returns.
func TestRunInterruptedDuringPutBack(t *testing.T) {
	w := newWorld()
	r, _, _ := newRunner(t, w, results.FaultSIGKILL)
	r.Opt.Repeat = 3
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.hooks["isr"] = func(context.Context) error {
		awaitCall(t, w, "probe", 2, "the next trial's probe during the put-back")
		cancel()
		return nil
	}
	var handed []int
	err := r.Run(ctx, func(_ context.Context, n int, _ string) error {
		handed = append(handed, n)
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want the context's", err)
	}
	if n := w.count("inject"); n != 1 {
		t.Errorf("%d injections, want 1; %s", n, w.log())
	}
	if want := []int{1}; !slices.Equal(handed, want) {
		t.Errorf("handed over %v, want %v: trial 1 was whole", handed, want)
	}
	dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
	m, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Recovery == nil || !m.Recovery.LeadersBack || m.Recovery.Err != "" {
		t.Errorf("trial 1's recovery %+v", m.Recovery)
	}
	if slices.ContainsFunc(m.Notes, func(s string) bool { return strings.HasPrefix(s, "interrupted") }) {
		t.Errorf("trial 1 marked interrupted: %q", m.Notes)
	}
	if _, err := os.Stat(filepath.Join(dir, results.LogFile)); err != nil {
		t.Errorf("trial 1's read-back: %v", err)
	}
	if w.count("readback") != 1 || w.count("leaders") != 1 {
		t.Errorf("trial 1 not put back: %s", w.log())
	}
}

// TestRestartAfterOwnLogs checks that a broker's SIGKILL restarts it once
// its own logs are copied, while the other nodes' are.
func TestRestartAfterOwnLogs(t *testing.T) {
	w := newWorld()
	r, _, _ := newRunner(t, w, results.FaultSIGKILL)
	// c1's copy holds until the restart: a restart that waits for every
	// node's logs never comes.
	w.hooks["logs-c1"] = func(context.Context) error {
		awaitCall(t, w, "restart", 1, "k1's restart while c1's logs are copied")
		return nil
	}
	w.hooks["restart"] = func(context.Context) error {
		if w.count("logs-k1") != 1 {
			t.Errorf("k1 restarted before its logs were copied: %s", w.log())
		}
		return nil
	}
	if err := r.Trial(context.Background(), 1, filepath.Join(r.Opt.Out, results.TrialDir(1))); err != nil {
		t.Fatal(err)
	}
}

// TestRunProbeStartedAgainAfterPutBack checks that a probe the restarted
// broker refused beside the put-back (its JVM still starting) is started
// again once the cluster is whole, and the trial goes on.
func TestRunProbeStartedAgainAfterPutBack(t *testing.T) {
	w := newWorld()
	r, _, _ := newRunner(t, w, results.FaultSIGKILL)
	r.Opt.Repeat = 2
	w.hooks["isr"] = func(context.Context) error {
		awaitCall(t, w, "probe", 2, "the next trial's probe during the put-back")
		return nil
	}
	var mu sync.Mutex
	var beforeWhole []bool // per probe start: whether trial 1's put-back had not yet found the ISRs full
	w.hooks["probe"] = func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		beforeWhole = append(beforeWhole, w.count("elect") == 0)
		if len(beforeWhole) == 2 {
			return errors.New("broker closed the connection immediately during api versions negotiation")
		}
		return nil
	}
	if err := r.Run(context.Background(), nil); err != nil {
		t.Fatalf("run: %v; calls: %s", err, w.log())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(beforeWhole) != 3 || !beforeWhole[1] || beforeWhole[2] {
		t.Errorf("probe starts (before the cluster was whole?) %v, want 3: the refused one beside the put-back, then one after", beforeWhole)
	}
	if n := w.count("inject"); n != 2 {
		t.Errorf("%d injections, want 2; %s", n, w.log())
	}
}

// TestTrialBesideAcrossRunners runs two trials back to back as kbf bench
// does, each by a Runner of its own (a scenario's options): the second
// starts its probe while the first's put-back waits for full ISRs, comes
// up on no cluster of its own, and faults only once the first is handed
// over; the first's put-back is handed to its recorded, not the second's.
// A put-back that failed is the first trial's outcome, and the second
// trial, not faulted, fails with it.
func TestTrialBesideAcrossRunners(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("put-back fails %v", fail), func(t *testing.T) {
			w := newWorld()
			r1, _, _ := newRunner(t, w, results.FaultSIGKILL)
			r2, _, _ := newRunner(t, w, results.FaultSIGTERM)
			w.hooks["isr"] = func(context.Context) error {
				if w.count("isr") > 1 {
					return nil
				}
				awaitCall(t, w, "probe", 2, "the second trial's probe during the first's put-back")
				if fail {
					return errors.New("k1 never caught up")
				}
				return nil
			}
			var mu sync.Mutex
			var handed []string
			recorded := func(name string) Recorded {
				return func(_ context.Context, n int, _ string) error {
					mu.Lock()
					defer mu.Unlock()
					handed = append(handed, fmt.Sprintf("%s %d", name, n))
					return nil
				}
			}
			w.hooks["inject"] = func(context.Context) error {
				mu.Lock()
				defer mu.Unlock()
				if n := w.count("inject"); n == 2 && !slices.Contains(handed, "first 1") {
					t.Errorf("the second trial's fault before the first was handed over (%v)", handed)
				}
				return nil
			}
			ctx := context.Background()
			pb1, err := r1.TrialBeside(ctx, 1, filepath.Join(r1.Opt.Out, results.TrialDir(1)), nil, recorded("first"))
			if err != nil || pb1 == nil {
				t.Fatalf("first trial: put-back %v, error %v; want its put-back running", pb1, err)
			}
			pb2, err2 := r2.TrialBeside(ctx, 2, filepath.Join(r2.Opt.Out, results.TrialDir(2)), pb1, recorded("second"))
			err1 := pb1.HandOver(ctx)
			if n := w.count("up"); n != 1 {
				t.Errorf("%d ups, want the first trial's only: %s", n, w.log())
			}
			if !fail {
				if err1 != nil || err2 != nil || pb2 == nil {
					t.Fatalf("first %v, second %v (put-back %v)", err1, err2, pb2)
				}
				if err := pb2.HandOver(ctx); err != nil {
					t.Fatal(err)
				}
				if want := []string{"first 1", "second 2"}; !slices.Equal(handed, want) {
					t.Errorf("handed over %v, want %v", handed, want)
				}
				return
			}
			const want = "trial 1: recovery: wait for full ISRs: k1 never caught up"
			if err1 == nil || err1.Error() != want {
				t.Errorf("first trial's outcome %v, want %q", err1, want)
			}
			if pb2 != nil || err2 == nil || err2.Error() != want {
				t.Errorf("second trial: put-back %v, error %v; want it put back, failed with the first's error", pb2, err2)
			}
			if n := w.count("inject"); n != 1 || len(handed) != 0 {
				t.Errorf("%d injections, handed over %v: want the first's only, none handed; %s", n, handed, w.log())
			}
		})
	}
}

// TestTrialBesideOtherTopic: a trial probing another topic than the trial
// before's does not start beside its put-back, which leaves only that
// trial's topics whole: it waits for it to end, then brings the cluster up
// and gives its own topic back to its preferred leaders, as a trial alone
// does.
func TestTrialBesideOtherTopic(t *testing.T) {
	w := newWorld()
	r1, _, _ := newRunner(t, w, results.FaultSIGKILL)
	r2, _, _ := newRunner(t, w, results.FaultSIGKILL)
	r2.Opt.Probe.Topic = "wide"
	ctx := context.Background()
	pb1, err := r1.TrialBeside(ctx, 1, filepath.Join(r1.Opt.Out, results.TrialDir(1)), nil, nil)
	if err != nil || pb1 == nil {
		t.Fatalf("first trial: put-back %v, error %v; want its put-back running", pb1, err)
	}
	pb2, err := r2.TrialBeside(ctx, 2, filepath.Join(r2.Opt.Out, results.TrialDir(2)), pb1, nil)
	if err := errors.Join(err, pb1.HandOver(ctx), pb2.HandOver(ctx)); err != nil {
		t.Fatal(err)
	}
	const trial = "probe inject logs-c1 logs-k1 restart isr elect leaders readback"
	if got, want := w.log(), "up "+trial+" up elect "+trial; got != want {
		t.Errorf("calls:\n got %s\nwant %s", got, want)
	}
}
