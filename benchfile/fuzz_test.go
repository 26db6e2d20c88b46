package benchfile

import (
	"bytes"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
)

// FuzzReader feeds the reader arbitrary files. It must never panic; an
// error is located in the file; every value it accepts is a finite, not
// negative measurement of a known metric; and what it accepts, written
// back with the Writer and read again, is the same to the millisecond.
func FuzzReader(f *testing.F) {
	if b, err := os.ReadFile("../compare/testdata/old.txt"); err == nil {
		f.Add(string(b))
	}
	f.Add(header + "BenchmarkFailover/scenario=a/role=leader 1 8.7 ack-stall-sec 0 lost-acked-records\n")
	f.Add("BenchmarkFailover/scenario=a/role=leader 1 NaN ack-stall-sec\n")
	f.Add("BenchmarkFailover/scenario=a/role=follower 1 3 first-ack-ms -3 lost-acked-records\n")
	f.Add("Unit ack-stall-sec better=higher\n")
	f.Add("probe-interval: 1h\n\nBenchmarkFailover 1 1e300 ack-stall-min\n")
	f.Fuzz(func(t *testing.T, in string) {
		r := NewReader(strings.NewReader(in), "fuzz.txt")
		var lines []Line
		for r.Scan() {
			res := r.Result()
			vals := map[string]float64{}
			for _, v := range res.Values {
				if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) || v.Value < 0 {
					t.Fatalf("%s: accepted %s %v", res.Name, v.Metric.Unit, v.Value)
				}
				if _, ok := byUnit(v.Metric.Unit); !ok {
					t.Fatalf("%s: accepted unit %s", res.Name, v.Metric.Unit)
				}
				vals[v.Metric.Unit] = v.Value
			}
			variant, ok := strings.CutPrefix(res.Name, BenchName+"/")
			if !ok || !strings.HasSuffix(variant, "/role="+res.Role) || res.Role == "" || strings.Contains(variant, " ") {
				continue // only names the Writer would make round-trip
			}
			variant = strings.TrimSuffix(variant, "/role="+res.Role)
			lines = append(lines, Line{Variant: variant, Role: res.Role, Values: vals})
		}
		if err := r.Err(); err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) && !strings.HasPrefix(err.Error(), "fuzz.txt: ") {
				t.Fatalf("error %q names no file", err)
			}
			return
		}
		var b bytes.Buffer
		w := NewWriter(&b)
		for _, l := range lines {
			if err := w.Write(l); err != nil {
				t.Fatalf("write back what was read: %v", err)
			}
		}
		back := NewReader(&b, "back.txt")
		for i := 0; back.Scan(); i++ {
			res := back.Result()
			if len(res.Values) != len(lines[i].Values) {
				t.Fatalf("line %d: %d values back, %d read", i, len(res.Values), len(lines[i].Values))
			}
			for _, v := range res.Values {
				if want := Round(lines[i].Values[v.Metric.Unit]); v.Value != want {
					t.Fatalf("line %d: %s %v back, %v read", i, v.Metric.Unit, v.Value, want)
				}
			}
		}
		if err := back.Err(); err != nil {
			t.Fatalf("read back what was written: %v", err)
		}
	})
}
