package results

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kbf-project/kbf/internal/regfile"
)

// Trial locates one trial's files. Meta is nil for a bare CSV.
type Trial struct {
	Dir   string // "" for a bare CSV
	Probe string // path of the probe CSV
	// Log is the path of the read-back CSV, or "" when the trial has none.
	// A log.csv that is there but cannot be read makes Find fail instead,
	// so "" always means the partitions were not read back.
	Log  string
	Meta *Meta
	// Clients are the external clients that probed beside the franz-go
	// probe in the same trial (ClientsDir), by name; none for most trials.
	Clients []ClientTrial
	// ClientLogPath is the client log the timeline reads; "" is the
	// directory's ClientLog. ClientTrial.Trial sets it.
	ClientLogPath string
	// GroupDir is the directory of the group reader's files (GroupFile,
	// GroupEventsFile); "" is Dir. ClientTrial.Trial sets it to the
	// client's own directory.
	GroupDir string
	// external marks a client's trial (ClientTrial.Trial): its log is the
	// client's own, so LogPath never falls back to the directory's.
	external bool
}

// ClientLogFile returns the path of the client log the trial's timeline
// reads: ClientLogPath when set, else the directory's ClientLog.
func (t *Trial) ClientLogFile() string {
	if t.ClientLogPath != "" || t.external {
		return t.ClientLogPath
	}
	return filepath.Join(t.Dir, ClientLog)
}

// Path returns the path of the named file in the trial's directory.
func (t *Trial) Path(name string) string { return filepath.Join(t.Dir, name) }

// GroupPath returns the path of the group reader's file name (GroupFile,
// GroupEventsFile): in GroupDir when set, else in the trial's directory.
func (t *Trial) GroupPath(name string) string {
	if t.GroupDir != "" {
		return filepath.Join(t.GroupDir, name)
	}
	return t.Path(name)
}

// OpenProbe opens the trial's probe CSV for decoding: the decoder accepts
// only the partitions the metadata names and times inside the trial's own
// window, and stops with ctx's error once ctx is done. Close it when done.
func (t *Trial) OpenProbe(ctx context.Context) (*Decoder, error) {
	f, err := Open(ctx, t.Probe)
	if err != nil {
		return nil, err
	}
	d := NewDecoder(bufio.NewReaderSize(f, readBuffer), t.Probe)
	d.closer = f
	// A trial directory's probe.csv is kbf's own: a header that is not
	// kbf's is damage, not another program's format.
	if t.Dir != "" {
		d.lr.sniff = nil
	}
	if t.Meta != nil {
		d.Partitions = t.Meta.PartitionSet()
		d.From, d.To = t.Meta.Started, t.Meta.Ended
	}
	return d, nil
}

// LogPath returns the path of the trial's read-back CSV, "" when it has
// none, and an error when one is there but cannot be read. It is Log when
// set; for a Trial not made by Find, it looks.
func (t *Trial) LogPath() (string, error) {
	if t.Log != "" || t.Dir == "" || t.external {
		return t.Log, nil
	}
	path := filepath.Join(t.Dir, LogFile)
	if ok, err := present(path); !ok || err != nil {
		return "", err
	}
	return path, nil
}

// OpenLog opens the trial's read-back CSV; it fails when there is none.
// The decoder stops with ctx's error once ctx is done. Close it when done.
func (t *Trial) OpenLog(ctx context.Context) (*LogDecoder, error) {
	path, err := t.LogPath()
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, fmt.Errorf("%s: no %s: the partitions were not read back", t.Dir, LogFile)
	}
	f, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	d := NewLogDecoder(bufio.NewReaderSize(f, readBuffer), path)
	d.closer = f
	return d, nil
}

// readBuffer is how much of a file a decoder reads at once: the CSV
// reader's own 4 KB would take a system call for every 40 rows.
const readBuffer = 64 << 10

// TrialDirPrefix begins the name of each trial's directory in a run's.
const TrialDirPrefix = "trial-"

