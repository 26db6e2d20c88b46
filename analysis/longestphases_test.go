package analysis

import (
	"maps"
	"testing"
	"time"
)

func TestLongestPhases(t *testing.T) {
	s := time.Second
	tr := &Trial{Stalls: []Stall{
		{Phases: []Phase{{Name: "detect", Duration: 6 * s, Bound: Bound{Stated: true, Excess: s}}, {Name: "elect", Duration: s}}},
		{Phases: []Phase{{Name: "detect", Duration: 9 * s, Bound: Bound{Stated: true}}, {Name: "elect", Duration: 2 * s}}},
	}}
	longest, beyond := tr.LongestPhases()
	if want := map[string]time.Duration{"detect": 9 * s, "elect": 2 * s}; !maps.Equal(longest, want) {
		t.Errorf("longest %v, want %v", longest, want)
	}
	if want := map[string]time.Duration{"detect": s}; !maps.Equal(beyond, want) {
		t.Errorf("beyond %v, want %v (a phase with no stated bound has no entry)", beyond, want)
	}
}
