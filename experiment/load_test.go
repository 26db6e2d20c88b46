package experiment

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/load"
	"github.com/kbf-project/kbf/results"
)

// fakeLoad writes one row when it runs and says what it was given.
type fakeLoad struct {
	cfg    load.Config
	w      io.Writer
	ran    bool
	closed bool
}

func (l *fakeLoad) Settings() results.LoadSettings {
	return results.LoadSettings{Topic: l.cfg.Topic, Partitions: 3, Replication: 3, Rate: l.cfg.Rate, Size: l.cfg.Size, Acks: "all", Offered: l.cfg.Offered}
}

func (l *fakeLoad) Run(ctx context.Context) (load.Totals, error) {
	l.ran = true
	<-ctx.Done()
	enc := results.NewLoadEncoder(l.w)
	enc.Encode(&results.LoadSecond{Second: time.Now().Truncate(time.Second), Sent: 5, Acked: 5})
	return load.Totals{Sent: 5, Acked: 5}, enc.Flush()
}

func (l *fakeLoad) Close() { l.closed = true }

// TestTrialLoad: a trial with a load makes it like the probe's topic,
// records its settings in meta.json, runs it beside the probe into
// load.csv, and waits for its topic's ISRs at recovery.
func TestTrialLoad(t *testing.T) {
	w := newWorld()
	r, _, rep := newRunner(t, w, results.FaultSIGKILL)
	r.Opt.Load = &load.Config{Rate: 100, Size: 1024, Offered: "100/s"}
	var made *fakeLoad
	r.NewLoad = func(_ context.Context, cfg load.Config, out io.Writer) (Load, error) {
		made = &fakeLoad{cfg: cfg, w: out}
		return made, nil
	}
	var isrTopics []string
	r.Target = &isrWorld{world: w, topics: &isrTopics}
	dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
	if err := r.Trial(context.Background(), 1, dir); err != nil {
		t.Fatal(err)
	}
	if made == nil || !made.ran {
		t.Fatal("the load never ran")
	}
	if c := made.cfg; c.Topic != "orders-load" || c.Like != "orders" || len(c.Bootstrap) == 0 {
		t.Errorf("load made with %+v: want orders-load like orders, at the target's addresses", c)
	}
	meta, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Load == nil || meta.Load.Topic != "orders-load" || meta.Load.Rate != 100 {
		t.Errorf("meta's load %+v", meta.Load)
	}
	b, err := os.ReadFile(filepath.Join(dir, results.LoadFile))
	if err != nil || strings.Count(string(b), "\n") != 2 {
		t.Errorf("load.csv %q (%v): want its header and the row", b, err)
	}
	if !slices.Contains(isrTopics, "orders-load") {
		t.Errorf("recovery waited for the ISRs of %v: want the load's topic too", isrTopics)
	}
	if !strings.Contains(rep.String(), "load: 5 records sent, 5 acknowledged") {
		t.Errorf("the trial did not say what the load did: %q", rep.String())
	}
}

// TestTrialLoadFails: a load that cannot start ends the trial before
// anything is probed, and leaves no directory behind.
func TestTrialLoadFails(t *testing.T) {
	w := newWorld()
	r, _, _ := newRunner(t, w, results.FaultSIGKILL)
	r.Opt.Load = &load.Config{Rate: 100, Size: 1024, Offered: "100/s"}
	r.NewLoad = func(context.Context, load.Config, io.Writer) (Load, error) {
		return nil, errors.New("load: the probe's topic orders is not there")
	}
	dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
	err := r.Trial(context.Background(), 1, dir)
	if err == nil || !strings.Contains(err.Error(), "not there") {
		t.Fatalf("trial: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left behind (%v)", dir, err)
	}
}

// isrWorld is a world that remembers the topics whose ISRs it was asked
// to wait for.
type isrWorld struct {
	*world
	topics *[]string
}

func (w *isrWorld) WaitISRFull(ctx context.Context, topics ...string) error {
	*w.topics = append(*w.topics, topics...)
	return w.world.WaitISRFull(ctx, topics...)
}
