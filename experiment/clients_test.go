package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// fakeClient is an external probe: it writes client.json once ready and a
// row per partition every millisecond until stopped.
type fakeClient struct {
	w    *world
	spec clients.Spec
	// notReady makes Ready fail, as a probe that exits before its first
	// send does.
	notReady bool
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once
}

func (w *world) startClient(notReady bool) StartClient {
	return func(ctx context.Context, spec clients.Spec) (ExternalClient, error) {
		if err := w.call(ctx, "start-"+string(spec.Client)); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
			return nil, err
		}
		c := &fakeClient{w: w, spec: spec, notReady: notReady, stop: make(chan struct{}), done: make(chan struct{})}
		if notReady {
			close(c.done)
			return c, nil
		}
		info := clients.Info{Client: spec.Client, Version: "1.0", Topic: spec.Topic, Partitions: spec.Partitions,
			Interval: clients.Duration(spec.Interval), Acks: spec.Acks, RunID: spec.RunID,
			StartOffsets: map[int32]int64{0: 0, 1: 0}, Started: time.Now().UTC(),
			Producer: map[string]string{"retry.backoff.ms": "100"}}
		b, err := json.Marshal(info)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(spec.Dir, clients.InfoFile), b, 0o644); err != nil {
			return nil, err
		}
		f, err := os.Create(filepath.Join(spec.Dir, results.ProbeFile))
		if err != nil {
			return nil, err
		}
		go func() {
			defer close(c.done)
			defer f.Close()
			enc := results.NewEncoder(f)
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for seq := int64(0); ; seq++ {
				now := time.Now().UTC()
				for _, p := range spec.Partitions {
					enc.Encode(&results.Message{Partition: p, Seq: seq, Offset: seq, Sent: now, Acked: now, Received: now})
				}
				enc.Flush()
				select {
				case <-c.stop:
					return
				case <-tick.C:
				}
			}
		}()
		return c, nil
	}
}

func (c *fakeClient) Ready(ctx context.Context) (*clients.Info, error) {
	if c.notReady {
		return nil, errors.New("probe exited before its first send")
	}
	return clients.ReadInfo(c.spec.Dir)
}

func (c *fakeClient) Stop(ctx context.Context) error {
	c.once.Do(func() {
		c.w.call(ctx, "stop-"+string(c.spec.Client))
		if !c.notReady {
			close(c.stop)
		}
	})
	<-c.done
	return nil
}

// readBackAll writes back what the fake probe or a fake client wrote: seq
// 0 and 1 for the franz-go probe, every seq up to the client's last for a
// client, by the run id it is asked for.
func (w *world) readBackAll(dir string) ReadBack {
	return func(ctx context.Context, cfg probe.Config, starts map[int32]int64, out *results.LogEncoder) error {
		if cfg.RunID == "test" {
			return w.readBack(ctx, cfg, starts, out)
		}
		if err := w.call(ctx, "readback-"+cfg.RunID); err != nil {
			return err
		}
		name := strings.TrimPrefix(cfg.RunID, "test-")
		tr := results.Trial{Probe: filepath.Join(results.ClientDir(dir, name), results.ProbeFile)}
		dec, err := tr.OpenProbe(ctx)
		if err != nil {
			return err
		}
		defer dec.Close()
		var m results.Message
		for dec.Decode(&m) == nil {
			out.Encode(&results.LogRecord{Partition: m.Partition, Offset: m.Offset, Seq: m.Seq})
		}
		return out.Flush()
	}
}

