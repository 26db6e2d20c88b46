package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kbf-project/kbf/internal/testsupport/testkafka"
	"github.com/kbf-project/kbf/platform/remote"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// says is a Reporter that keeps what the watch says, and tells when a
// line with a given text has come.
type says struct {
	mu    sync.Mutex
	lines []string
	wake  chan struct{}
}

func newSays() *says { return &says{wake: make(chan struct{}, 1)} }

func (s *says) Say(line string) {
	s.mu.Lock()
	s.lines = append(s.lines, line)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *says) Live(string) {}

func (s *says) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}

// await waits up to d for a line holding text.
func (s *says) await(t *testing.T, text string, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for !strings.Contains(s.String(), text) {
		select {
		case <-s.wake:
		case <-deadline:
			t.Fatalf("no %q within %v; the watch said:\n%s", text, d, s)
		}
	}
}

// frozenWatch is a watch on a kfake cluster whose connections f freezes.
func frozenWatch(t *testing.T, ctx context.Context, recorded Recorded) (*Watcher, *testkafka.Freezer, *says) {
	t.Helper()
	f := &testkafka.Freezer{}
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(2, "orders"), kfake.ListenFn(f.Listen))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Thaw(); c.Close() })
	target, err := remote.New(ctx, remote.Options{Bootstrap: c.ListenAddrs()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Thaw(); target.Close() })
	cfg := probe.Defaults()
	cfg.Interval = 20 * time.Millisecond
	s := newSays()
	opt := Options{Probe: cfg, Stall: 500 * time.Millisecond, Before: 2 * time.Second, Settle: time.Second, Poll: 200 * time.Millisecond,
		Longest: time.Minute, Retry: time.Second, Out: t.TempDir()}
	return &Watcher{Opt: opt, Target: target, Reporter: s, Recorded: recorded}, f, s
}

// TestStopOnAFrozenCluster stops a watch while the cluster it watches is
// frozen (its connections accept and never answer) and an incident is
// open: Run returns within ShutdownTimeout, with the incident written
// complete — its probe records and meta.json, its notes blaming the
// cluster that did not answer — and no directory left half written. The
// analysis hangs too, ignoring its context: it is left behind, and the
// watch says that kbf report analyses the incident.
func TestStopOnAFrozenCluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hang := make(chan struct{})
	defer close(hang)
	w, f, s := frozenWatch(t, ctx, func(context.Context, string, *Incident) error { <-hang; return nil })
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	s.await(t, "watching orders", 20*time.Second)
	time.Sleep(3 * time.Second) // records before the incident
	f.Freeze()
	s.await(t, "incident 1 opened", 10*time.Second)
	stopped := time.Now()
	stop()
	var err error
	select {
	case err = <-done:
	case <-time.After(ShutdownTimeout + 5*time.Second):
		t.Fatalf("the watch still runs %v after it was stopped; it said:\n%s", time.Since(stopped), s)
	}
	took := time.Since(stopped)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if took > ShutdownTimeout+time.Second {
		t.Errorf("the stop took %v, over its bound %v", took, ShutdownTimeout)
	}
	dir := filepath.Join(w.Opt.Out, results.IncidentDir(1))
	m, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatalf("the incident open at the stop: %v; the watch said:\n%s", err, s)
	}
	notes := strings.Join(m.Notes, "\n")
	for _, want := range []string{"the watch stopped before it recovered", "written as kbf watch stopped", "not read back (not asked: the cluster gave no answer in 2s)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q: want %q", notes, want)
		}
	}
	if strings.Contains(notes, "context deadline exceeded") {
		t.Errorf("notes blame a context, not the cluster: %q", notes)
	}
	if b, err := os.ReadFile(filepath.Join(dir, results.ProbeFile)); err != nil || strings.Count(string(b), "\n") < 10 {
		t.Errorf("%s: %d bytes (%v), want the window's records", results.ProbeFile, len(b), err)
	}
	if !strings.Contains(s.String(), "incident 1 not analysed within the stop's 10s: kbf report "+dir+" analyses it") {
		t.Errorf("the watch said:\n%s\nwant that the incident was not analysed and what analyses it", s)
	}
	assertNoPartial(t, w.Opt.Out)
}

func assertNoPartial(t *testing.T, out string) {
	t.Helper()
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("%s left in the watch's directory", e.Name())
		}
	}
}

// TestStopWriteFails: an incident that cannot be written as the watch
// stops is Run's error, naming the incident and why, and nothing is left
// half written.
func TestStopWriteFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w, f, s := frozenWatch(t, ctx, nil)
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	s.await(t, "watching orders", 20*time.Second)
	// Another's directory where incident 1 goes, made once the watch has
	// numbered its incidents.
	if err := mkdir(w.Opt.Out, 1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	f.Freeze()
	s.await(t, "incident 1 opened", 10*time.Second)
	stop()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "incident 1 not written") || !strings.Contains(err.Error(), results.IncidentDir(1)) {
			t.Errorf("Run: %v; want incident 1 not written, naming its directory", err)
		}
	case <-time.After(ShutdownTimeout + 5*time.Second):
		t.Fatal("the watch still runs")
	}
	assertNoPartial(t, w.Opt.Out)
}

