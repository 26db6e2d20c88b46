package experiment

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// newRunner returns a runner of one short trial against w. The durations
// only keep the test short; no test asserts a timing.
func newRunner(t *testing.T, w *world, kill string) (*Runner, *bytes.Buffer, *recorder) {
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
		Cluster: w, Faults: w, NewProbe: w.newProbe, ReadBack: w.readBack, Drawings: w.drawings,
		Out: &out, Reporter: rep,
	}, &out, rep
}

// cancelOn makes the call name cancel the run's context.
func cancelOn(w *world, name string, cancel context.CancelFunc) {
	w.hooks[name] = func(context.Context) error { cancel(); return nil }
}

func TestTrialPhases(t *testing.T) {
	for _, kill := range []string{chaos.SigKill, chaos.SigTerm, chaos.Pause} {
		t.Run(kill, func(t *testing.T) {
			w := newWorld()
			r, out, _ := newRunner(t, w, kill)
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			tr, err := r.Trial(context.Background(), 1, dir)
			if err != nil {
				t.Fatal(err)
			}
			want := "up probe inject logs-c1 logs-k1 restart isr elect leaders readback plot"
			if got := w.log(); got != want {
				t.Errorf("phases:\n got %s\nwant %s", got, want)
			}
			if tr.Meta == nil || tr.Meta.Fault == nil || string(tr.Meta.Fault.Kind) != kill || tr.Meta.Fault.NodeID != 1 {
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
			for _, f := range []string{results.MetaFile, results.ProbeFile, results.LogFile, results.ReportFile, results.ReportJSON, results.PlotFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
			if out.Len() == 0 {
				t.Error("no report printed")
			}
		})
	}
}

// TestTrialInterrupted cancels the run's context (Ctrl-C) in each phase.
func TestTrialInterrupted(t *testing.T) {
	tests := []struct {
		name string
		kill string
		on   string // the call that cancels
		// want is the calls made, in order; injected whether the fault
		// was attempted, and then undone.
		want string
	}{
		{name: "baseline", kill: chaos.SigKill, on: "probe",
			want: "up probe logs-c1 logs-k1"},
		{name: "sigkill injection", kill: chaos.SigKill, on: "inject",
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders"},
		{name: "pause injection", kill: chaos.Pause, on: "inject",
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders"},
		{name: "sigterm grace", kill: chaos.SigTerm, on: "inject",
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders"},
		{name: "log collection", kill: chaos.SigKill, on: "logs-c1",
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders"},
		{name: "recovery", kill: chaos.SigKill, on: "restart",
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders"},
		{name: "read-back", kill: chaos.SigKill, on: "readback",
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
			err := r.Run(ctx)
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
				w.hooks["restart"] = func(context.Context) error { return chaos.ErrAlreadyRunning }
			},
			want: "up probe inject logs-c1 logs-k1 restart isr elect leaders readback plot"},
		{name: "read-back fails",
			setup: func(w *world, _ *Runner) { w.hooks["readback"] = func(context.Context) error { return boom } },
			want:  "up probe inject logs-c1 logs-k1 restart isr elect leaders readback plot",
			check: func(t *testing.T, m *results.Meta) {
				if !strings.Contains(strings.Join(m.Notes, "\n"), "read-back failed: boom") {
					t.Errorf("notes %q", m.Notes)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			r, _, _ := newRunner(t, w, chaos.SigKill)
			tt.setup(w, r)
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			err := r.Run(context.Background())
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

func TestRunRepeatSummary(t *testing.T) {
	w := newWorld()
	r, out, _ := newRunner(t, w, chaos.SigKill)
	r.Opt.Repeat = 2
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(w.log(), "inject"); n != 2 {
		t.Errorf("%d injections, want 2", n)
	}
	for _, f := range []string{results.SummaryFile, results.SummaryJSON, filepath.Join(results.TrialDir(2), results.ReportFile)} {
		if _, err := os.Stat(filepath.Join(r.Opt.Out, f)); err != nil {
			t.Error(err)
		}
	}
	if out.Len() == 0 {
		t.Error("nothing printed")
	}
}

func TestRunRefusesUsedDirectory(t *testing.T) {
	w := newWorld()
	r, _, _ := newRunner(t, w, chaos.SigKill)
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	w2 := newWorld()
	r.Cluster, r.Faults, r.NewProbe = w2, w2, w2.newProbe
	if err := r.Run(context.Background()); !errors.Is(err, ErrDirInUse) {
		t.Fatalf("error %v, want ErrDirInUse", err)
	}
	if strings.Contains(w2.log(), "inject") {
		t.Error("a fault injected into a run that cannot be recorded")
	}
}

func TestOptionsValidate(t *testing.T) {
	good := Options{Kill: chaos.SigKill, Broker: "k1", Duration: time.Second, FaultAfter: 0, Repeat: 1, Grace: time.Second, RecoveryTimeout: time.Second}
	if err := good.Validate(); err != nil {
		t.Fatalf("good options: %v", err)
	}
	for _, tt := range []struct {
		name string
		edit func(o *Options)
		want string
	}{
		{"kill", func(o *Options) { o.Kill = "sighup" }, `kill "sighup"`},
		{"broker", func(o *Options) { o.Broker = "" }, "no broker"},
		{"duration", func(o *Options) { o.Duration = 0 }, "duration 0s"},
		{"fault after", func(o *Options) { o.FaultAfter = time.Second }, "fault after 1s"},
		{"repeat", func(o *Options) { o.Repeat = 0 }, "repeat 0"},
		{"grace", func(o *Options) { o.Grace = 0 }, "grace 0s"},
		{"recovery", func(o *Options) { o.RecoveryTimeout = -1 }, "recovery timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := good
			tt.edit(&o)
			if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
