package compare

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/kbf-project/kbf/internal/testsupport/golden"
)

// testdata/old.txt is six trials of SIGKILL and SIGTERM as kbf bench
// lays them out, with figures in the spread docs/measurements.md reports for this
// machine (ack stalls 7.45–9.90 s after a SIGKILL, 0.02–1.11 s after a
// SIGTERM).
const oldFile = "testdata/old.txt"

// rewrite writes a copy of src into the test's directory, each result
// passed through edit (which drops it by returning false), with
// benchfmt's own reader and writer.
func rewrite(t *testing.T, src, name string, edit func(n int, r *benchfmt.Result) bool) string {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	w := benchfmt.NewWriter(&buf)
	r := benchfmt.NewReader(f, src)
	seen := map[string]int{}
	for r.Scan() {
		rec := r.Result()
		if res, ok := rec.(*benchfmt.Result); ok {
			name := string(res.Name)
			seen[name]++
			if !edit(seen[name], res) {
				continue
			}
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func scale(k float64) func(int, *benchfmt.Result) bool {
	return func(_ int, r *benchfmt.Result) bool {
		for i := range r.Values {
			r.Values[i].Value *= k
		}
		return true
	}
}

func keep(int, *benchfmt.Result) bool { return true }

func mustCompare(t *testing.T, old, new *Side, g Gate) *Result {
	t.Helper()
	res, err := Compare(context.Background(), old, new, g)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func read(t *testing.T, paths ...string) *Side {
	t.Helper()
	s, err := Read(context.Background(), paths...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestVerdicts(t *testing.T) {
	tests := []struct {
		name string
		old  func(t *testing.T) []string
		new  func(t *testing.T) []string
		gate Gate
		want Verdict
		why  string // part of the line that decided it
		// improved is part of a row's line that says improvement.
		improved string
	}{
		// Six trials of old.txt's spread (16–97 %) cannot say "same" of
		// a 10 % change in most metrics: equal samples are undecided, not
		// a pass. TestThreeAnswers gives "same" with tighter samples.
		{name: "equal samples: undecided",
			old:  func(t *testing.T) []string { return []string{oldFile} },
			new:  func(t *testing.T) []string { return []string{rewrite(t, oldFile, "new.txt", keep)} },
			want: Undecided},
		{name: "shifted by 50 %: regression",
			old:  func(t *testing.T) []string { return []string{oldFile} },
			new:  func(t *testing.T) []string { return []string{rewrite(t, oldFile, "new.txt", scale(1.5))} },
			want: Regression, why: "+50.0% (more than 10%)"},
		{name: "faster by 50 %: improvement where decided",
			old:  func(t *testing.T) []string { return []string{oldFile} },
			new:  func(t *testing.T) []string { return []string{rewrite(t, oldFile, "new.txt", scale(0.5))} },
			want: Undecided, improved: "-50.0% (more than 10%), p=0.004"},
		{name: "shifted by 5 %, under the bound: no regression",
			old:  func(t *testing.T) []string { return []string{oldFile} },
			new:  func(t *testing.T) []string { return []string{rewrite(t, oldFile, "new.txt", scale(1.05))} },
			want: Undecided},
		{name: "3 trials a side: too few",
			old: func(t *testing.T) []string {
				return []string{rewrite(t, oldFile, "old3.txt", func(n int, _ *benchfmt.Result) bool { return n <= 3 })}
			},
			new: func(t *testing.T) []string {
				return []string{rewrite(t, oldFile, "new3.txt", func(n int, r *benchfmt.Result) bool { return n <= 3 && scale(1.01)(n, r) })}
			},
			want: Undecided, why: "3 and 3 valid trials: need 6 a side"},
		{name: "a lost acknowledged record under acks=all fails outright",
			old:  func(t *testing.T) []string { return []string{oldFile} },
			new:  func(t *testing.T) []string { return []string{rewrite(t, oldFile, "new.txt", loseOne)} },
			want: Lost, why: "1 acknowledged records lost under acks=all"},
		{name: "a lost record under acks=1 is no verdict of its own",
			old: func(t *testing.T) []string { return []string{oldFile} },
			new: func(t *testing.T) []string {
				return []string{rewrite(t, oldFile, "new.txt", func(n int, r *benchfmt.Result) bool {
					i, _ := r.ConfigIndex("acks")
					r.Config[i].Value = []byte("1") // in place: SetConfig would make it internal, and unwritten
					return loseOne(n, r)
				})}
			},
			want: Undecided},
		{name: "over an absolute limit, for the role it names",
			old:  func(t *testing.T) []string { return []string{oldFile} },
			new:  func(t *testing.T) []string { return []string{oldFile} },
			gate: Gate{MaxRegression: 0.1, Alpha: 0.05, Limits: []Limit{mustLimit(t, "leader:ack_stall=8.5s")}},
			want: Regression, why: "over the limit 8.50 s"},
		{name: "under an absolute limit",
			old:  func(t *testing.T) []string { return []string{oldFile} },
			new:  func(t *testing.T) []string { return []string{oldFile} },
			gate: Gate{MaxRegression: 0.1, Alpha: 0.05, Limits: []Limit{mustLimit(t, "ack_stall=12s")}},
			want: Undecided},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.gate
			if g.Alpha == 0 {
				g = allGate
			}
			res := mustCompare(t, read(t, tt.old(t)...), read(t, tt.new(t)...), g)
			if res.Verdict != tt.want {
				var b bytes.Buffer
				WriteText(&b, res)
				t.Fatalf("verdict %v, want %v:\n%s", res.Verdict, tt.want, b.String())
			}
			if tt.improved != "" && !slices.ContainsFunc(res.Rows, func(r Row) bool {
				return r.Verdict == Improvement && strings.Contains(r.Why, tt.improved)
			}) {
				t.Errorf("no row says improvement: %q", tt.improved)
			}
			if tt.why == "" {
				return
			}
			found := false
			for _, r := range res.Rows {
				if r.Verdict == tt.want && strings.Contains(r.Why, tt.why) {
					found = true
				}
			}
			if !found {
				t.Errorf("no row says %q", tt.why)
			}
		})
	}
}

// loseOne marks one lost record in the third sigkill leader trial.
func loseOne(n int, r *benchfmt.Result) bool {
	if n == 3 && strings.Contains(string(r.Name), "sigkill/role=leader") {
		for i := range r.Values {
			if r.Values[i].Unit == "lost-acked-records" {
				r.Values[i].Value = 1
			}
		}
	}
	return true
}

func mustLimit(t *testing.T, s string) Limit {
	l, err := ParseLimit(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLimitRole(t *testing.T) {
	res := mustCompare(t, read(t, oldFile), read(t, oldFile), Gate{MaxRegression: 0.1, Alpha: 0.05, Limits: []Limit{mustLimit(t, "leader:ack_stall=8.5s")}})
	for _, r := range res.Rows {
		leader := strings.Contains(r.Name, "role=leader") && strings.Contains(r.Name, "sigkill") && r.Unit == "ack-stall-sec"
		if leader != (r.Verdict == Regression) {
			t.Errorf("%s %s: verdict %v", r.Name, r.Unit, r.Verdict)
		}
	}
}

// TestMerge checks that shards read together are the one file they came
// from: the samples and the comparison alike.
func TestMerge(t *testing.T) {
	odd := rewrite(t, oldFile, "shard1.txt", func(n int, _ *benchfmt.Result) bool { return n%2 == 1 })
	even := rewrite(t, oldFile, "shard2.txt", func(n int, _ *benchfmt.Result) bool { return n%2 == 0 })
	whole, merged := read(t, oldFile), read(t, odd, even)
	if len(whole.Samples) != len(merged.Samples) {
		t.Fatalf("%d samples merged, want %d", len(merged.Samples), len(whole.Samples))
	}
	newer := read(t, rewrite(t, oldFile, "new.txt", scale(1.5)))
	a, b := mustCompare(t, whole, newer, allGate), mustCompare(t, merged, newer, allGate)
	for i := range a.Rows {
		ra, rb := a.Rows[i], b.Rows[i]
		if ra.Key != rb.Key || ra.NOld != rb.NOld || ra.Old.Center != rb.Old.Center || ra.Cmp.P != rb.Cmp.P {
			t.Errorf("%v: whole %+v, merged %+v", ra.Key, ra, rb)
		}
	}
	// A directory stands for its bench.txt.
	dir := t.TempDir()
	b2, _ := os.ReadFile(oldFile)
	os.WriteFile(filepath.Join(dir, "bench.txt"), b2, 0o644)
	if d := read(t, dir); len(d.Samples) != len(whole.Samples) {
		t.Errorf("a directory read %d samples", len(d.Samples))
	}
	// A directory of shards' directories stands for all their bench.txt.
	shards := t.TempDir()
	for i, src := range []string{odd, even} {
		sub := filepath.Join(shards, fmt.Sprint("shard-", i+1))
		os.MkdirAll(sub, 0o755)
		b, _ := os.ReadFile(src)
		os.WriteFile(filepath.Join(sub, "bench.txt"), b, 0o644)
	}
	sh := read(t, shards)
	for k, v := range whole.Samples {
		if len(sh.Samples[k]) != len(v) {
			t.Errorf("%v: %d values from the shards' directories, want %d", k, len(sh.Samples[k]), len(v))
		}
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("goos: linux\n"), 0o644)
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("BenchmarkFailover/scenario=a/role=leader 1 x ack-stall-sec\n"), 0o644)
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope.txt"), "no such file (kbf bench writes bench.txt"},
		{"a directory without bench.txt", dir, "no such file"},
		{"no results", empty, "no benchmark results"},
		{"not a number", bad, "bad.txt:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(context.Background(), tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseLimit(t *testing.T) {
	tests := []struct {
		in      string
		role    string
		unit    string
		value   float64
		wantErr string
	}{
		{in: "ack_stall=12s", unit: "ack-stall-sec", value: 12},
		{in: "follower:detect=9500ms", role: "follower", unit: "detect-sec", value: 9.5},
		{in: "lost_acked=0", unit: "lost-acked-records", value: 0},
		{in: "ack_stall", wantErr: "want [ROLE:]METRIC=VALUE"},
		{in: "boss:ack_stall=1s", wantErr: "want leader or follower"},
		{in: "stall=1s", wantErr: "no metric \"stall\""},
		{in: "ack_stall=12", wantErr: "positive duration"},
		{in: "lost_acked=many", wantErr: "not a count"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			l, err := ParseLimit(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || l.Role != tt.role || l.Metric.Unit != tt.unit || math.Abs(l.Value-tt.value) > 1e-9 {
				t.Errorf("%+v, %v", l, err)
			}
		})
	}
}

func TestParsePercent(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{"10%", 0.1, ""}, {"0.1", 0.1, ""}, {"2.5%", 0.025, ""}, {"0", 0, ""}, {"1", 1, ""}, {"150%", 1.5, ""},
		{"-1%", 0, "at least 0"}, {"-0.1", 0, "at least 0"}, {"ten", 0, "want a percentage"},
		{"NaN", 0, "want a percentage"}, {"NaN%", 0, "want a percentage"}, {"Inf%", 0, "want a percentage"},
		{"5", 0, "a plain number is a fraction (0.05 is 5%); write 5% for 5 percent"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePercent(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("ParsePercent(%q) = %v, %v; want %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("ParsePercent(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestRender(t *testing.T) {
	res := mustCompare(t, read(t, oldFile), read(t, rewrite(t, oldFile, "new.txt", scale(1.5))), allGate)
	for _, r := range []struct {
		name  string
		write func(*bytes.Buffer, *Result) error
	}{
		{"shifted.txt", func(b *bytes.Buffer, r *Result) error { return WriteText(b, r) }},
		{"shifted.md", func(b *bytes.Buffer, r *Result) error { return WriteMarkdown(b, r) }},
		{"shifted.json", func(b *bytes.Buffer, r *Result) error { return WriteJSON(b, r) }},
	} {
		t.Run(r.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := r.write(&b, res); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", r.name+".golden"), b.Bytes())
		})
	}
}
