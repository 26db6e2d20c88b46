package tune

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/verdict"
)

// Trial is what the answer reads of one trial of the tune's benchmark.
type Trial struct {
	Scenario string
	// Stall is a death trial's stall (a SIGKILL's, a freeze's or a
	// cut's) of the partitions the broker led,
	// when the benchmark counts the trial (bench.Record.Valid); zero
	// otherwise.
	Stall time.Duration
	Valid bool
	// Hiccup is a hiccup trial's (analysis.Hiccup), nil when the pause, the
	// starve or the loss was not undone while probing or the trial is
	// invalid (no healthy baseline, the fault not confirmed): it then does
	// not count.
	Hiccup *analysis.Hiccup
}

// Rows gathers the trials by the grid's points, longest session first.
func Rows(g *Grid, trials []Trial) []Row {
	var rows []Row
	for _, p := range g.Points() {
		row := Row{Point: p, Kill: stallOf(KillName(p), trials)}
		for _, k := range g.otherDeaths() {
			row.Deaths = append(row.Deaths, DeathStall{Kind: k, Stall: stallOf(DeathName(p, k), trials)})
		}
		for _, h := range g.Hiccups() {
			row.Risks = append(row.Risks, riskOf(HiccupName(p, h), h, trials))
		}
		rows = append(rows, row)
	}
	return rows
}

// stallOf summarises the trials of the death scenario of that name.
func stallOf(name string, trials []Trial) Stall {
	var stalls []time.Duration
	attempted := 0
	for _, t := range trials {
		if t.Scenario == name {
			attempted++
			if t.Valid {
				stalls = append(stalls, t.Stall)
			}
		}
	}
	return StallOf(stalls, attempted)
}

func riskOf(name string, h Hiccup, trials []Trial) Risk {
	k := Risk{Hiccup: h}
	for _, t := range trials {
		if t.Scenario != name {
			continue
		}
		k.Attempted++
		h := t.Hiccup
		if h == nil {
			continue
		}
		k.N++
		k.LeaderMoves += len(h.LeaderMoves)
		if h.Fenced() {
			k.Fenced++
			if k.Evidence == "" {
				k.Evidence = fmt.Sprintf("%s %s (%s)", h.Fence.Time.UTC().Format("15:04:05.000"), h.Fence.Text, h.Fence.Source)
			}
		}
	}
	return k
}

// FromSet reads the tune's trials from the benchmark's records: a death
// trial's stall (a SIGKILL's, a freeze's or a cut's: a fault never undone
// while probing) as the benchmark measured it, a hiccup trial's
// hiccup from its directory under dir (analysed again: the benchmark keeps
// no timeline).
func FromSet(dir string, set *bench.Set) ([]Trial, error) {
	var out []Trial
	for _, r := range set.Records {
		t := Trial{Scenario: r.Trial.Variant.Scenario.Name}
		if r.Trial.Variant.Scenario.ReturnAfter == 0 { // a death: a hiccup is undone
			if r.Valid() {
				if v, ok := r.M.Roles[bench.RoleLeader]["ack-stall-sec"]; ok {
					t.Valid, t.Stall = true, time.Duration(v*float64(time.Second))
				}
			}
			out = append(out, t)
			continue
		}
		if r.M != nil { // the trial ran and was read
			h, err := ReadHiccup(filepath.Join(dir, r.Trial.Dir()))
			if err != nil {
				return nil, err
			}
			t.Hiccup = h
		}
		out = append(out, t)
	}
	return out, nil
}

// ReadHiccup analyses the trial in dir and returns its hiccup, nil when
// it does not count: no hiccup undone while probing, or a verdict of
// invalid (a baseline never healthy, the fault not confirmed). A suspect
// probe does not matter here: fences are the controller's lines.
func ReadHiccup(dir string) (*analysis.Hiccup, error) {
	tr, err := bench.AnalyzeDir(dir)
	if err != nil {
		return nil, err
	}
	if tr.Verdict != nil && tr.Verdict.Status == verdict.Invalid {
		return nil, nil
	}
	return tr.Hiccup, nil
}

// FromBench is the answer of the benchmark in dir that ran g: its trials
// read (FromSet) and decided (Decide), the answer written into dir's
// tune.txt (WriteFile).
func FromBench(dir string, g *Grid, set *bench.Set) (Answer, error) {
	trials, err := FromSet(dir, set)
	if err != nil {
		return Answer{}, err
	}
	a := Decide(Rows(g, trials), MinTrials)
	return a, WriteFile(dir, a)
}
