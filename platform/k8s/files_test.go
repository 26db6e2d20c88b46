package k8s

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/results"
)

func TestParseLogList(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    []logFile
		wantErr string
	}{
		{name: "empty", out: "", want: nil},
		{name: "files, a name with a space", out: "120 1764637200 server.log\n0 1764637201 controller.log\n7 1764633600 server.log.2026-12-02-00\n3 1764637200 my file.log\n",
			want: []logFile{{"server.log", 120, time.Unix(1764637200, 0)}, {"controller.log", 0, time.Unix(1764637201, 0)},
				{"server.log.2026-12-02-00", 7, time.Unix(1764633600, 0)}, {"my file.log", 3, time.Unix(1764637200, 0)}}},
		{name: "a line with no name", out: "120 1764637200\n", wantErr: `line "120 1764637200"`},
		{name: "a size that is no number", out: "big 1764637200 server.log\n", wantErr: "want size, time and name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseLogList(tt.out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestWantedLog(t *testing.T) {
	since := time.Date(2026, 12, 2, 1, 0, 0, 500e6, time.UTC)
	tests := []struct {
		name string
		file string
		mod  time.Time
		want bool
	}{
		{"a logger's file, however old", results.ControllerLog, since.Add(-time.Hour), true},
		{"a rolled-over file from the trial's second", results.ServerLog + ".2026-12-02-01", since.Truncate(time.Second), true},
		{"a rolled-over file from before", results.StateChangeLog + ".2026-12-01-23", since.Add(-time.Hour), false},
		{"another logger's file", "kafka-request.log", since, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chaos.WantedLog(tt.file, tt.mod, since); got != tt.want {
				t.Errorf("chaos.WantedLog(%s) = %v, want %v", tt.file, got, tt.want)
			}
		})
	}
}

// TestCollectLogFiles: a container that writes the controller's loggers to
// files has them copied by exec; one whose files hold only server.log, or
// none, has its standard output split instead.
func TestCollectLogFiles(t *testing.T) {
	list, _, _ := strings.Cut(listLogs, "\n")
	list = fmt.Sprintf(list, chaos.LogDir)
	now := time.Now().Unix()
	out := "[2026-12-02 01:00:00,000] INFO from the output (kafka.server.KafkaRaftServer)\n"
	tests := []struct {
		name      string
		listing   string
		files     map[string]string
		wantFiles map[string]string
		wantCats  int
	}{
		{name: "the distribution's files",
			listing: fmt.Sprintf("10 %d server.log\n12 %d controller.log\n5 %d kafka-request.log\n", now, now, now),
			files: map[string]string{"kafka-broker-1:" + chaos.LogDir + "/server.log": "server line\n",
				"kafka-broker-1:" + chaos.LogDir + "/controller.log": "controller line\n"},
			wantFiles: map[string]string{"server.log": "server line\n", "controller.log": "controller line\n"},
			wantCats:  2},
		{name: "only server.log in files: the output wins",
			listing:   fmt.Sprintf("10 %d server.log\n", now),
			files:     map[string]string{"kafka-broker-1:" + chaos.LogDir + "/server.log": "server line\n"},
			wantFiles: map[string]string{"server.log": out},
			wantCats:  1},
		{name: "no files: the output", listing: "", wantFiles: map[string]string{"server.log": out}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{scripts: map[string]session{list: {out: tt.listing}}, files: tt.files,
				logs: map[string]string{"kafka-broker-1/current": out}}
			tg := testCluster(api)
			defer tg.Close()
			dst := filepath.Join(t.TempDir(), "logs")
			if err := tg.CollectLogs(context.Background(), "kafka-broker-1", time.Now().Add(-time.Minute), dst); err != nil {
				t.Fatal(err)
			}
			for name, want := range tt.wantFiles {
				if b, err := os.ReadFile(filepath.Join(dst, name)); err != nil || string(b) != want {
					t.Errorf("%s: %q, %v; want %q", name, b, err, want)
				}
			}
			if len(api.cats) != tt.wantCats {
				t.Errorf("files read %q, want %d", api.cats, tt.wantCats)
			}
		})
	}
}

// TestListLogsScript runs the listing with sh on a directory of files.
func TestListLogsScript(t *testing.T) {
	if _, err := exec.LookPath("stat"); err != nil {
		t.Skip("no stat")
	}
	dir := t.TempDir()
	mod := time.Unix(1764637200, 0)
	for name, body := range map[string]string{"server.log": "abc", "my file.log": ""} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, mod, mod)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	for _, tt := range []struct {
		name, dir string
		want      []logFile
	}{
		{"files, not directories", dir, []logFile{{"my file.log", 0, mod}, {"server.log", 3, mod}}},
		{"no directory", filepath.Join(dir, "none"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := exec.Command("sh", "-c", fmt.Sprintf(listLogs, tt.dir)).Output()
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseLogList(string(out))
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
