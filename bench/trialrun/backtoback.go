package trialrun

import (
	"context"
	"sync"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/report/render"
)

var _ bench.BackToBack = (*Runner)(nil)

// TrialAfter runs one trial of s into dir after prev, the put-back of the
// lane's trial before (bench.BackToBack): beside it when s runs on prev's
// cluster as it is (platform.Pool.Reuses) — the trial needs no Up, and
// experiment.Runner.TrialBeside decides the rest as kbf run --repeat
// does — else once prev has ended. Its own put-back, when it still runs,
// is returned: the trial is analysed once it has ended, before the lane's
// next trial's fault. When it returns no put-back, prev has ended too: the
// lane's next trial finds nothing of it running.
func (r *Runner) TrialAfter(ctx context.Context, s bench.Scenario, dir string, prev bench.PutBack) (bench.PutBack, *analysis.Trial, error) {
	p, err := r.trialAfter(ctx, s, dir, prev)
	if p != nil {
		return p, nil, nil
	}
	waitFor(prev)
	if err != nil {
		return nil, nil, err
	}
	tr, err := report.JustRecorded(ctx, dir, r.opt.Text)
	return nil, tr, err
}

// trialAfter runs the trial of TrialAfter, and returns its put-back when
// it still runs.
func (r *Runner) trialAfter(ctx context.Context, s bench.Scenario, dir string, prev bench.PutBack) (*putBack, error) {
	opt, spec, err := r.spec(ctx, s, dir)
	if err != nil {
		return nil, err
	}
	last, _ := prev.(*putBack)
	if last == nil || !r.pool.Reuses(last.target, spec, s.Fresh) {
		waitFor(prev) // before its cluster is made again, or another is
		last = nil
	}
	t, release, err := r.pool.Open(ctx, spec, s.Fresh)
	if err != nil {
		return nil, err
	}
	n, e := r.experiment(opt, t, dir)
	p := &putBack{target: t, release: release, text: r.opt.Text}
	if p.pending, err = e.TrialBeside(ctx, n, dir, last.experiment(), p.analyse); p.pending == nil {
		release()
		return nil, err
	}
	return p, nil
}

// waitFor waits until the put-back of the lane's trial before, if any,
// has ended. Its outcome is that trial's, which the lane reads from it.
func waitFor(prev bench.PutBack) {
	if prev != nil {
		_, _ = prev.Wait()
	}
}

// putBack is a trial's put-back running in the background (bench.PutBack):
// the cluster it puts back, released once it has ended, and the trial's
// analysis, made once its files are complete.
type putBack struct {
	pending *experiment.PutBack
	target  cluster.Cluster
	release func()
	text    render.TextOptions

	once sync.Once
	// tr and err are the trial's analysis, or why it failed: the trial's
	// outcome once its put-back has ended well.
	tr  *analysis.Trial
	err error
}

// experiment is p's put-back as the next trial waits for it; nil for none.
func (p *putBack) experiment() *experiment.PutBack {
	if p == nil {
		return nil
	}
	return p.pending
}

// analyse is the put-back's experiment.Recorded: it analyses the trial
// once its files are complete. What it finds is the trial's outcome, not
// the next trial's, which it never fails.
func (p *putBack) analyse(ctx context.Context, _ int, dir string) error {
	p.tr, p.err = report.JustRecorded(ctx, dir, p.text)
	return nil
}

// Wait waits until the put-back has ended, and the trial is analysed
// (by whichever comes first: this, or the next trial before its fault),
// then releases the cluster and returns the trial.
func (p *putBack) Wait() (*analysis.Trial, error) {
	err := p.pending.HandOver(context.Background())
	p.once.Do(p.release)
	if err != nil {
		return nil, err
	}
	return p.tr, p.err
}
