package compare

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// SameMiss is the miss rate the "same" answer is built for: a real change
// of the size the gate looks for gives a p above the same-threshold in at
// most this share of comparisons (Pinpoint's "high threshold", which
// Chromium builds for 1 %; kbf's gate runs fewer trials).
const SameMiss = 0.05

// ksTest is the two-sample Kolmogorov–Smirnov test of x and y: gonum's
// statistic D (it tallies tied values together) and its two-sided p.
func ksTest(x, y []float64) (d, p float64) {
	xs, ys := slices.Clone(x), slices.Clone(y)
	slices.Sort(xs)
	slices.Sort(ys)
	d = stat.KolmogorovSmirnov(xs, nil, ys, nil)
	return d, ksPValue(d, len(x), len(y))
}

// ksPValue is the probability that samples of n and m drawn from one
// continuous distribution are at least d apart: exact, by following the
// merged order of the two samples as a path through the n×m lattice and
// summing the chance that it stays within d (Hodges 1957, the method
// SciPy's ks_2samp uses for small samples). gonum computes D but has no
// distribution for it, and the asymptotic series Pinpoint uses is far off
// at a handful of trials a side. Tied values make the test conservative.
//
// The exact path costs n×m steps: past exactLimit (1,000 trials a side)
// it is the asymptotic Kolmogorov distribution instead, as SciPy's
// ks_2samp switches to it for large samples, where it is close.
func ksPValue(d float64, n, m int) float64 {
	if n == 0 || m == 0 || !(d > 0) {
		return 1
	}
	if int64(n)*int64(m) > exactLimit {
		return ksAsymptotic(d, n, m)
	}
	// On the path, |i/n - j/m| ≥ d is |i·m - j·n| ≥ k, in whole numbers:
	// D is a multiple of 1/(n·m).
	k := int64(math.Round(d * float64(n) * float64(m)))
	inside := func(i, j int) bool {
		v := int64(i)*int64(m) - int64(j)*int64(n)
		return v < k && -v < k
	}
	// prob[j] is the chance of reaching (i, j) without leaving the band,
	// each step drawing the next value of the merged order at random.
	prob := make([]float64, m+1)
	prob[0] = 1
	for i := 0; i <= n; i++ {
		for j := 0; j <= m; j++ {
			if i == 0 && j == 0 {
				continue
			}
			var p float64
			if i > 0 {
				// prob[j] still holds (i-1, j): step from it to (i, j).
				p += prob[j] * float64(n-i+1) / float64(n-i+1+m-j)
			}
			if j > 0 {
				p += prob[j-1] * float64(m-j+1) / float64(n-i+m-j+1)
			}
			if !inside(i, j) && !(i == n && j == m) {
				p = 0
			}
			prob[j] = p
		}
	}
	return min(1, max(0, 1-prob[m]))
}

// exactLimit is the most lattice steps (n×m) ksPValue takes exactly: a
// few milliseconds.
const exactLimit = 1_000_000

// ksAsymptotic is Kolmogorov's limiting distribution of D for samples of
// n and m, with Stephens' correction for finite samples (Numerical
// Recipes' probks): Q(λ) = 2 Σ (-1)^(k-1) exp(-2k²λ²).
func ksAsymptotic(d float64, n, m int) float64 {
	en := math.Sqrt(float64(n) * float64(m) / float64(n+m))
	lambda := (en + 0.12 + 0.11/en) * d
	if lambda < 0.2 {
		return 1 // the series converges slowly here, to 1
	}
	var sum float64
	sign := 1.0
	for k := 1; k <= 100; k++ {
		term := sign * 2 * math.Exp(-2*float64(k*k)*lambda*lambda)
		sum += term
		if math.Abs(term) < 1e-12*math.Abs(sum) || math.Abs(term) < 1e-300 {
			break
		}
		sign = -sign
	}
	return min(1, max(0, sum))
}

// sameAbove is the p above which two samples of nOld and nNew are "same":
// the p a real change of magnitude interquartile ranges exceeds in at most
// SameMiss of comparisons. It falls as the samples grow, and is 1 (never
// same) where so few trials cannot tell such a change from none.
//
// Pinpoint tabulates it by simulating normal samples; kbf computes it from
// the U test's normal approximation under the same model (two normals
// magnitude IQRs apart, so P(old < new) = Φ(δ/√2) with δ in standard
// deviations) and doubles it, as the gate's p is the smaller of the U and
// KS tests' p doubled. The simulation test in compare measures what this
// gives on recorded trials.
func sameAbove(nOld, nNew int, magnitude float64) float64 {
	if nOld == 0 || nNew == 0 || !(magnitude > 0) {
		return 1
	}
	norm := distuv.UnitNormal
	// A normal's IQR is 1.349 standard deviations.
	sd := magnitude * (norm.Quantile(0.75) - norm.Quantile(0.25))
	theta := 1.0
	if !math.IsInf(sd, 1) {
		theta = norm.CDF(sd / math.Sqrt2)
	}
	n1, n2 := float64(nOld), float64(nNew)
	sigma := math.Sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
	z := n1*n2*(theta-0.5)/sigma - norm.Quantile(1-SameMiss)
	if z <= 0 {
		return 1
	}
	return min(1, 2*2*norm.Survival(z))
}

// combinedP is the gate's p: the smaller of the U test's and the KS
// test's, doubled (Bonferroni) so that --alpha holds for the pair. The U
// test misses a change of spread, KS one of a few tied values; Pinpoint
// takes the smaller p as is, at 0.01.
func combinedP(pU, pKS float64) float64 {
	return min(1, 2*min(pU, pKS))
}

// spread is the interquartile range the change sought is measured in:
// the widest of either side's and the pooled samples'. A few trials' IQR
// is a rough estimate, and too small a one would call "same" too soon
// (pooling two samples apart can narrow it, as can ties).
func spread(a, b []float64) float64 {
	return max(iqr(a), iqr(b), iqr(append(slices.Clone(a), b...)))
}

// iqr is the interquartile range of vals.
func iqr(vals []float64) float64 {
	s := slices.Clone(vals)
	slices.Sort(s)
	return stat.Quantile(0.75, stat.LinInterp, s, nil) - stat.Quantile(0.25, stat.LinInterp, s, nil)
}
