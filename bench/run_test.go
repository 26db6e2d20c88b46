package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kbf-project/kbf/analysis"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kbf-project/kbf/benchfile"
	"github.com/kbf-project/kbf/compare"
	"github.com/kbf-project/kbf/internal/testsupport/testtrial"
)

// testdata is testdata/ made absolute.
var testdata = func() string {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		panic(err)
	}
	return dir
}()

// The recorded trials (the same as report's): each archive holds
// trial-01/, a trial kbf run wrote against a real three-broker cluster.
var archives = map[string]string{"sigkill": "sigkill.tar.gz", "sigterm": "sigterm.tar.gz"}

// unpacked caches each archive's trial, unpacked once.
var unpacked sync.Map

// recorded returns the directory of the recorded trial of fault.
func recorded(t testing.TB, fault string) string {
	t.Helper()
	if d, ok := unpacked.Load(fault); ok {
		return d.(string)
	}
	dst, err := os.MkdirTemp("", "kbf-bench-test-")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(testdata, archives[fault]))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := testtrial.Untar(f, dst); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(dst, "trial-01")
	unpacked.Store(fault, dir)
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	unpacked.Range(func(_, v any) bool { os.RemoveAll(filepath.Dir(v.(string))); return true })
	for _, d := range cleanup {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func copyFile(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// copyTree copies the directory src to dst.
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return copyFile(to, f)
	})
}

// fakeRunner "runs" a trial by copying the recorded trial of its fault.
type fakeRunner struct {
	t     *testing.T
	calls []string // the trial directories, relative to the benchmark's
	base  string
	// fail makes the trials with these call numbers (from 1) fail;
	// interrupt cancels the context during that call, leaving half a
	// trial behind.
	fail      map[int]bool
	lasting   map[int]bool // fail with a lasting error (another kbf's cluster)
	interrupt int
	cancel    context.CancelFunc
	refuse    string // a fault Check refuses
}

// Trial records a trial and leaves its analysis to the benchmark, which
// then measures it from its directory.
func (r *fakeRunner) Trial(ctx context.Context, s Scenario, dir string) (*analysis.Trial, error) {
	return nil, r.record(ctx, s, dir)
}

func (r *fakeRunner) record(ctx context.Context, s Scenario, dir string) error {
	rel, _ := filepath.Rel(r.base, dir)
	r.calls = append(r.calls, filepath.ToSlash(rel))
	n := len(r.calls)
	if _, err := os.Stat(dir); err == nil {
		r.t.Errorf("trial %s: the directory exists already", rel)
	}
	if n == r.interrupt {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "probe.csv"), []byte("partial"), 0o644)
		r.cancel()
		return ctx.Err()
	}
	if r.fail[n] {
		return errors.New("the cluster would not come up")
	}
	if r.lasting[n] {
		return fmt.Errorf("cluster: %w", errInUse)
	}
	return copyTree(recorded(r.t, s.Fault), dir)
}

func (r *fakeRunner) Check(s Scenario) error {
	if s.Fault == r.refuse {
		return fmt.Errorf("fault %q: not supported yet", s.Fault)
	}
	return nil
}

func twoScenarios(trials int) *File {
	return &File{Trials: trials, Scenarios: []Scenario{{Name: "sigkill", Fault: "sigkill"}, {Name: "sigterm", Fault: "sigterm"}}}
}

func TestRunResumes(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	r := &fakeRunner{t: t, base: dir, interrupt: 3, cancel: cancel}
	b := &Bench{File: twoScenarios(2), Dir: dir, Runner: r, Cores: 2}
	if _, err := b.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	if want := []string{"sigkill/trial-01", "sigterm/trial-01", "sigkill/trial-02"}; !slices.Equal(r.calls, want) {
		t.Fatalf("first run ran %v, want %v", r.calls, want)
	}
	// The outputs hold what was done when it stopped.
	if got := countLines(t, filepath.Join(dir, TextFile), "BenchmarkFailover/"); got != 4 {
		t.Errorf("bench.txt after two trials has %d result lines, want 2 trials × 2 roles", got)
	}

	r2 := &fakeRunner{t: t, base: dir}
	b.Runner = r2
	set, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"sigkill/trial-02", "sigterm/trial-02"}; !slices.Equal(r2.calls, want) {
		t.Errorf("resumed run ran %v, want %v", r2.calls, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "sigkill", InterruptedPrefix+"trial-02-1", "probe.csv")); err != nil {
		t.Errorf("the interrupted trial was not kept aside: %v", err)
	}
	if len(set.Records) != 4 {
		t.Errorf("%d records, want 4", len(set.Records))
	}
	for _, rec := range set.Records {
		if !rec.Valid() {
			t.Errorf("%s invalid: %s", rec.Trial.ID(), rec.Reason)
		}
	}

	// Run once more: nothing to do, the outputs rewritten.
	r3 := &fakeRunner{t: t, base: dir}
	b.Runner = r3
	if _, err := b.Run(context.Background()); err != nil || len(r3.calls) != 0 {
		t.Errorf("a finished benchmark ran %v again (%v)", r3.calls, err)
	}

	// Another plan in the same directory is refused, not mixed in.
	other := &Bench{File: twoScenarios(3), Dir: dir, Runner: r3}
	if _, err := other.Run(context.Background()); !errors.Is(err, ErrOtherPlan) {
		t.Errorf("another plan: %v", err)
	}
	shard := &Bench{File: twoScenarios(2), Shard: Shard{1, 2}, Dir: dir, Runner: r3}
	if _, err := shard.Run(context.Background()); !errors.Is(err, ErrOtherPlan) {
		t.Errorf("another shard: %v", err)
	}
}

