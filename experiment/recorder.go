package experiment

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// ErrDirInUse is returned for a results directory that already holds a
// trial: kbf never writes over a measurement.
var ErrDirInUse = errors.New("already holds results")

// Recorder owns one trial directory while a probe writes into it. Only the
// goroutine that made it may touch its Meta.
type Recorder struct {
	Dir  string
	Meta *results.Meta
	csv  *os.File
	clog *os.File
	// group and groupEvents are the group reader's files, made at its
	// first write: a probe without one leaves none.
	group, groupEvents *lazyFile
	// txn is the transactional producer's file, made at its first write.
	txn *lazyFile
}

// NewRecorder creates dir and its probe files; the metadata is written once
// the probe is made (SetMeta).
func NewRecorder(dir string) (*Recorder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, results.ProbeFile)); err == nil {
		return nil, fmt.Errorf("%s %w; choose another --out", dir, ErrDirInUse)
	}
	r := &Recorder{Dir: dir,
		group:       &lazyFile{path: filepath.Join(dir, results.GroupFile)},
		groupEvents: &lazyFile{path: filepath.Join(dir, results.GroupEventsFile)},
		txn:         &lazyFile{path: filepath.Join(dir, results.TxnFile)}}
	var err error
	if r.csv, err = os.Create(filepath.Join(dir, results.ProbeFile)); err != nil {
		return nil, err
	}
	if r.clog, err = os.Create(filepath.Join(dir, results.ClientLog)); err != nil {
		r.csv.Close()
		return nil, err
	}
	return r, nil
}

// SetMeta makes m the directory's metadata and writes it.
func (r *Recorder) SetMeta(m *results.Meta) error {
	r.Meta = m
	return r.Save()
}

// Output is where the probe writes.
func (r *Recorder) Output() probe.Output {
	return probe.Output{Messages: r.csv, ClientLog: r.clog, Group: r.group, GroupEvents: r.groupEvents, Txn: r.txn}
}

// Save writes the metadata as it is now.
func (r *Recorder) Save() error {
	if r.Meta == nil {
		return nil
	}
	return results.WriteMeta(r.Dir, r.Meta)
}

// Discard closes and removes what NewRecorder made, for a probe that never
// started: an empty trial directory would only puzzle kbf report later.
func (r *Recorder) Discard() {
	r.Close()
	os.Remove(filepath.Join(r.Dir, results.ProbeFile))
	os.Remove(filepath.Join(r.Dir, results.ClientLog))
	os.Remove(filepath.Join(r.Dir, results.GroupFile))
	os.Remove(filepath.Join(r.Dir, results.GroupEventsFile))
	os.Remove(filepath.Join(r.Dir, results.TxnFile))
	os.Remove(filepath.Join(r.Dir, results.MetaFile))
	os.Remove(r.Dir) // only if empty
}

// Close closes the probe files; a second Close does nothing.
func (r *Recorder) Close() error {
	if r.csv == nil {
		return nil
	}
	err := errors.Join(r.csv.Close(), r.clog.Close(), r.group.Close(), r.groupEvents.Close(), r.txn.Close())
	r.csv, r.clog = nil, nil
	return err
}

// lazyFile is a file created at its first write.
type lazyFile struct {
	path string
	f    *os.File
	err  error
}

func (l *lazyFile) Write(b []byte) (int, error) {
	if l.f == nil && l.err == nil {
		l.f, l.err = os.Create(l.path)
	}
	if l.err != nil {
		return 0, l.err
	}
	return l.f.Write(b)
}

// Close closes the file if it was made; a second Close does nothing.
func (l *lazyFile) Close() error {
	if l.f == nil {
		l.err = cmp.Or(l.err, os.ErrClosed) // never made again, empty
		return nil
	}
	err := l.f.Close()
	l.f, l.err = nil, os.ErrClosed
	return err
}

// NewMeta starts a run's metadata from the probe that will run; kind is
// "trial" or "probe", command the command line as the user gave it.
func NewMeta(kind, version string, command []string, p Probe) *results.Meta {
	cfg := p.Config()
	return &results.Meta{
		Kind:       kind,
		KBFVersion: version,
		Command:    command,
		Started:    time.Now().UTC(),
		Cluster:    results.Cluster{Bootstrap: cfg.Bootstrap},
		Probe: results.Probe{
			Topic:        cfg.Topic,
			Partitions:   cfg.Partitions,
			Interval:     cfg.Interval,
			Acks:         cfg.Acks,
			StartOffsets: p.StartOffsets(),
			Client:       cfg.Effective(),
			RunID:        cfg.RunID,
			Security:     security(cfg.Security),
			Group:        cfg.GroupSettings(),
			Txn:          cfg.TxnSettings(),
		},
	}
}

// security is what meta.json records of sec: its description, nil
// without a --command-config.
func security(sec *kafkasec.Config) *results.Security {
	if sec == nil {
		return nil
	}
	d := sec.Describe()
	return &results.Security{Protocol: d.Protocol, Mechanism: d.Mechanism, Principal: d.Principal,
		CASubjects: d.CASubjects, ClientSubject: d.ClientSubject, HostnameCheck: d.HostnameCheck}
}

// SetProbeResult records what the probe measured of itself once it has
// stopped: the metadata is filled from values handed over, never written
// by the probe's goroutine.
func SetProbeResult(m *results.Meta, stats []probe.PartitionStats) {
	var d time.Duration
	var ready time.Time
	for i, s := range stats {
		d = max(d, s.LongestSendGap)
		switch {
		case s.FirstAck.IsZero():
			ready = time.Time{} // never acked: the start-up never ended
		case i == 0 || !ready.IsZero() && s.FirstAck.After(ready):
			ready = s.FirstAck
		}
		if s.Missed.Count > 0 {
			if m.Probe.Missed == nil {
				m.Probe.Missed = map[int32]*results.MissedSends{}
			}
			ms := s.Missed
			m.Probe.Missed[s.Partition] = &ms
		}
	}
	m.Probe.LongestSendGap = d
	if !ready.IsZero() {
		m.Probe.Ready = ready.UTC()
	}
}

// Writable reports, as an *InvalidOption named out, a results directory
// that cannot be made or written: its nearest existing ancestor is not a
// directory, or not one this process may write in. It leaves nothing
// behind, so that a trial refused later leaves no empty directory.
func Writable(dir string) error {
	d := filepath.Clean(dir)
	for {
		st, err := os.Stat(d)
		switch {
		case err == nil && !st.IsDir():
			return invalid("out", dir, "%s is not a directory", d)
		case err == nil:
			f, err := os.CreateTemp(d, ".kbf-write-check-*")
			if err != nil {
				var pe *fs.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return invalid("out", dir, "cannot write in %s (%v)", d, err)
			}
			f.Close()
			os.Remove(f.Name())
			return nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return invalid("out", dir, "%v", err)
		}
		up := filepath.Dir(d)
		if up == d {
			return nil
		}
		d = up
	}
}
