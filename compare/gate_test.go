package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/kbf-project/kbf/benchfile"
)

// firstAcks writes a bench.txt of a follower's first_ack, one line per
// value (seconds), under the configuration lines cfg.
func firstAcks(t *testing.T, name, cfg string, vals ...float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("Unit first-ack-sec better=lower\nacks: all\n" + cfg + "\n")
	for _, v := range vals {
		fmt.Fprintf(&b, "BenchmarkFailover/scenario=sigkill/role=follower 1 %g first-ack-sec\n", v)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMinChange checks the absolute floor: a follower's first ack of 3 ms
// against 4.5 ms, 6 a side, is +50 % at a small p, and no regression, as
// it is well within the probe's resolution; without the floor it is one.
func TestMinChange(t *testing.T) {
	fast := []float64{0.002, 0.003, 0.003, 0.003, 0.003, 0.004}
	slow := []float64{0.004, 0.004, 0.0045, 0.0045, 0.005, 0.005}
	tests := []struct {
		name     string
		cfg      string // configuration lines of both files
		min      time.Duration
		old, new []float64
		want     Verdict
		say      string // in the row's Why or Note
	}{
		{name: "no interval recorded: the default floor", min: AutoMinChange, old: fast, new: slow, want: Same, say: "within --min-change 20ms"},
		{name: "the recorded probe interval", cfg: "probe-interval: 50ms\n", min: AutoMinChange, old: fast, new: slow, want: Same, say: "within --min-change 50ms"},
		{name: "a recorded interval finer than the change", cfg: "probe-interval: 1ms\n", min: AutoMinChange, old: fast, new: slow, want: Regression, say: "+50.0%"},
		{name: "no floor: the ratio alone", min: 0, old: fast, new: slow, want: Regression, say: "+50.0%"},
		{name: "a floor given overrides the recorded interval", cfg: "probe-interval: 1ms\n", min: 10 * time.Millisecond, old: fast, new: slow, want: Same, say: "within --min-change 10ms"},
		{name: "a change beyond the floor", min: AutoMinChange, old: fast, new: []float64{0.03, 0.03, 0.031, 0.031, 0.032, 0.032}, want: Regression, say: "p=0.004"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := allGate
			g.MinChange = tt.min
			res := mustCompare(t, read(t, firstAcks(t, "old.txt", tt.cfg, tt.old...)), read(t, firstAcks(t, "new.txt", tt.cfg, tt.new...)), g)
			if len(res.Rows) != 1 {
				t.Fatalf("%d rows", len(res.Rows))
			}
			r := res.Rows[0]
			if r.Cmp.P >= g.Alpha {
				t.Fatalf("p=%v: the test needs a significant change", r.Cmp.P)
			}
			if res.Verdict != tt.want || !strings.Contains(r.Why+r.Note, tt.say) {
				t.Errorf("verdict %v (%s%s), want %v saying %q", res.Verdict, r.Why, r.Note, tt.want, tt.say)
			}
		})
	}
}

// without drops the results edit matches, or the values of unit from
// them when unit is not "".
func without(match, unit string) func(int, *benchfmt.Result) bool {
	return func(_ int, r *benchfmt.Result) bool {
		if !strings.Contains(string(r.Name), match) {
			return true
		}
		if unit == "" {
			return false
		}
		r.Values = slices.DeleteFunc(r.Values, func(v benchfmt.Value) bool { return v.Unit == unit })
		return true
	}
}

// TestOneSided checks that what one side lacks is listed and fails the
// gate, unless allowed, and that "compared" counts only what was.
func TestOneSided(t *testing.T) {
	tests := []struct {
		name     string
		old, new func(t *testing.T) string
		missing  int
		list     string
	}{
		{name: "a scenario only in old",
			old: func(*testing.T) string { return oldFile },
			new: func(t *testing.T) string { return rewrite(t, oldFile, "new.txt", without("sigterm", "")) },
			// Two roles of two metrics.
			missing: 4, list: "sigterm/role=leader only in old; sigterm/role=follower only in old"},
		{name: "a scenario only in new",
			old:     func(t *testing.T) string { return rewrite(t, oldFile, "old.txt", without("sigterm", "")) },
			new:     func(*testing.T) string { return oldFile },
			missing: 4, list: "sigterm/role=leader only in new"},
		{name: "a role only in old",
			old:     func(*testing.T) string { return oldFile },
			new:     func(t *testing.T) string { return rewrite(t, oldFile, "new.txt", without("sigkill/role=follower", "")) },
			missing: 4, list: "sigkill/role=follower only in old"},
		{name: "a metric only in old",
			old: func(*testing.T) string { return oldFile },
			new: func(t *testing.T) string {
				return rewrite(t, oldFile, "new.txt", without("sigkill/role=leader", "detect-sec"))
			},
			missing: 1, list: "sigkill/role=leader detect only in old"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := read(t, tt.old(t)), read(t, tt.new(t))
			res := mustCompare(t, old, new, allGate)
			compared := len(res.Rows) - tt.missing
			if res.Verdict != Missing || !strings.Contains(res.Summary(), tt.list) || !strings.Contains(res.Summary(), fmt.Sprintf("%d metrics on one side only", tt.missing)) {
				t.Errorf("verdict %v, summary %q; want missing, %d listed, %q", res.Verdict, res.Summary(), tt.missing, tt.list)
			}
			g := allGate
			g.AllowMissing = true
			res = mustCompare(t, old, new, g)
			// Six trials of this spread leave some metrics undecided: the
			// one-sided ones are listed as allowed either way.
			want := fmt.Sprintf("; %d on one side only, allowed: ", tt.missing)
			if res.Verdict != Undecided || !strings.Contains(res.Summary(), want) || res.Compared() != compared {
				t.Errorf("allowed: verdict %v, summary %q; want %q…", res.Verdict, res.Summary(), want)
			}
		})
	}
	// A regression elsewhere is still the verdict.
	res := mustCompare(t, read(t, oldFile), read(t, rewrite(t, oldFile, "new.txt", func(n int, r *benchfmt.Result) bool {
		return without("sigterm", "")(n, r) && scale(1.5)(n, r)
	})), allGate)
	if res.Verdict != Regression {
		t.Errorf("a regression and a missing scenario: verdict %v", res.Verdict)
	}
}

