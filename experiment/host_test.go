package experiment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

func TestParseProc(t *testing.T) {
	tests := []struct {
		name, stat, self string
		busy, steal      int64
		selfTicks        int64
		wantErr          string
	}{
		{name: "typical",
			stat: "cpu  110500 0 28954 55772 991 0 731 1082 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n",
			self: "16440 (kbf) R 16436 16436 13162 0 -1 4194304 121 0 0 0 250 40 0 0 20 0 1 0 99285",
			busy: 110500 + 28954 + 731, steal: 1082, selfTicks: 290},
		{name: "a command name with spaces and parentheses",
			stat: "cpu  1 2 3 4 5 6 7 8\n",
			self: "1 (a (b) c) S 0 0 0 0 -1 0 0 0 0 0 5 6 0 0",
			busy: 1 + 2 + 3 + 6 + 7, steal: 8, selfTicks: 11},
		{name: "not the cpu line", stat: "intr 1 2 3 4 5 6 7 8 9\n", self: "1 (x) S 0 0 0 0 0 0 0 0 0 0 1 1",
			wantErr: "not the cpu total"},
		{name: "short self", stat: "cpu  1 2 3 4 5 6 7 8\n", self: "1 (x) S 0 0", wantErr: "too few fields"},
		{name: "garbage", stat: "cpu  a b c d e f g h\n", self: "1 (x) S 0 0 0 0 0 0 0 0 0 0 1 1", wantErr: "cpu field 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s hostSample
			err := errors.Join(s.parseStat(tt.stat), s.parseSelf(tt.self))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.busy != tt.busy || s.steal != tt.steal || s.self != tt.selfTicks {
				t.Errorf("busy %d steal %d self %d, want %d %d %d", s.busy, s.steal, s.self, tt.busy, tt.steal, tt.selfTicks)
			}
		})
	}
}

func TestHostLoad(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	a := hostSample{at: t0, load1: 1.5, busy: 1000, steal: 10, self: 100}
	b := hostSample{at: t0.Add(10 * time.Second), load1: 3.25, busy: 2500, steal: 60, self: 400}
	h := hostLoad(a, b, 2, nil)
	if h.Wall != 10*time.Second || h.Self != 3*time.Second || h.Others != 12*time.Second || h.Steal != 500*time.Millisecond ||
		h.LoadStart != 1.5 || h.LoadEnd != 3.25 || h.CPUs != 2 || h.Err != "" {
		t.Errorf("%+v", h)
	}
}

func TestReadHostMissing(t *testing.T) {
	m := startHost(t.TempDir(), nil)
	h := m.stop()
	if !strings.Contains(h.Err, "loadavg") || strings.Contains(h.Err, "\n") {
		t.Errorf("error %q, want one line naming what could not be read", h.Err)
	}
}

func TestReadHostQuiet(t *testing.T) {
	h := startHost(quietProc(t), nil).stop()
	if h.Err != "" || h.LoadStart != 0.10 || h.CPUs < 1 {
		t.Errorf("%+v", h)
	}
}

// The nodes' CPU is followed through a stop and a restart, whose counter
// starts anew, as the engine keeps it.
func TestClusterCPU(t *testing.T) {
	readings := []map[string]time.Duration{
		{"c1": 10 * time.Second, "k1": 20 * time.Second},
		{"c1": 11 * time.Second, "k1": 22 * time.Second}, // +1 +2
		{"c1": 12 * time.Second},                         // +1; k1 stopped
		{"c1": 12 * time.Second, "k1": 3 * time.Second},  // k1 restarted: +3
		{"c1": 13 * time.Second, "k1": 4 * time.Second},  // +1 +1
	}
	i := 0
	c := &clusterCPU{read: func() (map[string]time.Duration, error) {
		r := readings[i]
		i++
		return r, nil
	}, last: map[string]time.Duration{}}
	for range readings {
		if _, err := c.sample(); err != nil {
			t.Fatal(err)
		}
	}
	if want := 9 * time.Second; c.used != want {
		t.Errorf("used %v, want %v", c.used, want)
	}
}

