package benchfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/kbf-project/kbf/internal/regfile"
)

// ParseError is a located error in bench.txt: the file, the line, and what
// is wrong there.
type ParseError struct {
	File string
	Line int
	Err  error
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

func (e *ParseError) Unwrap() error { return e.Err }

// ErrNotMeasurement is a value that cannot be a duration or a count: NaN,
// an infinity, a negative number, a fraction of a record.
var ErrNotMeasurement = errors.New("not a measurement")

// ErrUnit is a unit that is no kbf metric's, nor one that converts to it.
var ErrUnit = errors.New("not a kbf metric's unit")

// Value is one measurement of a line, in its metric's own unit: seconds,
// or records.
type Value struct {
	Metric Metric
	Value  float64
}

// Result is one line of bench.txt as read.
type Result struct {
	File string
	Line int
	// Name is the full benchmark name, e.g.
	// Failover/scenario=sigkill/role=leader.
	Name string
	// Role is the name's role=…, or "".
	Role string
	// Acks is the acks configuration line in effect, or "".
	Acks string
	// ProbeInterval is the probe-interval configuration line in effect;
	// zero where the file has none (before kbf wrote it).
	ProbeInterval time.Duration
	// Values are in the order of the line, each unit converted to its
	// metric's.
	Values []Value
	// Bench is the line as benchfmt read it, its values converted as
	// Values are: for benchproc's projections. It is the Reader's, and
	// valid until the next Scan.
	Bench *benchfmt.Result
}

// Reader reads bench.txt one result at a time, as benchfmt's Reader does,
// and stops at the first thing that cannot be a kbf measurement.
type Reader struct {
	r    *benchfmt.Reader
	file string
	res  Result
	err  error
}

// NewReader reads r, naming file in its errors.
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{r: benchfmt.NewReader(r, file), file: file}
}

// Scan advances to the next result; it returns false at the end of the
// file or at an error, which Err returns.
func (r *Reader) Scan() bool {
	for r.err == nil && r.r.Scan() {
		switch rec := r.r.Result().(type) {
		case *benchfmt.SyntaxError:
			r.err = &ParseError{rec.FileName, rec.Line, errors.New(rec.Msg)}
		case *benchfmt.UnitMetadata:
			// Every kbf metric is better=lower, and kbf compare judges
			// it so: a file that says otherwise is not kbf's.
			if _, ok := byUnit(rec.Unit); ok && rec.Key == "better" && rec.Value != "lower" {
				file, line := rec.Pos()
				r.err = &ParseError{file, line, fmt.Errorf("unit %s better=%s: every kbf metric is better=lower", rec.Unit, rec.Value)}
			}
		case *benchfmt.Result:
			if err := r.convert(rec); err != nil {
				file, line := rec.Pos()
				r.err = &ParseError{file, line, err}
				return false
			}
			return true
		}
	}
	if r.err == nil {
		if err := r.r.Err(); err != nil {
			r.err = fmt.Errorf("%s: %w", r.file, err)
		}
	}
	return false
}

// Result is the result Scan read.
func (r *Reader) Result() *Result { return &r.res }

// Err is the error that ended Scan, or nil at the end of the file.
func (r *Reader) Err() error { return r.err }

// convert fills r.res from rec: units converted, values checked.
func (r *Reader) convert(rec *benchfmt.Result) error {
	file, line := rec.Pos()
	res := Result{File: file, Line: line, Name: string(rec.Name.Full()), Acks: rec.GetConfig(ConfigAcks), Bench: rec, Values: r.res.Values[:0]}
	for _, part := range strings.Split(res.Name, "/") {
		if role, ok := strings.CutPrefix(part, "role="); ok {
			res.Role = role
		}
	}
	if s := rec.GetConfig(ConfigProbeInterval); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return fmt.Errorf("%s %q: want a positive duration such as 20ms", ConfigProbeInterval, s)
		}
		res.ProbeInterval = d
	}
	seen := map[string]bool{}
	for i, v := range rec.Values {
		orig := v.OrigUnit
		if orig == "" {
			orig = v.Unit
		}
		m, mul, div, err := unitOf(v.Unit)
		if err != nil {
			return fmt.Errorf("%s: unit %q: %w", res.Name, orig, err)
		}
		if seen[m.Unit] {
			return fmt.Errorf("%s: %s given twice (as %s)", res.Name, m.Name, orig)
		}
		seen[m.Unit] = true
		val := v.Value * mul / div
		if err := check(m, val); err != nil {
			if orig != m.Unit {
				return fmt.Errorf("%s: %s %v is %w", res.Name, orig, origValue(v), err)
			}
			return fmt.Errorf("%s: %w", res.Name, err)
		}
		rec.Values[i] = benchfmt.Value{Value: val, Unit: m.Unit, OrigValue: origValue(v), OrigUnit: orig}
		res.Values = append(res.Values, Value{m, val})
	}
	r.res = res
	return nil
}