// TestUnitRenamed checks that one side's ack stall in milliseconds is
// compared with the other's in seconds, not dropped.
func TestUnitRenamed(t *testing.T) {
	toMS := func(k float64) func(int, *benchfmt.Result) bool {
		return func(_ int, r *benchfmt.Result) bool {
			for i := range r.Values {
				r.Values[i].Value *= k
				if r.Values[i].Unit == "ack-stall-sec" {
					r.Values[i].Unit, r.Values[i].Value = "ack-stall-ms", r.Values[i].Value*1000
				}
			}
			return true
		}
	}
	same := mustCompare(t, read(t, oldFile), read(t, rewrite(t, oldFile, "new.txt", toMS(1))), allGate)
	whole := mustCompare(t, read(t, oldFile), read(t, oldFile), allGate)
	if same.Verdict != whole.Verdict || same.Summary() != whole.Summary() || len(same.Rows) != len(whole.Rows) {
		t.Errorf("the same values in ms: %q, %d rows; want %q, %d rows", same.Summary(), len(same.Rows), whole.Summary(), len(whole.Rows))
	}
	slower := mustCompare(t, read(t, oldFile), read(t, rewrite(t, oldFile, "new.txt", toMS(1.5))), allGate)
	for _, r := range slower.Rows {
		if r.Unit == "ack-stall-sec" && strings.Contains(r.Name, "sigkill") && r.Verdict != Regression {
			t.Errorf("%s ack stall 50 %% slower in ms: verdict %v", r.Name, r.Verdict)
		}
	}
	// A unit of another kind is refused, with its place.
	bad := rewrite(t, oldFile, "bad.txt", func(_ int, r *benchfmt.Result) bool {
		r.Values[0].Unit = "ack-stall-records"
		return true
	})
	if _, err := Read(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "bad.txt:11: ") || !errors.Is(err, benchfile.ErrUnit) {
		t.Errorf("error %v, want bad.txt:11: …", err)
	}
}

