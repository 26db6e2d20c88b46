package benchfile

import "golang.org/x/perf/benchmath"

// Confidence is the level of every interval kbf bench and kbf compare give.
const Confidence = 0.95

// NeedSamples is the fewest valid trials a side that give a finite
// interval at Confidence, found by asking benchmath rather than restating
// its order statistics.
func NeedSamples() int {
	for n := 2; n <= 50; n++ {
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = float64(i)
		}
		s := benchmath.AssumeNothing.Summary(benchmath.NewSample(vals, &benchmath.DefaultThresholds), Confidence)
		if len(s.Warnings) == 0 {
			return n
		}
	}
	return 50
}