// maxSeconds is the longest time.Duration, in seconds.
var maxSeconds = time.Duration(math.MaxInt64).Seconds()

// origValue is the value as the file wrote it.
func origValue(v benchfmt.Value) float64 {
	if v.OrigUnit != "" {
		return v.OrigValue
	}
	return v.Value
}

// check says why v cannot be a value of m, or nil. Durations and counts
// are finite and not negative; a duration fits a time.Duration, a count is
// whole and exact.
func check(m Metric, v float64) error {
	what := "a duration"
	if !m.Seconds {
		what = "a count of records"
	}
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%s %v: %w: %s", m.Unit, v, ErrNotMeasurement, what)
	case v < 0:
		return fmt.Errorf("%s %v: %w: %s is never negative", m.Unit, v, ErrNotMeasurement, what)
	case !m.Seconds && v != math.Trunc(v):
		return fmt.Errorf("%s %v: %w: %s is whole", m.Unit, v, ErrNotMeasurement, what)
	case m.Seconds && v > maxSeconds:
		return fmt.Errorf("%s %v: %w: longer than any duration (%.0f s)", m.Unit, v, ErrNotMeasurement, maxSeconds)
	case !m.Seconds && v > 1<<53:
		return fmt.Errorf("%s %v: %w: more records than a count holds exactly", m.Unit, v, ErrNotMeasurement)
	}
	return nil
}

func byUnit(unit string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Unit == unit {
			return m, true
		}
	}
	return Metric{}, false
}

// timeUnits are the suffixes a duration's unit may carry in place of -sec,
// and how to make seconds of them: times mul, over div (dividing by 1000
// keeps 4.5 ms 0.0045 s, where multiplying by 0.001 does not). benchfmt
// has already turned -ns into -sec.
var timeUnits = map[string]struct{ mul, div float64 }{
	"sec": {1, 1}, "s": {1, 1}, "ms": {1, 1e3}, "us": {1, 1e6}, "µs": {1, 1e6}, "min": {60, 1},
}

// unitOf finds the metric of a unit and how to convert the unit's values
// to the metric's: ack-stall-ms is ack_stall in milliseconds, over 1000. A metric's name with a unit of another kind (a duration
// in records) is refused, as is a unit no metric has.
func unitOf(unit string) (m Metric, mul, div float64, err error) {
	if m, ok := byUnit(unit); ok {
		return m, 1, 1, nil
	}
	for _, m := range Metrics {
		base := m.Unit[:strings.LastIndexByte(m.Unit, '-')]
		suffix, ok := strings.CutPrefix(unit, base+"-")
		if !ok {
			continue
		}
		if !m.Seconds {
			return Metric{}, 0, 0, fmt.Errorf("%w: %s counts records, want %s", ErrUnit, m.Name, m.Unit)
		}
		if t, ok := timeUnits[suffix]; ok {
			return m, t.mul, t.div, nil
		}
		return Metric{}, 0, 0, fmt.Errorf("%w: %s is a duration, want %s (or -ms, -us, -ns, -min)", ErrUnit, m.Name, m.Unit)
	}
	units := make([]string, len(Metrics))
	for i, m := range Metrics {
		units[i] = m.Unit
	}
	return Metric{}, 0, 0, fmt.Errorf("%w (want one of %s)", ErrUnit, strings.Join(units, ", "))
}

// Files resolves a path to the bench.txt files it stands for: the file
// itself, a kbf bench directory's, or, for a directory without one, those
// of its subdirectories — where a CI job downloads its matrix's shards.
// Each is a regular file: a FIFO or a device is refused here rather than
// left to block the reader.
func Files(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, statErr(path, err)
	}
	if !st.IsDir() {
		return []string{path}, regular(path, st)
	}
	own := filepath.Join(path, TextFile)
	if st, err := os.Stat(own); err == nil {
		return []string{own}, regular(own, st)
	}
	subs, err := filepath.Glob(filepath.Join(path, "*", TextFile))
	if err != nil {
		return nil, err
	}
	if len(subs) == 0 {
		return nil, statErr(own, fs.ErrNotExist)
	}
	sort.Strings(subs)
	for _, s := range subs {
		st, err := os.Stat(s)
		if err != nil {
			return nil, statErr(s, err)
		}
		if err := regular(s, st); err != nil {
			return nil, err
		}
	}
	return subs, nil
}

func statErr(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such file (kbf bench writes %s into its --out directory)", path, TextFile)
	}
	return err
}

func regular(path string, st fs.FileInfo) error {
	if err := regfile.Check(path, st); err != nil {
		return fmt.Errorf("%w: want a %s or a kbf bench directory", err, TextFile)
	}
	return nil
}
