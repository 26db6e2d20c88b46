package report

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// Run is what kbf run does with the trials its runner records: each is
// analysed once (JustRecorded), its digest printed with where its full
// report is, and kept for the run's summary and outcome (Done).
type Run struct {
	// Out takes the digests and the summary of several trials.
	Out io.Writer
	// Say takes the run's closing line.
	Say func(string)
	// Text is how report.txt and the digests are written.
	Text   render.TextOptions
	trials []*analysis.Trial
}

// Recorded analyses trial n, just recorded in dir, and prints its digest
// (experiment.Runner.Run's hand-over).
func (r *Run) Recorded(ctx context.Context, _ int, dir string) error {
	tr, err := JustRecorded(ctx, dir, r.Text)
	if err != nil {
		return err
	}
	// The terminal gets the digest; report.txt keeps the full explanation.
	if err := r.Text.WriteDigest(r.Out, tr); err != nil {
		return err
	}
	fmt.Fprintf(r.Out, "the full report, why phase by phase: %s\n", filepath.Join(dir, results.ReportFile))
	r.trials = append(r.trials, tr)
	return nil
}

// Done writes the summary across several trials into the run directory
// out and returns the run's outcome (analysis.Outcome).
func (r *Run) Done(out string) error {
	var o analysis.Outcome
	for i, tr := range r.trials {
		o.Add(fmt.Sprintf("trial %d", i+1), tr)
	}
	if len(r.trials) > 1 {
		s := analysis.Summarize(r.trials)
		fmt.Fprintln(r.Out)
		if err := render.WriteSummaryText(r.Out, s); err != nil {
			return err
		}
		if err := WriteSummary(out, s); err != nil {
			return err
		}
	}
	r.Say(fmt.Sprintf("%d of %d trials valid; results in %s (kbf report %s)", o.Valid, len(r.trials), out, out))
	return o.Err()
}
