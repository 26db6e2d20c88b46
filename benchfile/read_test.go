package benchfile

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const header = "Unit ack-stall-sec better=lower\nacks: all\nprobe-interval: 20ms\n\n"

func TestReadRefuses(t *testing.T) {
	tests := []struct {
		name, line string
		want       string // after "f.txt:5: "
		is         error
	}{
		{"NaN", "1 NaN ack-stall-sec", "ack-stall-sec NaN: not a measurement: a duration", ErrNotMeasurement},
		{"+Inf", "1 +Inf ack-stall-sec", "ack-stall-sec +Inf: not a measurement", ErrNotMeasurement},
		{"-Inf", "1 -Inf detect-sec", "detect-sec -Inf: not a measurement", ErrNotMeasurement},
		{"a negative stall", "1 -0.5 ack-stall-sec", "ack-stall-sec -0.5: not a measurement: a duration is never negative", ErrNotMeasurement},
		{"negative lost records", "1 -3 lost-acked-records", "lost-acked-records -3: not a measurement: a count of records is never negative", ErrNotMeasurement},
		{"a fraction of a record", "1 1.5 lost-acked-records", "a count of records is whole", ErrNotMeasurement},
		{"longer than a time.Duration", "1 1e300 ack-stall-sec", "ack-stall-sec 1e+300: not a measurement: longer than any duration", ErrNotMeasurement},
		{"converted to longer than a time.Duration", "1 1e9 ack-stall-min", "ack-stall-min 1e+09 is ack-stall-sec 6e+10: not a measurement: longer than any duration", ErrNotMeasurement},
		{"more records than exact", "1 1e17 lost-acked-records", "more records than a count holds exactly", ErrNotMeasurement},
		{"a unit no metric has", "1 8 stall-sec", `unit "stall-sec": not a kbf metric's unit (want one of ack-stall-sec`, ErrUnit},
		{"a duration in records", "1 8 ack-stall-records", "ack_stall is a duration, want ack-stall-sec", ErrUnit},
		{"a count in seconds", "1 8 lost-acked-sec", "lost_acked counts records, want lost-acked-records", ErrUnit},
		{"a Go benchmark's unit", "1 8 ns/op", `unit "ns/op"`, ErrUnit},
		{"one metric twice", "1 8 ack-stall-sec 8000 ack-stall-ms", "ack_stall given twice (as ack-stall-ms)", nil},
		{"not a number", "1 x ack-stall-sec", "parsing measurement", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := header + "BenchmarkFailover/scenario=a/role=leader " + tt.line + "\n"
			r := NewReader(strings.NewReader(in), "f.txt")
			for r.Scan() {
				t.Fatalf("read %+v", r.Result().Values)
			}
			err := r.Err()
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != 5 || !strings.Contains(err.Error(), "f.txt:5: ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want f.txt:5: …%s", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
		})
	}
}