func TestTrialClients(t *testing.T) {
	for _, tc := range []struct {
		name     string
		notReady bool
		// want is the calls in order; valid whether the fault was injected.
		want  string
		valid bool
	}{
		{name: "librdkafka beside franz-go",
			want:  "up probe start-librdkafka inject stop-librdkafka logs-c1 logs-k1 restart isr elect leaders readback readback-test-librdkafka",
			valid: true},
		{name: "a client never ready: no fault",
			notReady: true,
			want:     "up probe start-librdkafka stop-librdkafka logs-c1 logs-k1 readback"}, // no client.json: nothing to read back
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			r, _, _ := newRunner(t, w, "sigkill")
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			r.Opt.Clients = []clients.Name{clients.FranzGo, clients.Librdkafka}
			// Long enough for a loaded machine to write the fake client's
			// rows; a client never ready needs no time to be found out.
			r.Opt.Baseline.Timeout = 10 * time.Second
			if tc.notReady {
				r.Opt.Baseline.Timeout = 50 * time.Millisecond
			}
			r.StartClient = w.startClient(tc.notReady)
			r.ReadBack = w.readBackAll(dir)
			tr, err := analysed(context.Background(), r, 1, dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := w.log(); got != tc.want {
				t.Errorf("phases:\n got %s\nwant %s", got, tc.want)
			}
			if got := tr.Meta.Fault != nil; got != tc.valid {
				t.Errorf("fault injected %v, want %v (baseline %+v)", got, tc.valid, tr.Meta.Baseline)
			}
			if tc.notReady {
				if b := tr.Meta.Baseline; b == nil || !strings.Contains(b.Unhealthy, "librdkafka probe") {
					t.Errorf("baseline %+v, want it unhealthy for the librdkafka probe", b)
				}
				return
			}
			cdir := results.ClientDir(dir, "librdkafka")
			for _, f := range []string{results.ProbeFile, results.LogFile, results.MetaFile, clients.InfoFile} {
				if _, err := os.Stat(filepath.Join(cdir, f)); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
			m, err := results.ReadMeta(cdir)
			if err != nil {
				t.Fatal(err)
			}
			if m.Probe.RunID != "test-librdkafka" || m.Probe.Client["retry.backoff.ms"] != "100" || m.Fault == nil {
				t.Errorf("client meta: run id %q, settings %v, fault %v: want its own run id and settings, the trial's fault",
					m.Probe.RunID, m.Probe.Client, m.Fault)
			}
			if len(tr.Clients) != 2 || tr.Clients[1].Name != "librdkafka" || tr.Clients[1].Audit == nil || tr.Clients[1].Audit.Lost != 0 {
				t.Errorf("report's clients %+v, want franz-go and librdkafka, its audit clean", tr.Clients)
			}
		})
	}
}

func TestTailSteady(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	for _, tc := range []struct {
		name string
		acks []time.Duration // partition 0's acks (and reads), after t0
		now  time.Duration
		why  string // "" for steady
	}{
		{name: "steady", acks: []time.Duration{0, 100 * ms, 200 * ms, 300 * ms}, now: 400 * ms},
		{name: "no rows", now: time.Second, why: "no ack yet"},
		{name: "a gap in the period", acks: []time.Duration{0, 100 * ms, 500 * ms, 550 * ms}, now: 600 * ms, why: "acks steady for 0.05 s of 0.20 s"},
		{name: "rows stopped", acks: []time.Duration{0, 100 * ms, 200 * ms, 300 * ms}, now: 5 * time.Second, why: "no ack for"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), results.ProbeFile)
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			enc := results.NewEncoder(f)
			for i, d := range tc.acks {
				at := t0.Add(d)
				enc.Encode(&results.Message{Partition: 0, Seq: int64(i), Offset: int64(i), Sent: at, Acked: at, Received: at})
			}
			if err := enc.Flush(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			u := tailSteady(path, t0.Add(tc.now), 200*ms, 200*ms, []int32{0})
			switch {
			case tc.why == "" && u != nil:
				t.Errorf("unhealthy %v, want steady", u)
			case tc.why != "" && (u == nil || !strings.Contains(u.Why, tc.why)):
				t.Errorf("unhealthy %v, want %q", u, tc.why)
			}
		})
	}
}
