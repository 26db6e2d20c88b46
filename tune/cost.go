package tune

import (
	"fmt"
	"time"

	"github.com/kbf-project/kbf/bench"
)

// Cost is what kbf tune says before it starts: the trials it has left to
// run into dir and about how long they take. A tune that begins costs
// every trial at TrialCost; a resumed one, the trials dir does not hold
// yet, at the mean time its trials done took (bench-state.json's took_ns),
// or at TrialCost when none recorded one. A directory whose state cannot
// be read is costed as new: the benchmark says what is wrong with it
// before its first trial.
func Cost(g *Grid, dir string) string {
	l, err := bench.LeftIn(dir, g.File(), bench.All)
	if err != nil {
		l = bench.Left{Trials: l.Trials}
	}
	return costLine(l, g.String(), dir)
}

// costLine says l: the grid, said by grid, into dir.
func costLine(l bench.Left, grid, dir string) string {
	resume := "the same command with this --out resumes it"
	switch {
	case l.Done == 0:
		return fmt.Sprintf("tune: %d trials, about %v at %v a trial: %s; into %s (%s)",
			l.Trials, l.Estimate(TrialCost).Round(time.Minute), TrialCost, grid, dir, resume)
	case l.Left() == 0:
		return fmt.Sprintf("tune: all %d trials done in %s: the answer from them", l.Trials, dir)
	}
	at := fmt.Sprintf("at %v a trial, as none of the %d done recorded its time", TrialCost, l.Done)
	if l.Measured > 0 {
		at = fmt.Sprintf("at %v a trial, the mean of the %d done", l.Took.Round(time.Second), l.Measured)
	}
	return fmt.Sprintf("tune: %d of %d trials left (%d done), about %v %s: %s; into %s (%s)",
		l.Left(), l.Trials, l.Done, l.Estimate(TrialCost).Round(time.Minute), at, grid, dir, resume)
}

// Resume is what kbf tune says when it is interrupted (bench.Bench.Resume):
// to resume, run the same command again, into the same directory.
func Resume(dir string) string {
	return fmt.Sprintf("tune: interrupted; run the same kbf tune command again (the same flags, with --out %s) and it resumes where it stopped", dir)
}
