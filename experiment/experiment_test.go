package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// newRunner returns a runner of one short trial against w. The durations
// only keep the test short; no test asserts a timing.
func newRunner(t *testing.T, w *world, kill results.FaultKind) (*Runner, *bytes.Buffer, *recorder) {
	t.Helper()
	cfg := probe.Defaults()
	proc := quietProc(t)
	var out bytes.Buffer
	rep := &recorder{}
	return &Runner{
		Opt: Options{
			Kill: kill, Broker: "k1", Duration: 20 * time.Millisecond, FaultAfter: 5 * time.Millisecond,
			Repeat: 1, Out: t.TempDir(), Grace: time.Second, RecoveryTimeout: time.Minute, Probe: cfg,
			Baseline: Baseline{Period: time.Millisecond, Timeout: time.Minute}, ProcRoot: proc,
		},
		Target: w, NewProbe: w.newProbe, ReadBack: w.readBack,
		Reporter: rep,
	}, &out, rep
}

// cancelOn makes the call name cancel the run's context.
func cancelOn(w *world, name string, cancel context.CancelFunc) {
	w.hooks[name] = func(context.Context) error { cancel(); return nil }
}

// TestRecoveryProbedTopic: a trial probing a topic of its own (kbf run
// --topic wide) gives that topic's partitions back to their preferred
// leaders before its baseline and in its recovery, not only kbf's topics,
// or a trial's baseline waits for them in vain.
func TestRecoveryProbedTopic(t *testing.T) {
	w := newWorld()
	r, _, _ := newRunner(t, w, results.FaultSIGKILL)
	r.Opt.Probe.Topic = "wide"
	if err := r.Trial(context.Background(), 1, filepath.Join(r.Opt.Out, results.TrialDir(1))); err != nil {
		t.Fatal(err)
	}
	want := []string{"orders", "wide"}
	if !slices.Equal(w.elected, want) || !slices.Equal(w.checked, want) {
		t.Errorf("recovery elected on %v and checked %v, want %v for both", w.elected, w.checked, want)
	}
	// Before its baseline too: an earlier trial's fault on another topic
	// left it as it was.
	if got, want := w.log(), "up elect probe inject logs-c1 logs-k1 restart isr elect leaders readback"; got != want {
		t.Errorf("phases:\n got %s\nwant %s", got, want)
	}
}

func TestTrialPhases(t *testing.T) {
	for _, kill := range []results.FaultKind{results.FaultSIGKILL, results.FaultSIGTERM, results.FaultPause} {
		t.Run(string(kill), func(t *testing.T) {
			w := newWorld()
			r, _, _ := newRunner(t, w, kill)
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			if err := r.Trial(context.Background(), 1, dir); err != nil {
				t.Fatal(err)
			}
			meta, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			tr := struct{ Meta *results.Meta }{meta}
			want := "up probe inject logs-c1 logs-k1 restart isr elect leaders readback"
			if got := w.log(); got != want {
				t.Errorf("phases:\n got %s\nwant %s", got, want)
			}
			if tr.Meta == nil || tr.Meta.Fault == nil || tr.Meta.Fault.Kind != kill || tr.Meta.Fault.NodeID != 1 {
				t.Errorf("fault in the metadata: %+v", tr.Meta)
			}
			if tr.Meta.Probe.LongestSendGap != 42*time.Millisecond {
				t.Errorf("longest send gap %v, want the probe's 42ms", tr.Meta.Probe.LongestSendGap)
			}
			if rc := tr.Meta.Recovery; rc == nil || !rc.LeadersBack || rc.Err != "" {
				t.Errorf("recovery %+v", rc)
			}
			if !w.probeClosed {
				t.Error("probe not closed")
			}
			for _, f := range []string{results.MetaFile, results.ProbeFile, results.LogFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
			// The run side records; the analysis writes the reports.
			for _, f := range []string{results.ReportFile, results.ReportJSON, results.PlotFile, results.ReportHTML} {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					t.Errorf("%s written by the run side", f)
				}
			}
		})
	}
}