// TestResumeRemovesPartial: a watch started on a directory where one was
// killed while writing an incident removes the half-written one, says so,
// and numbers on from the complete ones.
func TestResumeRemovesPartial(t *testing.T) {
	out := t.TempDir()
	if err := mkdir(out, 2); err != nil {
		t.Fatal(err)
	}
	half := partialDir(out, 3)
	if err := os.MkdirAll(filepath.Join(half, results.NodeLogsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(half, results.ProbeFile), []byte("partition,"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // it stops once its directory is ready
	s := newSays()
	opt := Defaults
	opt.Probe, opt.Out = probe.Defaults(), out
	if err := (&Watcher{Opt: opt, Reporter: s}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(half); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want it removed", half, err)
	}
	if !strings.Contains(s.String(), "removed "+half) {
		t.Errorf("the watch said %q; want that it removed %s", s, half)
	}
	if n, err := nextNumber(out); err != nil || n != 3 {
		t.Errorf("next incident %d (%v), want 3", n, err)
	}
}

// TestValidateDurations: each of a watch's durations is refused, naming
// its flag, where it cannot be meant: not positive, below the probe's
// steady bound, too small beside the others, too large to keep.
func TestValidateDurations(t *testing.T) {
	for name, c := range map[string]struct {
		set  func(*Options)
		want string
	}{
		"stall zero":        {func(o *Options) { o.Stall = 0 }, "--stall 0s: must be positive"},
		"stall below bound": {func(o *Options) { o.Stall = time.Millisecond }, "--stall 1ms: below the probe's steady bound"},
		"settle below":      {func(o *Options) { o.Settle = time.Millisecond }, "--settle 1ms: below the probe's steady bound"},
		"before below":      {func(o *Options) { o.Before = time.Nanosecond }, "--before 1ns: below the probe's steady bound"},
		"before negative":   {func(o *Options) { o.Before = -time.Second }, "--before -1s: must be positive"},
		"poll 1ns":          {func(o *Options) { o.Poll = time.Nanosecond }, "--poll 1ns: below 100ms"},
		"longest 1ns":       {func(o *Options) { o.Longest = time.Nanosecond }, "--longest 1ns: below --stall 2s plus --settle 10s"},
		"longest 11s":       {func(o *Options) { o.Longest = 11 * time.Second }, "--longest 11s: below --stall 2s plus --settle 10s"},
		"longest huge":      {func(o *Options) { o.Longest = 1 << 62 }, "over 168h0m0s"},
		"before huge":       {func(o *Options) { o.Before = 1 << 62 }, "--before 1281023h"},
		"poll over longest": {func(o *Options) { o.Poll = 20 * time.Minute }, "--poll 20m0s: over --longest 10m0s"},
		"no out":            {func(o *Options) { o.Out = "" }, "--out: required"},
	} {
		t.Run(name, func(t *testing.T) {
			o := Defaults
			o.Probe, o.Out = probe.Defaults(), "w"
			c.set(&o)
			if err := o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate: %v; want %q", err, c.want)
			}
		})
	}
	o := Defaults
	o.Probe, o.Out = probe.Defaults(), "w"
	if err := o.Validate(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}

// TestCheckOut: --out is refused before the cluster is reached when it
// cannot be made or written, or is a trial's directory.
func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	trial := filepath.Join(dir, "trial")
	if err := os.MkdirAll(trial, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(trial, results.MetaFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ out, want string }{
		{"", "--out: required"},
		{file, "not a directory"},
		{filepath.Join(file, "sub"), "not a directory"},
		{trial, "a trial's directory"},
	} {
		if err := CheckOut(c.out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckOut(%q): %v; want %q", c.out, err, c.want)
		}
	}
	if err := CheckOut(filepath.Join(dir, "new", "watch")); err != nil {
		t.Errorf("a new directory: %v", err)
	}
	assertNoPartial(t, filepath.Join(dir, "new", "watch"))
}

// TestPartitionNotInTopic: --partitions the topic does not have stops the
// watch with a FlagError naming the flag, not "the cluster cannot be
// probed" every 5 s for ever.
func TestPartitionNotInTopic(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w, _, s := frozenWatch(t, ctx, nil)
	w.Opt.Probe.Partitions = []int32{1, 5}
	err := w.Run(ctx)
	var ferr *FlagError
	if !errors.As(err, &ferr) || !strings.Contains(err.Error(), "--partitions 5: topic orders has no partition 5 (it has 2)") {
		t.Errorf("Run: %v; want a FlagError naming --partitions 5", err)
	}
	if strings.Contains(s.String(), "cannot be probed") {
		t.Errorf("the watch blamed the cluster:\n%s", s)
	}
}

// TestStopDuringWrite: told to stop while an incident that recovered is
// being analysed, the watch gives the analysis until its bound, says the
// incident was not analysed and what analyses it, and returns within
// ShutdownTimeout.
func TestStopDuringWrite(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	analysing := make(chan struct{}, 1)
	w, f, s := frozenWatch(t, ctx, func(ctx context.Context, _ string, _ *Incident) error {
		analysing <- struct{}{}
		<-ctx.Done()
		return fmt.Errorf("%s: %w", results.ProbeFile, ctx.Err())
	})
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	s.await(t, "watching orders", 20*time.Second)
	time.Sleep(3 * time.Second)
	f.Freeze()
	s.await(t, "incident 1 opened", 10*time.Second)
	f.Thaw()
	select {
	case <-analysing:
	case <-time.After(30 * time.Second):
		t.Fatalf("incident 1 not handed on; the watch said:\n%s", s)
	}
	stopped := time.Now()
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(ShutdownTimeout + 5*time.Second):
		t.Fatalf("the watch still runs %v after it was stopped", time.Since(stopped))
	}
	if took := time.Since(stopped); took > ShutdownTimeout+time.Second {
		t.Errorf("the stop took %v, over its bound %v", took, ShutdownTimeout)
	}
	dir := filepath.Join(w.Opt.Out, results.IncidentDir(1))
	if !strings.Contains(s.String(), "incident 1 not analysed within the stop's 10s: kbf report "+dir+" analyses it") {
		t.Errorf("the watch said:\n%s\nwant that incident 1 was not analysed, blaming the stop", s)
	}
}