// IncidentDirPrefix begins the name of each incident's directory in a
// watch's (kbf watch --out): incident-0001, incident-0002, …
const IncidentDirPrefix = "incident-"

// IncidentDir names incident n's directory (1-based).
func IncidentDir(n int) string { return fmt.Sprintf("%s%04d", IncidentDirPrefix, n) }

// TrialDir names trial n's directory (1-based).
func TrialDir(n int) string { return fmt.Sprintf("%s%02d", TrialDirPrefix, n) }

// Errors Find reports.
var (
	// ErrNoResults is reported for a path that holds no kbf results.
	ErrNoResults = errors.New("no kbf results here: want a probe CSV, a trial directory (meta.json, probe.csv) or a run directory (trial-NN/)")
	// errNoProbe is reported for a trial directory without its probe CSV.
	errNoProbe = errors.New("no " + ProbeFile + ": the trial recorded no message (it stopped before the probe started, or the file was moved)")
	// ErrNotRegular is reported for a path that is a named pipe, a device,
	// a socket or anything else that is not a plain file: reading one could
	// block forever or never end.
	ErrNotRegular = regfile.ErrNotRegular
)

// BrokenTrials lists the trials of a run directory that Find or an
// analysis could not read, while others could. Its Error has one line per
// trial, each naming the trial.
type BrokenTrials []error

func (b BrokenTrials) Error() string {
	lines := make([]string, len(b))
	for i, err := range b {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "\n")
}

func (b BrokenTrials) Unwrap() []error { return b }

// Find resolves path — a probe CSV, a trial directory or a run directory of
// trials — to the trials it holds, in order. It refuses, before reading
// anything, any file the analysis would read that is not a regular file.
//
// In a run directory a broken trial does not hide the others: Find returns
// the trials it could read and, with them, a BrokenTrials error naming
// each of the others. When no trial could be read the error wraps
// ErrNoResults as well.
func Find(path string) ([]Trial, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such file or directory; %w", path, ErrNoResults)
	}
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if err := regular(path, st); err != nil {
			return nil, err
		}
		return []Trial{{Probe: path}}, nil
	}
	if t, ok, err := trialAt(path); err != nil || ok {
		if err != nil {
			return nil, err
		}
		return []Trial{t}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var trials []Trial
	var broken BrokenTrials
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), TrialDirPrefix) && !strings.HasPrefix(e.Name(), IncidentDirPrefix) {
			continue
		}
		dir := filepath.Join(path, e.Name())
		if !e.IsDir() {
			// A trial-NN that is a link to a directory is still a trial.
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				continue
			}
		}
		t, ok, err := trialAt(dir)
		switch {
		case err != nil:
			broken = append(broken, err)
		case !ok:
			broken = append(broken, fmt.Errorf("%s: %w", dir, errNoProbe))
		default:
			trials = append(trials, t)
		}
	}
	sort.Slice(trials, func(i, j int) bool { return trials[i].Dir < trials[j].Dir })
	switch {
	case len(trials) == 0 && len(broken) == 0:
		return nil, fmt.Errorf("%s: %w", path, ErrNoResults)
	case len(trials) == 0:
		return nil, fmt.Errorf("%s: %w\n%w", path, ErrNoResults, broken)
	case len(broken) > 0:
		return trials, broken
	}
	return trials, nil
}

// trialAt reads the trial directory dir; ok is false when dir holds
// neither a probe CSV nor metadata. A directory with metadata and no probe
// CSV is a trial that recorded nothing, and an error.
func trialAt(dir string) (Trial, bool, error) {
	probe := filepath.Join(dir, ProbeFile)
	metaPath := filepath.Join(dir, MetaFile)
	hasProbe, err := present(probe)
	if err != nil {
		return Trial{}, false, err
	}
	hasMeta, err := present(metaPath)
	if err != nil {
		return Trial{}, false, err
	}
	switch {
	case !hasProbe && !hasMeta:
		return Trial{}, false, nil
	case !hasProbe:
		return Trial{}, false, fmt.Errorf("%s: %w", dir, errNoProbe)
	}
	if err := checkFiles(dir); err != nil {
		return Trial{}, false, err
	}
	t := Trial{Dir: dir, Probe: probe}
	if ok, err := present(filepath.Join(dir, LogFile)); err != nil {
		return Trial{}, false, err
	} else if ok {
		t.Log = filepath.Join(dir, LogFile)
	}
	if hasMeta {
		if t.Meta, err = ReadMeta(dir); err != nil {
			return Trial{}, false, err
		}
	}
	if t.Clients, err = clientTrials(dir); err != nil {
		return Trial{}, false, err
	}
	return t, true, nil
}

