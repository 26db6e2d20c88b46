package compare

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/combin"

	"github.com/kbf-project/kbf/benchfile"
)

// TestKSPValue checks the exact p against the permutation distribution
// itself: every way of splitting the ranks 1..n+m into samples of n and m,
// each D from gonum.
func TestKSPValue(t *testing.T) {
	for _, sz := range []struct{ n, m int }{{3, 3}, {4, 5}, {6, 6}, {2, 7}, {5, 8}} {
		total := combin.Binomial(sz.n+sz.m, sz.n)
		var ds []float64
		for _, pick := range combin.Combinations(sz.n+sz.m, sz.n) {
			var x, y []float64
			for v := range sz.n + sz.m {
				if slices.Contains(pick, v) {
					x = append(x, float64(v))
				} else {
					y = append(y, float64(v))
				}
			}
			ds = append(ds, stat.KolmogorovSmirnov(x, nil, y, nil))
		}
		for _, d := range ds {
			atLeast := 0
			for _, e := range ds {
				if e >= d-1e-12 {
					atLeast++
				}
			}
			want := float64(atLeast) / float64(total)
			if got := ksPValue(d, sz.n, sz.m); math.Abs(got-want) > 1e-9 {
				t.Fatalf("%d and %d, D=%.4f: p %.6f, want %.6f (the permutations')", sz.n, sz.m, d, got, want)
			}
		}
	}
	// Two samples of three that do not overlap: 2 of the 20 orders.
	if _, p := ksTest([]float64{1, 2, 3}, []float64{4, 5, 6}); math.Abs(p-0.1) > 1e-12 {
		t.Errorf("3 against 3 apart: p %v, want 0.1", p)
	}
	if _, p := ksTest([]float64{1, 2, 3}, []float64{1, 2, 3}); p != 1 {
		t.Errorf("equal samples: p %v, want 1", p)
	}
}

// TestSameAbove checks the shape Pinpoint's thresholds have: no "same" at
// a few trials, a threshold that falls as trials grow and crosses alpha,
// and falls sooner for a larger change.
func TestSameAbove(t *testing.T) {
	tests := []struct {
		name      string
		magnitude float64
		// never is the largest n a side at which it is still 1; crosses
		// the first at which it is below 0.05.
		never, crosses int
	}{
		{"one IQR", 1, 8, 24},
		{"two IQRs", 2, 4, 12},
		{"constant samples (infinitely many IQRs)", math.Inf(1), 4, 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev := 1.0
			for n := 1; n <= 60; n++ {
				h := sameAbove(n, n, tt.magnitude)
				if h > prev {
					t.Fatalf("n=%d: %.4f, above %.4f at n=%d", n, h, prev, n-1)
				}
				prev = h
				switch {
				case n <= tt.never && h < 1:
					t.Errorf("n=%d: %.4f, want 1 (cannot tell)", n, h)
				case n > tt.never && n < tt.crosses && !(h >= 0.05 && h < 1):
					t.Errorf("n=%d: %.4f, want between 0.05 and 1", n, h)
				case n >= tt.crosses && h >= 0.05:
					t.Errorf("n=%d: %.4f, want under 0.05 (always decided)", n, h)
				}
			}
		})
	}
	if h := sameAbove(10, 10, 0); h != 1 {
		t.Errorf("no change sought: %v, want 1", h)
	}
}

