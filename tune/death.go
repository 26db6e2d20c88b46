package tune

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/results"
)

// The deaths a tune may measure the cost of: a SIGKILL always, and a
// broker frozen for good (pause, never thawed while probing) or cut from
// every link (isolate), whose stall the clients' timeouts bound, since
// their requests to it hang rather than fail.
var deathKinds = []results.FaultKind{results.FaultSIGKILL, results.FaultPause, results.FaultIsolate}

// ParseDeaths reads kbf tune --death: sigkill, and pause or isolate or
// both; empty is sigkill alone.
func ParseDeaths(ss []string) ([]results.FaultKind, error) {
	var out []results.FaultKind
	for _, s := range ss {
		k := results.FaultKind(strings.TrimSpace(s))
		switch {
		case !slices.Contains(deathKinds, k):
			return nil, fmt.Errorf("death %q: want sigkill, pause (the broker frozen for good, its connections open) or isolate (its every link cut; root)", s)
		case slices.Contains(out, k):
			return nil, fmt.Errorf("death %s given twice", k)
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return []results.FaultKind{results.FaultSIGKILL}, nil
	}
	if !slices.Contains(out, results.FaultSIGKILL) {
		return nil, fmt.Errorf("death %s: the SIGKILL's stall is the cost every answer has; give sigkill beside it, e.g. --death sigkill,%s", out[0], out[0])
	}
	return out, nil
}

// otherDeaths are the grid's deaths beside the SIGKILL, in deathKinds'
// order.
func (g *Grid) otherDeaths() []results.FaultKind {
	var out []results.FaultKind
	for _, k := range deathKinds[1:] {
		if slices.Contains(g.Deaths, k) {
			out = append(out, k)
		}
	}
	return out
}

// silentDeath reports whether the grid measures a death whose broker stops
// answering with its connections open.
func (g *Grid) silentDeath() bool { return len(g.otherDeaths()) > 0 }

// DeathName names a point's scenario of a death: session-4000-sigkill,
// session-4000-pause.
func DeathName(p Point, k results.FaultKind) string { return p.Name() + "-" + string(k) }

// silentWait is how long a producer may wait on a leader that stopped
// answering at p before it looks elsewhere (analysis's in-flight bound):
// its produce request given up produce_request_timeout +
// request_timeout_overhead after it was written, the new connection's
// first request after request_timeout_overhead, and the refresh within
// metadata_min_age + retry_backoff_max.
func silentWait(p Point) time.Duration {
	return clientOf(p, "produce-timeout") + 2*clientOf(p, "request-timeout-overhead") +
		clientOf(p, "metadata-min-age") + clientOf(p, "retry-backoff-max")
}

// deathScenario is the scenario of death k at point p: a SIGKILL probing
// long enough for a detection as long as the session; a freeze or a cut,
// never undone, long enough besides for the clients' wait on the silent
// broker.
func (g *Grid) deathScenario(p Point, k results.FaultKind) bench.Scenario {
	d := faultAfter + p.Session + 2*hiccupAfter
	if k != results.FaultSIGKILL {
		d += p.Session/8 + silentWait(p)
	}
	return bench.Scenario{Name: DeathName(p, k), Fault: string(k), Broker: g.Broker,
		Duration: d, FaultAfter: faultAfter, Config: p.Config(), Client: clientMap(g.Client, p.Client)}
}

// trialCost is what a trial of scenario s costs: TrialCost, and for a
// freeze or a cut the clients' wait on the silent broker past a SIGKILL's
// (the request's produce timeout and overhead).
func trialCost(p Point, k results.FaultKind) time.Duration {
	if k == results.FaultSIGKILL || k == "" {
		return TrialCost
	}
	return TrialCost + clientOf(p, "produce-timeout") + clientOf(p, "request-timeout-overhead")
}

// DeathStall is the stall of one death beside the SIGKILL at a point.
type DeathStall struct {
	Kind  results.FaultKind
	Stall Stall
}

// cost is the row's stall the decision weighs: the longest median of its
// deaths (the SIGKILL's and the others asked for), and whether every death
// has min valid trials.
func (r Row) cost(min int) (Stall, bool) {
	c, ok := r.Kill, r.Kill.N >= min
	for _, d := range r.Deaths {
		if d.Stall.Median > c.Median {
			c = d.Stall
		}
		ok = ok && d.Stall.N >= min
	}
	return c, ok
}

// stalled reports whether every death of the row has a valid trial, so
// that its cost can be placed on the front.
func (r Row) stalled() bool {
	ok := r.Kill.N > 0
	for _, d := range r.Deaths {
		ok = ok && d.Stall.N > 0
	}
	return ok
}

// missingDeaths says which death trials a row lacks.
func missingDeaths(r Row, min int) []string {
	var out []string
	add := func(k results.FaultKind, s Stall) {
		if s.N < min {
			out = append(out, fmt.Sprintf("%d more %s trials of %s (%d valid of %d)", min-s.N, k, r.Point.Name(), s.N, s.Attempted))
		}
	}
	add(results.FaultSIGKILL, r.Kill)
	for _, d := range r.Deaths {
		add(d.Kind, d.Stall)
	}
	return out
}

// costName says what the decision's stall is: the SIGKILL's, or the
// longest of the deaths asked for.
func costName(rows []Row) string {
	if len(rows) == 0 || len(rows[0].Deaths) == 0 {
		return "stall"
	}
	names := []string{"the " + string(results.FaultSIGKILL) + "'s"}
	for _, d := range rows[0].Deaths {
		names = append(names, "the "+string(d.Kind)+"'s")
	}
	which := "longer"
	if len(names) > 2 {
		which = "longest"
	}
	return fmt.Sprintf("stall (the %s of %s and %s)", which, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// deathsText is the row's stalls beside the SIGKILL's, for the
// recommendation: ", its pause stall 9.97 s [9.85, 10.10]".
func deathsText(r Row) string {
	var b strings.Builder
	for _, d := range r.Deaths {
		fmt.Fprintf(&b, ", its %s stall %s", d.Kind, stallText(d.Stall))
	}
	return b.String()
}