// present reports whether path names a regular file, false when there is
// nothing there, and an error for anything else: a dangling link, a
// directory, a pipe or a file that cannot be looked at is not "absent".
func present(path string) (bool, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return false, fmt.Errorf("%s: cannot be read: %w", path, err)
	}
	return true, regular(path, st)
}

// checkFiles refuses every non-regular file in the trial directory dir and
// in its node logs, which the analysis reads whole.
func checkFiles(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: cannot be read: %w", path, err)
		}
		if d.IsDir() {
			if path != dir && filepath.Dir(path) == dir && d.Name() != NodeLogsDir && d.Name() != ClientsDir {
				return fs.SkipDir // not the trial's: a copy, an editor's, a user's
			}
			return nil
		}
		st, err := os.Stat(path) // through a link, to what would be read
		if err != nil {
			if _, lerr := os.Lstat(path); lerr == nil && errors.Is(err, fs.ErrNotExist) && !read(dir, path) {
				return nil // a dangling link the analysis never opens
			}
			return fmt.Errorf("%s: cannot be read: %w", path, err)
		}
		switch {
		case !read(dir, path):
			return nil
		case st.IsDir(): // a link to a node's logs kept elsewhere
			return checkLinkedLogs(path)
		}
		return regular(path, st)
	})
}

// checkLinkedLogs refuses every non-regular file under the linked
// directory dir; links to directories inside it are not followed again.
func checkLinkedLogs(dir string) error {
	return filepath.WalkDir(dir+string(filepath.Separator), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: cannot be read: %w", path, err)
		}
		if d.IsDir() {
			return nil
		}
		st, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("%s: cannot be read: %w", path, err)
		}
		if st.IsDir() {
			return nil
		}
		return regular(path, st)
	})
}

// read reports whether the analysis reads path of the trial directory dir:
// its own files and everything under the node logs.
func read(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return false
	}
	switch rel {
	case MetaFile, ProbeFile, LogFile, ClientLog:
		return true
	}
	if d, f := filepath.Split(rel); filepath.Dir(filepath.Clean(d)) == ClientsDir {
		switch f {
		case MetaFile, ProbeFile, LogFile, ClientLog, ClientInfoFile:
			return true
		}
		return false
	}
	return strings.HasPrefix(rel, NodeLogsDir+string(filepath.Separator))
}

// regular returns ErrNotRegular, saying what path is, unless st is a
// regular file's.
func regular(path string, st fs.FileInfo) error {
	if err := regfile.Check(path, st); err != nil {
		return fmt.Errorf("%w: give it the file kbf wrote", err)
	}
	return nil
}

// Open opens path for reading if it is a regular file, and refuses it at
// once otherwise, without blocking on a pipe that has no writer. Reads of
// the returned file fail with ctx's error once ctx is done, so a decoding
// loop over it stops within a buffer's worth of rows of a cancellation.
func Open(ctx context.Context, path string) (io.ReadCloser, error) {
	f, err := regfile.Open(path)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, fmt.Errorf("%w: give it the file kbf wrote", err)
	}
	if err != nil {
		return nil, err
	}
	return &ctxFile{ctx: ctx, f: f}, nil
}

// ctxFile is a file whose reads stop once its context is done.
type ctxFile struct {
	ctx context.Context
	f   io.ReadCloser
}

func (c *ctxFile) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.f.Read(p)
}

func (c *ctxFile) Close() error { return c.f.Close() }
