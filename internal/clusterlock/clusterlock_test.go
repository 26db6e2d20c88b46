package clusterlock

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The child process: with KBF_LOCK_TEST_DIR set, TestChild takes the
// lock of the project KBF_LOCK_TEST_PROJECT in that directory, says
// "locked" (or the error) and holds it until its standard input closes
// or it is killed.
const (
	envDir     = "KBF_LOCK_TEST_DIR"
	envProject = "KBF_LOCK_TEST_PROJECT"
)

func TestChild(t *testing.T) {
	d := os.Getenv(envDir)
	if d == "" {
		t.Skip("the child process of the other tests")
	}
	dir = func() (string, error) { return d, nil }
	release, err := Acquire(Key{Endpoint: "unix:///test.sock", Project: os.Getenv(envProject)})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("locked")
	_, _ = io.Copy(io.Discard, os.Stdin)
	release()
}

// child is a kbf holding the lock in another process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	line  string // its first line: "locked" or "error: …"
}

// startChild starts the test binary as a child that takes the lock of
// project in d, and waits for its first line.
func startChild(t *testing.T, d, project string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.v=false")
	cmd.Env = append(os.Environ(), envDir+"="+d, envProject+"="+project)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the child's first line: %v", err)
	}
	c.line = strings.TrimSpace(line)
	return c
}

// inDir points the package's lock directory at a test's own.
func inDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	old := dir
	dir = func() (string, error) { return d, nil }
	t.Cleanup(func() { dir = old })
	return d
}

func key(project string) Key { return Key{Endpoint: "unix:///test.sock", Project: project} }

func TestAnotherProcessIsRefused(t *testing.T) {
	d := inDir(t)
	c := startChild(t, d, "kbf")
	if c.line != "locked" {
		t.Fatalf("child: %s", c.line)
	}
	_, err := Acquire(key("kbf"))
	var inUse *InUseError
	if !errors.As(err, &inUse) || !errors.Is(err, ErrInUse) {
		t.Fatalf("Acquire beside a holder: %v, want an *InUseError", err)
	}
	if inUse.Holder.PID != c.cmd.Process.Pid {
		t.Errorf("holder pid %d, want the child's %d", inUse.Holder.PID, c.cmd.Process.Pid)
	}
	msg := err.Error()
	for _, want := range []string{
		"the cluster kbf is in use by another kbf (pid " + fmt.Sprint(c.cmd.Process.Pid) + ": ",
		filepath.Base(os.Args[0]) + " -test.run=^TestChild$",
		", since " + inUse.Holder.Since.Local().Format(time.TimeOnly) + "): wait for it to end, or run on a cluster of your own",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q\nlacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message of several lines: %q", msg)
	}
}

func TestOtherClustersAreFree(t *testing.T) {
	d := inDir(t)
	if c := startChild(t, d, "kbf"); c.line != "locked" {
		t.Fatalf("child: %s", c.line)
	}
	// Another project (bench's lane kbf-2), and the same project on another engine.
	for _, k := range []Key{key("kbf-2"), {Endpoint: "tcp://10.0.0.1:2376", Project: "kbf"}} {
		release, err := Acquire(k)
		if err != nil {
			t.Fatalf("%+v: %v", k, err)
		}
		release()
	}
}

func TestReleasedWhenTheHolderDies(t *testing.T) {
	d := inDir(t)
	c := startChild(t, d, "kbf")
	if c.line != "locked" {
		t.Fatalf("child: %s", c.line)
	}
	if _, err := Acquire(key("kbf")); !errors.Is(err, ErrInUse) {
		t.Fatalf("while the child lives: %v, want ErrInUse", err)
	}
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
	// The dead child's file is still there, with its lines in it.
	if b, err := os.ReadFile(lockPath(t)); err != nil || len(b) == 0 {
		t.Fatalf("the dead holder's file: %q, %v; want it left as it was", b, err)
	}
	release, err := Acquire(key("kbf"))
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	release()
}

