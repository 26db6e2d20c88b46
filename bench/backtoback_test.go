package bench

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

	"github.com/kbf-project/kbf/analysis"
)

// backToBack runs trials back to back as trialrun does, on fake clusters:
// a scenario's cluster is its node settings (Config). A trial on its
// lane's last trial's cluster starts beside that trial's put-back and
// "faults" only once it has ended; a trial on another cluster waits for it
// first. A trial copies the recorded trial of its fault but its meta.json,
// which its put-back writes; the put-back holds until the next trial has
// started beside it, for at most holdPutBack (a lane's last trial has no
// next).
type backToBack struct {
	t    *testing.T
	base string
	// failPutBack fails the put-back of these trials (by directory, from
	// the benchmark's); interrupt cancels the context as that trial
	// starts, leaving half of it behind.
	failPutBack map[string]bool
	interrupt   string
	cancel      context.CancelFunc

	mu sync.Mutex
	// log is what happened, in order: "start ID", "beside ID" (the trial
	// started beside the put-back of ID), "put back ID".
	log     []string
	running int // put-backs not ended
}

// holdPutBack is how long a fake put-back waits for the next trial.
const holdPutBack = 300 * time.Millisecond

type fakePutBack struct {
	r       *backToBack
	id      string
	dir     string
	fault   string
	cluster string
	beside  chan struct{} // closed by the next trial, started beside it
	done    chan struct{}
	err     error
}

func (r *backToBack) Check(Scenario) error { return nil }

func (r *backToBack) Trial(context.Context, Scenario, string) (*analysis.Trial, error) {
	r.t.Error("Trial called on a BackToBack runner")
	return nil, errors.New("not back to back")
}

func (r *backToBack) say(format string, a ...any) {
	r.sayLines(fmt.Sprintf(format, a...))
}

// sayLines logs lines together, so that no other line comes between.
func (r *backToBack) sayLines(lines ...string) {
	r.mu.Lock()
	r.log = append(r.log, lines...)
	r.mu.Unlock()
}

func (r *backToBack) TrialAfter(ctx context.Context, s Scenario, dir string, prev PutBack) (PutBack, *analysis.Trial, error) {
	rel, _ := filepath.Rel(r.base, dir)
	id := filepath.ToSlash(rel)
	last, _ := prev.(*fakePutBack)
	cluster := strings.Join(s.Config, ",")
	if last != nil && last.cluster == cluster {
		r.sayLines("start "+id, "beside "+last.id)
		close(last.beside)
		<-last.done // the fault waits for it (experiment's awaitPrev)
		if last.err != nil {
			return nil, nil, fmt.Errorf("no fault injected: %s: %w", last.id, last.err)
		}
	} else {
		// A trial on another cluster starts once the put-back before has
		// ended, as trialrun's does: its "put back" line comes first.
		if prev != nil {
			_, _ = prev.Wait()
		}
		r.say("start %s", id)
	}
	if id == r.interrupt {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "probe.csv"), []byte("partial"), 0o644)
		r.cancel()
		return nil, nil, ctx.Err()
	}
	if err := copyTree(recorded(r.t, s.Fault), dir); err != nil {
		return nil, nil, err
	}
	meta := filepath.Join(dir, "meta.json")
	if err := os.Rename(meta, meta+".later"); err != nil {
		return nil, nil, err
	}
	p := &fakePutBack{r: r, id: id, dir: dir, fault: s.Fault, cluster: cluster, beside: make(chan struct{}), done: make(chan struct{})}
	r.mu.Lock()
	r.running++
	r.mu.Unlock()
	go p.putBack()
	return p, nil, nil
}

// putBack ends the trial: its meta.json written, unless it fails.
func (p *fakePutBack) putBack() {
	defer close(p.done)
	select {
	case <-p.beside:
	case <-time.After(holdPutBack):
	}
	if st, err := os.ReadFile(filepath.Join(p.r.base, StateFile)); err == nil && strings.Contains(string(st), p.id) {
		p.r.t.Errorf("%s recorded before its put-back ended", p.id)
	}
	meta := filepath.Join(p.dir, "meta.json")
	if p.r.failPutBack[p.id] {
		p.err = errors.New("recovery: wait for full ISRs: k1 never caught up")
	} else if err := os.Rename(meta+".later", meta); err != nil {
		p.err = err
	}
	p.r.say("put back %s", p.id)
	p.r.mu.Lock()
	p.r.running--
	p.r.mu.Unlock()
}

func (p *fakePutBack) Wait() (*analysis.Trial, error) {
	<-p.done
	return nil, p.err
}

// besides is the log's "beside" lines, as "prev>next".
func (r *backToBack) besides() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for i, l := range r.log {
		if id, ok := strings.CutPrefix(l, "beside "); ok {
			out = append(out, id+">"+strings.TrimPrefix(r.log[i-1], "start "))
		}
	}
	return out
}

// threeScenarios are a SIGKILL and a SIGTERM on one cluster, and a
// SIGKILL on a cluster of other settings.
func threeScenarios(trials int) *File {
	return &File{Trials: trials, Scenarios: []Scenario{
		{Name: "sigkill", Fault: "sigkill"},
		{Name: "sigterm", Fault: "sigterm"},
		{Name: "st6000", Fault: "sigkill", Config: []string{"broker.session.timeout.ms=6000"}},
	}}
}

