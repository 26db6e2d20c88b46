package tune

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// hiccupGrid tolerates a pause, a starve and a loss of 2 s each.
func hiccupGrid(sessions ...time.Duration) *Grid {
	return &Grid{Sessions: sessions, Pauses: []time.Duration{2 * s}, Starves: []time.Duration{2 * s},
		Losses: []Loss{{Share: 0.3, For: 2 * s}}, Trials: 6}
}

func TestGridHiccups(t *testing.T) {
	g := hiccupGrid(4 * s)
	g.StarveCPUs = 0.1
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	f := g.File()
	var names []string
	for _, sc := range f.Scenarios {
		names = append(names, sc.Name)
	}
	want := "session-4000-sigkill session-4000-pause-2000ms session-4000-starve-2000ms session-4000-loss-30pct-2000ms"
	if strings.Join(names, " ") != want {
		t.Errorf("scenarios %v, want %s", names, want)
	}
	st, lo := f.Scenarios[2], f.Scenarios[3]
	if st.Fault != "cpu-starve" || st.StarveCPUs != 0.1 || st.ReturnAfter != 2*s || st.Loss != "" || st.Duration != 8*s+4*s+10*s {
		t.Errorf("starve scenario %+v", st)
	}
	if lo.Fault != "packet-loss" || lo.Loss != "30%" || lo.ReturnAfter != 2*s || lo.StarveCPUs != 0 {
		t.Errorf("loss scenario %+v", lo)
	}
	// Each scenario is one a benchmark file may hold.
	if err := f.Validate(); err != nil {
		t.Errorf("the grid's benchmark: %v", err)
	}
	if n, _ := g.Estimate(); n != 4*6 {
		t.Errorf("estimate %d trials, want 24", n)
	}
	if got := g.String(); !strings.Contains(got, "(sigkill, pause 2s, starve 2s (0.1 CPU), loss 2s (30%))") {
		t.Errorf("grid %s", got)
	}
	if h := hiccupGrid(4 * s).Hiccups()[1]; h.CPUs != DefaultStarveCPUs {
		t.Errorf("starve %+v: want the default sliver", h)
	}
}

func TestGridHiccupsRefused(t *testing.T) {
	for _, c := range []struct {
		g    Grid
		want string
	}{
		{Grid{}, "no hiccup to tolerate: give --tolerate-pause, --tolerate-starve or --tolerate-loss"},
		{Grid{Starves: []time.Duration{0}}, "starve 0s (0.05 CPU): want a positive length"},
		{Grid{Starves: []time.Duration{2 * s, 2 * s}}, "starve 2s (0.05 CPU) given twice"},
		{Grid{Starves: []time.Duration{2 * s}, StarveCPUs: 3}, "--starve-cpus 3: want 0.01 to 1"},
		{Grid{Losses: []Loss{{Share: 1, For: 2 * s}}}, "loss 2s (100%): want a share between 0 and 100%"},
		{Grid{Pauses: []time.Duration{s, 2 * s, 3 * s}, Starves: []time.Duration{s, 2 * s}, Losses: []Loss{{0.1, s}, {0.2, s}}}, "7 hiccups: at most 6"},
	} {
		g := c.g
		g.Sessions, g.Trials = []time.Duration{4 * s}, 6
		err := g.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("grid %+v: error %v, want one line saying %q", c.g, err, c.want)
		}
	}
}

func TestParseLoss(t *testing.T) {
	l, err := ParseLoss("30%:2s")
	if err != nil || l.Share != 0.3 || l.For != 2*s {
		t.Fatalf("ParseLoss = %+v, %v", l, err)
	}
	for in, want := range map[string]string{
		"30%":      "want SHARE:LENGTH, such as 30%:2s",
		"130%:2s":  "want a percentage between 0 and 100",
		"30%:soon": `length "soon": want a duration such as 2s`,
	} {
		if _, err := ParseLoss(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseLoss(%q): error %v, want %q", in, err, want)
		}
	}
}

// starveMeasured makes each point's trials: its stall, its pause and loss
// trials fencing nobody, its starve trials fencing fenced of 6.
func starveMeasured(g *Grid, stall map[time.Duration]time.Duration, fenced map[time.Duration]int) []Trial {
	var out []Trial
	for _, p := range g.Points() {
		out = append(out, stalls(KillName(p), stall[p.Session], 6)...)
		for _, h := range g.Hiccups() {
			n := 0
			if h.Kind == results.FaultCPUStarve {
				n = fenced[p.Session]
			}
			out = append(out, hiccups(HiccupName(p, h), 6, n)...)
		}
	}
	return out
}

// TestDecideStarve: a setting safe under a pause and a loss but fenced
// under a starve is not recommended; the table has a column per hiccup
// and the evidence names the starve.
func TestDecideStarve(t *testing.T) {
	g := hiccupGrid(9*s, 4*s, 3*s)
	a := Decide(Rows(g, starveMeasured(g,
		map[time.Duration]time.Duration{9 * s: 9400 * time.Millisecond, 4 * s: 4500 * time.Millisecond, 3 * s: 3400 * time.Millisecond},
		map[time.Duration]int{4 * s: 1, 3 * s: 6})), MinTrials)
	if a.Pick < 0 || a.Rows[a.Pick].Point.Session != 9*s {
		t.Fatalf("pick %d (%s %v), want session-9000: the shorter ones fenced under a starve", a.Pick, a.Why, a.Add)
	}
	var b bytes.Buffer
	if err := WriteText(&b, a); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"pause 2s: fenced", "starve 2s (0.05 CPU): fenced", "loss 2s (30%): fenced",
		"session-4000, starve 2s (0.05 CPU): 00:00:01.000 Fencing broker 1",
		"recommendation: the shortest stall that fenced nobody under every hiccup asked for: session-9000",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "session-4000, pause") || strings.Contains(out, "session-4000, loss") {
		t.Errorf("evidence of a fence that did not happen:\n%s", out)
	}
	// Too few starve trials of a shorter session: say which to add.
	g = hiccupGrid(9*s, 3*s)
	trials := starveMeasured(g, map[time.Duration]time.Duration{9 * s: 9400 * time.Millisecond, 3 * s: 3400 * time.Millisecond}, nil)
	var kept []Trial
	for _, tr := range trials {
		if tr.Scenario != "session-3000-loss-30pct-2000ms" {
			kept = append(kept, tr)
		}
	}
	a = Decide(Rows(g, kept), MinTrials)
	if a.Pick >= 0 || strings.Join(a.Add, "; ") != "6 more loss-30%-2s trials of session-3000 (0 that count of 0)" {
		t.Errorf("pick %d, add %q", a.Pick, a.Add)
	}
}