// TestHostSamples follows a meter through two readings and its stop: each
// sample splits the CPU time used since the last into kbf's, each node's,
// the others' and the stolen, and the totals are their sums.
func TestHostSamples(t *testing.T) {
	dir := quietProc(t)
	write := func(busy, steal, self int) {
		t.Helper()
		stat := fmt.Sprintf("cpu  %d 0 0 10000 0 0 0 %d 0 0\n", busy, steal)
		selfStat := fmt.Sprintf("4242 (kbf test) S 1 1 1 0 -1 0 0 0 0 0 %d 0 0 0 20 0 1 0 1 0 0\n", self)
		if err := errors.Join(os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644),
			os.WriteFile(filepath.Join(dir, "self", "stat"), []byte(selfStat), 0o644)); err != nil {
			t.Fatal(err)
		}
	}
	nodes := []map[string]time.Duration{
		{"k1": 5 * time.Second, "k2": 5 * time.Second},
		{"k1": 6 * time.Second, "k2": 5 * time.Second},                  // k1 +1 s
		{"k1": 6 * time.Second, "k2": 5500 * time.Millisecond},          // k2 +0.5 s
		{"k1": 6 * time.Second, "k2": 5500 * time.Millisecond, "c1": 0}, // nothing
	}
	i := 0
	write(100, 0, 10)
	m := &hostMeter{root: dir, cpus: 2, pending: map[string]time.Duration{}, done: make(chan struct{}),
		cpu: &clusterCPU{read: func() (map[string]time.Duration, error) { i++; return nodes[i-1], nil }, last: map[string]time.Duration{}}}
	if _, err := m.cpu.sample(); err != nil {
		t.Fatal(err)
	}
	m.start, _ = readHost(dir)
	m.prev = m.start
	write(300, 10, 60) // 2 s busy: kbf 0.5 s, k1 1 s, others 0.5 s; 0.1 s stolen
	if err := m.tick(); err != nil {
		t.Fatal(err)
	}
	write(400, 10, 60) // 1 s busy: k2 0.5 s, others 0.5 s
	if err := m.tick(); err != nil {
		t.Fatal(err)
	}
	h := m.stop()
	if h.Err != "" || len(h.Samples) != 2 {
		t.Fatalf("%+v", h)
	}
	s0, s1 := h.Samples[0], h.Samples[1]
	if s0.Self != 500*time.Millisecond || s0.Others != 500*time.Millisecond || s0.Steal != 100*time.Millisecond || s0.Nodes["k1"] != time.Second || s0.Nodes["k2"] != 0 {
		t.Errorf("first sample %+v", s0)
	}
	if s1.Self != 0 || s1.Others != 500*time.Millisecond || s1.Nodes["k2"] != 500*time.Millisecond {
		t.Errorf("second sample %+v", s1)
	}
	if h.Cluster != 1500*time.Millisecond || h.Self != 500*time.Millisecond || h.Others != time.Second || h.Steal != 100*time.Millisecond || h.Start.IsZero() {
		t.Errorf("totals %+v", h)
	}
}

func TestMergeSamples(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var ss []results.HostSample
	for i := range 5 {
		ss = append(ss, results.HostSample{At: t0.Add(time.Duration(i+1) * time.Second), Self: time.Second, Others: time.Duration(i) * time.Second,
			Nodes: map[string]time.Duration{"k1": time.Second}})
	}
	got := mergeSamples(ss)
	if len(got) != 3 {
		t.Fatalf("%d samples, want 3", len(got))
	}
	if got[0].At != t0.Add(2*time.Second) || got[0].Self != 2*time.Second || got[0].Others != time.Second || got[0].Nodes["k1"] != 2*time.Second {
		t.Errorf("first %+v", got[0])
	}
	if got[2].At != t0.Add(5*time.Second) || got[2].Others != 4*time.Second || got[2].Nodes["k1"] != time.Second {
		t.Errorf("last, unpaired %+v", got[2])
	}
}

