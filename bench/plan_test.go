package bench

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// twoAndSweep is two scenarios and a sweep of two values: four variants.
func twoAndSweep(trials int) *File {
	return &File{Trials: trials, Scenarios: []Scenario{
		{Name: "kill", Fault: "sigkill"},
		{Name: "term", Fault: "sigterm"},
		{Name: "session", Fault: "sigkill", Config: []string{"broker.heartbeat.interval.ms=1000"},
			Sweep: &Sweep{Key: "c1:broker.session.timeout.ms", Values: []string{"3000", "9000"}}},
	}}
}

func ids(trials []Trial) []string {
	var out []string
	for _, t := range trials {
		out = append(out, t.ID())
	}
	return out
}

func TestPlanInterleaves(t *testing.T) {
	got := ids(twoAndSweep(2).Plan())
	want := []string{
		"kill/trial-01", "term/trial-01", "session-c1_broker.session.timeout.ms=3000/trial-01", "session-c1_broker.session.timeout.ms=9000/trial-01",
		"kill/trial-02", "term/trial-02", "session-c1_broker.session.timeout.ms=3000/trial-02", "session-c1_broker.session.timeout.ms=9000/trial-02",
	}
	if !slices.Equal(got, want) {
		t.Errorf("plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestResolved(t *testing.T) {
	vs := twoAndSweep(1).Variants()
	s := vs[2].Resolved()
	if s.Sweep != nil || !slices.Equal(s.Config, []string{"broker.heartbeat.interval.ms=1000", "c1:broker.session.timeout.ms=3000"}) {
		t.Errorf("resolved %+v", s)
	}
	if got := vs[2].Name(); got != "scenario=session/c1:broker.session.timeout.ms=3000" {
		t.Errorf("name %q", got)
	}
	// The file's own scenario is left as it was.
	if len(vs[3].Resolved().Config) != 2 || len(vs[2].Scenario.Config) != 1 {
		t.Errorf("the sweep's value leaked into the scenario: %+v", vs[2].Scenario.Config)
	}
	c := Variant{Scenario: Scenario{Name: "b", Client: map[string]string{"linger": "0s"}}, Key: "client.retry-backoff", Value: "100ms"}.Resolved()
	if c.Client["retry-backoff"] != "100ms" || c.Client["linger"] != "0s" || len(c.Config) != 0 {
		t.Errorf("client sweep resolved to %+v", c)
	}
}

func TestShard(t *testing.T) {
	for _, tc := range []struct{ variants, trials, n int }{{4, 6, 2}, {4, 6, 4}, {4, 2, 3}, {2, 6, 2}, {2, 6, 5}, {1, 3, 3}, {1, 9, 2}, {1, 9, 4}, {3, 6, 4}, {3, 8, 2}} {
		t.Run(fmt.Sprintf("%d variants × %d trials in %d shards", tc.variants, tc.trials, tc.n), func(t *testing.T) {
			f := &File{Trials: tc.trials}
			for i := range tc.variants {
				f.Scenarios = append(f.Scenarios, Scenario{Name: fmt.Sprint("s", i), Fault: "sigkill"})
			}
			plan := f.Plan()
			seen := map[string]int{}
			for i := 1; i <= tc.n; i++ {
				part := Shard{i, tc.n}.Pick(plan)
				if again := (Shard{i, tc.n}).Pick(plan); !slices.Equal(ids(part), ids(again)) {
					t.Fatalf("shard %d/%d differs between two picks", i, tc.n)
				}
				// Balanced: within a round of an equal share.
				if fair := len(plan) / tc.n; len(part) < fair-tc.variants || len(part) > fair+tc.variants {
					t.Errorf("shard %d/%d has %d of %d trials", i, tc.n, len(part), len(plan))
				}
				// Mixed: a shard with several trials holds several variants
				// when the shards are no more than the variants' trials.
				names := map[string]bool{}
				for j, tr := range part {
					names[tr.Variant.Name()] = true
					seen[tr.ID()]++
					if j > 0 && tr.Index <= part[j-1].Index {
						t.Errorf("shard %d/%d out of plan order", i, tc.n)
					}
				}
				if tc.variants > 1 && len(part) >= tc.variants && len(names) < 2 {
					t.Errorf("shard %d/%d runs one variant only: %v", i, tc.n, ids(part))
				}
			}
			// Moving: a variant with a trial a shard runs in several
			// shards, so that no shard's drift falls on it alone.
			if tc.trials >= tc.n {
				for i := range tc.variants {
					in := map[int]bool{}
					for k := 1; k <= tc.n; k++ {
						for _, tr := range (Shard{k, tc.n}).Pick(plan) {
							if tr.Variant.Scenario.Name == fmt.Sprint("s", i) {
								in[k] = true
							}
						}
					}
					if len(in) < 2 {
						t.Errorf("variant s%d runs in shards %v only", i, in)
					}
				}
			}
			if len(seen) != len(plan) {
				t.Errorf("shards cover %d of %d trials", len(seen), len(plan))
			}
			for id, n := range seen {
				if n != 1 {
					t.Errorf("%s in %d shards", id, n)
				}
			}
		})
	}
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/1", Shard{1, 1}, true},
		{"2/3", Shard{2, 3}, true},
		{"0/3", Shard{}, false},
		{"4/3", Shard{}, false},
		{"3", Shard{}, false},
		{"a/b", Shard{}, false},
		{"1/0", Shard{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseShard(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("ParseShard(%q) = %v, %v", tt.in, got, err)
			}
			if err != nil && !strings.Contains(err.Error(), "want I/N") {
				t.Errorf("error %q does not say what to give", err)
			}
		})
	}
}