// TestReadLocated checks that a value that cannot be a measurement is
// refused with its file and line, whichever side and shard holds it.
func TestReadLocated(t *testing.T) {
	tests := []struct {
		name string
		edit func(int, *benchfmt.Result) bool
		want string
	}{
		{"NaN", setValue(3, "ack-stall-sec", math.NaN()), "ack-stall-sec NaN: not a measurement"},
		{"all +Inf", func(_ int, r *benchfmt.Result) bool {
			for i := range r.Values {
				r.Values[i].Value = math.Inf(1)
			}
			return true
		}, "ack-stall-sec +Inf: not a measurement"},
		{"a negative stall", setValue(3, "detect-sec", -0.2), "detect-sec -0.2: not a measurement: a duration is never negative"},
		{"lost_acked -3", setValue(3, "lost-acked-records", -3), "lost-acked-records -3: not a measurement: a count of records is never negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := rewrite(t, oldFile, "bad.txt", tt.edit)
			_, err := Read(context.Background(), oldFile, bad)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !regexpLine(err.Error(), "bad.txt") {
				t.Errorf("error %v, want bad.txt:LINE: …%s", err, tt.want)
			}
		})
	}
}

func regexpLine(msg, file string) bool {
	_, rest, ok := strings.Cut(msg, file+":")
	if !ok {
		return false
	}
	n, _, ok := strings.Cut(rest, ": ")
	var line int
	_, err := fmt.Sscanf(n, "%d", &line)
	return ok && err == nil && line > 10
}

// setValue sets unit's value in the n-th result of each benchmark that
// has it.
func setValue(n int, unit string, v float64) func(int, *benchfmt.Result) bool {
	return func(i int, r *benchfmt.Result) bool {
		for j := range r.Values {
			if i == n && r.Values[j].Unit == unit {
				r.Values[j].Value = v
			}
		}
		return true
	}
}

// cancelAfter is a context cancelled once Err has been asked n times: a
// Ctrl-C in the middle of a comparison, at a known point.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

func TestCompareCancelled(t *testing.T) {
	old, new := read(t, oldFile), read(t, rewrite(t, oldFile, "new.txt", scale(1.5)))
	_, err := Compare(&cancelAfter{Context: context.Background(), n: 3}, old, new, allGate)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want the comparison cancelled", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, oldFile); !errors.Is(err, context.Canceled) {
		t.Errorf("read: error %v, want it cancelled", err)
	}
}