func TestRunFailures(t *testing.T) {
	tests := []struct {
		name      string
		fail      map[int]bool
		wantErr   string
		wantCalls int
		invalid   int
	}{
		{name: "one failure is recorded and the benchmark goes on", fail: map[int]bool{2: true}, wantCalls: 4, invalid: 1},
		{name: "two in a row stop it", fail: map[int]bool{2: true, 3: true}, wantErr: "2 trials in a row failed", wantCalls: 3, invalid: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := &fakeRunner{t: t, base: dir, fail: tt.fail}
			set, err := (&Bench{File: twoScenarios(2), Dir: dir, Runner: r}).Run(context.Background())
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if len(r.calls) != tt.wantCalls {
				t.Errorf("%d trials ran, want %d", len(r.calls), tt.wantCalls)
			}
			invalid := 0
			for _, rec := range set.Records {
				if !rec.Valid() {
					invalid++
					if !strings.Contains(rec.Reason, "would not come up") {
						t.Errorf("reason %q", rec.Reason)
					}
				}
			}
			if invalid != tt.invalid {
				t.Errorf("%d invalid, want %d", invalid, tt.invalid)
			}
			md, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
			if !strings.Contains(string(md), "did not count: failed: the cluster would not come up") {
				t.Errorf("summary.md does not say why a trial did not count:\n%s", md)
			}
		})
	}
}

// inUse is a lasting error, as clusterlock.InUseError is.
type inUse struct{}

func (inUse) Error() string { return "the cluster kbf is in use by another kbf" }
func (inUse) Lasting() bool { return true }

var errInUse error = inUse{}

// TestRunStopsAtALastingError: a trial refused its cluster (another kbf
// holds it) stops the benchmark at once with that error alone, and is not
// recorded: the benchmark resumed runs it.
func TestRunStopsAtALastingError(t *testing.T) {
	dir := t.TempDir()
	r := &fakeRunner{t: t, base: dir, lasting: map[int]bool{2: true}}
	set, err := (&Bench{File: twoScenarios(2), Dir: dir, Runner: r}).Run(context.Background())
	if !errors.Is(err, errInUse) || strings.Contains(err.Error(), "in a row") {
		t.Fatalf("error %v, want the lasting error alone", err)
	}
	if len(r.calls) != 2 || len(set.Records) != 1 {
		t.Fatalf("%d trials ran, %d recorded; want 2 and 1 (the refused one not recorded)", len(r.calls), len(set.Records))
	}
	r2 := &fakeRunner{t: t, base: dir}
	set, err = (&Bench{File: twoScenarios(2), Dir: dir, Runner: r2}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(r2.calls) != 3 || r2.calls[0] != r.calls[1] || len(set.Records) != 4 {
		t.Errorf("resumed: ran %v, %d recorded; want the refused %s first, 3 in all, 4 recorded", r2.calls, len(set.Records), r.calls[1])
	}
}

func TestRunRefusesUnsupported(t *testing.T) {
	dir := t.TempDir()
	r := &fakeRunner{t: t, base: dir, refuse: "sigterm"}
	_, err := (&Bench{File: twoScenarios(2), Dir: dir, Runner: r}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), `scenario "sigterm": fault "sigterm": not supported yet`) || len(r.calls) != 0 {
		t.Errorf("error %v after %d trials", err, len(r.calls))
	}
	if _, err := os.Stat(filepath.Join(dir, StateFile)); err == nil {
		t.Error("a refused benchmark left its state behind: fixing the file would then be refused as another plan")
	}
}

