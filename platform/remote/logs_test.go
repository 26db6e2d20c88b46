package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/kafkaadmin"
)

func TestCheckLogsCommand(t *testing.T) {
	tests := []struct {
		name, cmd, wantErr string
	}{
		{"kubectl by id", "kubectl logs -n kafka my-kafka-{id} --since-time={since}", ""},
		{"ssh by host", "ssh {host} cat /var/log/kafka/server.log", ""},
		{"the shell's own braces", "ssh {host} 'cat ${LOGDIR}/server.log' | awk '{print $0}'", ""},
		{"empty", "  ", "empty"},
		{"no node", "cat /var/log/kafka/server.log", "names no node"},
		{"since alone names none", "kubectl logs --since-time={since} kafka-0", "names no node"},
		{"a placeholder kbf does not know", "kubectl logs {pod}", "{pod}: no such placeholder"},
		{"the shell's ${id} is not kbf's", "cat /logs/${id}/server.log", "names no node"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLogsCommand(tc.cmd)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	since := time.Date(2026, 11, 30, 3, 0, 0, 0, time.FixedZone("x", 3600))
	tests := []struct {
		name, cmd, host, want, wantErr string
	}{
		{"id and since", "kubectl logs kafka-{id} --since-time={since}", "", "kubectl logs kafka-2 --since-time=2026-11-30T02:00:00Z", ""},
		{"a DNS name", "ssh {host} cat server.log", "kafka-2.kafka.svc", "ssh kafka-2.kafka.svc cat server.log", ""},
		{"the shell's ${id} kept", "cat ${id}/{id}.log", "", "cat ${id}/2.log", ""},
		{"no host known", "ssh {host} cat server.log", "", "", "knows no host for node 2"},
		{"a host the shell would read", "ssh {host} cat server.log", "a;rm -rf x", "", `advertises host "a;rm -rf x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := expand(tc.cmd, 2, tc.host, since)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("%q, %v; want an error saying %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("%q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestCollectLogsCommand: a command that prints a node's recorded log files
// yields the files --logs DIR copies, for a broker by its id or its host and
// for a dedicated controller; a command that fails, hangs or prints no log
// is one line naming it and what it wrote on its standard error.
func TestCollectLogsCommand(t *testing.T) {
	src, err := filepath.Abs(filepath.Join("testdata", "nodelogs"))
	if err != nil {
		t.Fatal(err)
	}
	tgt := func(cmd string, timeout time.Duration) *Cluster {
		return &Cluster{
			opts:        Options{LogsCommand: cmd, LogsTimeout: timeout, Dir: src},
			brokers:     []kafkaadmin.Broker{{ID: 1, Addr: "1:9092"}, {ID: 2, Addr: "2:9092"}},
			controllers: []int32{100},
		}
	}
	byDir := &Cluster{opts: Options{Logs: src}}
	tests := []struct {
		name, cmd, node string
		timeout         time.Duration
		wantErr         []string
	}{
		// Each file ended by a newline: a killed broker's last line may
		// have none, and would run into the next file's first.
		{name: "a broker by its id", cmd: "for f in " + src + "/{id}/*.log; do cat $f; echo; done", node: "1"},
		// The test's brokers advertise hosts "1" and "2", their folders.
		{name: "a broker by its host", cmd: "cd " + src + "/{host} && cat state-change.log server.log", node: "2"},
		{name: "in its directory (a scenario file's)", cmd: "for f in ./{id}/*.log; do cat $f; echo; done", node: "2"},
		{name: "a dedicated controller", cmd: "for f in " + src + "/{id}/*.log; do cat $f; echo; done", node: "100"},
		{name: "a controller by host", cmd: "cat " + src + "/{host}/*.log", node: "100", wantErr: []string{"knows no host for node 100"}},
		{name: "the command fails", cmd: "echo 'Error from server (NotFound): pods \"kafka-{id}\" not found' >&2; exit 1", node: "2",
			wantErr: []string{`logs command "echo`, "exit status 1", `pods "kafka-2" not found`}},
		{name: "the command hangs", cmd: "echo waiting >&2; sleep 30 # {id}", node: "1", timeout: 300 * time.Millisecond,
			wantErr: []string{"not done within 300ms", ": waiting"}},
		// ssh's ControlPersist master does this: it outlives the command
		// holding its standard output. The command's exit ends the wait.
		{name: "a child left holding the output", cmd: "for f in " + src + "/{id}/*.log; do cat $f; echo; done; sleep 20 &", node: "1"},
		{name: "the command and its child hang", cmd: "echo waiting >&2; sleep 20 & sleep 20 # {id}", node: "1", timeout: 300 * time.Millisecond,
			wantErr: []string{"not done within 300ms", ": waiting"}},
		{name: "the command prints no log", cmd: "echo no such node {id}", node: "1", wantErr: []string{"printed no Kafka log entry"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dst := t.TempDir()
			start := time.Now()
			err := tgt(tc.cmd, tc.timeout).CollectLogs(context.Background(), tc.node, time.Now(), dst)
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v", took)
			}
			if len(tc.wantErr) > 0 {
				if err == nil || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line", err)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q, want it to say %q", err, w)
					}
				}
				if ents, _ := os.ReadDir(dst); len(ents) > 0 {
					t.Errorf("%d files left by a command that failed", len(ents))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := t.TempDir()
			if err := byDir.CollectLogs(context.Background(), tc.node, time.Now(), want); err != nil {
				t.Fatal(err)
			}
			ents, _ := os.ReadDir(want)
			for _, e := range ents {
				w, _ := os.ReadFile(filepath.Join(want, e.Name()))
				g, err := os.ReadFile(filepath.Join(dst, e.Name()))
				if err != nil || strings.TrimRight(string(g), "\n") != strings.TrimRight(string(w), "\n") {
					t.Errorf("%s: %d bytes (%v), want the %d bytes --logs copies", e.Name(), len(g), err, len(w))
				}
			}
			if got, _ := os.ReadDir(dst); len(got) != len(ents) {
				t.Errorf("%d files, want %d", len(got), len(ents))
			}
		})
	}
}
