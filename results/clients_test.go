package results

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindClients(t *testing.T) {
	write := func(t *testing.T, path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		files []string // under the trial directory, besides probe.csv
		want  []ClientTrial
	}{
		{name: "none", want: nil},
		{name: "two clients", files: []string{
			"clients/java/probe.csv", "clients/java/client.log", "clients/java/client.json",
			"clients/librdkafka/probe.csv", "clients/librdkafka/log.csv",
		}, want: []ClientTrial{
			{Name: "java", Probe: "clients/java/probe.csv", ClientLog: "clients/java/client.log", Info: "clients/java/client.json"},
			{Name: "librdkafka", Probe: "clients/librdkafka/probe.csv", Log: "clients/librdkafka/log.csv"},
		}},
		{name: "a client that never sent", files: []string{"clients/java/client.log"}, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, ProbeFile), "partition,seq,offset,sent,acked,received,error\n")
			for _, f := range tc.files {
				write(t, filepath.Join(dir, f), "")
			}
			trials, err := Find(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := trials[0].Clients
			if len(got) != len(tc.want) {
				t.Fatalf("clients %+v, want %+v", got, tc.want)
			}
			abs := func(p string) string {
				if p == "" {
					return ""
				}
				return filepath.Join(dir, p)
			}
			for i, w := range tc.want {
				w.Dir = ClientDir(dir, w.Name)
				w.Probe, w.Log, w.ClientLog, w.Info = abs(w.Probe), abs(w.Log), abs(w.ClientLog), abs(w.Info)
				if got[i] != w {
					t.Errorf("client %d: %+v, want %+v", i, got[i], w)
				}
				ct := got[i].Trial(&trials[0])
				if lp, _ := ct.LogPath(); lp != w.Log {
					t.Errorf("client %s: log %q, want its own %q", w.Name, lp, w.Log)
				}
				if cl := ct.ClientLogFile(); cl != w.ClientLog {
					t.Errorf("client %s: client log %q, want its own %q", w.Name, cl, w.ClientLog)
				}
				if g, want := ct.GroupPath(GroupEventsFile), filepath.Join(w.Dir, GroupEventsFile); g != want {
					t.Errorf("client %s: group events %q, want its own %q", w.Name, g, want)
				}
				if g, want := trials[0].GroupPath(GroupFile), filepath.Join(dir, GroupFile); g != want {
					t.Errorf("the trial's group file %q, want %q", g, want)
				}
			}
		})
	}
}
