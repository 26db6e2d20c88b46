package bench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kbf-project/kbf/compare"
)

// Gate is what RunUntilDecided needs beyond a benchmark: the comparison's
// gate and how many more attempts than valid trials a side may take.
type Gate struct {
	// Gate is the comparison's gate: compare.SequentialGate, or as strict,
	// since it is asked after every pair of trials.
	Gate compare.Gate
	// Extra is the share of the budget a side may spend on attempts that
	// do not count (0.5: a budget of 10 valid trials allows 15 attempts).
	Extra float64
}

// DefaultExtra is Gate.Extra's default: half as many attempts again.
const DefaultExtra = 0.5

// Decided is RunUntilDecided's answer.
type Decided struct {
	// Decision is compare.Next's last word; nil when either side had no
	// valid trial, which is undecided.
	Decision *compare.Decision
	// Verdict is the answer: Same, Improvement or Regression (different),
	// Lost, or Undecided (Missing is folded into it).
	Verdict compare.Verdict
	// Why says in one line how it ended.
	Why string
	// Valid and Attempts are per side, A then B.
	Valid, Attempts [2]int
}

// ErrNotTwo is reported for a benchmark that is not two variants to
// compare.
var ErrNotTwo = errors.New("--until-decided compares two things: give two scenarios, or one scenario with a sweep of two values")

// RunUntilDecided runs the benchmark's two variants, A (the old) and B
// (the new), in turn, and after each pair of valid trials compares them
// with compare.Next on bench.txt as it stands; it stops when that decides,
// or when either side has spent its attempts (File.Trials valid trials a
// side, plus g.Extra of that for trials that did not count). A trial
// that does not count is replaced by another of its side, and a side that
// ends with few valid trials is fewer samples: the gate still answers.
// The answer is appended to summary.md. Like Run, it resumes an
// interrupted benchmark.
func (b *Bench) RunUntilDecided(ctx context.Context, g Gate) (*Set, *Decided, error) {
	vs := b.File.Variants()
	if len(vs) != 2 {
		return nil, nil, fmt.Errorf("%d variants: %w", len(vs), ErrNotTwo)
	}
	if b.Shard.N > 1 {
		return nil, nil, errors.New("--until-decided runs the whole benchmark: it cannot be sharded")
	}
	budget := b.File.Trials
	attempts := budget + int(float64(budget)*g.Extra+0.5)
	set, st, err := b.begin()
	if err != nil {
		return nil, nil, err
	}
	dec := &Decided{}
	rep := [2]int{}
	for _, r := range set.Records {
		i := side(vs, r.Trial.Variant)
		dec.Attempts[i]++
		rep[i] = max(rep[i], r.Trial.Rep)
		if r.Valid() {
			dec.Valid[i]++
		}
	}
	l, err := b.lanes()
	if err != nil {
		return nil, nil, err
	}
	// With lanes, each side runs half of them at a time: the pair's
	// trials side by side, and the gate looks after each such round.
	per := max(1, len(l.runners)/2)
	var fails failing
	for round := 1; ; round++ {
		want := min(round*per, budget)
		// The sides take turns, a batch of attempts each, until each has
		// its valid trials of the round: a side whose trials do not count
		// does not spend its attempts while the other waits, and the
		// drift of the machine falls on both alike.
		for {
			var batch []Trial
			line := map[string]string{}
			for k := range per {
				for i, v := range vs {
					if dec.Valid[i]+k >= want || dec.Attempts[i]+k >= attempts {
						continue
					}
					rep[i]++
					t := b.File.trial(vs, i, rep[i])
					batch = append(batch, t)
					line[t.ID()] = fmt.Sprintf("bench: %s: trial %d (valid %d, attempt %d of %d)", v.Name(), rep[i], dec.Valid[i], dec.Attempts[i]+k+1, attempts)
				}
			}
			if len(batch) == 0 {
				break
			}
			begin := func(t Trial, lane int) { fmt.Fprintf(b.Progress, "%s%s\n", line[t.ID()], l.on(lane)) }
			after := func(e ended) bool {
				i := side(vs, e.t.Variant)
				dec.Attempts[i]++
				if r := set.Records[len(set.Records)-1]; r.Valid() {
					dec.Valid[i]++
				}
				return fails.add(e.err)
			}
			if err := b.runOn(ctx, l, st, set, batch, begin, after); err != nil {
				return set, nil, err
			}
			if stopped := fails.stopped(); stopped != nil {
				// A broken setup (Docker unreachable, say): kbf could
				// not do what was asked, as Run says. The gate's
				// answer from what there is still goes to summary.md.
				if _, _, err := b.conclude(ctx, set, dec, budget, g, "stopped: "+stopped.Error()); err != nil {
					return set, dec, err
				}
				return set, dec, stopped
			}
		}
		if dec.Valid[0] < want || dec.Valid[1] < want {
			// A side spent its attempts: the gate answers with what it has.
			return b.conclude(ctx, set, dec, budget, g, "")
		}
		d, err := b.next(ctx, vs, g.Gate, budget)
		if err != nil {
			return set, nil, err
		}
		fmt.Fprintf(b.Progress, "bench: %s\n", d.Why)
		if d.Stop {
			return b.conclude(ctx, set, dec, budget, g, "")
		}
	}
}