func TestShared(t *testing.T) {
	cp := rewrite(t, oldFile, "copy.txt", keep)
	dir := t.TempDir()
	if err := os.Symlink(mustAbs(t, oldFile), filepath.Join(dir, benchfile.TextFile)); err != nil {
		t.Skip(err)
	}
	tests := []struct {
		name     string
		old, new []string
		want     string
	}{
		{"one file on both sides", []string{oldFile}, []string{oldFile}, oldFile},
		{"a directory and its own file", []string{oldFile}, []string{dir}, oldFile},
		{"a shard on both sides", []string{oldFile}, []string{cp, oldFile}, oldFile},
		{"a copy", []string{oldFile}, []string{cp}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Shared(read(t, tt.old...), read(t, tt.new...)); got != tt.want {
				t.Errorf("Shared = %q, want %q", got, tt.want)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestMixed checks that shards of one side run differently (two kbf
// versions) are named in a warning, through benchproc's residue.
func TestMixed(t *testing.T) {
	other := rewrite(t, oldFile, "shard2.txt", func(_ int, r *benchfmt.Result) bool {
		i, _ := r.ConfigIndex("kbf-version")
		r.Config[i].Value = []byte("abc1234")
		return true
	})
	res := mustCompare(t, read(t, oldFile, other), read(t, rewrite(t, oldFile, "new.txt", keep)), allGate)
	want := "old: sigkill/role=leader merges results that differ in kbf-version"
	if !slices.Contains(res.Warnings, want) || len(res.Warnings) != 4 {
		t.Errorf("warnings %q, want %q and one per benchmark", res.Warnings, want)
	}
	if res := mustCompare(t, read(t, oldFile), read(t, rewrite(t, oldFile, "new.txt", keep)), allGate); len(res.Warnings) != 0 {
		t.Errorf("warnings %q for sides each run alike", res.Warnings)
	}
}

func TestGateValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Gate)
		want string
	}{
		{"the defaults", func(*Gate) {}, ""},
		{"no floor", func(g *Gate) { g.MinChange = 0 }, ""},
		{"alpha NaN", func(g *Gate) { g.Alpha = math.NaN() }, "alpha NaN"},
		{"alpha 0", func(g *Gate) { g.Alpha = 0 }, "alpha 0"},
		{"alpha 1", func(g *Gate) { g.Alpha = 1 }, "alpha 1"},
		{"max regression NaN", func(g *Gate) { g.MaxRegression = math.NaN() }, "max regression NaN"},
		{"max regression negative", func(g *Gate) { g.MaxRegression = -0.1 }, "max regression -0.1"},
		{"max regression infinite", func(g *Gate) { g.MaxRegression = math.Inf(1) }, "max regression +Inf"},
		{"min change negative", func(g *Gate) { g.MinChange = -time.Second }, "min change -1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := allGate
			tt.edit(&g)
			err := g.Validate()
			if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate: %v, want %q", err, tt.want)
			}
			if _, cerr := Compare(context.Background(), read(t, oldFile), read(t, oldFile), g); (cerr == nil) != (err == nil) {
				t.Errorf("Compare: %v, Validate: %v", cerr, err)
			}
		})
	}
}

