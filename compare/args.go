package compare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/pflag"
)

// What kbf compare's command line gives, read: the gate as its flags
// spell it, the two sides, the output's format.

// GateArgs are a gate as the command line spells it.
type GateArgs struct {
	// MaxRegression is a percentage (10%) or a fraction up to 1 (0.1).
	MaxRegression string
	// MinChange is a duration; "" keeps the gate's.
	MinChange string
	// Limits are [ROLE:]METRIC=VALUE (ParseLimit).
	Limits []string
	// Metrics are [ROLE:]METRIC selectors, or MetricAll alone (SetMetrics).
	Metrics []string
}

// MetricAll is --metric's value for gating every metric.
const MetricAll = "all"

// Parse sets g from a and checks the whole (Alpha included); an error
// names the flag whose value it refuses.
func (g *Gate) Parse(a GateArgs) error {
	v, err := ParsePercent(a.MaxRegression)
	if err != nil {
		return fmt.Errorf("--max-regression %w", err)
	}
	g.MaxRegression = v
	if al := g.Alpha; !(al > 0 && al < 1) {
		return fmt.Errorf("--alpha %v: want a level between 0 and 1, e.g. 0.05", al)
	}
	if a.MinChange != "" {
		d, err := time.ParseDuration(a.MinChange)
		if err != nil || d < 0 {
			return fmt.Errorf("--min-change %q: want a duration of at least 0, such as 20ms", a.MinChange)
		}
		g.MinChange = d
	}
	for _, s := range a.Limits {
		l, err := ParseLimit(s)
		if err != nil {
			return fmt.Errorf("--%w", err)
		}
		g.Limits = append(g.Limits, l)
	}
	return g.SetMetrics(a.Metrics)
}

// SetMetrics sets the metrics g judges from --metric's values: the
// selectors, or every metric for MetricAll; none leaves g's default, the
// headline stalls.
func (g *Gate) SetMetrics(vals []string) error {
	if slices.Contains(vals, MetricAll) {
		if len(vals) > 1 {
			return fmt.Errorf("--metric %s gates every metric: give it alone", MetricAll)
		}
		g.All = true
		return nil
	}
	var out []Selector
	for _, v := range vals {
		sel, err := ParseSelector(v)
		if err != nil {
			return fmt.Errorf("--metric %q: %w", v, err)
		}
		out = append(out, sel)
	}
	g.Metrics = out
	return nil
}

// SideError is a side's results that cannot be read; shards that do not
// make one benchmark wrap benchfile.ErrShards.
type SideError struct {
	Side string // "old" or "new"
	Err  error
}

func (e *SideError) Error() string { return e.Side + ": " + e.Err.Error() }
func (e *SideError) Unwrap() error { return e.Err }

// NoValidError is a side, or both, whose results hold not one valid trial
// (kbf bench writes a bench.txt with no result line when none was valid):
// fewer than an answer needs, as few as can be.
type NoValidError struct{ Old, New bool }

func (e *NoValidError) Error() string {
	which := "either side"
	if !e.Old {
		which = "the new side"
	} else if !e.New {
		which = "the old side"
	}
	return fmt.Sprintf("undecided: no valid trials on %s (its bench.txt holds no result line; summary.md says why each trial did not count): run more", which)
}

// SharedError is a file given on both sides.
type SharedError struct{ File string }

func (e *SharedError) Error() string {
	return fmt.Sprintf("%s is on both sides: a file compared with itself shows no change; give the base's results as OLD and the head's as NEW", e.File)
}

// ReadSides reads both sides' results. A side that cannot be read is said
// first (*SideError): more trials would not mend it; then a side with no
// valid trial (*NoValidError), then a file on both sides (*SharedError).
func ReadSides(ctx context.Context, oldPaths, newPaths []string) (old, new *Side, err error) {
	old, errOld := Read(ctx, oldPaths...)
	new, errNew := Read(ctx, newPaths...)
	for _, e := range []SideError{{"old", errOld}, {"new", errNew}} {
		if e.Err != nil && !errors.Is(e.Err, ErrNoResults) {
			return nil, nil, &e
		}
	}
	if errOld != nil || errNew != nil {
		return nil, nil, &NoValidError{Old: errOld != nil, New: errNew != nil}
	}
	if f := Shared(old, new); f != "" {
		return nil, nil, &SharedError{File: f}
	}
	return old, new, nil
}

// Writers are the comparison's formats by name: text, md, json.
var Writers = map[string]func(io.Writer, *Result) error{"text": WriteText, "md": WriteMarkdown, "json": WriteJSON}

// AppendMarkdown appends the comparison as Markdown to the file at path
// (a CI job's step summary), creating it.
func AppendMarkdown(path string, res *Result) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	err = WriteMarkdown(f, res)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// AddRegressionFlags adds --max-regression and --metric to fs, with the
// usage each has in the command (kbf compare, kbf bench --until-decided).
func (a *GateArgs) AddRegressionFlags(fs *pflag.FlagSet, maxRegression, metric string) {
	fs.StringVar(&a.MaxRegression, "max-regression", "10%", maxRegression)
	fs.StringSliceVar(&a.Metrics, "metric", nil, metric)
}

// AddFlags adds kbf compare's gate flags to fs: --max-regression,
// --min-change, --limit and --metric into a, --alpha and --allow-missing
// over g.
func (a *GateArgs) AddFlags(fs *pflag.FlagSet, g *Gate) {
	a.AddRegressionFlags(fs, "the smallest growth of a median worth failing for: a percentage (10%) or a fraction up to 1 (0.1)",
		"gate on these metrics alone, [ROLE:]METRIC, e.g. from_heartbeat or leader:ack_stall (repeatable or comma-separated), or all; the rest are printed as figures (default each scenario's headline stall: from_heartbeat, ack_stall without one)")
	fs.StringVar(&a.MinChange, "min-change", "", "the smallest growth of a duration's median worth failing for, whatever its ratio (default the probe interval bench.txt records, else 20ms)")
	fs.BoolVar(&g.AllowMissing, "allow-missing", false, "pass what one side has and the other lacks (still listed)")
	fs.Float64Var(&g.Alpha, "alpha", g.Alpha, "the U test's significance level")
	fs.StringArrayVar(&a.Limits, "limit", nil, "an absolute bound on a median, [ROLE:]METRIC=VALUE, e.g. leader:ack_stall=12s (repeatable)")
}
