// Package tune answers the operator's question about failover settings:
// the shortest stall a cluster can have without fencing healthy brokers.
// It reads a grid of settings — the controller's broker.session.timeout.ms
// with a matching broker.heartbeat.interval.ms, and the probe's client
// settings — and the hiccups the cluster must tolerate (a pause, a starved
// CPU or a packet loss of a given length), makes of them a benchmark
// (package bench: a SIGKILL scenario
// per setting, for the cost of a death, and a hiccup scenario per setting
// and hiccup, for the risk), and from the benchmark's trials decides: a
// table, the Pareto front, and the setting to recommend, or which trials
// to add when the data cannot support one. It runs nothing itself: kbf
// tune hands the benchmark to kbf bench's machinery, so a tune is a
// benchmark directory, resumable, that kbf compare and kbf report read.
package tune

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/results"
)

// Grid is what to measure: each session timeout (with its matching
// heartbeat) against a SIGKILL and against each hiccup.
type Grid struct {
	// Sessions are the controller's broker.session.timeout.ms to try.
	Sessions []time.Duration
	// Pauses, Starves and Losses are the hiccups the cluster must
	// tolerate, each undone with the probe running (Hiccups): a pause of
	// the broker (GC-like) this long, its container starved to StarveCPUs
	// of a CPU (zero: DefaultStarveCPUs) this long, a share of its
	// packets dropped.
	Pauses     []time.Duration
	Starves    []time.Duration
	StarveCPUs float64
	Losses     []Loss
	// Client are probe settings for every scenario, by kbf run's flag
	// name (metadata-min-age: 100ms).
	Client map[string]string
	// Clients are the client settings to try, crossed with Sessions: each
	// combination of their values and a session is a point.
	Clients []ClientList
	// Deaths are the deaths whose stall is the cost: sigkill, and pause
	// or isolate beside it (empty: sigkill alone).
	Deaths []results.FaultKind
	// Trials is the number of trials of every scenario.
	Trials int
	// Broker is the broker faulted (k1 when empty).
	Broker string
}

// Limits of a grid: past them a tune is a typo or days of trials.
const (
	MinSession = 500 * time.Millisecond
	MaxSession = 10 * time.Minute
	MaxPoints  = 12
	MaxHiccups = 6
	// MinTrials is the fewest trials of a scenario that give the gate's
	// 95% interval of a stall (bench.NeedSamples).
	MinTrials = 6
)

// Heartbeat is the heartbeat interval matched to session: Kafka's own
// ratio (2000 to 9000 ms), to the millisecond, at most half the session
// (compose.CheckLimits).
func Heartbeat(session time.Duration) time.Duration {
	return (session * 2 / 9).Truncate(time.Millisecond)
}

// Validate says in one line what is wrong with the grid.
func (g *Grid) Validate() error {
	switch {
	case len(g.Sessions) == 0:
		return fmt.Errorf("no session timeouts: give --session, e.g. --session 9s,6s,4s,3s,2s")
	case len(g.Sessions) > MaxPoints:
		return fmt.Errorf("%d session timeouts: at most %d (each costs %d trials per hiccup and one SIGKILL's)", len(g.Sessions), MaxPoints, g.Trials)
	case len(g.Points()) > MaxPoints:
		return fmt.Errorf("%d settings (session timeouts × client settings): at most %d (each costs %d trials per death)", len(g.Points()), MaxPoints, g.Trials)
	case g.Trials < 1 || g.Trials > bench.MaxTrials:
		return fmt.Errorf("trials %d: want 1 to %d (%d or more for a stall's interval)", g.Trials, bench.MaxTrials, MinTrials)
	}
	for i, s := range g.Sessions {
		if s < MinSession || s > MaxSession || s%time.Millisecond != 0 {
			return fmt.Errorf("session %v: want %v to %v, in whole milliseconds", s, MinSession, MaxSession)
		}
		if slices.Contains(g.Sessions[i+1:], s) {
			return fmt.Errorf("session %v given twice", s)
		}
	}
	if _, err := ParseDeaths(deathStrings(g.Deaths)); err != nil {
		return err
	}
	if err := g.validateClients(); err != nil { // client.go
		return err
	}
	return g.validateHiccups() // hiccup.go
}

func deathStrings(ks []results.FaultKind) []string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return s
}

// Point is one setting of the grid: a session timeout with its
// heartbeat, and the clients' settings the grid varies (none without
// Grid.Clients).
type Point struct {
	Session, Heartbeat time.Duration
	Client             []ClientValue
}

// Config are the point's server properties, as --config and
// server.properties take them.
func (p Point) Config() []string {
	return []string{
		fmt.Sprintf("broker.session.timeout.ms=%d", p.Session.Milliseconds()),
		fmt.Sprintf("broker.heartbeat.interval.ms=%d", p.Heartbeat.Milliseconds()),
	}
}