// TestRenderMilliseconds checks that a median of a few milliseconds is
// printed in ms, beside the floor's note that explains it.
func TestRenderMilliseconds(t *testing.T) {
	res := mustCompare(t, read(t, firstAcks(t, "old.txt", "", 0.002, 0.003, 0.003, 0.003, 0.003, 0.004)),
		read(t, firstAcks(t, "new.txt", "", 0.004, 0.004, 0.0045, 0.0045, 0.005, 0.005)), allGate)
	var b strings.Builder
	if err := WriteText(&b, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3.0 ms ± ", "4.5 ms ± ", "+1.5ms, within --min-change 20ms", "verdict: same (1 metrics compared)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

// scaleUnit multiplies the values of unit alone by k.
func scaleUnit(unit string, k float64) func(int, *benchfmt.Result) bool {
	return func(_ int, r *benchfmt.Result) bool {
		for i := range r.Values {
			if r.Values[i].Unit == unit {
				r.Values[i].Value *= k
			}
		}
		return true
	}
}

func mustSelector(t *testing.T, s string) Selector {
	t.Helper()
	sel, err := ParseSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// TestGatedMetrics checks Gate.Metrics: the verdict is the chosen rows'
// alone, every other row still compared and printed as a figure, and a
// lost record fails whatever is chosen.
func TestGatedMetrics(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(int, *benchfmt.Result) bool
		metrics []string
		want    Verdict
		say     string // in the summary
		row     string // in the text, when set
	}{
		{name: "ungated: the ack stall's regression fails", edit: scaleUnit("ack-stall-sec", 1.5), want: Regression},
		{name: "gated on a follower's after_detect: the ack stall is a figure", edit: scaleUnit("ack-stall-sec", 1.5), metrics: []string{"follower:after_detect"}, want: Same,
			say: "verdict: same (1 metrics same; gated on follower:after_detect, the other 11 rows figures)", row: "not gated, regression: +50.0%"},
		{name: "gated on after_detect: its regression fails", edit: scaleUnit("after-detect-sec", 1.5), metrics: []string{"after_detect"}, want: Regression,
			say: "2 metrics regressed; gated on after_detect"},
		{name: "one role chosen: the other role's regression is a figure", edit: func(n int, r *benchfmt.Result) bool {
			return !strings.Contains(string(r.Name), "leader") || scaleUnit("after-detect-sec", 1.5)(n, r)
		}, metrics: []string{"follower:after_detect"}, want: Same, say: "gated on follower:after_detect"},
		{name: "a lost record fails whatever is gated", edit: loseOne, metrics: []string{"after_detect"}, want: Lost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := allGate
			for _, m := range tt.metrics {
				g.Metrics = append(g.Metrics, mustSelector(t, m))
			}
			res := mustCompare(t, read(t, oldFile), read(t, rewrite(t, oldFile, "new.txt", tt.edit)), g)
			var b strings.Builder
			if err := WriteText(&b, res); err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tt.want || !strings.Contains(res.Summary(), tt.say) || !strings.Contains(b.String(), tt.row) {
				t.Errorf("verdict %v, want %v saying %q and %q:\n%s", res.Verdict, tt.want, tt.say, tt.row, b.String())
			}
			d, err := Next(context.Background(), read(t, oldFile), read(t, rewrite(t, oldFile, "new.txt", tt.edit)), g, 6)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == Same && (!d.Stop || len(d.Open) != 0) {
				t.Errorf("Next: stop %v, open %v: the ungated rows kept it going", d.Stop, d.Open)
			}
		})
	}
	t.Run("a gated metric neither side has", func(t *testing.T) {
		g := allGate
		g.Metrics = []Selector{mustSelector(t, "total_stall")}
		_, err := Compare(context.Background(), read(t, oldFile), read(t, rewrite(t, oldFile, "new.txt", keep)), g)
		var nm *NotMeasuredError
		if !errors.As(err, &nm) || err.Error() != "total_stall is in neither side's results" {
			t.Errorf("error %v, want total_stall named as not measured", err)
		}
	})
}

func TestParseSelector(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{in: "from_heartbeat", want: "from_heartbeat"},
		{in: "leader:ack_stall", want: "leader:ack_stall"},
		{in: "boss:ack_stall", err: `role "boss": want leader or follower`},
		{in: "ack-stall", err: `no metric "ack-stall" (want one of`},
		{in: "", err: `no metric ""`},
	} {
		sel, err := ParseSelector(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || sel.String() != tt.want):
			t.Errorf("%q: %v, %v; want %s", tt.in, sel, err, tt.want)
		}
	}
}

// allGate and allSequential are DefaultGate and SequentialGate gating
// every metric (--metric all): the gate's machinery is tested on each
// metric, whichever a default would pick.
var (
	allGate       = every(DefaultGate)
	allSequential = every(SequentialGate)
)

func every(g Gate) Gate {
	g.All = true
	return g
}

