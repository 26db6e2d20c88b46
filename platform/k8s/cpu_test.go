package k8s

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseCPULine(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    cpuLine
		wantErr string
	}{
		{name: "cgroup v2's usage in microseconds", line: "usage_usec 1500000", want: cpuLine{usage: 1500 * time.Millisecond, isUse: true}},
		{name: "cgroup v1's usage in nanoseconds", line: "usage_nsec 2000000001\r", want: cpuLine{usage: 2*time.Second + 1, isUse: true}},
		{name: "the cgroup's inode", line: "cgroup 4026532001", want: cpuLine{cgroup: "4026532001"}},
		{name: "a cgroup that could not be told", line: "cgroup ?", want: cpuLine{}},
		{name: "another key", line: "user_usec 12", wantErr: "unknown key user_usec"},
		{name: "no value", line: "usage_usec", wantErr: "want a key and a value"},
		{name: "a value that is no count", line: "usage_usec 1.5", wantErr: "1.5 is no count"},
		{name: "a negative count", line: "usage_nsec -3", wantErr: "-3 is no count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCPULine(tt.line)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestCPUGaveUp(t *testing.T) {
	forbidden := &ForbiddenError{Verb: "create", Resource: "pods/exec", Namespace: "ns"}
	tests := []struct {
		name     string
		err      error
		readings int
		want     bool
	}{
		{"exec forbidden", forbidden, 0, true},
		{"no counter", exitError(cpuNoCounter), 0, true},
		{"the script failed before its first reading", exitError(5), 0, true},
		{"the script failed after readings", exitError(5), 3, false},
		{"killed with its container", exitError(137), 0, false},
		{"terminated with its container", exitError(143), 0, false},
		{"the container not running", errors.New("container not found"), 0, false},
		{"the connection lost", errors.New("connection reset"), 12, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cpuGaveUp(tt.err, tt.readings); got != tt.want {
				t.Errorf("cpuGaveUp(%v, %d) = %v, want %v", tt.err, tt.readings, got, tt.want)
			}
		})
	}
}

func TestCPUCounter(t *testing.T) {
	type reading struct {
		cgroup string
		v      time.Duration
	}
	tests := []struct {
		name     string
		readings []reading
		want     time.Duration
	}{
		{name: "unread", want: 0},
		{name: "the first reading is the zero", readings: []reading{{"a", 30 * time.Second}}, want: 0},
		{name: "one container", readings: []reading{{"a", 30 * time.Second}, {"a", 31 * time.Second}, {"a", 33 * time.Second}}, want: 3 * time.Second},
		{
			name: "a restart: the new cgroup's whole counter is added",
			// The new container had used more by its first reading than
			// the old one's last: only its cgroup tells the restart.
			readings: []reading{{"a", 10 * time.Second}, {"a", 12 * time.Second}, {"b", 15 * time.Second}, {"b", 16 * time.Second}},
			want:     2*time.Second + 16*time.Second,
		},
		{
			name:     "a restart told by the counter going back alone",
			readings: []reading{{"", 10 * time.Second}, {"", 12 * time.Second}, {"", time.Second}, {"", 3 * time.Second}},
			want:     2*time.Second + 3*time.Second,
		},
		{
			name:     "a stream made again on the same container adds nothing twice",
			readings: []reading{{"a", 10 * time.Second}, {"a", 12 * time.Second}, {"a", 12 * time.Second}, {"a", 13 * time.Second}},
			want:     3 * time.Second,
		},
		{
			name:     "two restarts",
			readings: []reading{{"a", 5 * time.Second}, {"a", 6 * time.Second}, {"b", 2 * time.Second}, {"c", 4 * time.Second}, {"c", 5 * time.Second}},
			want:     time.Second + 2*time.Second + 5*time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c cpuCounter
			for _, r := range tt.readings {
				c.add(r.cgroup, r.v)
			}
			if got := c.total(); got != tt.want {
				t.Errorf("total %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCPUTimes follows four nodes' counters through the fake's exec
// sessions: one restarted (its cgroup changed), one restarted with no
// cgroup told, one whose exec is forbidden and one with no counter, each
// of the last two said once and left out.
func TestCPUTimes(t *testing.T) {
	forbidden := &ForbiddenError{Verb: "create", Resource: "pods/exec", Namespace: "ns", Err: errors.New("forbidden")}
	api := &fakeAPI{idle: make(chan string, 8), streams: map[string][]session{
		"b-1": {
			{out: "cgroup 11\nusage_usec 1000000\nusage_usec 1500000\n", err: errors.New("container killed")},
			{out: "cgroup 12\nusage_usec 200000\nusage_u", err: errors.New("connection lost")},
			{out: "cgroup 12\nusage_usec 250000\n"},
		},
		"b-2": {
			{out: "cgroup ?\nusage_nsec 5000\nusage_nsec 9000\n", err: errors.New("container killed")},
			{out: "cgroup ?\nusage_nsec 1000\n"},
		},
		"b-3": {{err: forbidden}},
		"c-4": {{stderr: "no cgroup CPU counter under /sys/fs/cgroup\n", err: exitError(cpuNoCounter)}},
	}}
	var mu sync.Mutex
	var said []string
	tg := newCluster(api, Options{Say: func(s string) { mu.Lock(); said = append(said, s); mu.Unlock() }},
		[]Node{{Pod: "b-1", ID: 1, Broker: true}, {Pod: "b-2", ID: 2, Broker: true}, {Pod: "b-3", ID: 3, Broker: true}, {Pod: "c-4", ID: 4, Controller: true}})
	tg.cpuRetry = time.Millisecond
	defer tg.Close()
	tg.startCPU()
	for range 2 { // b-1 and b-2 at their last session
		select {
		case <-api.idle:
		case <-time.After(10 * time.Second):
			t.Fatal("the exec sessions were not all run")
		}
	}
	for range 2 { // a second call says nothing again
		got, err := tg.CPUTimes(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]time.Duration{"b-1": 500*time.Millisecond + 250*time.Millisecond, "b-2": 4000 + 1000}
		if len(got) != len(want) || got["b-1"] != want["b-1"] || got["b-2"] != want["b-2"] {
			t.Errorf("CPUTimes %v, want %v", got, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(said) != 2 || !strings.Contains(strings.Join(said, "\n"), "the CPU of pod b-3 is not read (kubernetes: kbf may not create pods/exec") ||
		!strings.Contains(strings.Join(said, "\n"), "the CPU of pod c-4 is not read (command terminated with exit code 4 (no cgroup CPU counter under /sys/fs/cgroup))") {
		t.Errorf("said %q, want one line each for b-3 and c-4", said)
	}
}

// TestCPUTimesBadOutput stops reading a node whose output kbf cannot read,
// and says so.
func TestCPUTimesBadOutput(t *testing.T) {
	api := &fakeAPI{streams: map[string][]session{"b-1": {{out: "cgroup 1\nusage 12\n"}}}}
	var said []string
	tg := newCluster(api, Options{Say: func(s string) { said = append(said, s) }}, []Node{{Pod: "b-1", ID: 1, Broker: true}})
	tg.cpuRetry = time.Millisecond
	defer tg.Close()
	got, err := tg.CPUTimes(context.Background())
	if err != nil || len(got) != 0 {
		t.Errorf("CPUTimes %v, %v; want none read", got, err)
	}
	if len(said) != 1 || !strings.Contains(said[0], `cgroup CPU line "usage 12": unknown key usage`) {
		t.Errorf("said %q", said)
	}
}
