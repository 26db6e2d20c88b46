package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Left is what a benchmark directory has left to run of a plan, and what
// its trials done took, for an estimate before a resumed benchmark
// starts.
type Left struct {
	// Trials are the shard's trials, Done those of them the directory
	// holds as done (failed ones among them: they are not run again).
	Trials, Done int
	// Took is the mean time of the trials done that recorded theirs
	// (Measured of them); zero when none did.
	Took     time.Duration
	Measured int
}

// Left is how many trials remain.
func (l Left) Left() int { return l.Trials - l.Done }

// Estimate is how long the trials left take: at the measured mean when
// there is one, else at fallback a trial.
func (l Left) Estimate(fallback time.Duration) time.Duration {
	per := fallback
	if l.Measured > 0 {
		per = l.Took
	}
	return time.Duration(l.Left()) * per
}

// LeftIn reads what dir holds of f's shard s (StateFile): no state, or one
// of another plan, leaves every trial to run (the benchmark itself
// refuses another plan before its first trial). It writes nothing.
func LeftIn(dir string, f *File, s Shard) (Left, error) {
	if s.N == 0 {
		s = All
	}
	trials := s.Pick(f.Plan())
	l := Left{Trials: len(trials)}
	raw, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, err
	}
	var st State
	if err := json.Unmarshal(raw, &st); err != nil {
		return l, fmt.Errorf("%s: %w", filepath.Join(dir, StateFile), err)
	}
	plan, err := planHash(f, s)
	if err != nil || st.Plan != plan {
		return l, err
	}
	done := map[string]Done{}
	for _, d := range st.Done {
		done[d.ID] = d
	}
	var ours []Done
	for _, t := range trials {
		if d, ok := done[t.ID()]; ok {
			ours = append(ours, d)
		}
	}
	l.Done = len(ours)
	sum, n := took(ours)
	if n > 0 {
		l.Took, l.Measured = sum/time.Duration(n), n
	}
	return l, nil
}

// took is the time the trials done that recorded theirs took in all,
// and how many did.
func took(done []Done) (sum time.Duration, n int) {
	for _, d := range done {
		if d.Took > 0 {
			sum += d.Took
			n++
		}
	}
	return sum, n
}
