package results

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// trialDir makes a trial directory in a new temporary directory: meta.json
// with the trial's window, probe.csv with one good row, and any further
// files named in extra (contents by name).
func trialDir(t *testing.T, root, name string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Join(dir, NodeLogsDir, "k1"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := &Meta{Kind: "trial", Started: time.Date(2026, 11, 30, 3, 26, 9, 0, time.UTC),
		Ended: time.Date(2026, 11, 30, 3, 26, 10, 0, time.UTC), Probe: Probe{Partitions: []int32{0}}}
	if err := WriteMeta(dir, m); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ProbeFile), probeHead+goodRow)
	writeFile(t, filepath.Join(dir, NodeLogsDir, "k1", "server.log"), "")
	return dir
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
}

func symlink(t *testing.T, to, path string) {
	t.Helper()
	os.Remove(path)
	if err := os.Symlink(to, path); err != nil {
		t.Fatal(err)
	}
}

// Every file the analysis would read whole is refused at once when it is
// not a regular file, and a file that is there but cannot be read is an
// error, never taken for an absent one.
func TestFindRefuses(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	for _, tc := range []struct {
		name string
		// edit breaks the trial directory dir and returns the path to
		// give Find and the file its error must name.
		edit func(t *testing.T, dir string) (path, file string)
		want error
	}{
		{name: "a named pipe as PATH", want: ErrNotRegular, edit: func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "pipe.csv")
			mkfifo(t, p)
			return p, p
		}},
		{name: "/dev/zero as PATH", want: ErrNotRegular, edit: func(*testing.T, string) (string, string) {
			return "/dev/zero", "/dev/zero"
		}},
		{name: "probe.csv a named pipe", want: ErrNotRegular, edit: func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, ProbeFile)
			mkfifo(t, p)
			return dir, p
		}},
		{name: "probe.csv a link to /dev/zero", want: ErrNotRegular, edit: func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, ProbeFile)
			symlink(t, "/dev/zero", p)
			return dir, p
		}},
		{name: "meta.json a link to /dev/zero", want: ErrNotRegular, edit: func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, MetaFile)
			symlink(t, "/dev/zero", p)
			return dir, p
		}},
		{name: "client.log a named pipe", want: ErrNotRegular, edit: func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, ClientLog)
			mkfifo(t, p)
			return dir, p
		}},
		{name: "a node log a named pipe", want: ErrNotRegular, edit: func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, NodeLogsDir, "k1", "server.log")
			mkfifo(t, p)
			return dir, p
		}},
		{name: "a node's logs linked, holding a pipe", want: ErrNotRegular, edit: func(t *testing.T, dir string) (string, string) {
			elsewhere := filepath.Join(t.TempDir(), "k2")
			if err := os.Mkdir(elsewhere, 0o755); err != nil {
				t.Fatal(err)
			}
			mkfifo(t, filepath.Join(elsewhere, "server.log"))
			symlink(t, elsewhere, filepath.Join(dir, NodeLogsDir, "k2"))
			return dir, filepath.Join(dir, NodeLogsDir, "k2", "server.log")
		}},
		{name: "log.csv a directory", want: ErrNotRegular, edit: func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, LogFile)
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return dir, p
		}},
		{name: "log.csv a dangling link", want: os.ErrNotExist, edit: func(t *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, LogFile)
			symlink(t, filepath.Join(dir, "gone"), p)
			return dir, p + ": cannot be read"
		}},
		{name: "meta.json without probe.csv", want: errNoProbe, edit: func(t *testing.T, dir string) (string, string) {
			if err := os.Remove(filepath.Join(dir, ProbeFile)); err != nil {
				t.Fatal(err)
			}
			return dir, dir
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := trialDir(t, t.TempDir(), "trial-01")
			path, file := tc.edit(t, dir)
			done := make(chan struct{})
			var trials []Trial
			var err error
			go func() {
				defer close(done)
				trials, err = Find(path)
			}()
			<-done // a hang here is the failure: the test binary's timeout names it
			if err == nil {
				t.Fatalf("Find(%s) = %d trials, no error", path, len(trials))
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("error %q does not wrap %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), file) {
				t.Errorf("error %q does not begin with %q", err, file)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is more than one line", err)
			}
		})
	}
}

