package benchfile

import (
	"fmt"
	"io"
	"math"

	"golang.org/x/perf/benchfmt"
)

// Writer writes bench.txt with benchfmt's Writer, which prints a
// configuration line only where it changes.
type Writer struct {
	w *benchfmt.Writer
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{benchfmt.NewWriter(w)} }

// Units declares each metric's unit better=lower; call it first.
func (w *Writer) Units(ms []Metric) error {
	for _, m := range ms {
		u := &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: m.Unit, Key: "better"}, OrigUnit: m.Unit, Value: "lower"}
		if err := w.w.Write(u); err != nil {
			return err
		}
	}
	return nil
}

// Line is one line of bench.txt to write: one trial's values for one variant and
// role.
type Line struct {
	// Config is the configuration lines in effect, key then value, in
	// order; an empty value is left out.
	Config [][2]string
	// Variant is the benchmark's name below BenchName, e.g.
	// scenario=session/broker.session.timeout.ms=6000.
	Variant string
	Role    string
	// Values are the metrics' values by unit; a metric the trial did not
	// show is absent.
	Values map[string]float64
}

// Write writes one line, its values in Metrics order, each rounded to
// the millisecond. It refuses a value the reader would refuse, so that a
// file kbf writes is one kbf can read.
func (w *Writer) Write(r Line) error {
	var cfg []benchfmt.Config
	for _, kv := range r.Config {
		if kv[1] != "" {
			cfg = append(cfg, benchfmt.Config{Key: kv[0], Value: []byte(kv[1]), File: true})
		}
	}
	res := &benchfmt.Result{Config: cfg, Name: benchfmt.Name(BenchName + "/" + r.Variant + "/role=" + r.Role), Iters: 1}
	for _, m := range Metrics {
		v, ok := r.Values[m.Unit]
		if !ok {
			continue
		}
		if err := check(m, v); err != nil {
			return fmt.Errorf("%s: %w", res.Name, err)
		}
		res.Values = append(res.Values, benchfmt.Value{Value: Round(v), Unit: m.Unit})
	}
	return w.w.Write(res)
}

// Round keeps a millisecond: the logs' resolution, and no float noise in
// the files. A value too large to have a fraction of a millisecond stays
// as it is rather than overflow.
func Round(v float64) float64 {
	if math.Abs(v) >= 1<<52/1000 {
		return v
	}
	return math.Round(v*1000) / 1000
}