// TestThreeAnswers gives each answer from samples that support it.
func TestThreeAnswers(t *testing.T) {
	tight := []float64{8.00, 8.01, 8.02, 8.03, 8.04, 8.05}
	wide := []float64{7.2, 7.7, 8.1, 8.6, 9.0, 9.5}
	scaled := func(k float64, vals []float64) []float64 {
		out := make([]float64, len(vals))
		for i, v := range vals {
			out[i] = math.Round(v*k*1000) / 1000
		}
		return out
	}
	repeat := func(vals []float64, k int) []float64 {
		var out []float64
		for range k {
			out = append(out, vals...)
		}
		return out
	}
	// seq is n values from a by step, then n from b by step.
	seq := func(a float64, n int, step, b float64) []float64 {
		var out []float64
		for i := range n {
			out = append(out, math.Round((a+float64(i)*step)*1000)/1000)
		}
		for i := range n {
			out = append(out, math.Round((b+float64(i)*step)*1000)/1000)
		}
		return out
	}
	tests := []struct {
		name     string
		old, new []float64
		want     Verdict
		say      string
	}{
		{"tight and equal: same", tight, slices.Clone(tight), Same, "p=1.00 > 0.43, which a change of 0.80 s stays under"},
		{"tight, 20 % slower: regression", tight, scaled(1.2, tight), Regression, "+20.0% (more than 10%), p=0.004"},
		{"tight, 20 % faster: improvement", tight, scaled(0.8, tight), Improvement, "-20.0% (more than 10%), p=0.004"},
		{"tight, 2 % slower: same, significant but within the bound", tight, scaled(1.02, tight), Same, "within --max-regression 10%"},
		{"wide and equal, 6 a side: undecided", wide, slices.Clone(wide), Undecided, "6 and 6 trials cannot tell a change of 0.83 s from none"},
		{"wide, 3 a side: undecided, too few", wide[:3], wide[3:], Undecided, "3 and 3 valid trials: need 6 a side"},
		{"spread changed, medians equal: undecided, not an improvement", seq(7.990, 10, 0.001, 8.001), seq(5.0, 10, 0.1, 10.1), Undecided, "medians equal"},
		{"tight, 5 a side, 2 % slower: undecided, too few", tight[:5], scaled(1.02, tight[:5]), Undecided, "5 and 5 valid trials: need 6 a side"},
		{"wide and equal, 24 a side: same", repeat(wide, 4), repeat(wide, 4), Same, "which a change of 0.83 s stays under in 95% of comparisons"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compare(context.Background(), read(t, firstAcks(t, "old.txt", "", tt.old...)), read(t, firstAcks(t, "new.txt", "", tt.new...)), allGate)
			if err != nil {
				t.Fatal(err)
			}
			r := res.Rows[0]
			if res.Verdict != tt.want || !strings.Contains(r.Why+" "+r.Note, tt.say) {
				t.Errorf("%v: %s (%s); want %v saying %q", res.Verdict, r.Why, r.Note, tt.want, tt.say)
			}
		})
	}
}

// TestKSAsymptotic checks the large-sample p against the exact one where
// both can be had (1,000 a side), and that samples far past exactLimit
// are compared: the exact path would take n×m steps, for hours.
func TestKSAsymptotic(t *testing.T) {
	const n = 1000
	for _, d := range []float64{0.03, 0.05, 0.06, 0.08, 0.1} {
		exact, asym := ksPValue(d, n, n), ksAsymptotic(d, n, n)
		if math.Abs(exact-asym) > 0.01 {
			t.Errorf("D=%v at %d a side: asymptotic p %.4f, exact %.4f", d, n, asym, exact)
		}
	}
	if p := ksAsymptotic(0.001, n, n); p != 1 {
		t.Errorf("D=0.001: p %v, want 1", p)
	}
	// 200,000 trials a side, the new ones 1.5 s (20 %) slower on a
	// spread of 1 s.
	const big = 200_000
	k := Key{"BenchmarkFailover/scenario=sigkill/role=leader", "ack-stall-sec"}
	side := func(shift float64) *Side {
		vals := make([]float64, big)
		for i := range vals {
			vals[i] = 7 + shift + float64((i*7919)%big)/big
		}
		return &Side{Samples: map[Key][]float64{k: vals}, order: []Key{k}}
	}
	res, err := Compare(context.Background(), side(0), side(1.5), allGate)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r.Verdict != Regression || !(r.PKS < 1e-6) {
		t.Errorf("200,000 a side, +1.5 s: %v (KS p %v), want a regression", r.Verdict, r.PKS)
	}
	// Every value tied, as lost_acked's zeros are: the U test's normal
	// approximation gives NaN at 500,000 a side; the row is the same.
	zeros := &Side{Samples: map[Key][]float64{k: make([]float64, 500_000)}, order: []Key{k}}
	res, err = Compare(context.Background(), zeros, zeros, allGate)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r.Verdict != Same || math.IsNaN(r.P) {
		t.Errorf("500,000 zeros a side: %v, p %v: %s; want same", r.Verdict, r.P, r.Why)
	}
}