func TestFindTrial(t *testing.T) {
	dir := trialDir(t, t.TempDir(), "trial-01")
	trials, err := Find(dir)
	if err != nil || len(trials) != 1 {
		t.Fatalf("Find = %v, %v; want one trial", trials, err)
	}
	if trials[0].Log != "" {
		t.Errorf("Log = %q without a log.csv", trials[0].Log)
	}
	writeFile(t, filepath.Join(dir, LogFile), "partition,offset,seq\n0,1042,0\n")
	// Files the analysis does not read may be anything.
	mkfifo(t, filepath.Join(dir, "notes.fifo"))
	trials, err = Find(dir)
	if err != nil || len(trials) != 1 {
		t.Fatalf("Find = %v, %v; want one trial", trials, err)
	}
	if want := filepath.Join(dir, LogFile); trials[0].Log != want {
		t.Errorf("Log = %q, want %q", trials[0].Log, want)
	}
}

// In a run directory each broken trial is named and the others still found.
func TestFindRun(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ []string // trials to break: probe.csv removed or made a pipe
		good   []string
	}{
		{name: "all good", good: []string{"trial-01", "trial-02", "trial-03"}},
		{name: "one without probe.csv", break_: []string{"trial-02"}, good: []string{"trial-01", "trial-03"}},
		{name: "two broken", break_: []string{"trial-01", "trial-03"}, good: []string{"trial-02"}},
		{name: "all broken", break_: []string{"trial-01", "trial-02", "trial-03"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for _, n := range []string{"trial-01", "trial-02", "trial-03"} {
				trialDir(t, root, n)
			}
			for i, n := range tc.break_ {
				p := filepath.Join(root, n, ProbeFile)
				if i%2 == 0 {
					os.Remove(p)
				} else {
					mkfifo(t, p)
				}
			}
			trials, err := Find(root)
			var got []string
			for _, tr := range trials {
				got = append(got, filepath.Base(tr.Dir))
			}
			if strings.Join(got, " ") != strings.Join(tc.good, " ") {
				t.Errorf("trials %v, want %v", got, tc.good)
			}
			if len(tc.break_) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error for the broken trials")
			}
			for _, n := range tc.break_ {
				if !strings.Contains(err.Error(), filepath.Join(root, n)) {
					t.Errorf("error %q does not name %s", err, n)
				}
			}
			if len(tc.good) == 0 != errors.Is(err, ErrNoResults) {
				t.Errorf("error %q: wraps ErrNoResults %v, want %v", err, errors.Is(err, ErrNoResults), len(tc.good) == 0)
			}
			var b BrokenTrials
			if len(tc.good) > 0 && (!errors.As(err, &b) || len(b) != len(tc.break_)) {
				t.Errorf("error %q: want BrokenTrials of %d", err, len(tc.break_))
			}
		})
	}
}

// OpenProbe's decoder holds the rows to the trial's window, and stops
// when its context is done.
func TestOpenProbe(t *testing.T) {
	dir := trialDir(t, t.TempDir(), "trial-01")
	trials, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := trials[0].OpenProbe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var m Message
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	d.Close()

	writeFile(t, trials[0].Probe, probeHead+goodRow+"0,1,1043,2026-11-30T03:26:11.000000000Z,,,\n")
	d, err = trials[0].OpenProbe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, err = decodeAll(d)
	checkParseError(t, err, trials[0].Probe, 3, 10, errOutsideTrial, "the trial's window is 2026-11-30T03:26:09Z ~ 2026-11-30T03:26:10Z")
}

// endless is a probe CSV that never ends.
type endless struct {
	n   int
	buf []byte
}