// conclude sets the answer from the samples there are and writes it to
// summary.md.
func (b *Bench) conclude(ctx context.Context, set *Set, dec *Decided, budget int, g Gate, stopped string) (*Set, *Decided, error) {
	vs := b.File.Variants()
	dec.Verdict = compare.Undecided
	switch {
	case dec.Valid[0] == 0 || dec.Valid[1] == 0:
		dec.Why = fmt.Sprintf("undecided: %d and %d valid trials, none to compare on one side", dec.Valid[0], dec.Valid[1])
	default:
		d, err := b.next(ctx, vs, g.Gate, budget)
		if err != nil {
			return set, nil, err
		}
		dec.Decision = d
		dec.Verdict = d.Result.Verdict
		dec.Why = d.Why
		if !d.Stop {
			// Attempts spent before the budget of valid trials.
			dec.Verdict = max(dec.Verdict, compare.Undecided)
			dec.Why = fmt.Sprintf("attempts spent at %d and %d valid trials, %d metrics open: %s", dec.Valid[0], dec.Valid[1], len(d.Open), d.Result.Summary())
		}
	}
	if dec.Verdict == compare.Missing {
		dec.Verdict = compare.Undecided
	}
	if stopped != "" {
		dec.Why = stopped + "; " + dec.Why
	}
	set.Gate = dec
	set.GateNames = [2]string{vs[0].Name(), vs[1].Name()}
	return set, dec, set.WriteAll(b.Dir)
}

// next is compare.Next on bench.txt: variant A's results against B's,
// each renamed to the pair's name so that their rows meet.
func (b *Bench) next(ctx context.Context, vs []Variant, g compare.Gate, budget int) (*compare.Decision, error) {
	all, err := compare.Read(ctx, filepath.Join(b.Dir, TextFile))
	if err != nil {
		return nil, err
	}
	pair := "scenario=" + strings.TrimPrefix(vs[0].Name(), "scenario=") + " vs " + strings.TrimPrefix(vs[1].Name(), "scenario=")
	pick := func(v Variant) func(string) (string, bool) {
		prefix := BenchName + "/" + v.Name() + "/"
		return func(name string) (string, bool) {
			rest, ok := strings.CutPrefix(name, prefix)
			return BenchName + "/" + pair + "/" + rest, ok
		}
	}
	return compare.Next(ctx, all.Select(pick(vs[0])), all.Select(pick(vs[1])), g, budget)
}

// side is 0 for variant A, 1 for B.
func side(vs []Variant, v Variant) int {
	if v.Dir() == vs[1].Dir() {
		return 1
	}
	return 0
}

// Answer is the verdict as one of the gate's three answers: different,
// same or undecided (a lost record is different: it fails outright).
func (d *Decided) Answer() string {
	switch d.Verdict {
	case compare.Same:
		return "same"
	case compare.Improvement, compare.Regression, compare.Lost:
		return "different"
	}
	return "undecided"
}
