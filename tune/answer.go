package tune

import (
	"fmt"
	"math"
	"slices"
	"time"

	"golang.org/x/perf/benchmath"

	"github.com/kbf-project/kbf/bench"
)

// Stall is the cost of a death at one point: the stall of the partitions
// the SIGKILLed broker led, over the valid trials, with the benchmark's
// statistics (median and its 95% interval, benchmath).
type Stall struct {
	N            int // valid trials
	Median       time.Duration
	Low, High    time.Duration // the median's interval; equal to it below MinTrials
	Attempted    int           // trials run, valid or not
	Intervalless bool          // fewer than MinTrials: no interval
}

// Risk is the risk to a healthy cluster at one point under one hiccup:
// of the trials that undid their hiccup, how many fenced the broker that
// never died, and how many leaderships moved away from it.
type Risk struct {
	Hiccup      Hiccup
	N           int // hiccup trials that count: the hiccup confirmed and undone
	Fenced      int // of them, those in which the controller fenced the broker
	LeaderMoves int // leaderships moved, over them
	Attempted   int
	// Evidence is the first fence's line, where one was: the controller's.
	Evidence string
}

// Row is one point of the grid, measured.
type Row struct {
	Point Point
	Kill  Stall
	// Deaths are the stalls of the deaths asked for beside the SIGKILL
	// (a freeze, a cut), in Grid.Deaths order.
	Deaths []DeathStall
	Risks  []Risk // in Grid.Hiccups order, the same for every point of a session
}

// safe says whether the row fenced nobody under every hiccup, with
// enough trials of each to say so; known says whether there are. One
// fence settles it, whatever the number of trials. A leadership moved
// without a fence is reported beside, not held against the row.
func (r Row) safe(min int) (safe, known bool) {
	known = true
	for _, k := range r.Risks {
		if k.Fenced > 0 {
			return false, true
		}
		if k.N < min {
			known = false
		}
	}
	return known, known
}

// fenceRate is the share of the row's hiccup trials that fenced.
func (r Row) fenceRate() float64 {
	n, f := 0, 0
	for _, k := range r.Risks {
		n += k.N
		f += k.Fenced
	}
	if n == 0 {
		return 0
	}
	return float64(f) / float64(n)
}

// Answer is the tune's answer: every row, the Pareto front of stall
// against false fences, and the recommendation, or what to add.
type Answer struct {
	Rows []Row
	// Front are the indexes of Rows no other row beats on both the stall
	// and the fence rate.
	Front []int
	// Pick is the index of the recommended row; -1 when the data cannot
	// support one, and Add then says which trials would.
	Pick int
	Why  string
	Add  []string
	// Min is the fewest trials of a scenario Decide asked for: a row with
	// fewer is not placed.
	Min int
}

// Decide answers from rows (the grid's points, longest session first)
// with at least min valid trials asked of every scenario: the
// recommendation is, among the points that fenced nobody under every
// hiccup, the one with the shortest stall — and among those whose stall's
// interval overlaps the shortest's, the longest session, the most tolerant
// of what the trials did not show. It recommends nothing while a point
// that could be better is not yet known: a shorter session whose hiccups
// or SIGKILLs have too few trials.
func Decide(rows []Row, min int) Answer {
	a := Answer{Rows: rows, Pick: -1, Front: front(rows, min), Min: min}
	best := -1
	for i, r := range rows {
		c, measured := r.cost(min) // death.go
		if safe, _ := r.safe(min); safe && measured && (best < 0 || c.Median < cost(rows[best])) {
			best = i
		}
	}
	// A row not yet known counts when it may beat the best known: a
	// shorter session than the best's, another client setting of its
	// session, or any while there is none.
	for i, r := range rows {
		if best >= 0 && (r.Point.Session > rows[best].Point.Session || i == best) {
			continue
		}
		switch safe, known := r.safe(min); {
		case !known:
			a.Add = appendNew(a.Add, missingRisk(r, min)...)
		case safe:
			a.Add = appendNew(a.Add, missingDeaths(r, min)...)
		}
	}
	switch {
	case len(a.Add) > 0:
		a.Why = "cannot decide: a setting that may be the answer has too few trials"
		return a
	case best < 0:
		a.Why = "cannot decide: every setting fenced the healthy broker under a hiccup asked for"
		a.Add = append(a.Add, fmt.Sprintf("trials of session timeouts longer than %v", rows[0].Point.Session))
		return a
	}
	a.Pick = best
	bc, _ := rows[best].cost(min)
	for i, r := range rows {
		c, measured := r.cost(min)
		if safe, _ := r.safe(min); safe && measured && gentler(r.Point, rows[a.Pick].Point) && overlaps(c, bc) {
			a.Pick = i // as fast, as the trials tell, and more tolerant
		}
	}
	a.Why = fmt.Sprintf("the shortest %s that fenced nobody under every hiccup asked for: %s", costName(rows), rows[a.Pick].Point.Name())
	if a.Pick != best {
		a.Why += fmt.Sprintf(" (%s's shorter stall is not told apart from it, and it tolerates less)", rows[best].Point.Name())
	}
	return a
}

// missingRisk says which hiccup trials a row lacks.
func missingRisk(r Row, min int) []string {
	var out []string
	for _, k := range r.Risks {
		if k.N < min {
			out = append(out, fmt.Sprintf("%d more %s trials of %s (%d that count of %d)", min-k.N, k.Hiccup.short(), r.Point.sessionName(), k.N, k.Attempted))
		}
	}
	return out
}

func overlaps(a, b Stall) bool { return a.Low <= b.High && b.Low <= a.High }

// cost is the median of the row's decision stall (Row.cost).
func cost(r Row) time.Duration {
	c, _ := r.cost(0)
	return c.Median
}

// appendNew appends what list does not hold yet: the points of a session
// lack the same hiccup trials.
func appendNew(list []string, ss ...string) []string {
	for _, s := range ss {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}

// front returns the rows with enough trials that no other such row beats
// on both the stall's median and the fence rate (lower is better on both,
// and strictly on one).
func front(rows []Row, min int) []int {
	var known []int
	for i, r := range rows {
		if _, k := r.safe(min); k && r.stalled() { // death.go
			known = append(known, i)
		}
	}
	var out []int
	for _, i := range known {
		a := rows[i]
		dominated := slices.ContainsFunc(known, func(j int) bool {
			b := rows[j]
			return j != i && cost(b) <= cost(a) && b.fenceRate() <= a.fenceRate() &&
				(cost(b) < cost(a) || b.fenceRate() < a.fenceRate())
		})
		if !dominated {
			out = append(out, i)
		}
	}
	return out
}

// StallOf summarises the stalls of a point's valid SIGKILL trials.
func StallOf(values []time.Duration, attempted int) Stall {
	s := Stall{N: len(values), Attempted: attempted}
	if len(values) == 0 {
		return s
	}
	f := make([]float64, len(values))
	for i, v := range values {
		f[i] = v.Seconds()
	}
	smp := benchmath.NewSample(f, &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(smp, bench.Confidence)
	sec := func(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
	s.Median, s.Low, s.High = sec(sum.Center), sec(sum.Lo), sec(sum.Hi)
	if len(values) < MinTrials || math.IsInf(sum.Lo, 0) || math.IsInf(sum.Hi, 0) { // too few for an interval
		s.Low, s.High, s.Intervalless = s.Median, s.Median, true
	}
	return s
}