func (e *endless) Read(p []byte) (int, error) {
	if len(e.buf) == 0 {
		if e.n == 0 {
			e.buf = []byte(probeHead)
		} else {
			e.buf = []byte(strings.Replace(goodRow, "0,0,", "0,"+strconv.Itoa(e.n)+",", 1))
		}
		e.n++
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

// A decoding loop stops soon after its context is cancelled, however long
// the file.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := NewDecoder(&ctxFile{ctx: ctx, f: io.NopCloser(&endless{})}, "probe.csv")
	var m Message
	const cancelAt, bound = 1000, 1000 + 10000
	for i := 0; ; i++ {
		if i == cancelAt {
			cancel()
		}
		err := d.Decode(&m)
		if errors.Is(err, context.Canceled) {
			if i < cancelAt {
				t.Fatalf("cancelled at row %d, before the cancel", i)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if i > bound {
			t.Fatalf("still decoding %d rows after the cancel", i-cancelAt)
		}
	}
}

func TestOpenCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), ProbeFile)
	writeFile(t, p, probeHead+goodRow)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f, err := Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := decodeAll(NewDecoder(f, p)); !errors.Is(err, context.Canceled) {
		t.Errorf("decoding a file opened with a cancelled context: %v, want context.Canceled", err)
	}
}

// A Trial made by hand, not by Find, still finds its log.csv, and still
// refuses a broken one.
func TestLogPath(t *testing.T) {
	dir := trialDir(t, t.TempDir(), "trial-01")
	tr := Trial{Dir: dir, Probe: filepath.Join(dir, ProbeFile)}
	if p, err := tr.LogPath(); p != "" || err != nil {
		t.Errorf("LogPath without log.csv = %q, %v", p, err)
	}
	writeFile(t, filepath.Join(dir, LogFile), "partition,offset,seq\n0,1042,0\n")
	if p, err := tr.LogPath(); p != filepath.Join(dir, LogFile) || err != nil {
		t.Errorf("LogPath = %q, %v", p, err)
	}
	symlink(t, "/dev/zero", filepath.Join(dir, LogFile))
	if _, err := tr.OpenLog(context.Background()); !errors.Is(err, ErrNotRegular) {
		t.Errorf("OpenLog of a link to /dev/zero: %v, want ErrNotRegular", err)
	}
}

// TestFindWatch: a watch's directory is read as a run's, its incidents
// (meta kind incident) as its trials, in their order; other folders are
// not trials.
func TestFindWatch(t *testing.T) {
	root := t.TempDir()
	for _, n := range []int{2, 1, 10} {
		dir := trialDir(t, root, IncidentDir(n))
		m, err := ReadMeta(dir)
		if err != nil {
			t.Fatal(err)
		}
		m.Kind = KindIncident
		if err := WriteMeta(dir, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "segments"), 0o755); err != nil {
		t.Fatal(err)
	}
	trials, err := Find(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range trials {
		got = append(got, filepath.Base(tr.Dir)+":"+tr.Meta.Kind)
	}
	if want := "incident-0001:incident incident-0002:incident incident-0010:incident"; strings.Join(got, " ") != want {
		t.Errorf("found %v, want %s", got, want)
	}
}

// A decoder of a trial's file closes the file it opened, once; a decoder
// made from a reader has nothing to close.
func TestDecoderClose(t *testing.T) {
	dir := trialDir(t, t.TempDir(), "trial-01")
	writeFile(t, filepath.Join(dir, LogFile), "partition,offset,seq\n0,1042,0\n")
	trials, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	probe, err := trials[0].OpenProbe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	log, err := trials[0].OpenLog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]io.Closer{"OpenProbe": probe, "OpenLog": log} {
		if err := c.Close(); err != nil {
			t.Errorf("%s: first Close: %v", name, err)
		}
		if err := c.Close(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s: second Close: %v, want os.ErrClosed (the file closed by the first)", name, err)
		}
	}
	if err := NewDecoder(strings.NewReader(probeHead), "probe.csv").Close(); err != nil {
		t.Errorf("NewDecoder's Close: %v", err)
	}
	if err := NewLogDecoder(strings.NewReader("partition,offset,seq\n"), "log.csv").Close(); err != nil {
		t.Errorf("NewLogDecoder's Close: %v", err)
	}
}
