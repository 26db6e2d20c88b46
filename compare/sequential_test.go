package compare

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestNext(t *testing.T) {
	tight := []float64{8.00, 8.01, 8.02, 8.03, 8.04, 8.05}
	wide := []float64{7.2, 7.7, 8.1, 8.6, 9.0, 9.5}
	slower := []float64{9.60, 9.61, 9.62, 9.63, 9.64, 9.65}
	tests := []struct {
		name     string
		old, new []float64
		budget   int
		stop     bool
		want     Verdict
		say      string
	}{
		{"same: stop", tight, tight, 20, true, Same, "decided at 6 trials a side: verdict: same"},
		{"a regression: stop", tight, slower, 20, true, Regression, "decided at 6 trials a side: verdict: different: regression"},
		{"undecided under the budget: go on", wide, wide, 20, false, Undecided, "6 trials a side of 20, 1 metrics open (sigkill/role=follower first_ack first): run another a side"},
		{"undecided at the budget: stop", wide, wide, 6, true, Undecided, "budget of 6 trials a side spent, 1 metrics open"},
		{"three a side: go on", tight[:3], tight[3:], 20, false, Undecided, "3 trials a side of 20"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Next(context.Background(), read(t, firstAcks(t, "old.txt", "", tt.old...)), read(t, firstAcks(t, "new.txt", "", tt.new...)), allGate, tt.budget)
			if err != nil {
				t.Fatal(err)
			}
			if d.Stop != tt.stop || d.Result.Verdict != tt.want || !strings.Contains(d.Why, tt.say) {
				t.Errorf("stop %v, %v, %q; want stop %v, %v, %q", d.Stop, d.Result.Verdict, d.Why, tt.stop, tt.want, tt.say)
			}
		})
	}
	if _, err := Next(context.Background(), read(t, firstAcks(t, "old.txt", "", tight...)), read(t, firstAcks(t, "new.txt", "", tight...)), allGate, 0); err == nil {
		t.Error("budget 0: no error")
	}
}

// sequentially runs the sequential gate sims times on trials drawn from
// rec's samples of keys, as kbf bench --until-decided would: start trials
// a side, then one more a side until Next stops, at most budget; the new
// side's values shifted by factor times sought. It returns how often each
// answer came and the trials a side used on average.
func sequentially(t *testing.T, rec *Side, keys []Key, sought map[Key]float64, factor float64, sims, start, budget int) (map[Verdict]int, float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(20, 3))
	answers := map[Verdict]int{}
	used := 0
	for range sims {
		old := &Side{Samples: map[Key][]float64{}, Acks: rec.Acks, Interval: rec.Interval, order: keys}
		new := &Side{Samples: map[Key][]float64{}, Acks: rec.Acks, Interval: rec.Interval, order: keys}
		add := func(n int) {
			for range n {
				for _, k := range keys {
					vals := rec.Samples[k]
					old.Samples[k] = append(old.Samples[k], vals[rng.IntN(len(vals))])
					new.Samples[k] = append(new.Samples[k], vals[rng.IntN(len(vals))]+factor*sought[k])
				}
			}
		}
		add(start)
		for {
			d, err := Next(context.Background(), old, new, allSequential, budget)
			if err != nil {
				t.Fatal(err)
			}
			if d.Stop {
				answers[d.Result.Verdict]++
				used += d.Trials
				break
			}
			add(1)
		}
	}
	return answers, float64(used) / float64(sims)
}

// TestSequential measures the sequential gate (allSequential, 6 trials a
// side and then one more a side until Next stops, at most 20) on trials
// drawn from the recorded baseline: on a whole comparison of 22 metrics A
// against A, which may answer different in at most 10 % of runs (the
// looks' false alarms add up, as the metrics' do); and on a metric alone,
// which A against A may answer different in at most alpha's 5 % of runs,
// and slower by the change sought may pass (same or an improvement, exit
// 0) in at most SameMiss's 5 %. What each answered, and the trials used,
// are logged for docs/measurements.md.
func TestSequential(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	rec := recorded(t)
	sought := map[Key]float64{}
	for _, k := range rec.order {
		sought[k] = max(allGate.MaxRegression*median(rec.Samples[k]), DefaultMinChange.Seconds())
	}
	const start, budget = 6, 20
	logAnswers := func(name string, a map[Verdict]int, sims int, used float64) {
		pct := func(v Verdict) float64 { return 100 * float64(a[v]) / float64(sims) }
		t.Logf("%-50s same %5.1f %%  improvement %4.1f %%  undecided %5.1f %%  regression %5.1f %%  %4.1f trials a side", name, pct(Same), pct(Improvement), pct(Undecided), pct(Regression), used)
	}
	t.Run("whole comparison, A against A", func(t *testing.T) {
		const sims = 200
		a, used := sequentially(t, rec, rec.order, sought, 0, sims, start, budget)
		logAnswers("all 22 metrics, A against A", a, sims, used)
		if rate := float64(a[Regression]+a[Improvement]) / sims; rate > 0.10 {
			t.Errorf("different in %.1f %% of runs, more than 10 %%", 100*rate)
		}
	})
	for _, name := range []string{
		"sigkill/role=leader ack-stall-sec", "sigkill/role=leader from-heartbeat-sec",
		"sigkill/role=follower after-detect-sec", "sigterm/role=leader ack-stall-sec",
	} {
		scenario, unit, _ := strings.Cut(name, " ")
		k := Key{"Failover/scenario=" + scenario, unit}
		if len(rec.Samples[k]) == 0 {
			t.Fatalf("no %s in %s", name, baseline)
		}
		t.Run(keyName(k), func(t *testing.T) {
			const sims = 300
			a, used := sequentially(t, rec, []Key{k}, sought, 0, sims, start, budget)
			logAnswers(keyName(k)+", A against A", a, sims, used)
			if rate := float64(a[Regression]+a[Improvement]) / sims; rate > allGate.Alpha {
				t.Errorf("A against A: different in %.1f %% of runs, more than %g", 100*rate, allGate.Alpha)
			}
			a, used = sequentially(t, rec, []Key{k}, sought, 1, sims, start, budget)
			logAnswers(fmt.Sprintf("%s, +%.3f s", keyName(k), sought[k]), a, sims, used)
			if rate := float64(a[Same]+a[Improvement]) / sims; rate > SameMiss {
				t.Errorf("slower by %.3f s: passed in %.1f %% of runs, more than %g", sought[k], 100*rate, SameMiss)
			}
		})
	}
}