func TestReleasedAtTheLastRelease(t *testing.T) {
	d := inDir(t)
	r1, err := Acquire(key("kbf"))
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Acquire(key("kbf")) // the same process again: shared
	if err != nil {
		t.Fatalf("a second holder in the same process: %v", err)
	}
	r1()
	r1() // a second call does nothing
	if c := startChild(t, d, "kbf"); !strings.HasPrefix(c.line, fmt.Sprintf("error: the cluster kbf is in use by another kbf (pid %d: ", os.Getpid())) {
		t.Fatalf("child beside one release left: %s", c.line)
	}
	r2()
	c := startChild(t, d, "kbf")
	if c.line != "locked" {
		t.Fatalf("child after the last release: %s", c.line)
	}
	if b, err := os.ReadFile(lockPath(t)); err != nil || !strings.HasPrefix(string(b), fmt.Sprintf("%d\n", c.cmd.Process.Pid)) {
		t.Fatalf("the child's file: %q, %v; want its pid first", b, err)
	}
}

func lockPath(t *testing.T) string {
	t.Helper()
	p, err := path(key("kbf"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUnwritableDirectory: a lock directory that cannot be made or
// written refuses in one line saying so, never as a cluster in use.
func TestUnwritableDirectory(t *testing.T) {
	for _, tc := range []struct {
		name   string
		make   func(t *testing.T, d string) string // the lock directory
		why    string
		asRoot bool // the case holds for root too
	}{
		{"a file in the way", func(t *testing.T, d string) string {
			f := filepath.Join(d, "kbf")
			if err := os.WriteFile(f, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(f, "locks")
		}, "not a directory", true},
		{"a read-only directory", func(t *testing.T, d string) string {
			if err := os.Chmod(d, 0o500); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Chmod(d, 0o700) })
			return filepath.Join(d, "locks")
		}, "permission denied", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.asRoot && (runtime.GOOS == "windows" || os.Geteuid() == 0) {
				t.Skip("root writes anywhere")
			}
			locks := tc.make(t, inDir(t))
			dir = func() (string, error) { return locks, nil }
			_, err := Acquire(key("kbf"))
			if err == nil {
				t.Fatal("Acquire in a directory that cannot be written: no error")
			}
			if errors.Is(err, ErrInUse) {
				t.Fatalf("an unwritable directory taken for a holder: %v", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "cannot lock the cluster kbf against another kbf") || !strings.Contains(msg, tc.why) || strings.Contains(msg, "\n") {
				t.Errorf("message %q: want one line saying the lock could not be made, and %q", msg, tc.why)
			}
		})
	}
}

func TestNoCacheDirectory(t *testing.T) {
	inDir(t)
	dir = func() (string, error) { return "", errors.New("neither $XDG_CACHE_HOME nor $HOME are defined") }
	_, err := Acquire(key("kbf"))
	if err == nil || !strings.Contains(err.Error(), "$HOME") {
		t.Fatalf("Acquire with no cache directory: %v", err)
	}
}

func TestParseHolder(t *testing.T) {
	since := time.Date(2026, 12, 7, 10, 2, 11, 0, time.UTC)
	for _, tc := range []struct {
		name, in string
		want     Holder
	}{
		{"whole", "1234\n2026-12-07T10:02:11Z\nkbf bench --trials 10\n", Holder{1234, "kbf bench --trials 10", since}},
		{"empty: released", "", Holder{}},
		{"half written", "1234\n2026-12", Holder{}},
		{"no pid", "x\n2026-12-07T10:02:11Z\nkbf run\n", Holder{}},
		{"bad time", "1234\nnoon\nkbf run\n", Holder{PID: 1234, Command: "kbf run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseHolder(tc.in); got != tc.want {
				t.Errorf("parseHolder(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestMessageWithoutHolder(t *testing.T) {
	got := (&InUseError{Project: "kbf-2"}).Error()
	want := "the cluster kbf-2 is in use by another kbf: wait for it to end, or run on a cluster of your own (--file with --project-name)"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestSafeName(t *testing.T) {
	if got := safe("../x y"); got != ".._x_y" {
		t.Errorf("safe = %q", got)
	}
}

func TestClock(t *testing.T) {
	now := time.Now()
	yesterday := now.Add(-24 * time.Hour)
	for _, tc := range []struct {
		name string
		in   time.Time
		want string
	}{
		{"today: the time of day", now, now.Format(time.TimeOnly)},
		{"another day: the date too", yesterday, yesterday.Format(time.DateTime)},
		{"unknown", time.Time{}, "an unknown time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := clock(tc.in); got != tc.want {
				t.Errorf("clock = %q, want %q", got, tc.want)
			}
		})
	}
}
