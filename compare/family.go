package compare

import (
	"math"
	"slices"
	"sort"
)

// adjust sets each compared row's PAdj and Family: the gated rows are
// tested as one family and the rows not gated as another, each with
// Holm's step-down correction, so that the chance of a false difference
// anywhere among the metrics that make the verdict stays at alpha. Tested
// one at a time at 0.05, 24 metrics compared with themselves answer
// different on one of them in a large share of comparisons (the gate
// once called two improvements on an unchanged commit).
//
// A row whose values are all one value on both sides (no acknowledged
// record lost, on every trial) can give no p under 1, whatever the
// trials: it cannot be a false difference, and it is left out of the
// family rather than spend a share of alpha (Tarone's argument). With
// perMetric, each row is its own family: the gate as it was.
func adjust(rows []Row, old, new *Side, perMetric bool) {
	var gated, figures []int
	for i, r := range rows {
		switch {
		case !r.Compared() || math.IsNaN(r.P):
		case perMetric || constant(old.Samples[r.Key], new.Samples[r.Key]):
			rows[i].PAdj, rows[i].Family = r.P, 0
			if perMetric {
				rows[i].Family = 1
			}
		case r.Gated:
			gated = append(gated, i)
		default:
			figures = append(figures, i)
		}
	}
	for _, family := range [][]int{gated, figures} {
		ps := make([]float64, len(family))
		for j, i := range family {
			ps[j] = rows[i].P
		}
		for j, adj := range holm(ps) {
			rows[family[j]].PAdj, rows[family[j]].Family = adj, len(family)
		}
	}
}

// holm adjusts the p-values ps of one family by Holm's step-down method
// (Holm 1979): in ascending order, the i-th smallest (from 0) times the
// m-i hypotheses not yet rejected, never below the adjusted p before it,
// at most 1. A row is rejected at level alpha when its adjusted p is
// under alpha; the chance of rejecting any true one is at most alpha,
// whatever the dependence between the tests. R's p.adjust(method="holm")
// computes the same.
func holm(ps []float64) []float64 {
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ps[order[a]] < ps[order[b]] })
	adj := make([]float64, len(ps))
	running := 0.0
	for rank, i := range order {
		running = max(running, min(1, float64(len(ps)-rank)*ps[i]))
		adj[i] = running
	}
	return adj
}

// constant reports whether every value of both samples is the same one.
func constant(a, b []float64) bool {
	all := slices.Concat(a, b)
	if len(all) == 0 {
		return true
	}
	return !slices.ContainsFunc(all, func(v float64) bool { return v != all[0] })
}
