package tune

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/timeline"
)

const s = time.Second

// stalls are n SIGKILL trials of a point, their stalls about median.
func stalls(name string, median time.Duration, n int) []Trial {
	var out []Trial
	for i := range n {
		out = append(out, Trial{Scenario: name, Valid: true, Stall: median + time.Duration(i-n/2)*50*time.Millisecond})
	}
	return out
}

// hiccups are n pause trials of a point, fenced of them fenced.
func hiccups(name string, n, fenced int) []Trial {
	var out []Trial
	for i := range n {
		h := &analysis.Hiccup{Broker: "k1", NodeID: 1, From: time.Unix(0, 0), Returned: time.Unix(2, 0)}
		if i < fenced {
			h.Fence = &timeline.Event{Time: time.Unix(1, 0), Text: "Fencing broker 1 at epoch 14 because its session has timed out.", Source: "c1/controller.log:7"}
			h.LeaderMoves = []timeline.Event{{Topic: "orders", Partition: 0}}
		}
		out = append(out, Trial{Scenario: name, Hiccup: h})
	}
	return out
}

func grid(sessions ...time.Duration) *Grid {
	return &Grid{Sessions: sessions, Pauses: []time.Duration{2 * s}, Trials: 6}
}

// measured makes the trials of each point: its stall, and how many of its
// hiccup trials count and fenced.
func measured(g *Grid, points map[time.Duration]struct {
	stall          time.Duration
	kills, n, fenc int
}) []Trial {
	var out []Trial
	for _, p := range g.Points() {
		m, ok := points[p.Session]
		if !ok {
			continue
		}
		out = append(out, stalls(KillName(p), m.stall, m.kills)...)
		out = append(out, hiccups(PauseName(p, 2*s), m.n, m.fenc)...)
	}
	return out
}

type pt = struct {
	stall          time.Duration
	kills, n, fenc int
}

func TestDecide(t *testing.T) {
	for _, c := range []struct {
		name   string
		points map[time.Duration]pt
		pick   time.Duration // 0: none
		why    string
		add    []string
	}{
		{name: "the shortest stall that fenced nobody",
			points: map[time.Duration]pt{9 * s: {9400 * time.Millisecond, 6, 6, 0}, 6 * s: {6400 * time.Millisecond, 6, 6, 0},
				4 * s: {4500 * time.Millisecond, 6, 6, 0}, 3 * s: {3400 * time.Millisecond, 6, 6, 1}},
			pick: 4 * s, why: "the shortest stall that fenced nobody under every hiccup asked for: session-4000"},
		{name: "a shorter stall not told apart: the more tolerant",
			points: map[time.Duration]pt{9 * s: {9400 * time.Millisecond, 6, 6, 0}, 4 * s: {4500 * time.Millisecond, 6, 6, 0},
				3 * s: {4450 * time.Millisecond, 6, 6, 0}},
			pick: 4 * s, why: "(session-3000's shorter stall is not told apart from it, and it tolerates less)"},
		{name: "a shorter session with too few hiccups: cannot decide",
			points: map[time.Duration]pt{9 * s: {9400 * time.Millisecond, 6, 6, 0}, 4 * s: {4500 * time.Millisecond, 6, 6, 0},
				3 * s: {3400 * time.Millisecond, 6, 3, 0}},
			why: "cannot decide", add: []string{"3 more pause-2s trials of session-3000 (3 that count of 3)"}},
		{name: "a shorter session with too few kills: cannot decide",
			points: map[time.Duration]pt{9 * s: {9400 * time.Millisecond, 6, 6, 0}, 3 * s: {3400 * time.Millisecond, 2, 6, 0}},
			why:    "cannot decide", add: []string{"4 more sigkill trials of session-3000 (2 valid of 2)"}},
		{name: "a longer session unknown does not hold the answer back",
			points: map[time.Duration]pt{9 * s: {9400 * time.Millisecond, 6, 2, 0}, 4 * s: {4500 * time.Millisecond, 6, 6, 0}},
			pick:   4 * s},
		{name: "a single fence among few trials settles it",
			points: map[time.Duration]pt{9 * s: {9400 * time.Millisecond, 6, 6, 0}, 3 * s: {3400 * time.Millisecond, 6, 1, 1}},
			pick:   9 * s},
		{name: "every setting fenced",
			points: map[time.Duration]pt{4 * s: {4500 * time.Millisecond, 6, 6, 2}, 3 * s: {3400 * time.Millisecond, 6, 6, 6}},
			why:    "every setting fenced", add: []string{"trials of session timeouts longer than 4s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ss []time.Duration
			for k := range c.points {
				ss = append(ss, k)
			}
			g := grid(ss...)
			a := Decide(Rows(g, measured(g, c.points)), MinTrials)
			got := time.Duration(0)
			if a.Pick >= 0 {
				got = a.Rows[a.Pick].Point.Session
			}
			if got != c.pick {
				t.Errorf("pick %v, want %v: %s %v", got, c.pick, a.Why, a.Add)
			}
			if !strings.Contains(a.Why, c.why) {
				t.Errorf("why %q, want %q", a.Why, c.why)
			}
			if strings.Join(a.Add, "; ") != strings.Join(c.add, "; ") {
				t.Errorf("add %q, want %q", a.Add, c.add)
			}
		})
	}
}