// TestDefaultGateHeadline: with no --metric, kbf compare and kbf bench
// --until-decided gate each benchmark on its headline stall —
// from_heartbeat for a crash, ack_stall for a graceful stop — and report
// the rest beside it. Two sides of identical values (the recorded SIGKILL
// trials, 9 a side) then answer same, where gating every metric leaves
// the sub-phases of tens of milliseconds undecided.
func TestDefaultGateHeadline(t *testing.T) {
	rec := recorded(t)
	var order []Key
	for _, k := range rec.order {
		if strings.Contains(k.Name, "sigkill") {
			order = append(order, k)
		}
	}
	side := func() *Side {
		s := &Side{Samples: map[Key][]float64{}, Acks: rec.Acks, Interval: rec.Interval, order: order}
		for _, k := range order {
			v := rec.Samples[k]
			s.Samples[k] = append(slices.Clone(v), v[:3]...)
		}
		return s
	}
	res := mustCompare(t, side(), side(), DefaultGate)
	if res.Verdict != Same {
		t.Errorf("identical samples, default gate: verdict %s, want same\n%s", res.Verdict, res.Summary())
	}
	gated := map[string]bool{}
	for _, r := range res.Rows {
		if r.Gated {
			gated[shortName(r.Name)+" "+metricName(r.Unit)] = true
		}
		if want := r.Unit == HeadlineCrash.Unit; r.Gated != want {
			t.Errorf("%s %s: gated %v, want %v", shortName(r.Name), metricName(r.Unit), r.Gated, want)
		}
	}
	if len(gated) == 0 {
		t.Fatal("no row gated")
	}
	if s := res.Summary(); !strings.Contains(s, "gated on from_heartbeat, the other") {
		t.Errorf("summary %q does not say what was gated", s)
	}
	if every := mustCompare(t, side(), side(), allGate); every.Verdict != Undecided {
		t.Errorf("identical samples, every metric gated: verdict %s, want undecided (the case the default is for)", every.Verdict)
	}
	// --until-decided's sequential gate judges the same rows.
	d, err := Next(context.Background(), side(), side(), SequentialGate, 9)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Stop || d.Result.Verdict != Same {
		t.Errorf("until-decided on identical samples: stop %v, verdict %s, want same", d.Stop, d.Result.Verdict)
	}
}

// TestSameByIntervals: make bench-gate BASE_REF=HEAD on 2026-12-07 (kbf
// against itself, 9 SIGKILL trials a side in two slices each). The
// follower's from_heartbeat is 9.03–9.07 s in every trial, and its tied
// values leave the tests' p at 0.09, between alpha and the p that says
// "same" for 9 a side: the medians' intervals, a few milliseconds wide,
// rule out the 0.9 s change the gate looks for, and say same, as they do
// for a p under alpha. A wide interval still leaves a row undecided.
func TestSameByIntervals(t *testing.T) {
	dir := filepath.Join("testdata", "aa-gate")
	side := func(name string) *Side {
		return read(t, filepath.Join(dir, name+"-1.txt"), filepath.Join(dir, name+"-2.txt"))
	}
	g := DefaultGate
	sel, err := ParseSelector("from_heartbeat")
	if err != nil {
		t.Fatal(err)
	}
	g.Metrics = []Selector{sel}
	res := mustCompare(t, side("base"), side("head"), g)
	var b bytes.Buffer
	WriteText(&b, res)
	if res.Verdict != Same {
		t.Fatalf("verdict %v, want same:\n%s", res.Verdict, b.String())
	}
	follower := false
	for _, r := range res.Rows {
		if !strings.Contains(r.Name, "role=follower") || r.Unit != "from-heartbeat-sec" {
			continue
		}
		follower = true
		if r.P <= g.Alpha || r.P > r.SameAbove || !strings.Contains(r.Why, "the 95% intervals allow a change of at most") {
			t.Errorf("follower: p %.3f (alpha %g, same above %.2f), %v: %s; want same by its intervals", r.P, g.Alpha, r.SameAbove, r.Verdict, r.Why)
		}
	}
	if !follower {
		t.Fatalf("no follower from_heartbeat row:\n%s", b.String())
	}

	// The same trials, the new side's follower spread over 1 s: its
	// interval reaches past the change sought, and nothing says same.
	wide := rewrite(t, filepath.Join(dir, "head-1.txt"), "wide.txt", func(n int, r *benchfmt.Result) bool {
		if strings.Contains(string(r.Name), "role=follower") {
			for i := range r.Values {
				r.Values[i].Value *= 1 + 0.03*float64(n)
			}
		}
		return true
	})
	res = mustCompare(t, side("base"), read(t, wide, filepath.Join(dir, "head-2.txt")), g)
	for _, r := range res.Rows {
		if strings.Contains(r.Name, "role=follower") && r.Unit == "from-heartbeat-sec" && r.Verdict == Same {
			t.Errorf("a follower spread over 1 s: %s; want no same", r.Why)
		}
	}
}
