package compare

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestHolm checks the adjustment against R's p.adjust(p, "holm"): each p
// in ascending order times the hypotheses left, kept monotone, capped at
// 1, returned in the input's order.
func TestHolm(t *testing.T) {
	tests := []struct {
		name    string
		ps, adj []float64
	}{
		{"none", nil, []float64{}},
		{"one: unchanged", []float64{0.03}, []float64{0.03}},
		// p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm")
		{"four", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// the two: 0.009 and 0.035 among 24 (the rest 0.5)
		{"capped at 1, monotone", []float64{0.5, 0.009, 0.6, 0.035}, []float64{1, 0.036, 1, 0.105}},
		{"ties", []float64{0.01, 0.01, 0.2}, []float64{0.03, 0.03, 0.2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := holm(tt.ps)
			if len(got) != len(tt.adj) {
				t.Fatalf("%d adjusted, want %d", len(got), len(tt.adj))
			}
			for i := range got {
				if math.Abs(got[i]-tt.adj[i]) > 1e-12 {
					t.Errorf("holm(%v) = %v, want %v", tt.ps, got, tt.adj)
					break
				}
			}
		})
	}
}

// synthetic is 24 metrics (two scenarios, two roles, six units) of
// shapes kbf's metrics have: a stall spread uniformly over a heartbeat's
// phase, a near-normal one, a skewed (lognormal) phase, a small phase in
// whole milliseconds with ties. Each draws a fresh value from its shape.
func synthetic() ([]Key, map[Key]func(*rand.Rand) float64) {
	units := []string{"ack-stall-sec", "receive-stall-sec", "detect-sec", "client-sec", "after-detect-sec", "from-heartbeat-sec"}
	var keys []Key
	draw := map[Key]func(*rand.Rand) float64{}
	for _, scenario := range []string{"sigkill", "sigterm"} {
		for _, role := range []string{"leader", "follower"} {
			for i, unit := range units {
				k := Key{fmt.Sprintf("Failover/scenario=%s/role=%s", scenario, role), unit}
				keys = append(keys, k)
				base := 0.3 + float64(i)
				switch i % 4 {
				case 0: // a heartbeat's phase: uniform over 2 s
					draw[k] = func(r *rand.Rand) float64 { return base + 6 + 2*r.Float64() }
				case 1: // near-normal, 5 % spread
					draw[k] = func(r *rand.Rand) float64 { return math.Max(0, base*(1+0.05*r.NormFloat64())) }
				case 2: // skewed
					draw[k] = func(r *rand.Rand) float64 { return base * math.Exp(0.6*r.NormFloat64()) }
				default: // tens of ms, rounded to the ms: many ties
					draw[k] = func(r *rand.Rand) float64 { return math.Round(1000*(0.04+0.03*r.ExpFloat64())) / 1000 }
				}
			}
		}
	}
	return keys, draw
}

// aAgainstA compares, reps times, n trials a side both drawn from the same
// distributions, and counts the comparisons that declared any difference
// (a regression or an improvement, in any row) and the rows that did.
func aAgainstA(t *testing.T, g Gate, n, reps int) (comparisons, rows int) {
	t.Helper()
	keys, draw := synthetic()
	rng := rand.New(rand.NewPCG(34, 4))
	for range reps {
		old := &Side{Samples: map[Key][]float64{}, order: keys}
		new := &Side{Samples: map[Key][]float64{}, order: keys}
		for _, k := range keys {
			for range n {
				old.Samples[k] = append(old.Samples[k], draw[k](rng))
				new.Samples[k] = append(new.Samples[k], draw[k](rng))
			}
		}
		res, err := Compare(context.Background(), old, new, g)
		if err != nil {
			t.Fatal(err)
		}
		any := false
		for _, r := range res.Rows {
			if r.Verdict == Regression || r.Verdict == Improvement {
				rows++
				any = true
			}
		}
		if any {
			comparisons++
		}
	}
	return comparisons, rows
}

// TestFamilyAAgainstA compares 24 metrics with themselves — both sides
// drawn from the same distributions, a fixed seed — 1000 times at 6 and
// 12 trials a side. Tested as a family (Holm), a difference on any
// metric may be declared in at most alpha of the comparisons, whatever
// the number of metrics. The test of the test: each metric alone at
// alpha, the gate as it was, declares one in many more — the gate that
// once called two improvements on an unchanged commit.
func TestFamilyAAgainstA(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const reps = 1000
	for _, n := range []int{6, 12} {
		t.Run(fmt.Sprint(n, " a side"), func(t *testing.T) {
			family, familyRows := aAgainstA(t, allGate, n, reps)
			alone := allGate
			alone.perMetric = true
			old, oldRows := aAgainstA(t, alone, n, reps)
			t.Logf("%d a side, 24 metrics, %d comparisons: any difference in %.1f %% (%d rows) tested as a family, %.1f %% (%d rows) each alone",
				n, reps, 100*float64(family)/reps, familyRows, 100*float64(old)/reps, oldRows)
			if rate := float64(family) / reps; rate > allGate.Alpha {
				t.Errorf("tested as a family: a difference declared in %.1f %% of A-against-A comparisons, more than alpha %g", 100*rate, allGate.Alpha)
			}
			if rate := float64(old) / reps; rate <= 2*allGate.Alpha {
				t.Errorf("each metric alone: a difference in only %.1f %% of comparisons; the simulation no longer shows what the family correction prevents", 100*rate)
			}
		})
	}
}

// TestFamilyStillFinds checks that the correction leaves the gate able to
// answer: among the 24 metrics, one slowed by half (the rest unchanged)
// is still a regression at 6 trials a side when it is the one gated, and
// at 12 when all 24 are (6 a side cannot: the smallest p of 6 against 6,
// 0.0043, times 24 is over 0.05).
func TestFamilyStillFinds(t *testing.T) {
	keys, draw := synthetic()
	slow := keys[1] // sigkill leader receive_stall, a near-normal metric
	sel, err := ParseSelector("leader:" + metricName(slow.Unit))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		n       int
		metrics []Selector
		want    Verdict
	}{
		{"gated alone, 6 a side", 6, []Selector{sel}, Regression},
		{"all 24 gated, 6 a side", 6, nil, Undecided},
		{"all 24 gated, 12 a side", 12, nil, Regression},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(34, 5))
			old := &Side{Samples: map[Key][]float64{}, order: keys}
			new := &Side{Samples: map[Key][]float64{}, order: keys}
			for _, k := range keys {
				for range tt.n {
					old.Samples[k] = append(old.Samples[k], draw[k](rng))
					v := draw[k](rng)
					if k == slow {
						v *= 1.5
					}
					new.Samples[k] = append(new.Samples[k], v)
				}
			}
			g := allGate
			g.Metrics = tt.metrics
			res, err := Compare(context.Background(), old, new, g)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Rows {
				if r.Key != slow {
					continue
				}
				if r.Verdict != tt.want {
					t.Errorf("the slowed metric: %v (%s), want %v", r.Verdict, r.Why, tt.want)
				}
				if r.Family < 1 || r.PAdj < r.P {
					t.Errorf("family %d, adjusted p %v under p %v", r.Family, r.PAdj, r.P)
				}
			}
		})
	}
}