func TestFront(t *testing.T) {
	g := grid(9*s, 6*s, 4*s, 3*s)
	a := Decide(Rows(g, measured(g, map[time.Duration]pt{
		9 * s: {9400 * time.Millisecond, 6, 6, 0},
		6 * s: {9500 * time.Millisecond, 6, 6, 0}, // slower than 9 s and no safer: dominated
		4 * s: {4500 * time.Millisecond, 6, 6, 0},
		3 * s: {3400 * time.Millisecond, 6, 6, 3},
	})), MinTrials)
	var front []time.Duration
	for _, i := range a.Front {
		front = append(front, a.Rows[i].Point.Session)
	}
	// 9 s is beaten by 4 s (shorter, as safe); 3 s is faster but fences.
	if len(front) != 2 || front[0] != 4*s || front[1] != 3*s {
		t.Errorf("front %v, want [4s 3s]", front)
	}
}

func TestRowsCount(t *testing.T) {
	g := grid(4 * s)
	p := g.Points()[0]
	trials := []Trial{
		{Scenario: KillName(p), Valid: true, Stall: 4 * s},
		{Scenario: KillName(p)}, // invalid: attempted, not counted
		{Scenario: PauseName(p, 2*s)},
		{Scenario: "session-9000-sigkill", Valid: true, Stall: 9 * s}, // another point's
	}
	trials = append(trials, hiccups(PauseName(p, 2*s), 2, 1)...)
	r := Rows(g, trials)[0]
	if r.Kill.N != 1 || r.Kill.Attempted != 2 || r.Kill.Median != 4*s {
		t.Errorf("kill %+v, want 1 valid of 2 at 4s", r.Kill)
	}
	k := r.Risks[0]
	if k.N != 2 || k.Attempted != 3 || k.Fenced != 1 || k.LeaderMoves != 1 || !strings.Contains(k.Evidence, "c1/controller.log:7") {
		t.Errorf("risk %+v, want 2 that count of 3, 1 fenced with its evidence", k)
	}
}

func TestGrid(t *testing.T) {
	for _, c := range []struct{ session, heartbeat time.Duration }{
		{9 * s, 2 * s}, {6 * s, 1333 * time.Millisecond}, {1500 * time.Millisecond, 333 * time.Millisecond},
	} {
		if got := Heartbeat(c.session); got != c.heartbeat || 2*got > c.session {
			t.Errorf("heartbeat of %v = %v, want %v", c.session, got, c.heartbeat)
		}
	}
	g := &Grid{Sessions: []time.Duration{4 * s, 9 * s}, Pauses: []time.Duration{2 * s, 4 * s}, Trials: 6}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	f := g.File()
	var names []string
	for _, sc := range f.Scenarios {
		names = append(names, sc.Name)
	}
	want := "session-9000-sigkill session-9000-pause-2000ms session-9000-pause-4000ms session-4000-sigkill session-4000-pause-2000ms session-4000-pause-4000ms"
	if strings.Join(names, " ") != want {
		t.Errorf("scenarios %v, want %s", names, want)
	}
	p := f.Scenarios[5]
	if p.Fault != "pause" || p.ReturnAfter != 4*s || p.Duration != 8*s+4*s+10*s || strings.Join(p.Config, " ") != "broker.session.timeout.ms=4000 broker.heartbeat.interval.ms=888" {
		t.Errorf("hiccup scenario %+v", p)
	}
	if n, took := g.Estimate(); n != 36 || took != 36*TrialCost {
		t.Errorf("estimate %d trials %v", n, took)
	}
	for _, bad := range []*Grid{
		{Pauses: []time.Duration{s}, Trials: 6},
		{Sessions: []time.Duration{4 * s}, Trials: 6},
		{Sessions: []time.Duration{4 * s, 4 * s}, Pauses: []time.Duration{s}, Trials: 6},
		{Sessions: []time.Duration{100 * time.Millisecond}, Pauses: []time.Duration{s}, Trials: 6},
		{Sessions: []time.Duration{4 * s}, Pauses: []time.Duration{s}, Trials: 0},
	} {
		if err := bad.Validate(); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("grid %+v: error %v, want one line", bad, err)
		}
	}
}

func TestWriteText(t *testing.T) {
	g := grid(9*s, 4*s, 3*s)
	a := Decide(Rows(g, measured(g, map[time.Duration]pt{
		9 * s: {9400 * time.Millisecond, 6, 6, 0}, 4 * s: {4500 * time.Millisecond, 6, 6, 0}, 3 * s: {3400 * time.Millisecond, 6, 6, 2},
	})), MinTrials)
	var b bytes.Buffer
	if err := WriteText(&b, a); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"session ms", "pause 2s: fenced",
		"session-3000, pause 2s: 00:00:01.000 Fencing broker 1 at epoch 14 because its session has timed out. (c1/controller.log:7)",
		"recommendation: the shortest stall that fenced nobody under every hiccup asked for: session-4000",
		"kbf run --config broker.session.timeout.ms=4000 --config broker.heartbeat.interval.ms=888",
		"    broker.session.timeout.ms=4000\n    broker.heartbeat.interval.ms=888\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Count(out, "\n"); lines > 24 {
		t.Errorf("%d lines: want one screen", lines)
	}
}
