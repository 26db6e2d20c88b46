package compare

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// ciGateMetrics are the metrics kbf's own gate (make bench-gate's
// GATE_METRICS, the failover-bench workflow) and the action gate on by
// default; docs/ci-gate.md says why.
const ciGateMetrics = "from_heartbeat"

// TestCIGateMetricsDefaults checks that make bench-gate, the
// failover-bench workflow and the action default to the same metrics, and
// that kbf compare --metric takes them.
func TestCIGateMetricsDefaults(t *testing.T) {
	read := func(path string) []byte {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	got := map[string]string{}
	if m := regexp.MustCompile(`(?m)^GATE_METRICS\s*\?=\s*(\S*)\s*$`).FindSubmatch(read("../Makefile")); m != nil {
		got["Makefile GATE_METRICS"] = string(m[1])
	}
	var wf struct {
		Env map[string]string `yaml:"env"`
	}
	if err := yaml.Unmarshal(read("../.github/workflows/failover-bench.yml"), &wf); err != nil {
		t.Fatal(err)
	}
	got["failover-bench.yml env GATE_METRICS"] = wf.Env["GATE_METRICS"]
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(read("../action.yml"), &action); err != nil {
		t.Fatal(err)
	}
	got["action.yml inputs.metrics"] = action.Inputs["metrics"].Default
	for _, where := range []string{"Makefile GATE_METRICS", "failover-bench.yml env GATE_METRICS", "action.yml inputs.metrics"} {
		if got[where] != ciGateMetrics {
			t.Errorf("%s defaults to %q, want %q", where, got[where], ciGateMetrics)
		}
	}
	if !bytes.Contains(read("../.github/workflows/failover-bench.yml"), []byte(`--metric "$GATE_METRICS"`)) {
		t.Error("the failover-bench workflow's kbf compare does not gate on $GATE_METRICS")
	}
	for _, m := range strings.Split(ciGateMetrics, ",") {
		if _, err := ParseSelector(m); err != nil {
			t.Errorf("%q: %v", m, err)
		}
	}
}

// TestCIGateMetricsAnswer compares bench/ci.yaml's recorded trials (the
// baseline, SIGKILL and SIGTERM) with themselves, resampled 1000 times at
// make bench-gate's 6 trials a side, gated on the default metrics: they
// are a SIGKILL's two from_heartbeat rows and nothing else; every other
// row is printed, marked not gated; no comparison declares a difference
// in more than alpha of them; and most answer same, where gated on every
// metric almost none does (a SIGTERM's sub-second stalls scatter too
// widely for 6 trials to rule out a change of 10 %). Slower by twice the
// change sought, they answer regression in at least 90 %.
func TestCIGateMetricsAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	rec := recorded(t)
	var sels []Selector
	for _, m := range strings.Split(ciGateMetrics, ",") {
		sel, err := ParseSelector(m)
		if err != nil {
			t.Fatal(err)
		}
		sels = append(sels, sel)
	}
	chosen := allGate
	chosen.Metrics = sels
	const n, sims = 6, 1000
	rng := rand.New(rand.NewPCG(34, 6))
	draw := func(vals []float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = vals[rng.IntN(len(vals))]
		}
		return out
	}
	answers := map[Verdict]int{}
	everySame := 0
	for i := range sims {
		old := &Side{Samples: map[Key][]float64{}, Acks: rec.Acks, Interval: rec.Interval, order: rec.order}
		new := &Side{Samples: map[Key][]float64{}, Acks: rec.Acks, Interval: rec.Interval, order: rec.order}
		for _, k := range rec.order {
			old.Samples[k], new.Samples[k] = draw(rec.Samples[k]), draw(rec.Samples[k])
		}
		res, err := Compare(context.Background(), old, new, chosen)
		if err != nil {
			t.Fatal(err)
		}
		answers[res.Verdict]++
		if every, err := Compare(context.Background(), old, new, allGate); err != nil {
			t.Fatal(err)
		} else if every.Verdict == Same {
			everySame++
		}
		if i > 0 {
			continue
		}
		var gated []string
		for _, r := range res.Rows {
			if r.Gated {
				gated = append(gated, shortName(r.Name)+" "+metricName(r.Unit))
			}
		}
		if want := "sigkill/role=leader from_heartbeat, sigkill/role=follower from_heartbeat"; strings.Join(gated, ", ") != want {
			t.Errorf("gated rows %q, want %q", gated, want)
		}
		var text bytes.Buffer
		if err := WriteText(&text, res); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(text.String(), "\n")
		for _, r := range res.Rows {
			name := shortName(r.Name) + " " + metricName(r.Unit) + " "
			for _, l := range lines {
				if strings.HasPrefix(l, name) && strings.Contains(l, "not gated") == r.Gated {
					t.Errorf("gated %v, printed as %q", r.Gated, l)
				}
			}
		}
	}
	// Slower by twice the change sought on every row (10 % of the median,
	// at least 20 ms), the default metrics still find it at 6 a side.
	regressions := 0
	for range sims {
		old := &Side{Samples: map[Key][]float64{}, Acks: rec.Acks, Interval: rec.Interval, order: rec.order}
		new := &Side{Samples: map[Key][]float64{}, Acks: rec.Acks, Interval: rec.Interval, order: rec.order}
		for _, k := range rec.order {
			old.Samples[k], new.Samples[k] = draw(rec.Samples[k]), draw(rec.Samples[k])
			shift := 2 * max(allGate.MaxRegression*median(rec.Samples[k]), DefaultMinChange.Seconds())
			for j := range new.Samples[k] {
				new.Samples[k][j] += shift
			}
		}
		res, err := Compare(context.Background(), old, new, chosen)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict == Regression {
			regressions++
		}
	}
	pct := func(k int) float64 { return 100 * float64(k) / sims }
	t.Logf("twice the change sought slower, %d a side, gated on %s: regression in %.1f %%", n, ciGateMetrics, pct(regressions))
	if regressions < sims*9/10 {
		t.Errorf("twice the change sought: a regression in only %.1f %% of comparisons gated on %s", pct(regressions), ciGateMetrics)
	}
	t.Logf("A against A, %d a side, gated on %s: same %.1f %%, undecided %.1f %%, different %.1f %%; gated on every metric: same %.1f %%",
		n, ciGateMetrics, pct(answers[Same]), pct(answers[Undecided]), pct(answers[Regression]+answers[Improvement]), pct(everySame))
	if rate := float64(answers[Regression]+answers[Improvement]) / sims; rate > allGate.Alpha {
		t.Errorf("gated on %s: a difference in %.1f %% of A-against-A comparisons, more than alpha", ciGateMetrics, 100*rate)
	}
	if answers[Same] < sims/2 || everySame > sims/20 {
		t.Errorf("same in %.1f %% gated on %s, %.1f %% on every metric: want most on the default metrics, almost none on all", pct(answers[Same]), ciGateMetrics, pct(everySame))
	}
}
