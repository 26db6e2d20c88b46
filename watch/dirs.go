package watch

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/results"
)

// An incident's directory is written aside, under a hidden name in the
// watch's directory, and renamed to incident-NNNN once complete: a watch
// killed or crashed while writing one leaves no empty or half incident,
// only its hidden directory, which the next watch on the directory
// removes (cleanPartial).
const partialSuffix = ".partial"

// partialDir is where incident n is written before it is renamed into
// place.
func partialDir(out string, n int) string {
	return filepath.Join(out, "."+results.IncidentDir(n)+partialSuffix)
}

// isPartial reports whether name is an incident's directory left half
// written.
func isPartial(name string) bool {
	return strings.HasPrefix(name, "."+results.IncidentDirPrefix) && strings.HasSuffix(name, partialSuffix)
}

// cleanPartial removes the incidents' directories a watch stopped writing
// (killed, crashed, out of disk) before they were complete, and returns
// their names.
func cleanPartial(out string) ([]string, error) {
	ents, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	var gone []string
	for _, e := range ents {
		if !isPartial(e.Name()) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(out, e.Name())); err != nil {
			return gone, err
		}
		gone = append(gone, e.Name())
	}
	return gone, nil
}

// CheckOut checks that out can be the watch's directory before anything
// else is done: it is made if missing, and a file is written in it and
// removed. A trial's or a run's directory is refused: the incidents would
// be mixed with its trials.
func CheckOut(out string) error {
	if out == "" {
		return errors.New("--out: required")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if _, err := os.Stat(filepath.Join(out, results.MetaFile)); err == nil {
		return fmt.Errorf("--out %s: a trial's directory (it holds %s): give a directory of its own", out, results.MetaFile)
	}
	f, err := os.CreateTemp(out, ".kbf-watch-check-")
	if err != nil {
		return fmt.Errorf("--out %s: cannot write there: %w", out, err)
	}
	name := f.Name()
	err = f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("--out %s: cannot write there: %w", out, err)
	}
	return nil
}

// syncDir flushes dir's entries (a rename into it) to the disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// nextNumber is the number after the highest incident in dir: a watch
// restarted on its directory carries on.
func nextNumber(dir string) (int, error) {
	ns, err := numbers(dir)
	if err != nil {
		return 0, err
	}
	if len(ns) == 0 {
		return 1, nil
	}
	return ns[len(ns)-1] + 1, nil
}

// numbers are the incidents' numbers in dir, in order.
func numbers(dir string) ([]int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ns []int
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), results.IncidentDirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		if n, err := strconv.Atoi(rest); err == nil && n > 0 {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns, nil
}

// Retention is which incidents a watch keeps: the last Count, and those
// written within Age; zero keeps all.
type Retention struct {
	Count int
	Age   time.Duration
}

// maxRetainDays is the longest age --retain takes in days: the most a
// time.Duration holds (about 292 years).
const maxRetainDays = int64(math.MaxInt64 / int64(24*time.Hour))

// ParseRetention reads --retain: a count ("50") or an age ("72h", "30d").
// An age a time.Duration cannot hold is refused, not wrapped.
func ParseRetention(s string) (Retention, error) {
	if isDigits(strings.TrimPrefix(s, "-")) {
		n, err := strconv.Atoi(s)
		switch {
		case err != nil:
			return Retention{}, fmt.Errorf("--retain %s: more incidents than kbf can count; want a count up to %d or an age (72h, 30d)", s, math.MaxInt)
		case n < 0:
			return Retention{}, fmt.Errorf("--retain %s: must not be negative", s)
		}
		return Retention{Count: n}, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok && isDigits(days) {
		n, err := strconv.ParseInt(days, 10, 64)
		switch {
		case err != nil || n > maxRetainDays:
			return Retention{}, fmt.Errorf("--retain %s: longer than kbf can hold; want at most %dd (about 292 years)", s, maxRetainDays)
		case n == 0:
			return Retention{}, fmt.Errorf("--retain %s: must be positive (a count of 0 keeps all)", s)
		}
		return Retention{Age: time.Duration(n) * 24 * time.Hour}, nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil && strings.Contains(err.Error(), "invalid duration") && isDuration(s):
		return Retention{}, fmt.Errorf("--retain %s: longer than kbf can hold; want at most %dd (about 292 years)", s, maxRetainDays)
	case err != nil:
		return Retention{}, fmt.Errorf("--retain %s: want a count of incidents (50) or an age (72h, 30d)", s)
	case d <= 0:
		return Retention{}, fmt.Errorf("--retain %s: must be positive", s)
	}
	return Retention{Age: d}, nil
}

// isDigits reports whether s is one or more decimal digits.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// isDuration reports whether s is spelled as a Go duration (digits, a
// point, units), so that time.ParseDuration refused it for its size.
func isDuration(s string) bool {
	return s != "" && strings.Trim(s, "0123456789.nsuµmh") == "" && strings.ContainsAny(s, "0123456789")
}

// Set reads --retain's value (ParseRetention); with String and Type,
// *Retention is the flag's value.
func (r *Retention) Set(s string) error {
	v, err := ParseRetention(s)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Type names --retain's value in the help.
func (*Retention) Type() string { return "N|AGE" }

func (r Retention) String() string {
	switch {
	case r.Age > 0 && r.Age%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", r.Age/(24*time.Hour))
	case r.Age > 0:
		return r.Age.String()
	}
	return strconv.Itoa(r.Count)
}

// retain removes the incidents of dir that r does not keep: all but the
// last r.Count, and those whose meta.json was written more than r.Age
// before now.
func retain(dir string, r Retention, now time.Time) error {
	if r.Count <= 0 && r.Age <= 0 {
		return nil
	}
	ns, err := numbers(dir)
	if err != nil {
		return err
	}
	var errs []error
	for i, n := range ns {
		d := filepath.Join(dir, results.IncidentDir(n))
		old := r.Count > 0 && i < len(ns)-r.Count
		if fi, err := os.Stat(filepath.Join(d, results.MetaFile)); r.Age > 0 && err == nil {
			old = old || now.Sub(fi.ModTime()) > r.Age
		}
		if old {
			errs = append(errs, os.RemoveAll(d))
		}
	}
	return errors.Join(errs...)
}