// TestSetProbeResultReady records the end of the probe's start-up: every
// partition's first ack, unknown while one never acked.
func TestSetProbeResultReady(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		first []time.Time
		want  time.Time
	}{
		{name: "the last first ack", first: []time.Time{t0.Add(time.Second), t0.Add(3 * time.Second), t0.Add(2 * time.Second)}, want: t0.Add(3 * time.Second)},
		{name: "one partition never acked", first: []time.Time{t0.Add(time.Second), {}, t0.Add(2 * time.Second)}},
		{name: "the first partition never acked", first: []time.Time{{}, t0.Add(2 * time.Second)}},
		{name: "no partitions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stats []probe.PartitionStats
			for i, f := range tt.first {
				stats = append(stats, probe.PartitionStats{Partition: int32(i), FirstAck: f})
			}
			m := &results.Meta{}
			SetProbeResult(m, stats)
			if !m.Probe.Ready.Equal(tt.want) {
				t.Errorf("ready %v, want %v", m.Probe.Ready, tt.want)
			}
		})
	}
}

// TestChildrenAreKbfs: the other clients' probes, kbf's children, and
// what they start count as kbf's own CPU while they run, not as other
// processes'; a child that cannot be read counts nothing.
func TestChildrenAreKbfs(t *testing.T) {
	dir := quietProc(t)
	stat := func(pid string, utime, stime int) string {
		return fmt.Sprintf("%s (probe x) S 4242 1 1 0 -1 0 0 0 0 0 %d %d 0 0 20 0 1 0 1 0 0\n", pid, utime, stime)
	}
	for name, body := range map[string]string{
		"self/task/4242/children": "50 51",
		"self/task/4243/children": "52\n",
		"50/stat":                 stat("50", 100, 20), // the java probe
		"51/stat":                 stat("51", 30, 10),  // the librdkafka probe
		"51/task/51/children":     "60",
		"60/stat":                 stat("60", 5, 5), // what the librdkafka probe started
		// 52 ended: no stat to read
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := readHost(dir)
	if err != nil {
		t.Fatal(err)
	}
	// kbf's own 7+3, the children 120 + 40 + 10.
	if want := int64(10 + 120 + 40 + 10); s.self != want {
		t.Errorf("self %d ticks, want %d: kbf's and its live children's", s.self, want)
	}
}

// TestHostStopDoesNotWait: stop takes the load up to the last reading and
// returns while the next one still waits on the engine; that reading,
// once it ends, changes nothing stop returned.
func TestHostStopDoesNotWait(t *testing.T) {
	var calls atomic.Int32
	reading, release := make(chan struct{}), make(chan struct{})
	m := startHost(quietProc(t), func() (map[string]time.Duration, error) {
		switch calls.Add(1) {
		case 1:
			return map[string]time.Duration{"k1": time.Second}, nil
		case 2:
			return map[string]time.Duration{"k1": 3 * time.Second}, nil
		case 3:
			close(reading)
			<-release
		}
		return map[string]time.Duration{"k1": 100 * time.Second}, nil
	})
	select {
	case <-reading: // the first tick has ended, the second waits
	case <-time.After(time.Minute):
		t.Fatal("the meter never read the nodes a third time")
	}
	stopped := make(chan *results.Host)
	go func() { stopped <- m.stop() }()
	var h *results.Host
	select {
	case h = <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("stop waited for the reading still running")
	}
	close(release)
	m.wg.Wait()
	if h.Cluster != 2*time.Second || len(h.Samples) != 1 || h.Samples[0].Nodes["k1"] != 2*time.Second || h.Wall <= 0 {
		t.Errorf("cluster %v, samples %+v, wall %v: want 2s in one sample", h.Cluster, h.Samples, h.Wall)
	}
}
