package chaos

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

var (
	t0       = time.Date(2026, 11, 30, 3, 26, 9, 115000000, time.UTC)
	finished = t0.Add(230 * time.Millisecond)
	started  = t0.Add(30 * time.Second)
)

// fakeEngine is one container whose process answers signals as told.
type fakeEngine struct {
	mu      sync.Mutex
	name    string
	running bool
	paused  bool
	// onSignal maps a signal to the exit code the process then has; a
	// signal not in it is ignored, as a process stuck in shutdown would.
	onSignal map[string]int
	code     int
	stopped  chan struct{} // closed when the container stops
	calls    []string
	killErr  error
	// freezeFails is how many pauses fail as a freezer that timed out does.
	freezeFails int
	files       []tarFile // the log directory, for CopyFromContainer
	binds       []string  // the container's binds, "SOURCE:TARGET"
	// res are the container's resources, as ContainerUpdate left them.
	res       container.Resources
	updateErr error
}

type tarFile struct {
	name string
	mod  time.Time
	body string
	dir  bool
}

func newFake(onSignal map[string]int) *fakeEngine {
	return &fakeEngine{name: "kbf-k1", running: true, onSignal: onSignal, stopped: make(chan struct{})}
}

func (f *fakeEngine) ContainerInspect(_ context.Context, id string) (container.InspectResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != f.name {
		return container.InspectResponse{}, fmt.Errorf("no such container: %s", id)
	}
	st := &container.State{Running: f.running, Paused: f.paused, Status: container.StateRunning,
		StartedAt: started.Format(time.RFC3339Nano), FinishedAt: "0001-01-01T00:00:00Z"}
	if !f.running {
		st.Status, st.ExitCode, st.FinishedAt = container.StateExited, f.code, finished.Format(time.RFC3339Nano)
	}
	return container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{ID: "id1", State: st,
		HostConfig: &container.HostConfig{Binds: f.binds, Resources: f.res}}}, nil
}

func (f *fakeEngine) ContainerKill(_ context.Context, id, signal string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "kill "+id+" "+signal)
	if f.killErr != nil {
		return f.killErr
	}
	if code, ok := f.onSignal[signal]; ok && f.running {
		f.running, f.code = false, code
		close(f.stopped)
	}
	return nil
}

func (f *fakeEngine) ContainerWait(ctx context.Context, id string, cond container.WaitCondition) (<-chan container.WaitResponse, <-chan error) {
	resC, errC := make(chan container.WaitResponse, 1), make(chan error, 1)
	if cond != container.WaitConditionNotRunning {
		errC <- fmt.Errorf("fake: condition %s", cond)
		return resC, errC
	}
	f.mu.Lock()
	stopped := f.stopped
	f.mu.Unlock()
	go func() {
		select {
		case <-stopped:
			f.mu.Lock()
			resC <- container.WaitResponse{StatusCode: int64(f.code)}
			f.mu.Unlock()
		case <-ctx.Done():
			errC <- fmt.Errorf("wait: %w", ctx.Err())
		}
	}()
	return resC, errC
}

func (f *fakeEngine) ContainerStart(_ context.Context, id string, _ container.StartOptions) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "start "+id)
	f.running = true
	f.stopped = make(chan struct{})
	return nil
}

func (f *fakeEngine) ContainerPause(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "pause "+id)
	if f.freezeFails > 0 {
		f.freezeFails--
		return errors.New("Error response from daemon: Cannot pause container: OCI runtime pause failed: unable to freeze: unknown")
	}
	f.paused = true
	return nil
}

func (f *fakeEngine) ContainerUnpause(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "unpause "+id)
	f.paused = false
	return nil
}

// ContainerUpdate sets the resources as the engine does: a zero field
// leaves the container's as it was.
func (f *fakeEngine) ContainerUpdate(_ context.Context, id string, cfg container.UpdateConfig) (container.UpdateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf("update %s nano=%d quota=%d period=%d", id, cfg.NanoCPUs, cfg.CPUQuota, cfg.CPUPeriod))
	if f.updateErr != nil {
		return container.UpdateResponse{}, f.updateErr
	}
	if cfg.NanoCPUs != 0 {
		f.res.NanoCPUs = cfg.NanoCPUs
	}
	if cfg.CPUQuota != 0 {
		f.res.CPUQuota = cfg.CPUQuota
	}
	if cfg.CPUPeriod != 0 {
		f.res.CPUPeriod = cfg.CPUPeriod
	}
	return container.UpdateResponse{}, nil
}

