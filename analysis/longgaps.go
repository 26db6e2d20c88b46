package analysis

import (
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// LongGaps gathers, while a probe CSV streams, each partition's gaps
// between acks and between receives longer than the bound it was made
// with. The renderers that stream the CSV themselves (the HTML page's heat
// map) take it from here, with the bound the analysis decided, rather than
// deciding which gaps count.
type LongGaps = gaps.Longer

// NewLongGaps returns an empty LongGaps keeping the gaps longer than the
// stall bound tr was judged by (SteadyBound), the last closed at end (zero:
// the latest time seen).
func NewLongGaps(tr *Trial, end time.Time) *LongGaps {
	return gaps.NewLonger(SteadyBound(tr), end)
}

// SteadyBound is the gap the run counted as steady: what the verdict
// judged the trial by. A bare probe CSV has no metadata, and the probe's
// rule at its default applies.
func SteadyBound(tr *Trial) time.Duration {
	if tr == nil || tr.Meta == nil {
		return verdict.StallBound(&results.Meta{})
	}
	return verdict.StallBound(tr.Meta)
}