func countLines(t *testing.T, path, prefix string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// TestMeasureVerdict checks that a trial whose verdict is not valid does
// not count, and says why in the verdict's words.
func TestMeasureVerdict(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(m map[string]any)
		reason string // "" when valid
	}{
		{name: "as recorded", edit: func(map[string]any) {}},
		{name: "no fault injected", edit: func(m map[string]any) { delete(m, "fault") }, reason: "no-fault"},
		{name: "a controller fault", edit: func(m map[string]any) {
			f := m["fault"].(map[string]any)
			f["kind"], f["broker"], f["node_id"] = "controller-kill", "c1", 100
		}, reason: "a controller fault"},
		{name: "recovery failed", edit: func(m map[string]any) {
			m["recovery"] = map[string]any{"error": "restart k1: gone", "leaders_back": false}
		}, reason: "recovery failed: restart k1: gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "trial-01")
			if err := copyTree(recorded(t, "sigkill"), dir); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "meta.json")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var meta map[string]any
			if err := json.Unmarshal(b, &meta); err != nil {
				t.Fatal(err)
			}
			tt.edit(meta)
			b, _ = json.Marshal(meta)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := Measure(dir)
			if err != nil {
				t.Fatal(err)
			}
			if tt.reason == "" {
				if !m.Valid || m.Roles[RoleLeader]["ack-stall-sec"] <= 0 {
					t.Errorf("valid %v (%s), roles %v", m.Valid, m.Reason, m.Roles)
				}
				return
			}
			if m.Valid || !strings.Contains(m.Reason, tt.reason) || len(m.Roles) != 0 {
				t.Errorf("valid %v, reason %q, want one with %q and no metrics", m.Valid, m.Reason, tt.reason)
			}
		})
	}
}

// TestShardsMerge runs one benchmark in three shards and whole: each
// shard's bench.txt says which it is, the three merge into the whole's
// results, and two of them, or a shard of another benchmark beside them,
// are refused in one line.
func TestShardsMerge(t *testing.T) {
	base := t.TempDir()
	whole := filepath.Join(base, "whole")
	if _, err := (&Bench{File: twoScenarios(3), Dir: whole, Runner: &fakeRunner{t: t, base: whole}}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var shards []string
	ran := map[string]int{}
	for i := 1; i <= 3; i++ {
		dir := filepath.Join(base, "shards", fmt.Sprintf("slice-%d", i))
		r := &fakeRunner{t: t, base: dir}
		if _, err := (&Bench{File: twoScenarios(3), Shard: Shard{i, 3}, Dir: dir, Runner: r}).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, c := range r.calls {
			ran[c]++
		}
		o, err := benchfile.ReadOrigin(filepath.Join(dir, TextFile))
		if err != nil || o.I != i || o.N != 3 || o.Plan == "" {
			t.Errorf("shard %d/3's bench.txt says %+v (%v)", i, o, err)
		}
		shards = append(shards, dir)
	}
	if len(ran) != 6 {
		t.Errorf("the shards ran %v, want each of the 6 trials once", ran)
	}
	for id, n := range ran {
		if n != 1 {
			t.Errorf("%s ran in %d shards", id, n)
		}
	}
	if o, err := benchfile.ReadOrigin(filepath.Join(whole, TextFile)); err != nil || o.Sharded() {
		t.Errorf("the whole benchmark's bench.txt says %+v (%v), want no shard", o, err)
	}

	ctx := context.Background()
	w, err := compare.Read(ctx, whole)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := compare.Read(ctx, filepath.Join(base, "shards"))
	if err != nil {
		t.Fatalf("three shards of one benchmark: %v", err)
	}
	if len(merged.Samples) != len(w.Samples) {
		t.Errorf("merged shards have %d samples, the whole %d", len(merged.Samples), len(w.Samples))
	}
	for k, v := range w.Samples {
		if got := merged.Samples[k]; !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(v))) {
			t.Errorf("%v: merged shards %v, whole %v", k, got, v)
		}
	}
	if len(merged.Mixed) != 0 {
		t.Errorf("shards of one benchmark read as run differently: %v", merged.Mixed)
	}

	other := filepath.Join(base, "other")
	if _, err := (&Bench{File: twoScenarios(4), Shard: Shard{3, 3}, Dir: other, Runner: &fakeRunner{t: t, base: other}}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		paths []string
		want  string
	}{
		"one missing":          {shards[:2], "shard 3/3 missing"},
		"one twice":            {append(slices.Clone(shards), shards[1]), "shard 2/3 twice"},
		"another benchmark's":  {append(slices.Clone(shards[:2]), other), "of different benchmarks"},
		"the whole one itself": {[]string{whole}, ""},
	} {
		_, err := compare.Read(ctx, tc.paths...)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if !errors.Is(err, benchfile.ErrShards) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line with %q", name, err, tc.want)
		}
	}
}
