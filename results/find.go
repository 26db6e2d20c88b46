package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Trial locates one trial's files. Meta is nil for a bare CSV.
type Trial struct {
	Dir   string // "" for a bare CSV
	Probe string // path of the probe CSV
	Meta  *Meta
}

// Path returns the path of the named file in the trial's directory.
func (t *Trial) Path(name string) string { return filepath.Join(t.Dir, name) }

// TrialDirPrefix begins the name of each trial's directory in a run's.
const TrialDirPrefix = "trial-"

// TrialDir names trial n's directory (1-based).
func TrialDir(n int) string { return fmt.Sprintf("%s%02d", TrialDirPrefix, n) }

// ErrNoResults is reported for a path that holds no kbf results.
var ErrNoResults = errors.New("no kbf results here: want a probe CSV, a trial directory (meta.json, probe.csv) or a run directory (trial-NN/)")

// Find resolves path — a probe CSV, a trial directory or a run directory of
// trials — to the trials it holds, in order.
func Find(path string) ([]Trial, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such file or directory; %w", path, ErrNoResults)
	}
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []Trial{{Probe: path}}, nil
	}
	if t, ok, err := trialAt(path); err != nil || ok {
		return []Trial{t}, err
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var trials []Trial
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), TrialDirPrefix) {
			continue
		}
		t, ok, err := trialAt(filepath.Join(path, e.Name()))
		if err != nil {
			return nil, err
		}
		if ok {
			trials = append(trials, t)
		}
	}
	if len(trials) == 0 {
		return nil, fmt.Errorf("%s: %w", path, ErrNoResults)
	}
	sort.Slice(trials, func(i, j int) bool { return trials[i].Dir < trials[j].Dir })
	return trials, nil
}

func trialAt(dir string) (Trial, bool, error) {
	probe := filepath.Join(dir, ProbeFile)
	if _, err := os.Stat(probe); errors.Is(err, fs.ErrNotExist) {
		return Trial{}, false, nil
	}
	m, err := ReadMeta(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Trial{Dir: dir, Probe: probe}, true, nil
	}
	if err != nil {
		return Trial{}, false, err
	}
	return Trial{Dir: dir, Probe: probe, Meta: m}, true, nil
}