// Name is the point's part of its death scenarios' names: session-4000,
// session-4000-metadata-min-age-1s with client settings.
func (p Point) Name() string { return p.sessionName() + clientSlug(p.Client) }

// sessionName is the session's part: session-4000, which names the
// hiccup scenarios every point of that session shares.
func (p Point) sessionName() string { return fmt.Sprintf("session-%d", p.Session.Milliseconds()) }

// Points are the grid's settings, longest session first, each session
// crossed with every combination of the client settings in the order
// given.
func (g *Grid) Points() []Point {
	ss := slices.Clone(g.Sessions)
	slices.SortFunc(ss, func(a, b time.Duration) int { return int(b - a) })
	combos := clientCombos(given(g.Clients))
	out := make([]Point, 0, len(ss)*len(combos))
	for _, s := range ss {
		for _, c := range combos {
			out = append(out, Point{Session: s, Heartbeat: Heartbeat(s), Client: c})
		}
	}
	return out
}

// KillName and PauseName name a point's scenarios: session-4000-sigkill,
// session-4000-pause-2000ms (HiccupName names the others, DeathName a
// freeze's or a cut's).
func KillName(p Point) string { return DeathName(p, results.FaultSIGKILL) }

// PauseName names a point's pause scenario.
func PauseName(p Point, d time.Duration) string {
	return HiccupName(p, Hiccup{Kind: results.FaultPause, For: d})
}

// Hiccup trials probe this long after the fault at least, so that a fence
// a session timeout after the pause began is seen, and settle once the
// probe is steady again.
const (
	faultAfter  = 8 * time.Second
	hiccupAfter = 10 * time.Second
)

// File is the grid as a benchmark: per point, a scenario per death (a
// SIGKILL, and a freeze or a cut asked for), and per session a scenario
// per hiccup (its fault, return_after its length), each with the point's
// server properties and client settings. Whether the controller fences a
// broker is its heartbeats' and its session's affair, which the clients'
// settings do not touch: a session's hiccups are measured once, at its
// first point (the first value of each client setting).
func (g *Grid) File() *bench.File {
	f := &bench.File{Trials: g.Trials}
	var last time.Duration
	for _, p := range g.Points() {
		// Probing ends --settle after recovery; the cap leaves room for a
		// detection as long as the session.
		f.Scenarios = append(f.Scenarios, g.deathScenario(p, results.FaultSIGKILL)) // death.go
		for _, k := range g.otherDeaths() {
			f.Scenarios = append(f.Scenarios, g.deathScenario(p, k))
		}
		if p.Session == last {
			continue
		}
		last = p.Session
		for _, h := range g.Hiccups() {
			f.Scenarios = append(f.Scenarios, h.scenario(p, g)) // hiccup.go
		}
	}
	return f
}

// TrialCost is what a trial costs, as measured back to back on one
// cluster here (docs/measurements.md: 40 to 43 s a SIGKILL trial, its
// baseline waiting for the broker the trial before restarted).
const TrialCost = 45 * time.Second

// Estimate is the grid's cost before it starts: its trials and about how
// long they take.
func (g *Grid) Estimate() (trials int, took time.Duration) {
	for _, p := range g.Points() {
		for _, k := range append([]results.FaultKind{results.FaultSIGKILL}, g.otherDeaths()...) {
			trials += g.Trials
			took += time.Duration(g.Trials) * trialCost(p, k)
		}
	}
	n := len(g.Sessions) * len(g.Hiccups()) * g.Trials
	return trials + n, took + time.Duration(n)*TrialCost
}

// String says the grid in a line, for the estimate.
func (g *Grid) String() string {
	var ss, ps []string
	for _, p := range g.Points() {
		if s := fmt.Sprintf("%d/%d", p.Session.Milliseconds(), p.Heartbeat.Milliseconds()); !slices.Contains(ss, s) {
			ss = append(ss, s)
		}
	}
	for _, h := range g.Hiccups() {
		ps = append(ps, h.String())
	}
	out := fmt.Sprintf("session/heartbeat ms %s", strings.Join(ss, ", "))
	for _, l := range given(g.Clients) {
		out += fmt.Sprintf(" × %s %s", l.Name, durationsText(l.Values))
	}
	others := g.otherDeaths()
	if len(others) == 0 && len(given(g.Clients)) == 0 {
		return out + fmt.Sprintf(" × (sigkill, %s) × %d trials", strings.Join(ps, ", "), g.Trials)
	}
	ds := []string{string(results.FaultSIGKILL)}
	for _, k := range others {
		ds = append(ds, string(k))
	}
	out += fmt.Sprintf(" × (%s) × %d trials, and (%s) × %d trials a session", strings.Join(ds, ", "), g.Trials, strings.Join(ps, ", "), g.Trials)
	if pts := g.Points(); len(pts) > 0 && len(others) > 0 {
		out += fmt.Sprintf("; each %s trial about %v", others[0], trialCost(pts[0], others[0]).Round(time.Second))
	}
	return out
}
