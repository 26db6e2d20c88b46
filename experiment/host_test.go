package experiment

import (
	"errors"
	"strings"
	"testing"
	"time"
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