func (f *fakeEngine) CopyFromContainer(_ context.Context, id, src string) (io.ReadCloser, container.PathStat, error) {
	f.calls = append(f.calls, "copy "+id+" "+src)
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, tf := range f.files {
		hdr := &tar.Header{Name: tf.name, ModTime: tf.mod, Mode: 0o644, Size: int64(len(tf.body)), Typeflag: tar.TypeReg}
		if tf.dir {
			hdr.Typeflag, hdr.Size, hdr.Mode = tar.TypeDir, 0, 0o755
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, container.PathStat{}, err
		}
		io.WriteString(tw, tf.body)
	}
	tw.Close()
	return io.NopCloser(&b), container.PathStat{Name: "logs"}, nil
}

func newInjector(f *fakeEngine) *Injector {
	in := New(f, func(s string) string { return "kbf-" + s })
	in.now = func() time.Time { return t0 }
	return in
}

func TestInject(t *testing.T) {
	tests := []struct {
		name      string
		onSignal  map[string]int
		fault     cluster.Fault
		calls     []string
		exitCode  int
		escalated bool
	}{
		{
			name:     "sigkill",
			onSignal: map[string]int{"SIGKILL": 137},
			fault:    cluster.Fault{Broker: "k1", Kind: results.FaultSIGKILL},
			calls:    []string{"kill kbf-k1 SIGKILL"},
			exitCode: 137,
		},
		{
			name:     "sigterm, controlled shutdown",
			onSignal: map[string]int{"SIGTERM": 143, "SIGKILL": 137},
			fault:    cluster.Fault{Broker: "k1", Kind: results.FaultSIGTERM},
			calls:    []string{"kill kbf-k1 SIGTERM"},
			exitCode: 143,
		},
		{
			name:     "sigterm, process exits 1 on its own terms",
			onSignal: map[string]int{"SIGTERM": 1},
			fault:    cluster.Fault{Broker: "k1", Kind: results.FaultSIGTERM},
			calls:    []string{"kill kbf-k1 SIGTERM"},
			exitCode: 1,
		},
		{
			name:      "sigterm outlives its grace",
			onSignal:  map[string]int{"SIGKILL": 137},
			fault:     cluster.Fault{Broker: "k1", Kind: results.FaultSIGTERM, Grace: time.Nanosecond},
			calls:     []string{"kill kbf-k1 SIGTERM", "kill kbf-k1 SIGKILL"},
			exitCode:  137,
			escalated: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(tt.onSignal)
			rf, err := newInjector(f).Inject(context.Background(), tt.fault)
			if err != nil {
				t.Fatalf("Inject: %v", err)
			}
			if !slices.Equal(f.calls, tt.calls) {
				t.Errorf("calls %q, want %q", f.calls, tt.calls)
			}
			if rf.Broker != "k1" || rf.Kind != tt.fault.Kind {
				t.Errorf("fault %+v: want broker k1, kind %s", rf, tt.fault.Kind)
			}
			if !rf.SignalSent.Equal(t0) || !rf.Finished.Equal(finished) {
				t.Errorf("signal sent %v finished %v, want %v and %v", rf.SignalSent, rf.Finished, t0, finished)
			}
			if rf.ExitCode != tt.exitCode || rf.Escalated != tt.escalated {
				t.Errorf("exit code %d escalated %v, want %d %v", rf.ExitCode, rf.Escalated, tt.exitCode, tt.escalated)
			}
		})
	}
}