func TestReadConfigRefuses(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"better=higher", "Unit ack-stall-sec better=higher\n", "f.txt:1: unit ack-stall-sec better=higher: every kbf metric is better=lower"},
		{"a probe interval not a duration", "probe-interval: soon\n\nBenchmarkFailover/scenario=a/role=leader 1 8 ack-stall-sec\n", `f.txt:3: probe-interval "soon"`},
		{"a negative probe interval", "probe-interval: -20ms\n\nBenchmarkFailover/scenario=a/role=leader 1 8 ack-stall-sec\n", `f.txt:3: probe-interval "-20ms"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in), "f.txt")
			for r.Scan() {
			}
			if err := r.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestUnits checks that a duration's unit in other units of time is
// converted to seconds: one side's ack-stall-ms is the other's
// ack-stall-sec.
func TestUnits(t *testing.T) {
	tests := []struct {
		unit string
		v    float64
	}{
		{"ack-stall-sec", 8.736}, {"ack-stall-ms", 8736}, {"ack-stall-us", 8736000}, {"ack-stall-µs", 8736000},
		{"ack-stall-ns", 8736000000}, {"ack-stall-s", 8.736}, {"ack-stall-min", 8.736 / 60},
	}
	for _, tt := range tests {
		t.Run(tt.unit, func(t *testing.T) {
			in := "BenchmarkFailover/scenario=a/role=leader 1 " + strconvG(tt.v) + " " + tt.unit + "\n"
			r := NewReader(strings.NewReader(in), "f.txt")
			if !r.Scan() {
				t.Fatal(r.Err())
			}
			v := r.Result().Values
			if len(v) != 1 || v[0].Metric.Name != "ack_stall" || math.Abs(v[0].Value-8.736) > 1e-9 {
				t.Errorf("read %+v, want ack_stall 8.736 s", v)
			}
			if b := r.Result().Bench.Values[0]; b.Unit != "ack-stall-sec" || math.Abs(b.Value-8.736) > 1e-9 {
				t.Errorf("benchfmt's result holds %+v, want it converted too", b)
			}
		})
	}
}

func strconvG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TestRoundTrip writes lines with the Writer and reads them back: the
// names, roles, configuration and values (to the millisecond).
func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.Units(Metrics); err != nil {
		t.Fatal(err)
	}
	lines := []Line{
		{Config: [][2]string{{"kafka-version", "4.3.1"}, {ConfigAcks, "all"}, {ConfigProbeInterval, "20ms"}}, Variant: "scenario=sigkill", Role: RoleLeader,
			Values: map[string]float64{"ack-stall-sec": 8.7364, "detect-sec": 8.418, "lost-acked-records": 0}},
		{Config: [][2]string{{"kafka-version", "4.3.1"}, {ConfigAcks, "1"}, {ConfigProbeInterval, "5ms"}, {"empty", ""}}, Variant: "scenario=s/broker.session.timeout.ms=6000", Role: RoleFollower,
			Values: map[string]float64{"first-ack-sec": 0.003, "lost-acked-records": 2}},
	}
	for _, l := range lines {
		if err := w.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(&b, "rt.txt")
	for i := 0; r.Scan(); i++ {
		got, want := r.Result(), lines[i]
		if got.Name != BenchName+"/"+want.Variant+"/role="+want.Role || got.Role != want.Role || got.Acks != want.Config[1][1] {
			t.Errorf("line %d: %s role %q acks %q", i, got.Name, got.Role, got.Acks)
		}
		if iv, _ := time.ParseDuration(want.Config[2][1]); got.ProbeInterval != iv {
			t.Errorf("line %d: probe interval %v, want %v", i, got.ProbeInterval, iv)
		}
		if got.Bench.GetConfig("empty") != "" {
			t.Errorf("line %d: an empty configuration value was written", i)
		}
		if len(got.Values) != len(want.Values) {
			t.Errorf("line %d: %d values, want %d", i, len(got.Values), len(want.Values))
		}
		for _, v := range got.Values {
			if w := want.Values[v.Metric.Unit]; v.Value != Round(w) {
				t.Errorf("line %d: %s %v, want %v", i, v.Metric.Unit, v.Value, Round(w))
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestWriteRefuses(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), -1} {
		err := NewWriter(&bytes.Buffer{}).Write(Line{Variant: "scenario=a", Role: RoleLeader, Values: map[string]float64{"ack-stall-sec": v}})
		if !errors.Is(err, ErrNotMeasurement) {
			t.Errorf("write %v: error %v, want it refused", v, err)
		}
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	os.WriteFile(file, []byte(header), 0o644)
	bench := filepath.Join(dir, "bench")
	os.MkdirAll(bench, 0o755)
	os.WriteFile(filepath.Join(bench, TextFile), []byte(header), 0o644)
	shards := filepath.Join(dir, "shards")
	for _, s := range []string{"s2", "s1"} {
		os.MkdirAll(filepath.Join(shards, s), 0o755)
		os.WriteFile(filepath.Join(shards, s, TextFile), []byte(header), 0o644)
	}
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	tests := []struct {
		name, path string
		want       []string
		err        string
	}{
		{"a file", file, []string{file}, ""},
		{"a bench directory", bench, []string{filepath.Join(bench, TextFile)}, ""},
		{"a directory of shards, in order", shards, []string{filepath.Join(shards, "s1", TextFile), filepath.Join(shards, "s2", TextFile)}, ""},
		{"missing", filepath.Join(dir, "nope"), nil, "no such file (kbf bench writes bench.txt"},
		{"a directory without bench.txt", empty, nil, filepath.Join(empty, TextFile) + ": no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Files(tt.path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("Files = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