// TestClusterUpSays checks that a trial says what bringing the cluster
// up did to it: a trial that reshaped the cluster to its settings says so.
func TestClusterUpSays(t *testing.T) {
	tests := []struct {
		name string
		up   *cluster.UpInfo
		want string // a line said; "" for none about the cluster
	}{
		{name: "reused: nothing to say", up: nil},
		{name: "reshaped", up: &cluster.UpInfo{Took: 27300 * time.Millisecond, Changes: "recreated c1 k1 k2 k3"}, want: "cluster up in 27.3s: recreated c1 k1 k2 k3"},
		{name: "no change named", up: &cluster.UpInfo{Took: 2 * time.Second}, want: "cluster up in 2.0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			w.up = tt.up
			r, _, rep := newRunner(t, w, results.FaultSIGKILL)
			if err := r.Trial(context.Background(), 1, filepath.Join(r.Opt.Out, results.TrialDir(1))); err != nil {
				t.Fatal(err)
			}
			var said []string
			for _, l := range strings.Split(rep.String(), "\n") {
				if strings.HasPrefix(l, "cluster up") {
					said = append(said, l)
				}
			}
			if got := strings.Join(said, "\n"); got != tt.want {
				t.Errorf("said %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTrialInterrupted cancels the run's context (Ctrl-C) in each phase.
func TestTrialInterrupted(t *testing.T) {
	tests := []struct {
		name string
		kill results.FaultKind
		on   string // the call that cancels
		// want is the calls made, in order; injected whether the fault
		// was attempted, and then undone.
		want string
	}{
		{name: "baseline", kill: results.FaultSIGKILL, on: "probe",
			want: "up probe logs-c1 logs-k1"},
		{name: "sigkill injection", kill: results.FaultSIGKILL, on: "inject",
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders"},
		{name: "pause injection", kill: results.FaultPause, on: "inject",
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders"},
		{name: "sigterm grace", kill: results.FaultSIGTERM, on: "inject",
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders"},
		{name: "log collection", kill: results.FaultSIGKILL, on: "logs-c1",
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders"},
		{name: "recovery", kill: results.FaultSIGKILL, on: "restart",
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders"},
		{name: "read-back", kill: results.FaultSIGKILL, on: "readback",
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders readback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			r, _, rep := newRunner(t, w, tt.kill)
			r.Opt.FaultAfter = time.Millisecond
			if tt.on == "probe" {
				r.Opt.FaultAfter = time.Hour // the fault is never due
				r.Opt.Duration = 2 * time.Hour
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cancelOn(w, tt.on, cancel)
			if tt.on == "readback" {
				// The read-back stops with the context.
				w.hooks["readback"] = func(ctx context.Context) error { cancel(); <-ctx.Done(); return ctx.Err() }
			}
			err := runAnalysed(ctx, r)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled (exit 130)", err)
			}
			if got := w.log(); got != tt.want {
				t.Errorf("calls:\n got %s\nwant %s", got, tt.want)
			}
			if strings.Contains(tt.want, "inject") {
				undone := tt.on != "readback" // the read-back comes after recovery
				if !w.injectDeadline || w.injectCanceled {
					t.Errorf("injection: deadline %v, cancelled %v; want bounded and not cancelled by Ctrl-C", w.injectDeadline, w.injectCanceled)
				}
				if undone != strings.Contains(rep.String(), "the fault was undone") {
					t.Errorf("progress (undone: want %v):\n%s", undone, rep)
				}
			}
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatalf("what was measured: %v", err)
			}
			if !strings.Contains(strings.Join(m.Notes, "\n"), "interrupted") || m.Ended.IsZero() {
				t.Errorf("metadata notes %q, ended %v", m.Notes, m.Ended)
			}
			if st, err := os.Stat(filepath.Join(dir, results.ProbeFile)); err != nil || st.Size() == 0 {
				t.Errorf("probe.csv: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, results.LogFile)); err == nil {
				t.Error("an interrupted read-back left a log.csv")
			}
			if !strings.Contains(rep.String(), "interrupted: what was measured is in "+dir) {
				t.Errorf("progress:\n%s", rep)
			}
		})
	}
}

func TestTrialFails(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		setup   func(w *world, r *Runner)
		wantErr string
		want    string // calls
		noDir   bool   // the trial directory must not exist
		check   func(t *testing.T, m *results.Meta)
	}{
		{name: "probe cannot start",
			setup:   func(w *world, _ *Runner) { w.hooks["probe"] = func(context.Context) error { return boom } },
			wantErr: "probe: boom", want: "up probe", noDir: true},
		{name: "cluster cannot start",
			setup:   func(w *world, _ *Runner) { w.hooks["up"] = func(context.Context) error { return boom } },
			wantErr: "cluster: boom", want: "up", noDir: true},
		{name: "fault not injected",
			setup:   func(w *world, _ *Runner) { w.hooks["inject"] = func(context.Context) error { return errBeforeSignal } },
			wantErr: "inject sigkill into k1: container is not running",
			want:    "up probe inject logs-c1 logs-k1 restart isr elect leaders",
			check: func(t *testing.T, m *results.Meta) {
				if m.Fault != nil {
					t.Errorf("a fault never sent is recorded: %+v", m.Fault)
				}
			}},
		{name: "fault fails after the signal",
			setup:   func(w *world, _ *Runner) { w.hooks["inject"] = func(context.Context) error { return boom } },
			wantErr: "inject sigkill into k1: boom",
			want:    "up probe inject logs-c1 logs-k1 restart isr elect leaders",
			check: func(t *testing.T, m *results.Meta) {
				if m.Fault == nil || m.Fault.SignalSent.IsZero() {
					t.Errorf("the signal sent is not recorded: %+v", m.Fault)
				}
			}},
		{name: "recovery times out",
			setup: func(w *world, r *Runner) {
				r.Opt.RecoveryTimeout = time.Millisecond
				w.hooks["isr"] = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
			},
			wantErr: "recovery: wait for full ISRs: context deadline exceeded",
			want:    "up probe inject logs-c1 logs-k1 restart isr",
			check: func(t *testing.T, m *results.Meta) {
				if m.Recovery == nil || !strings.Contains(m.Recovery.Err, "deadline exceeded") || m.Recovery.LeadersBack {
					t.Errorf("recovery %+v", m.Recovery)
				}
			}},
		{name: "restart fails",
			setup:   func(w *world, _ *Runner) { w.hooks["restart"] = func(context.Context) error { return boom } },
			wantErr: "recovery: restart k1: boom",
			want:    "up probe inject logs-c1 logs-k1 restart"},
		{name: "broker still running",
			setup: func(w *world, _ *Runner) {
				w.hooks["restart"] = func(context.Context) error { return cluster.ErrAlreadyRunning }
			},
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders readback"},
		{name: "read-back fails",
			setup: func(w *world, _ *Runner) { w.hooks["readback"] = func(context.Context) error { return boom } },
			want:  "up probe inject logs-c1 logs-k1 restart isr elect leaders readback",
			check: func(t *testing.T, m *results.Meta) {
				if !strings.Contains(strings.Join(m.Notes, "\n"), "read-back failed: boom") {
					t.Errorf("notes %q", m.Notes)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			r, _, _ := newRunner(t, w, results.FaultSIGKILL)
			tt.setup(w, r)
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			err := runAnalysed(context.Background(), r)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one with %q", err, tt.wantErr)
			}
			if got := w.log(); got != tt.want {
				t.Errorf("calls:\n got %s\nwant %s", got, tt.want)
			}
			if tt.noDir {
				if _, err := os.Stat(dir); err == nil {
					t.Errorf("%s left behind", dir)
				}
				return
			}
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatalf("what was measured: %v", err)
			}
			if w.probeRan && !w.probeClosed {
				t.Error("probe not closed")
			}
			if tt.check != nil {
				tt.check(t, m)
			}
		})
	}
}

// TestRunHandsEachTrial checks that Run hands each trial, once recorded,
// to the command that analyses it, in order, and stops at its error.
func TestRunHandsEachTrial(t *testing.T) {
	w := newWorld()
	r, _, _ := newRunner(t, w, results.FaultSIGKILL)
	r.Opt.Repeat = 3
	var got []string
	err := r.Run(context.Background(), func(_ context.Context, n int, dir string) error {
		if _, err := os.Stat(filepath.Join(dir, results.MetaFile)); err != nil {
			t.Errorf("trial %d handed over before it was recorded: %v", n, err)
		}
		got = append(got, fmt.Sprintf("%d:%s", n, filepath.Base(dir)))
		if n == 2 {
			return errors.New("report.txt: disk full")
		}
		return nil
	})
	if err == nil || err.Error() != "trial 2: report.txt: disk full" {
		t.Errorf("error %v, want trial 2's", err)
	}
	if want := "1:trial-01 2:trial-02"; strings.Join(got, " ") != want {
		t.Errorf("handed %q, want %q", got, want)
	}
	if n := strings.Count(w.log(), "inject"); n != 2 {
		t.Errorf("%d injections, want 2: the run stops at the error", n)
	}
}

func TestRunRefusesUsedDirectory(t *testing.T) {
	w := newWorld()
	r, _, _ := newRunner(t, w, results.FaultSIGKILL)
	if err := runAnalysed(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	w2 := newWorld()
	r.Target, r.NewProbe = w2, w2.newProbe
	if err := runAnalysed(context.Background(), r); !errors.Is(err, ErrDirInUse) {
		t.Fatalf("error %v, want ErrDirInUse", err)
	}
	if strings.Contains(w2.log(), "inject") {
		t.Error("a fault injected into a run that cannot be recorded")
	}
}

func TestOptionsValidate(t *testing.T) {
	good := Options{Kill: results.FaultSIGKILL, Broker: "k1", Duration: time.Second, FaultAfter: 0, Repeat: 1, Grace: time.Second,
		RecoveryTimeout: time.Second, Probe: probe.Defaults()}
	if err := good.Validate(); err != nil {
		t.Fatalf("good options: %v", err)
	}
	for _, tt := range []struct {
		name string
		edit func(o *Options)
		want string // the whole message; "" for options that are good
	}{
		{"kill", func(o *Options) { o.Kill = "sighup" }, `fault "sighup": want one of`},
		{"broker", func(o *Options) { o.Broker = "" }, `broker "": no broker to fault`},
		{"no duration", func(o *Options) { o.Duration = 0 }, "duration 0s: must be positive and at most 24h0m0s"},
		{"a day", func(o *Options) { o.Duration = 24 * time.Hour }, ""},
		{"duration past a day", func(o *Options) { o.Duration = 2562047 * time.Hour }, "duration 2562047h0m0s: must be positive and at most 24h0m0s"},
		{"fault after the end", func(o *Options) { o.FaultAfter = time.Second }, "fault_after 1s: must be within duration 1s"},
		{"settle", func(o *Options) { o.Settle = 5 * time.Second }, ""},
		{"negative settle", func(o *Options) { o.Settle = -time.Second }, "settle -1s: must be at least 0 (0 probes for the whole duration) and at most 24h0m0s"},
		{"return after the end", func(o *Options) { o.ReturnAfter = time.Second }, "return_after 1s: must be within the 1s left after fault_after"},
		{"negative return", func(o *Options) { o.ReturnAfter = -time.Second }, "return_after -1s"},
		{"last step", func(o *Options) { o.LastStep = results.FaultPause }, `last_step "pause": want sigkill or sigterm`},
		{"failback", func(o *Options) { o.Failback = true }, ""},
		{"failback for 30s", func(o *Options) { o.Failback, o.FailbackAfter = true, 30*time.Second }, ""},
		{"failback for without failback", func(o *Options) { o.FailbackAfter = 30 * time.Second }, "failback_for 30s: takes --failback"},
		{"negative failback for", func(o *Options) { o.Failback, o.FailbackAfter = true, -time.Second }, "failback_for -1s: must not be negative (0: 1m0s) and at most 24h0m0s"},
		{"failback of two brokers", func(o *Options) { o.Kill, o.Failback = results.FaultTwoBrokers, true },
			"failback of two-brokers: takes a fault of one broker that kbf undoes: " + results.SingleNodeFaults()},
		{"failback of an external fault", func(o *Options) { o.Kill, o.Failback = results.FaultExternal, true },
			"failback of external: takes a fault of one broker that kbf undoes: " + results.SingleNodeFaults()},
		{"no repeat", func(o *Options) { o.Repeat = 0 }, "repeat 0: want 1 to 1000"},
		{"a thousand", func(o *Options) { o.Repeat = 1000 }, ""},
		{"a billion", func(o *Options) { o.Repeat = 1000000000 }, "repeat 1000000000: want 1 to 1000"},
		{"grace", func(o *Options) { o.Grace = 0 }, "grace 0s: must be positive"},
		{"recovery", func(o *Options) { o.RecoveryTimeout = -1 }, "recovery_timeout -1ns: must be positive"},
		{"replica interval off", func(o *Options) { o.ReplicaInterval = 0 }, ""},
		{"negative replica interval", func(o *Options) { o.ReplicaInterval = -time.Second }, "replica_interval -1s: must not be negative (0 turns the replica view off)"},
		{"negative baseline", func(o *Options) { o.Baseline.Period = -time.Second }, "baseline -1s: must not be negative"},
		{"negative baseline gap", func(o *Options) { o.Baseline.Gap = -time.Second }, "baseline_gap -1s: must not be negative"},
		{"interval 1ms", func(o *Options) { o.Probe.Interval = time.Millisecond }, ""},
		{"interval 1ns", func(o *Options) { o.Probe.Interval = time.Nanosecond }, "interval 1ns: must be at least 1ms"},
		{"partitions", func(o *Options) { o.Probe.Partitions = []int32{0, 2} }, ""},
		{"a partition twice", func(o *Options) { o.Probe.Partitions = []int32{0, 0} }, "partitions 0,0: partition 0 given twice"},
		{"partition 9999", func(o *Options) { o.Probe.Partitions = []int32{9999} }, ""},
		{"partition 99999", func(o *Options) { o.Probe.Partitions = []int32{1, 99999} }, "partitions 1,99999: partition 99999: want 0 to 9999"},
		{"negative partition", func(o *Options) { o.Probe.Partitions = []int32{-1} }, "partitions -1: partition -1: want 0 to 9999"},
		{"the probe's own rule", func(o *Options) { o.Probe.Acks = "0" }, `acks "0": want all or 1`},
		{"no bootstrap: the target's", func(o *Options) { o.Probe.Bootstrap = nil }, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := good
			tt.edit(&o)
			err := o.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.Is(err, ErrInvalidOption) {
				t.Errorf("error %v, want %q wrapping ErrInvalidOption", err, tt.want)
			}
		})
	}
}

func TestProbeOnlyValidate(t *testing.T) {
	probeOnly := func(d time.Duration, edit func(*probe.Config)) Options {
		c := probe.Defaults()
		if edit != nil {
			edit(&c)
		}
		return Options{Kill: NoFault, Duration: d, Probe: c}
	}
	for _, tt := range []struct {
		name string
		o    Options
		want string
	}{
		{"good: no broker, no fault's settings", probeOnly(time.Second, nil), ""},
		{"no duration", probeOnly(0, nil), "duration 0s"},
		{"past a day", probeOnly(25*time.Hour, nil), "duration 25h0m0s: must be positive and at most 24h0m0s"},
		{"interval 1ns", probeOnly(time.Second, func(c *probe.Config) { c.Interval = 1 }), "interval 1ns: must be at least 1ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)) {
				t.Errorf("Validate: %v, want %q", err, tt.want)
			}
		})
	}
}

// stranger is a target whose brokers are not its own.
type stranger struct{ *world }

func (stranger) Identify(context.Context) error {
	return errors.New("the brokers are cluster X, not kbf's")
}

// TestProbeOnlyTrial runs kbf probe's trial, the one with no fault,
// through the runner: the cluster identified, not brought up; probed for
// the duration; nothing injected, restarted, copied or read back; the
// metadata a probe's.
func TestProbeOnlyTrial(t *testing.T) {
	for _, tt := range []struct {
		name   string
		target func(*world) cluster.Cluster
		want   string // the error; "" for none
	}{
		{name: "kbf's cluster", target: func(w *world) cluster.Cluster { return w }},
		{name: "another cluster", target: func(w *world) cluster.Cluster { return stranger{w} }, want: "the brokers are cluster X, not kbf's"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			r, _, _ := newRunner(t, w, NoFault)
			r.Target = tt.target(w)
			r.Opt.Broker, r.Opt.FaultAfter = "", 0
			out := filepath.Join(r.Opt.Out, "probe")
			err := r.Trial(context.Background(), 0, out)
			if tt.want != "" {
				if err == nil || err.Error() != tt.want {
					t.Fatalf("Trial: %v, want %q", err, tt.want)
				}
				if _, err := os.Stat(out); err == nil {
					t.Error("a refused probe left its directory behind")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, call := range []string{"up", "inject", "restart", "logs", "isr", "elect", "readback"} {
				if strings.Contains(w.log(), call) {
					t.Errorf("calls %q: a trial with no fault made %s", w.log(), call)
				}
			}
			m, err := results.ReadMeta(out)
			if err != nil {
				t.Fatal(err)
			}
			if m.Kind != results.KindProbe || m.Trial != 0 || m.Fault != nil || m.Ended.IsZero() || m.Probe.LongestSendGap != 42*time.Millisecond {
				t.Errorf("meta %+v: want a probe's, ended, with the probe's result", m)
			}
		})
	}
}

// shaped is a fake target of a given shape: its brokers and its
// controllers, and whether it can name the quorum's leader.
type shaped struct {
	*world
	brokers     map[string]int32
	controllers []string
	quorum      bool
}

func (s shaped) Brokers() map[string]int32 { return s.brokers }
func (s shaped) Services() []string {
	out := append([]string(nil), s.controllers...)
	for b := range s.brokers {
		out = append(out, b)
	}
	return out
}
func (s shaped) Quorum() cluster.Quorum {
	if s.quorum {
		return quorumWorld{&nodeWorld{world: s.world}, map[int32]int{}}
	}
	return nil
}

// TestCheck refuses, before any call to the target, the faults its shape
// or its own word rule out.
func TestCheck(t *testing.T) {
	three := map[string]int32{"k1": 1, "k2": 2, "k3": 3}
	two := map[string]int32{"k1": 1, "k2": 2}
	tests := []struct {
		name        string
		kill        results.FaultKind
		broker      string
		brokers     map[string]int32
		controllers []string
		quorum      bool
		cannot      map[results.FaultKind]string
		want        string // "" when the trial may run
	}{
		{name: "sigkill", kill: results.FaultSIGKILL, broker: "k1", brokers: three, controllers: []string{"c1"}},
		{name: "not a broker", kill: results.FaultSIGKILL, broker: "k9", brokers: three, controllers: []string{"c1"},
			want: "broker k9: not a broker of the cluster (k1 k2 k3)"},
		{name: "a controller as the broker", kill: results.FaultSIGKILL, broker: "c1", brokers: three, controllers: []string{"c1"},
			want: "broker c1: not a broker of the cluster (k1 k2 k3)"},
		{name: "isolate-controller, combined nodes", kill: results.FaultIsolateController, broker: "k1", brokers: three,
			want: "fault isolate-controller: the cluster has no dedicated controller to cut the broker from"},
		{name: "isolate-controller, one controller", kill: results.FaultIsolateController, broker: "k1", brokers: three, controllers: []string{"c1"}},
		{name: "isolate-replication, combined nodes", kill: results.FaultIsolateReplication, broker: "k1", brokers: three,
			want: "fault isolate-replication: the cluster has no dedicated controller, so a cut from the other brokers would cut the broker from the quorum too"},
		{name: "isolate-replication, one broker", kill: results.FaultIsolateReplication, broker: "k1", brokers: map[string]int32{"k1": 1}, controllers: []string{"c1"},
			want: "fault isolate-replication: needs at least 2 brokers, the cluster has 1"},
		{name: "isolate-replication", kill: results.FaultIsolateReplication, broker: "k1", brokers: three, controllers: []string{"c1"}},
		{name: "controller-kill, one controller", kill: results.FaultControllerKill, broker: "k1", brokers: three, controllers: []string{"c1"}, quorum: true,
			want: "fault controller-kill: needs a quorum of three dedicated controllers, the cluster has 1"},
		{name: "controller-pause, three controllers", kill: results.FaultControllerPause, broker: "k1", brokers: three, controllers: []string{"c1", "c2", "c3"}, quorum: true},
		{name: "controller-kill, no quorum to ask", kill: results.FaultControllerKill, broker: "k1", brokers: three, controllers: []string{"c1", "c2", "c3"},
			want: "fault controller-kill: the target cannot say which controller is active"},
		{name: "two-brokers, two brokers", kill: results.FaultTwoBrokers, broker: "k1", brokers: two, controllers: []string{"c1"},
			want: "fault two-brokers: needs at least 3 brokers, the cluster has 2"},
		{name: "last-replica, two brokers", kill: results.FaultLastReplica, broker: "k1", brokers: two, controllers: []string{"c1"},
			want: "fault last-replica: needs at least 3 brokers, the cluster has 2"},
		{name: "rolling, three brokers", kill: results.FaultRolling, broker: "k2", brokers: three, controllers: []string{"c1"}},
		{name: "the target cannot", kill: results.FaultIsolate, broker: "k1", brokers: three, controllers: []string{"c1"},
			cannot: map[results.FaultKind]string{results.FaultIsolate: "no root"}, want: "fault isolate on k1: no root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			w.cannot = tt.cannot
			tg := shaped{world: w, brokers: tt.brokers, controllers: tt.controllers, quorum: tt.quorum}
			r, _, _ := newRunner(t, w, tt.kill)
			r.Target, r.Opt.Broker = tg, tt.broker
			err := r.Check()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.want || !errors.Is(err, cluster.ErrUnsupported) {
				t.Errorf("Check: %v, want %q wrapping cluster.ErrUnsupported", err, tt.want)
			}
			// Run refuses it the same way, before it calls the target.
			if err := runAnalysed(context.Background(), r); err == nil || err.Error() != tt.want {
				t.Errorf("Run: %v, want %q", err, tt.want)
			}
			if w.log() != "" {
				t.Errorf("the target was called before the refusal: %s", w.log())
			}
			if entries, _ := os.ReadDir(r.Opt.Out); len(entries) != 0 {
				t.Errorf("the refused run wrote %d entries into its directory", len(entries))
			}
		})
	}
}

func TestWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o555); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string
		want string // part of the error; "" for none
	}{
		{"an existing directory", dir, ""},
		{"a new one under it", filepath.Join(dir, "a", "b"), ""},
		{"under a file", filepath.Join(file, "run"), "is not a directory"},
		{"a file", file, "is not a directory"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		tests = append(tests, struct{ name, dir, want string }{"under a read-only directory", filepath.Join(locked, "run"), "cannot write in " + locked + " (permission denied)"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Writable(tt.dir)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Writable: %v", err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "out ") {
				t.Fatalf("Writable: %v, want out ...%q", err, tt.want)
			}
			// It leaves nothing behind.
			if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
				t.Error("Writable made the directory")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 2 {
				t.Errorf("%d entries left in %s, want the 2 made here", len(entries), dir)
			}
		})
	}
}

// TestTrialFailback: with Failback the broker is brought back, its ISRs
// waited for and the leaders elected before the probe stops and the logs
// are copied, each step in meta.json; the recovery then finds it whole.
func TestTrialFailback(t *testing.T) {
	w := newWorld()
	r, _, _ := newRunner(t, w, results.FaultSIGKILL)
	r.Opt.Failback, r.Opt.FailbackAfter = true, 10*time.Millisecond
	dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
	if err := r.Trial(context.Background(), 1, dir); err != nil {
		t.Fatal(err)
	}
	if got, want := w.log(), "up probe inject restart isr elect logs-c1 logs-k1 restart isr elect leaders readback"; got != want {
		t.Errorf("phases:\n got %s\nwant %s", got, want)
	}
	meta, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	fb := meta.Failback
	if fb == nil || fb.Err != "" || fb.After != 10*time.Millisecond {
		t.Fatalf("failback %+v", fb)
	}
	if fb.Restarted.IsZero() || fb.ISRFull.Before(fb.Restarted) || fb.Elected.Before(fb.ISRFull) || fb.Ended.Before(fb.Elected.Add(fb.After)) || meta.Ended.Before(fb.Ended) {
		t.Errorf("failback steps out of order: %+v, the trial ended %v", fb, meta.Ended)
	}
}

// TestTrialFailbackFails: a failback whose restart fails says so in
// meta.json and leaves the cluster to the recovery.
func TestTrialFailbackFails(t *testing.T) {
	w := newWorld()
	r, _, _ := newRunner(t, w, results.FaultSIGKILL)
	r.Opt.Failback = true
	restarts := 0
	w.hooks["restart"] = func(context.Context) error {
		if restarts++; restarts == 1 {
			return errors.New("no such container")
		}
		return nil
	}
	dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
	if err := r.Trial(context.Background(), 1, dir); err != nil {
		t.Fatal(err)
	}
	meta, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fb := meta.Failback; fb == nil || fb.Err != "restart k1: no such container" || !fb.ISRFull.IsZero() {
		t.Errorf("failback %+v", meta.Failback)
	}
	if rc := meta.Recovery; rc == nil || rc.Err != "" {
		t.Errorf("recovery %+v", rc)
	}
}

// TestProbeNotInCluster: a probe the cluster answered without the topic or
// partition the options name is the options' fault (ErrInvalidOption, exit
// 2 on the command line), never "is the cluster up?".
func TestProbeNotInCluster(t *testing.T) {
	for _, kill := range []results.FaultKind{NoFault, results.FaultSIGKILL} {
		t.Run(string(kill), func(t *testing.T) {
			w := newWorld()
			r, _, _ := newRunner(t, w, kill)
			if kill == NoFault {
				r.Opt.Broker, r.Opt.FaultAfter = "", 0
			}
			r.NewProbe = func(context.Context, probe.Config, probe.Output) (Probe, error) {
				return nil, fmt.Errorf("partition 5 does not exist: orders has 3 partitions, 0 to 2: %w", probe.ErrNotInCluster)
			}
			err := r.Trial(context.Background(), 1, filepath.Join(r.Opt.Out, results.TrialDir(1)))
			if !errors.Is(err, ErrInvalidOption) || strings.Contains(err.Error(), "cluster up") || !strings.Contains(err.Error(), "partition 5 does not exist") {
				t.Errorf("error %v, want an invalid option naming partition 5, not blaming the cluster", err)
			}
		})
	}
}

// TestReadBackOfNothing: a read-back that found no row past the start
// offsets (every replica's log truncated below them by a power loss) is
// a log.csv of its header alone, which decodes to no row — not an empty
// file that no decoder takes.
func TestReadBackOfNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), results.LogFile)
	nothing := func(context.Context, probe.Config, map[int32]int64, *results.LogEncoder) error { return nil }
	if err := writeReadBack(context.Background(), nothing, probe.Config{}, map[int32]int64{0: 10}, path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := results.NewLogDecoder(f, path)
	var r results.LogRecord
	if err := d.Decode(&r); !errors.Is(err, io.EOF) {
		t.Fatalf("Decode: %v (%+v); want io.EOF, a file of no row", err, r)
	}
}
