package tune

import (
	"bytes"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

const ms = time.Millisecond

var showAnswer = flag.Bool("show", false, "print the answers the tests construct")

// parse parses args as kbf tune's command line: the probe's flags first,
// then tune's over them, as the command adds them.
func parse(t *testing.T, args ...string) (*Grid, probe.Config, error) {
	t.Helper()
	var (
		f Flags
		c probe.Config
	)
	fs := pflag.NewFlagSet("tune", pflag.ContinueOnError)
	c.AddFlags(fs, false)
	f.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, c, err
	}
	g, err := f.Grid(0, "")
	if err != nil {
		return nil, c, err
	}
	return g, c, g.Validate()
}

func TestClientGrid(t *testing.T) {
	g, c, err := parse(t, "--session", "9s,4s", "--tolerate-pause", "2s", "--metadata-min-age", "100ms,1s",
		"--request-timeout-overhead", "10s", "--request-timeout-overhead", "3s", "--retry-backoff-max", "250ms", "--death", "sigkill,pause")
	if err != nil {
		t.Fatal(err)
	}
	// The probe's own value is left alone: every scenario carries the grid's.
	if c.MetadataMinAge != probe.Defaults().MetadataMinAge || c.RequestTimeoutOverhead != probe.Defaults().RequestTimeoutOverhead {
		t.Errorf("probe config %+v: the grid's flags set it", c)
	}
	pts := g.Points()
	if len(pts) != 8 {
		t.Fatalf("%d points, want 2 sessions × 2 ages × 2 overheads × 1 backoff", len(pts))
	}
	if got := pts[1].Name(); got != "session-9000-metadata-min-age-100ms-retry-backoff-max-250ms-request-timeout-overhead-3s" {
		t.Errorf("second point %s", got)
	}
	f := g.File()
	if err := f.Validate(); err != nil {
		t.Fatalf("the grid's benchmark: %v", err)
	}
	var names []string
	for _, sc := range f.Scenarios {
		names = append(names, sc.Name)
	}
	// Two deaths per point, the pause hiccup once per session.
	if len(names) != 8*2+2 || strings.Count(strings.Join(names, " "), "pause-2000ms") != 2 {
		t.Errorf("scenarios %v", names)
	}
	kill, freeze, hic := f.Scenarios[0], f.Scenarios[1], f.Scenarios[2]
	if kill.Name != "session-9000-metadata-min-age-100ms-retry-backoff-max-250ms-request-timeout-overhead-10s-sigkill" ||
		kill.Client["metadata-min-age"] != "100ms" || kill.Client["request-timeout-overhead"] != "10s" || kill.Client["retry-backoff-max"] != "250ms" {
		t.Errorf("sigkill scenario %+v", kill)
	}
	// The freeze is never undone, and probes long enough for the clients'
	// wait on it: produce timeout 10s + 2 × 10s + 100ms + 250ms.
	if freeze.Fault != "pause" || freeze.ReturnAfter != 0 || freeze.Duration != kill.Duration+9*time.Second/8+30350*ms {
		t.Errorf("freeze scenario %+v", freeze)
	}
	if hic.Name != "session-9000-pause-2000ms" || hic.ReturnAfter != 2*s || hic.Client["metadata-min-age"] != "100ms" {
		t.Errorf("hiccup scenario %+v", hic)
	}
	n, took := g.Estimate()
	// 8 points × (6 sigkill + 6 pause) + 2 sessions × 6 hiccups; a pause
	// trial costs its produce timeout and overhead more.
	if n != 108 || took != 108*TrialCost+48*(10*s)+24*(10*s)+24*(3*s) {
		t.Errorf("estimate %d trials, %v", n, took)
	}
	if got := g.String(); !strings.Contains(got, "× metadata-min-age 100ms,1s × retry-backoff-max 250ms × request-timeout-overhead 10s,3s × (sigkill, pause) × 6 trials, and (pause 2s) × 6 trials a session; each pause trial about 1m5s") {
		t.Errorf("grid %s", got)
	}
}

