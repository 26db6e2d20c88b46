package render_test

import (
	"os"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// ExampleWriteSummaryText draws a run's summary (analysis.Summarize's) one
// measure a line; a range of one value is that value.
func ExampleWriteSummaryText() {
	r := func(lo, hi time.Duration, n int) analysis.Range { return analysis.Range{Min: lo, Max: hi, N: n} }
	s := &analysis.Summary{
		Trials: 2, Faults: []results.FaultKind{results.FaultSIGKILL, results.FaultSIGKILL},
		Detect:         r(9100*time.Millisecond, 9400*time.Millisecond, 2),
		ElectAndClient: r(300*time.Millisecond, 300*time.Millisecond, 2),
		LeaderGap:      r(9600*time.Millisecond, 9900*time.Millisecond, 2),
		FollowerGap:    r(8500*time.Millisecond, 8800*time.Millisecond, 4),
		AnyGap:         r(8500*time.Millisecond, 9900*time.Millisecond, 6),
		ReceiveGap:     r(8500*time.Millisecond, 10800*time.Millisecond, 6),
		Phases:         map[string]*analysis.Range{analysis.PhaseDetect: {Min: 9100 * time.Millisecond, Max: 9400 * time.Millisecond, N: 6}},
	}
	if err := render.WriteSummaryText(os.Stdout, s); err != nil {
		panic(err)
	}
	// Output:
	// summary of 2 trials ([sigkill sigkill])
	//   detection (fault → fence or shutdown granted) 9.10–9.40 s
	//   election + client (→ producer on new leader)  0.30 s
	//   ack gap, partitions the broker led            9.60–9.90 s
	//   ack gap, partitions the broker followed       8.50–8.80 s
	//   ack gap, every partition                      8.50–9.90 s
	//   receive gap, every partition                  8.50–10.80 s
	//   phase detect                                  9.10–9.40 s
	//   failed sends 0; acknowledged records lost 0, duplicated 0, reordered 0
}
