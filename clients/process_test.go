package clients

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func spec(client Name, dir string) Spec {
	return Spec{Client: client, Bootstrap: []string{"127.0.0.1:19092"}, Topic: "orders",
		Interval: 20 * time.Millisecond, Acks: "all", Dir: dir, RunID: "r1"}
}

func writeProbe(t *testing.T, dir, name, script string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCommand(t *testing.T) {
	empty, first, second := t.TempDir(), t.TempDir(), t.TempDir()
	rdk := writeProbe(t, second, "kbf-probe-librdkafka", "exit 0\n")
	writeProbe(t, first, "kbf-probe-java.jar", "")
	jar := filepath.Join(first, "kbf-probe-java.jar")
	if err := os.WriteFile(filepath.Join(empty, "kbf-probe-librdkafka"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := spec(Librdkafka, "out")
	tests := []struct {
		name    string
		loc     Locator
		client  Name
		want    []string // the program and its first arguments
		wantErr string
		is      error
	}{
		{name: "librdkafka in the second directory", loc: Locator{Dirs: []string{first, second}}, client: Librdkafka,
			want: []string{rdk, "--bootstrap=127.0.0.1:19092"}},
		{name: "java runs the jar", loc: Locator{Dirs: []string{first}, Java: "/usr/bin/java"}, client: Java,
			want: []string{"/usr/bin/java", "-jar", jar, "--bootstrap=127.0.0.1:19092"}},
		{name: "not built names the make target", loc: Locator{Dirs: []string{second}}, client: Java,
			wantErr: "java probe not built: no kbf-probe-java.jar in " + second + "; build it with make probe-java", is: ErrNotBuilt},
		{name: "no directories", loc: Locator{}, client: Librdkafka,
			wantErr: "no kbf-probe-librdkafka in nowhere; build it with make probe-librdkafka", is: ErrNotBuilt},
		{name: "not executable", loc: Locator{Dirs: []string{empty, second}}, client: Librdkafka,
			wantErr: "is not executable: rebuild it with make probe-librdkafka"},
		{name: "franz-go is in process", loc: Locator{Dirs: []string{first}}, client: FranzGo,
			wantErr: "franz-go runs in kbf's own process", is: errInProcess},
		{name: "unknown client", loc: Locator{Dirs: []string{first}}, client: "sarama", is: ErrUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s
			s.Client = tt.client
			got, err := tt.loc.Command(s)
			if tt.wantErr != "" || tt.is != nil {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || (tt.is != nil && !errors.Is(err, tt.is)) {
					t.Fatalf("Command() error = %v, want %q (%v)", err, tt.wantErr, tt.is)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got[:len(tt.want)], tt.want) || !slices.Equal(got[len(tt.want)-1:], s.Args()) {
				t.Fatalf("Command() = %q, want %q then the spec's arguments", got, tt.want)
			}
		})
	}
}

func TestCommandInvalidSpec(t *testing.T) {
	dir := t.TempDir()
	writeProbe(t, dir, "kbf-probe-librdkafka", "exit 0\n")
	s := spec(Librdkafka, "out")
	s.Acks = "0"
	l := Locator{Dirs: []string{dir}}
	if _, err := l.Command(s); err == nil || !strings.Contains(err.Error(), `librdkafka probe: acks "0"`) {
		t.Fatalf("Command() error = %v", err)
	}
}

// fakeProbe is a probe that writes its arguments, then waits for SIGTERM
// and says it drained. It reads the directory from its --out flag.
const fakeProbe = `for a in "$@"; do case "$a" in --out=*) out="${a#--out=}";; esac; done
printf '%s\n' "$@" > "$out/args"
trap 'echo drained > "$out/stopped"; exit 0' TERM
echo $$ > "$out/pid"
printf '{"client": "librdkafka", "run_id": "r1", "started": "%s"}\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" > "$out/client.json"
while :; do sleep 0.05; done
`

func TestStartStop(t *testing.T) {
	bin, out := t.TempDir(), filepath.Join(t.TempDir(), "trial", "librdkafka")
	writeProbe(t, bin, "kbf-probe-librdkafka", fakeProbe)
	l := &Locator{Dirs: []string{bin}}
	s := spec(Librdkafka, out)
	p, err := l.Start(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	info, err := p.Ready(context.Background())
	if err != nil || info.Client != Librdkafka || info.RunID != "r1" {
		t.Fatalf("Ready() = %+v, %v", info, err)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Fatalf("Stop() = %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "stopped")); err != nil || string(b) != "drained\n" {
		t.Fatalf("the probe did not stop by SIGTERM: %q, %v", b, err)
	}
	args, err := os.ReadFile(filepath.Join(out, "args"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Fields(string(args)), s.Args(); !slices.Equal(got, want) {
		t.Fatalf("probe arguments = %q, want %q", got, want)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Fatalf("second Stop() = %v", err)
	}
	assertGone(t, p.Pid())
}

func TestStopKillsAProbeThatIgnoresSIGTERM(t *testing.T) {
	bin, out := t.TempDir(), t.TempDir()
	writeProbe(t, bin, "kbf-probe-librdkafka", strings.Replace(fakeProbe,
		`trap 'echo drained > "$out/stopped"; exit 0' TERM`, `trap '' TERM`, 1))
	p, err := (&Locator{Dirs: []string{bin}}).Start(context.Background(), spec(Librdkafka, out))
	if err != nil {
		t.Fatal(err)
	}
	p.Grace = 50 * time.Millisecond
	waitFile(t, filepath.Join(out, "pid"))
	err = p.Stop(context.Background())
	if err == nil || !strings.Contains(err.Error(), "librdkafka probe did not stop within 50ms of SIGTERM: killed") {
		t.Fatalf("Stop() = %v, want the probe killed", err)
	}
	assertGone(t, p.Pid())
}

func TestCancelStopsTheProbe(t *testing.T) {
	bin, out := t.TempDir(), t.TempDir()
	writeProbe(t, bin, "kbf-probe-librdkafka", fakeProbe)
	ctx, cancel := context.WithCancel(context.Background())
	p, err := (&Locator{Dirs: []string{bin}}).Start(ctx, spec(Librdkafka, out))
	if err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(out, "pid"))
	cancel()
	if err := p.Wait(); err != nil {
		t.Fatalf("Wait() = %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "stopped")); err != nil {
		t.Fatalf("cancel did not SIGTERM the probe: %v", err)
	}
}

func TestWaitReportsTheProbesError(t *testing.T) {
	bin := t.TempDir()
	writeProbe(t, bin, "kbf-probe-librdkafka",
		"echo starting >&2\necho 'kbf-probe-librdkafka: topic orders does not exist (kbf up creates it)' >&2\nexit 1\n")
	p, err := (&Locator{Dirs: []string{bin}}).Start(context.Background(), spec(Librdkafka, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	err = p.Wait()
	want := "librdkafka probe: exit status 1: kbf-probe-librdkafka: topic orders does not exist (kbf up creates it)"
	if err == nil || err.Error() != want {
		t.Fatalf("Wait() = %v, want %q", err, want)
	}
	if !strings.Contains(p.Stderr(), "starting") {
		t.Fatalf("Stderr() = %q", p.Stderr())
	}
}

func TestReady(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		old     bool // a client.json from an earlier run is in the directory
		wantErr string
	}{
		{name: "exits with an error", script: "echo 'kbf-probe-librdkafka: no brokers' >&2; exit 1\n",
			wantErr: "librdkafka probe: exit status 1: kbf-probe-librdkafka: no brokers"},
		{name: "exits cleanly before writing client.json", script: "exit 0\n",
			wantErr: "librdkafka probe exited before its first send"},
		{name: "an earlier run's client.json", script: "exit 0\n", old: true,
			wantErr: "librdkafka probe exited before its first send"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin, out := t.TempDir(), t.TempDir()
			if tt.old {
				old := `{"client": "librdkafka", "run_id": "r1", "started": "2026-01-01T00:00:00Z"}`
				if err := os.WriteFile(filepath.Join(out, InfoFile), []byte(old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			writeProbe(t, bin, "kbf-probe-librdkafka", tt.script)
			p, err := (&Locator{Dirs: []string{bin}}).Start(context.Background(), spec(Librdkafka, out))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Stop(context.Background())
			if _, err := p.Ready(context.Background()); err == nil || err.Error() != tt.wantErr {
				t.Fatalf("Ready() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestStartMissingProbe(t *testing.T) {
	_, err := (&Locator{Dirs: []string{t.TempDir()}}).Start(context.Background(), spec(Java, t.TempDir()))
	if !errors.Is(err, ErrNotBuilt) || !strings.Contains(err.Error(), "make probe-java") {
		t.Fatalf("Start() = %v, want ErrNotBuilt naming make probe-java", err)
	}
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", filepath.Base(path))
}

// assertGone checks no process has the probe's pid any more: it was reaped.
func assertGone(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("probe process %d still exists (kill 0: %v)", pid, err)
	}
}