func TestClientGridRefused(t *testing.T) {
	base := []string{"--session", "4s", "--tolerate-pause", "2s"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--metadata-min-age", "1ms,1s"}, "--metadata-min-age 1ms: metadata min age 1ms: franz-go takes at least 10ms"},
		{[]string{"--metadata-min-age", "10m"}, "metadata min age 10m0s: franz-go takes at most 5m0s"},
		{[]string{"--retry-backoff", "100ms,2s", "--retry-backoff-max", "1s"}, "--retry-backoff 2s --retry-backoff-max 1s: retry backoff max 1s is below retry backoff 2s"},
		{[]string{"--request-timeout-overhead", "10s,2s"}, "--request-timeout-overhead 10s,2s: it bounds only the stall of a broker that stops answering with its connections open; add --death sigkill,pause"},
		{[]string{"--produce-timeout", "50ms", "--death", "sigkill,isolate"}, "produce timeout 50ms: franz-go takes at least 100ms"},
		{[]string{"--retry-backoff-max", "1s,1s"}, "--retry-backoff-max 1s given twice"},
		{[]string{"--metadata-min-age", "soon"}, `invalid argument "soon" for "--metadata-min-age" flag: "soon": want durations such as 100ms,1s`},
		{[]string{"--metadata-min-age", "100ms,200ms,300ms,400ms", "--retry-backoff-max", "1s,500ms,250ms,100ms"}, "16 settings (session timeouts × client settings): at most 12"},
		{[]string{"--death", "pause"}, "death pause: the SIGKILL's stall is the cost every answer has; give sigkill beside it, e.g. --death sigkill,pause"},
		{[]string{"--death", "sigkill,sigterm"}, `death "sigterm": want sigkill, pause`},
		{[]string{"--death", "sigkill,pause,pause"}, "death pause given twice"},
	} {
		_, _, err := parse(t, append(base, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: error %v, want one line saying %q", c.args, err, c.want)
		}
	}
	// One value of a timeout is a setting for every trial, not a grid: no
	// freeze needed.
	if _, _, err := parse(t, append(base, "--request-timeout-overhead", "2s")...); err != nil {
		t.Errorf("one overhead: %v", err)
	}
}

// clientGrid is sessions × request-timeout-overhead 10s,3s, with a pause
// as the second death and a pause of 2s to tolerate.
func clientGrid(sessions ...time.Duration) *Grid {
	return &Grid{Sessions: sessions, Pauses: []time.Duration{2 * s}, Trials: 6,
		Clients: []ClientList{{Name: "request-timeout-overhead", Values: []time.Duration{10 * s, 3 * s}}},
		Deaths:  []results.FaultKind{results.FaultSIGKILL, results.FaultPause}}
}

// clientMeasured makes the trials of each point: its SIGKILL stall, its
// freeze's stall (the session plus what the overhead adds), and each
// session's pause trials, fencing those of fenced.
func clientMeasured(g *Grid, kill map[time.Duration]time.Duration, fenced map[time.Duration]int) []Trial {
	var out []Trial
	seen := map[time.Duration]bool{}
	for _, p := range g.Points() {
		out = append(out, stalls(KillName(p), kill[p.Session], 6)...)
		out = append(out, stalls(DeathName(p, results.FaultPause), p.Session+2*clientOf(p, "request-timeout-overhead"), 6)...)
		if !seen[p.Session] {
			seen[p.Session] = true
			out = append(out, hiccups(PauseName(p, 2*s), 6, fenced[p.Session])...)
		}
	}
	return out
}

// TestDecideClients: a session's client settings share its hiccups; the
// freeze's stall, the longer, decides; the recommendation gives the
// client flags beside the server's lines; the table stays on one screen.
func TestDecideClients(t *testing.T) {
	g := clientGrid(9*s, 4*s, 3*s)
	a := Decide(Rows(g, clientMeasured(g,
		map[time.Duration]time.Duration{9 * s: 9400 * ms, 4 * s: 4500 * ms, 3 * s: 3400 * ms},
		map[time.Duration]int{3 * s: 2})), MinTrials)
	if a.Pick < 0 {
		t.Fatalf("no pick: %s %v", a.Why, a.Add)
	}
	p := a.Rows[a.Pick].Point
	if p.Session != 4*s || clientOf(p, "request-timeout-overhead") != 3*s {
		t.Errorf("pick %s, want session-4000 with the 3s overhead: %s", p.Name(), a.Why)
	}
	var b bytes.Buffer
	if err := WriteText(&b, a); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if *showAnswer {
		t.Logf("\n%s", out)
	}
	for _, want := range []string{
		"request-timeout-overhead", "pause stall (leader)", "its SIGKILL stall 4.47 s [4.35, 4.60], its pause stall 9.97 s [9.85, 10.10]",
		"recommendation: the shortest stall (the longer of the sigkill's and the pause's) that fenced nobody under every hiccup asked for: session-4000-request-timeout-overhead-3s",
		"kbf run --config broker.session.timeout.ms=4000 --config broker.heartbeat.interval.ms=888 --request-timeout-overhead 3s",
		"the producer's settings (franz-go's, as kbf run's and kbf probe's flags; a bench scenario's client:): --request-timeout-overhead 3s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The session's fence is evidence once, not once per client setting.
	if n := strings.Count(out, "session-3000, pause 2s: "); n != 1 {
		t.Errorf("%d evidence lines of session-3000, want 1:\n%s", n, out)
	}
	if lines := strings.Count(out, "\n"); lines > 24 {
		t.Errorf("%d lines: want one screen", lines)
	}
}

// TestDecideClientsUnknown: a client setting of the best session with too
// few freeze trials holds the answer back, and says which to add; the
// hiccup trials a session lacks are asked for once.
func TestDecideClientsUnknown(t *testing.T) {
	g := clientGrid(9*s, 4*s)
	var kept []Trial
	dropped := 0
	for _, tr := range clientMeasured(g, map[time.Duration]time.Duration{9 * s: 9400 * ms, 4 * s: 4500 * ms}, nil) {
		if tr.Scenario == "session-4000-request-timeout-overhead-3s-pause" && dropped < 3 {
			dropped++
			continue
		}
		kept = append(kept, tr)
	}
	a := Decide(Rows(g, kept), MinTrials)
	if a.Pick >= 0 || len(a.Add) != 1 || !strings.HasPrefix(a.Add[0], "3 more pause trials of session-4000-request-timeout-overhead-3s (3 valid of 3)") {
		t.Errorf("pick %d, add %q", a.Pick, a.Add)
	}
	// A point without a freeze's stall is not placed on the front by its
	// SIGKILL's alone.
	var noFreeze []Trial
	for _, tr := range kept {
		if tr.Scenario != "session-4000-request-timeout-overhead-3s-pause" {
			noFreeze = append(noFreeze, tr)
		}
	}
	a = Decide(Rows(g, noFreeze), MinTrials)
	for _, i := range a.Front {
		if a.Rows[i].Point.Name() == "session-4000-request-timeout-overhead-3s" {
			t.Errorf("front %v holds the point with no freeze trial", a.Front)
		}
	}
	var noHiccups []Trial
	for _, tr := range kept {
		if tr.Scenario != "session-4000-pause-2000ms" {
			noHiccups = append(noHiccups, tr)
		}
	}
	a = Decide(Rows(g, noHiccups), MinTrials)
	if strings.Join(a.Add, "; ") != "6 more pause-2s trials of session-4000 (0 that count of 0)" {
		t.Errorf("add %q", a.Add)
	}
}

// TestDecideClientsGentler: two client settings whose stalls the trials
// cannot tell apart: the longer wait, which asks less of the cluster.
func TestDecideClientsGentler(t *testing.T) {
	g := &Grid{Sessions: []time.Duration{4 * s}, Pauses: []time.Duration{2 * s}, Trials: 6,
		Clients: []ClientList{{Name: "metadata-min-age", Values: []time.Duration{100 * ms, time.Second}}}}
	var trials []Trial
	for _, p := range g.Points() {
		stall := 4500 * ms
		if clientOf(p, "metadata-min-age") == 100*ms {
			stall = 4450 * ms
		}
		trials = append(trials, stalls(KillName(p), stall, 6)...)
	}
	trials = append(trials, hiccups("session-4000-pause-2000ms", 6, 0)...)
	a := Decide(Rows(g, trials), MinTrials)
	if a.Pick < 0 || clientOf(a.Rows[a.Pick].Point, "metadata-min-age") != time.Second {
		t.Errorf("pick %d: %s", a.Pick, a.Why)
	}
	if !strings.Contains(a.Why, "(session-4000-metadata-min-age-100ms's shorter stall is not told apart from it, and it tolerates less)") {
		t.Errorf("why %q", a.Why)
	}
}

// TestRowsDeaths: a freeze's trials are read beside the SIGKILL's,
// valid or not, and a row's cost is the longer.
func TestRowsDeaths(t *testing.T) {
	g := &Grid{Sessions: []time.Duration{4 * s}, Pauses: []time.Duration{2 * s}, Trials: 6,
		Deaths: []results.FaultKind{results.FaultSIGKILL, results.FaultIsolate}}
	p := g.Points()[0]
	trials := append(stalls(KillName(p), 4*s, 6), stalls(DeathName(p, results.FaultIsolate), 20*s, 5)...)
	trials = append(trials, Trial{Scenario: "session-4000-isolate"})
	r := Rows(g, trials)[0]
	if len(r.Deaths) != 1 || r.Deaths[0].Kind != results.FaultIsolate || r.Deaths[0].Stall.N != 5 || r.Deaths[0].Stall.Attempted != 6 {
		t.Fatalf("deaths %+v", r.Deaths)
	}
	if c, ok := r.cost(MinTrials); c.Median != 20*s || ok {
		t.Errorf("cost %v, measured %v: want the isolate's 20s, not yet measured", c.Median, ok)
	}
}
