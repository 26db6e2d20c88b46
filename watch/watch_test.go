package watch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/platform/remote"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// TestWatchWritesAnIncident checks the watch's bookkeeping end to end
// against kfake, franz-go's fake cluster: produce answers held back for
// 3 s make one incident, written as a trial directory that the analysis
// reads, and numbered on from what the directory holds. kfake has no
// ISR, fencing or logs: nothing here says anything about Kafka's timing.
// With the group reader, its files are kept and written as the probe's.
func TestWatchWritesAnIncident(t *testing.T) {
	for _, consumer := range []string{results.ConsumerAssign, results.ConsumerGroup} {
		t.Run(consumer, func(t *testing.T) { watchWritesAnIncident(t, consumer) })
	}
}

func watchWritesAnIncident(t *testing.T, consumer string) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(2, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var hold atomic.Int64 // unix nanos until which produce answers wait
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if until := time.Unix(0, hold.Load()); time.Now().Before(until) {
			time.Sleep(time.Until(until))
		}
		return nil, nil, false
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	target, err := remote.New(ctx, remote.Options{Bootstrap: c.ListenAddrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	out := t.TempDir()
	if keep := os.Getenv("KBF_KEEP"); keep != "" { // to read it after
		out = keep
	}
	if err := mkdir(out, 7); err != nil { // an earlier watch's
		t.Fatal(err)
	}
	cfg := probe.Defaults()
	cfg.Interval = 20 * time.Millisecond
	cfg.Drain = time.Second
	cfg.Consumer = consumer
	opt := Options{Probe: cfg, Stall: time.Second, Before: 2 * time.Second, Settle: 2 * time.Second, Poll: 200 * time.Millisecond,
		Longest: 30 * time.Second, Retry: time.Second, Out: out}
	wctx, stop := context.WithCancel(ctx)
	var written []string
	w := &Watcher{Opt: opt, Target: target, Metrics: NewMetrics(), Recorded: func(_ context.Context, dir string, in *Incident) error {
		written = append(written, dir)
		stop()
		return nil
	}}
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	time.Sleep(3 * time.Second)
	hold.Store(time.Now().Add(3 * time.Second).UnixNano())
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(out, results.IncidentDir(8))
	if len(written) != 1 || written[0] != want {
		t.Fatalf("incidents written %v, want [%s]", written, want)
	}
	assertNoPartial(t, out)
	found, err := results.Find(want)
	if err != nil {
		t.Fatal(err)
	}
	m := found[0].Meta
	if m.Kind != results.KindIncident || m.Fault == nil || m.Fault.Kind != results.FaultExternal || len(m.Fault.Signs) == 0 {
		t.Fatalf("meta kind %s, fault %+v: want an incident with an external fault's signs", m.Kind, m.Fault)
	}
	if start := m.Fault.At(); start.Sub(m.Started) < opt.Before-time.Millisecond {
		t.Errorf("the directory starts %v before the first sign, want --before %v", start.Sub(m.Started), opt.Before)
	}
	tr, err := analysis.Analyze(found[0], analysis.Options{})
	if err != nil {
		t.Fatalf("the incident does not analyse: %v", err)
	}
	if tr.Gaps == nil || len(tr.Gaps.Partitions) == 0 {
		t.Errorf("no gaps in the incident's analysis")
	}
	for _, f := range tr.Findings {
		if f.GroupSkipped > 0 {
			t.Errorf("the group reader's audit over the window: %d records skipped", f.GroupSkipped)
		}
	}
	files := []string{results.ClientLog}
	if consumer == results.ConsumerGroup {
		files = append(files, results.GroupFile, results.GroupEventsFile)
	}
	for _, f := range files {
		if b, err := os.ReadFile(filepath.Join(want, f)); err != nil || bytes.Count(b, []byte("\n")) < 2 {
			t.Errorf("%s: %d bytes (%v), want a header and rows", f, len(b), err)
		}
	}
	// Read back over the window's acknowledged offsets: every acked
	// record of the window accounted for, none of the probe's later ones
	// counted as unrecorded.
	if found[0].Log == "" || tr.Integrity == nil {
		t.Fatalf("no read-back (log %q); notes %v", found[0].Log, m.Notes)
	}
	if a := tr.Integrity.Counts; !tr.Integrity.OK() || a.Logged == 0 || a.Unrecorded != 0 {
		t.Errorf("the incident's audit: %+v; want records logged, none lost or unrecorded", a)
	}
}