func TestInjectErrors(t *testing.T) {
	tests := []struct {
		name    string
		fault   cluster.Fault
		setup   func(f *fakeEngine)
		ctx     func() context.Context
		want    string
		killed  bool // whether a signal went out
		sentSet bool // whether SignalSent is recorded
	}{
		{name: "no broker", fault: cluster.Fault{Kind: results.FaultSIGKILL}, want: "inject: a fault needs a broker"},
		{name: "bad signal", fault: cluster.Fault{Broker: "k1", Kind: "sighup"}, want: `inject: fault "sighup": want sigkill, sigterm, pause, isolate, isolate-controller, isolate-clients, isolate-replication, disk-full, disk-slow, disk-error, power-loss, cpu-starve or packet-loss`},
		{name: "negative grace", fault: cluster.Fault{Broker: "k1", Kind: results.FaultSIGTERM, Grace: -1}, want: "inject: grace -1ns: must not be negative"},
		{name: "unknown service", fault: cluster.Fault{Broker: "k9", Kind: results.FaultSIGKILL}, want: "inject sigkill into k9: no such container: kbf-k9"},
		{
			name: "not running", fault: cluster.Fault{Broker: "k1", Kind: results.FaultSIGKILL},
			setup: func(f *fakeEngine) { f.running = false },
			want:  "inject sigkill into k1: container kbf-k1 is not running",
		},
		{
			name: "kill refused", fault: cluster.Fault{Broker: "k1", Kind: results.FaultSIGKILL},
			setup:  func(f *fakeEngine) { f.killErr = errors.New("engine says no") },
			want:   "sigkill k1: engine says no",
			killed: true, sentSet: true,
		},
		{
			name: "canceled while waiting", fault: cluster.Fault{Broker: "k1", Kind: results.FaultSIGTERM},
			setup: func(f *fakeEngine) { f.onSignal = nil },
			ctx: func() context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx
			},
			want: "", // the inspect fails or the wait does: either names the cancellation
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(map[string]int{"SIGKILL": 137, "SIGTERM": 143})
			if tt.setup != nil {
				tt.setup(f)
			}
			ctx := context.Background()
			if tt.ctx != nil {
				ctx = tt.ctx()
			}
			rf, err := newInjector(f).Inject(ctx, tt.fault)
			if err == nil {
				t.Fatalf("Inject: no error")
			}
			if tt.want != "" && err.Error() != tt.want {
				t.Errorf("Inject: error %q, want %q", err, tt.want)
			}
			if tt.want == "" && !errors.Is(err, context.Canceled) {
				t.Errorf("Inject: error %v, want context.Canceled", err)
			}
			if tt.want != "" && (len(f.calls) > 0) != tt.killed {
				t.Errorf("calls %q: want a signal sent: %v", f.calls, tt.killed)
			}
			if tt.want != "" && rf.SignalSent.IsZero() == tt.sentSet {
				t.Errorf("SignalSent %v: want it set: %v", rf.SignalSent, tt.sentSet)
			}
			if strings.Contains(strings.Join(f.calls, ","), "SIGKILL") && tt.fault.Kind == results.FaultSIGTERM {
				t.Errorf("a canceled sigterm escalated: %q", f.calls)
			}
		})
	}
}

func TestRestart(t *testing.T) {
	f := newFake(map[string]int{"SIGKILL": 137})
	in := newInjector(f)
	if err := in.Restart(context.Background(), "k1"); !errors.Is(err, cluster.ErrAlreadyRunning) {
		t.Errorf("Restart of a running broker: %v", err)
	}
	if _, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultSIGKILL}); err != nil {
		t.Fatal(err)
	}
	if err := in.Restart(context.Background(), "k1"); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if ci, _ := f.ContainerInspect(context.Background(), "kbf-k1"); !ci.State.Running {
		t.Errorf("not running after Restart")
	}
	if want := []string{"kill kbf-k1 SIGKILL", "start kbf-k1"}; !slices.Equal(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
}