// TestTooFewToDiffer checks that a difference needs as many valid trials
// a side as "same" does: a side of one or two trials against fifteen is
// undecided however large the change, and says how many more to run; so
// is one trial short (the 6 against 5 that once answered an improvement
// at p=0.009), whose change is not shown either; and need a side decide.
func TestTooFewToDiffer(t *testing.T) {
	k := Key{"BenchmarkFailover/scenario=sigkill/role=leader", "ack-stall-sec"}
	spread := func(n int, k float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = k * (7 + 0.01*float64(i))
		}
		return out
	}
	need := benchfile.NeedSamples()
	tests := []struct {
		name     string
		old, new []float64
		why      string
	}{
		{"15 against 2 at +50 %", spread(15, 1), spread(2, 1.5), fmt.Sprintf("run %d more new", need-2)},
		{"one under 15 equal", slices.Repeat([]float64{7}, 15), []float64{3}, fmt.Sprintf("run %d more new", need-1)},
		{"2 against 15 at -50 %", spread(2, 1), spread(15, 0.5), fmt.Sprintf("run %d more old", need-2)},
		{"1 against 1", []float64{7}, []float64{14}, fmt.Sprintf("run %d more old and %d more new", need-1, need-1)},
		{"one short at -12 %", spread(need, 1), spread(need-1, 0.88), "run 1 more new"},
		{"one short, equal", spread(need-1, 1), spread(need, 1), "run 1 more old"},
		{"need a side at -12 %: different", spread(need, 1), spread(need, 0.88), ""},
		{"need a side, equal: same", spread(need, 1), spread(need, 1), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := &Side{Samples: map[Key][]float64{k: tt.old}, order: []Key{k}}
			new := &Side{Samples: map[Key][]float64{k: tt.new}, order: []Key{k}}
			res, err := Compare(context.Background(), old, new, allGate)
			if err != nil {
				t.Fatal(err)
			}
			r := res.Rows[0]
			_, _, _, delta, _ := r.cells(res.Need)
			if tt.why == "" {
				if r.Verdict == Undecided {
					t.Errorf("%d and %d trials: undecided: %s; want an answer", len(tt.old), len(tt.new), r.Why)
				}
				return
			}
			if r.Verdict != Undecided || !strings.Contains(r.Why, tt.why) || delta != "~" {
				t.Errorf("%v: %s, change shown %q; want undecided: %s, ~", r.Verdict, r.Why, delta, tt.why)
			}
		})
	}
}

// TestTooFewGatedOnly: the advice of how many trials to add counts the
// gated rows only. A gated row undecided on enough trials and a row not
// gated short of them (a phase few trials had) ask for no count: more
// trials, not "at least 6 a side".
func TestTooFewGatedOnly(t *testing.T) {
	res := &Result{Need: 6, Rows: []Row{
		{Verdict: Undecided, NOld: 6, NNew: 6, Gated: true},
		{Verdict: Undecided, NOld: 1, NNew: 2},
	}}
	if got := res.tooFew(); got != "" {
		t.Errorf("tooFew = %q, want none: the gated row has its 6 a side", got)
	}
	res.Rows[0].NNew = 4
	if got, want := res.tooFew(), ", at least 6 valid trials a side (2 more new)"; got != want {
		t.Errorf("tooFew = %q, want %q", got, want)
	}
}