// TestBackToBackOnReusedCluster: a trial starts beside the put-back of
// its lane's trial before only on that trial's cluster, as it is; each
// trial is recorded once its put-back has ended (its meta.json written),
// and every put-back has ended when the benchmark returns.
func TestBackToBackOnReusedCluster(t *testing.T) {
	dir := t.TempDir()
	r := &backToBack{t: t, base: dir}
	set, err := (&Bench{File: threeScenarios(2), Dir: dir, Runner: r}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sigkill/trial-01>sigterm/trial-01", "sigkill/trial-02>sigterm/trial-02"}
	if got := r.besides(); !slices.Equal(got, want) {
		t.Errorf("trials beside the put-back before: %v, want %v; log %q", got, want, r.log)
	}
	// A trial on another cluster is handed the put-back of the trial
	// before it (on its cluster), which ends before it starts.
	for _, tt := range []struct{ prev, next string }{
		{"sigterm/trial-01", "st6000/trial-01"}, {"st6000/trial-01", "sigkill/trial-02"}, {"sigterm/trial-02", "st6000/trial-02"},
	} {
		i, j := slices.Index(r.log, "put back "+tt.prev), slices.Index(r.log, "start "+tt.next)
		if i < 0 || j < 0 || i > j {
			t.Errorf("%s started before the put-back of %s ended: %q", tt.next, tt.prev, r.log)
		}
	}
	if r.running != 0 {
		t.Errorf("%d put-backs still running after the benchmark", r.running)
	}
	if len(set.Records) != 6 {
		t.Fatalf("%d records, want 6", len(set.Records))
	}
	for _, rec := range set.Records {
		if !rec.Valid() {
			t.Errorf("%s invalid: %s", rec.Trial.ID(), rec.Reason)
		}
	}
}

// TestBackToBackPutBackFails: a put-back that fails after its lane was
// freed fails its own trial, recorded with the reason; the trial started
// beside it is not faulted and fails with it, so that two in a row stop
// the benchmark, as kbf run stops. A put-back failing before a trial on
// another cluster costs its trial only.
func TestBackToBackPutBackFails(t *testing.T) {
	for _, tt := range []struct {
		name, fail string
		wantErr    string
		errs       map[string]string // Done.Error by trial, for those that failed
	}{
		{name: "beside the next trial", fail: "sigkill/trial-01", wantErr: "2 trials in a row failed",
			errs: map[string]string{
				"sigkill/trial-01": "recovery: wait for full ISRs: k1 never caught up",
				"sigterm/trial-01": "no fault injected: sigkill/trial-01: recovery: wait for full ISRs: k1 never caught up",
			}},
		{name: "before another cluster", fail: "sigterm/trial-01",
			errs: map[string]string{"sigterm/trial-01": "recovery: wait for full ISRs: k1 never caught up"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := &backToBack{t: t, base: dir, failPutBack: map[string]bool{tt.fail: true}}
			b := &Bench{File: threeScenarios(2), Dir: dir, Runner: r}
			_, err := b.Run(context.Background())
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			st, err := b.state()
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, d := range st.Done {
				if d.Error != "" {
					got[d.ID] = d.Error
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.errs) {
				t.Errorf("failed trials %v, want %v", got, tt.errs)
			}
			if r.running != 0 {
				t.Errorf("%d put-backs still running after the benchmark", r.running)
			}
		})
	}
}

// TestBackToBackInterrupted: Ctrl-C during a trial started beside the
// put-back of the one before leaves that one whole and recorded, every
// put-back ended and the interrupted line said before Run returns; resuming
// runs again exactly the trials not recorded.
func TestBackToBackInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var progress strings.Builder
	r := &backToBack{t: t, base: dir, interrupt: "sigterm/trial-01", cancel: cancel}
	b := &Bench{File: threeScenarios(2), Dir: dir, Runner: r, Progress: &progress}
	if _, err := b.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted benchmark: %v", err)
	}
	if r.running != 0 {
		t.Errorf("%d put-backs still running after the benchmark", r.running)
	}
	if !strings.Contains(progress.String(), Interrupted(dir)) {
		t.Errorf("progress %q, want the interrupted line", progress.String())
	}
	st, err := b.state()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Done) != 1 || st.Done[0].ID != "sigkill/trial-01" || st.Done[0].Error != "" {
		t.Errorf("done %+v, want sigkill/trial-01, whole", st.Done)
	}

	r2 := &backToBack{t: t, base: dir}
	b.Runner = r2
	set, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, l := range r2.log {
		if id, ok := strings.CutPrefix(l, "start "); ok {
			ran = append(ran, id)
		}
	}
	want := []string{"sigterm/trial-01", "st6000/trial-01", "sigkill/trial-02", "sigterm/trial-02", "st6000/trial-02"}
	if !slices.Equal(ran, want) {
		t.Errorf("resumed benchmark ran %v, want %v", ran, want)
	}
	if len(set.Records) != 6 {
		t.Errorf("%d records, want 6", len(set.Records))
	}
}
