package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/kbf-project/kbf/internal/testsupport/golden"
)

// benchmarked runs a benchmark of the recorded trials — two scenarios and
// a sweep of two values, two trials each — once per test binary, into a
// temporary directory the tests only read.
func benchmarked(t *testing.T) (string, *Set) {
	t.Helper()
	bmOnce.Do(func() { bmDir, bmSet, bmErr = runBenchmarked(t) })
	if bmErr != nil {
		t.Fatal(bmErr)
	}
	return bmDir, bmSet
}

var (
	bmOnce  sync.Once
	bmDir   string
	bmSet   *Set
	bmErr   error
	cleanup []string // removed by TestMain
)

func runBenchmarked(t *testing.T) (string, *Set, error) {
	dir, err := os.MkdirTemp("", "kbf-bench-test-")
	if err != nil {
		return "", nil, err
	}
	cleanup = append(cleanup, dir)
	f := &File{Trials: 2, Scenarios: []Scenario{
		{Name: "sigkill", Fault: "sigkill"},
		{Name: "sigterm", Fault: "sigterm"},
		{Name: "session", Fault: "sigkill", Sweep: &Sweep{Key: "broker.session.timeout.ms", Values: []string{"6000", "9000"}}},
	}}
	if err := f.Validate(); err != nil {
		return "", nil, err
	}
	b := &Bench{File: f, Dir: dir, Runner: &fakeRunner{t: t, base: dir}, Cores: 2,
		Env: Env{{"client", "franz-go"}, {"client-version", "v1.22.3"}}}
	set, err := b.Run(context.Background())
	return dir, set, err
}

func TestWriters(t *testing.T) {
	dir, _ := benchmarked(t)
	for _, name := range []string{TextFile, JSONFile, MarkdownFile} {
		t.Run(name, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join(testdata, name+".golden"), got)
		})
	}
}

// TestTextReadBack reads bench.txt back with benchfmt's own reader, as
// benchstat does: every valid trial's line per role, every value as
// measured, and every unit of a metric measured better=lower.
func TestTextReadBack(t *testing.T) {
	dir, set := benchmarked(t)
	f, err := os.Open(filepath.Join(dir, TextFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := benchfmt.NewReader(f, TextFile)
	got := map[string][]map[string]float64{}
	n := 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("benchfmt cannot read it: %v", rec)
		case *benchfmt.Result:
			n++
			if rec.GetConfig("cores") != "2" || rec.GetConfig("client") != "franz-go" || rec.GetConfig("acks") != "all" || rec.GetConfig("probe-interval") != "20ms" || rec.GetConfig("kafka-version") == "" {
				t.Errorf("%s: configuration %v", rec.Name, rec.Config)
			}
			vals := map[string]float64{}
			for _, v := range rec.Values {
				vals[v.Unit] = v.Value
			}
			got[string(rec.Name.Full())] = append(got[string(rec.Name.Full())], vals)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, rec := range set.Records {
		for role, vals := range rec.M.Roles {
			want++
			name := BenchName + "/" + rec.Trial.Variant.Name() + "/role=" + role
			lines := got[name]
			if len(lines) == 0 {
				t.Errorf("no line for %s", name)
				continue
			}
			for unit, v := range vals {
				if g, ok := lines[0][unit]; !ok || g != round(v) {
					t.Errorf("%s %s = %v, measured %v", name, unit, g, v)
				}
			}
		}
	}
	if n != want {
		t.Errorf("%d result lines, want %d", n, want)
	}
	for _, m := range Metrics {
		if m.Optional() && !set.measured(m) {
			continue // declared only where a trial has it (TestMeasureSteps)
		}
		if r.Units().GetBetter(m.Unit) != -1 {
			t.Errorf("unit %s not better=lower", m.Unit)
		}
	}
}

func TestJSONFormat(t *testing.T) {
	dir, _ := benchmarked(t)
	b, err := os.ReadFile(filepath.Join(dir, JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	// github-action-benchmark's custom format: name, unit and value
	// required, range and extra optional strings.
	var entries []map[string]any
	if err := json.Unmarshal(b, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("no entries")
	}
	for _, e := range entries {
		if _, ok := e["name"].(string); !ok {
			t.Errorf("entry without a name: %v", e)
		}
		if _, ok := e["unit"].(string); !ok {
			t.Errorf("entry without a unit: %v", e)
		}
		if _, ok := e["value"].(float64); !ok {
			t.Errorf("entry without a numeric value: %v", e)
		}
		if r, ok := e["range"].(string); !ok || !strings.Contains(r, "need 6 valid trials") {
			t.Errorf("two trials give no interval, and the range must say so: %v", e)
		}
	}
}

func TestSweepPlot(t *testing.T) {
	dir, _ := benchmarked(t)
	for _, role := range []string{RoleLeader, RoleFollower} {
		path := filepath.Join(dir, SweepPlotFile("session", role))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(bytes.NewReader(b))
		for {
			if _, err := dec.Token(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s is not well-formed: %v", path, err)
			}
		}
		for _, want := range []string{"<svg", "ack_stall", "after_detect", "6000", "9000", "broker.session.timeout.ms"} {
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("%s lacks %q", path, want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, SweepPlotFile("sigkill", RoleLeader))); err == nil {
		t.Error("a scenario without a sweep got a sweep plot")
	}
}