func TestCollectLogs(t *testing.T) {
	since := t0
	f := newFake(nil)
	f.running = false // a killed broker's logs are what the run wants
	f.files = []tarFile{
		{name: "logs", dir: true, mod: since},
		// A secret a node logged is not copied (results.MaskLine).
		{name: "logs/server.log", mod: since.Add(time.Minute), body: "server now\n\tssl.key.password = chaos-pw-1\n"},
		{name: "logs/server.log.2026-11-30-02", mod: since.Add(-time.Hour), body: "old"},
		{name: "logs/server.log.2026-11-30-03", mod: since.Add(-500 * time.Millisecond), body: "same second"},
		{name: "logs/controller.log", mod: since.Add(-time.Hour), body: "quiet controller log"},
		{name: "logs/state-change.log", mod: since.Add(time.Second), body: "state"},
		{name: "logs/state-change.log.2026-11-30-04", mod: since.Add(time.Hour), body: "rotated after"},
		{name: "logs/kafka-request.log", mod: since.Add(time.Second), body: "not wanted"},
		{name: "logs/log-cleaner.log", mod: since.Add(time.Second), body: "not wanted"},
		{name: "logs/server.log.d", dir: true, mod: since.Add(time.Second)},
	}
	dst := filepath.Join(t.TempDir(), "logs", "k1")
	written, err := newInjector(f).collectLogs(context.Background(), "k1", since, dst)
	if err != nil {
		t.Fatalf("CollectLogs: %v", err)
	}
	want := map[string]string{
		"server.log":                     "server now\n\tssl.key.password = [hidden]\n",
		"server.log.2026-11-30-03":       "same second",
		"controller.log":                 "quiet controller log",
		"state-change.log":               "state",
		"state-change.log.2026-11-30-04": "rotated after",
	}
	var got []string
	for _, p := range written {
		got = append(got, filepath.Base(p))
	}
	sort.Strings(got)
	var wantNames []string
	for n := range want {
		wantNames = append(wantNames, n)
	}
	sort.Strings(wantNames)
	if !slices.Equal(got, wantNames) {
		t.Errorf("written %v, want %v", got, wantNames)
	}
	ents, _ := os.ReadDir(dst)
	if len(ents) != len(want) {
		t.Errorf("%d files in %s, want %d", len(ents), dst, len(want))
	}
	for n, body := range want {
		b, err := os.ReadFile(filepath.Join(dst, n))
		if err != nil || string(b) != body {
			t.Errorf("%s: %q, %v; want %q", n, b, err, body)
		}
	}
	if want := []string{"copy kbf-k1 /opt/kafka/logs"}; !slices.Equal(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
}

func TestFaultValidate(t *testing.T) {
	for _, f := range []cluster.Fault{{Broker: "k1", Kind: results.FaultSIGKILL}, {Broker: "k2", Kind: results.FaultSIGTERM, Grace: time.Minute}} {
		if err := f.Validate(); err != nil {
			t.Errorf("%+v: %v", f, err)
		}
	}
}

func TestPause(t *testing.T) {
	f := newFake(map[string]int{"SIGKILL": 137})
	in := newInjector(f)
	rf, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultPause})
	if err != nil {
		t.Fatal(err)
	}
	if rf.Kind != results.FaultPause || rf.SignalSent.IsZero() || rf.Paused.Before(rf.SignalSent) || !rf.Finished.IsZero() || rf.ExitCode != 0 {
		t.Errorf("fault %+v: want a pause time, frozen after it, and no finish", rf)
	}
	if !rf.At().Equal(rf.Paused) {
		t.Errorf("a pause starts at %v, want when the container was frozen, %v", rf.At(), rf.Paused)
	}
	if !f.paused || !f.running {
		t.Fatalf("after Inject: paused %v running %v, want a paused, running container", f.paused, f.running)
	}
	// Restart undoes a pause by unpausing: the process was never stopped.
	if err := in.Restart(context.Background(), "k1"); err != nil {
		t.Fatal(err)
	}
	if f.paused || !slices.Contains(f.calls, "unpause kbf-k1") || slices.Contains(f.calls, "start kbf-k1") {
		t.Errorf("Restart of a paused broker: paused %v, calls %q; want one unpause, no start", f.paused, f.calls)
	}
}

func TestPauseRetriesFreezer(t *testing.T) {
	for _, tt := range []struct {
		name   string
		fails  int
		wantOK bool
	}{
		{"frozen at once", 0, true},
		{"frozen on the third try", pauseTries - 1, true},
		{"never frozen", pauseTries, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(nil)
			f.freezeFails = tt.fails
			in := New(f, func(string) string { return "kbf-k1" })
			_, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultPause})
			if (err == nil) != tt.wantOK {
				t.Fatalf("err %v, want ok %v", err, tt.wantOK)
			}
			if f.paused != tt.wantOK {
				t.Errorf("paused %v, want %v", f.paused, tt.wantOK)
			}
		})
	}
}

// TestPowerOffProcessHaltedByItself: a broker whose disk went first may
// halt on its own before the signal; that is the power loss, not an
// error, while a kill refused on a running container still is one.
func TestPowerOffProcessHaltedByItself(t *testing.T) {
	for _, tt := range []struct {
		name    string
		running bool
		wantErr bool
	}{
		{name: "halted by itself", running: false},
		{name: "still running", running: true, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(nil)
			f.running = tt.running
			f.killErr = errors.New("cannot kill container: kbf-k1: is not running")
			err := newInjector(f).powerOffProcess(context.Background(), "k1")
			if (err != nil) != tt.wantErr {
				t.Errorf("powerOffProcess: %v, want an error %v", err, tt.wantErr)
			}
		})
	}
}
