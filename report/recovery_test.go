package report

import (
	"testing"
	"time"
)

// TestChainOutOfOrder checks that evidence out of the recipe's order is
// drawn as it happened: a phase whose line came before the latest boundary
// ends at its own line and takes none of the time, and the next phase
// starts at the latest boundary, not at the early line.
func TestChainOutOfOrder(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 15, 20, 43, 0, time.UTC)
	load := t0.Add(9848 * time.Millisecond)
	find := t0.Add(9677 * time.Millisecond) // told 0.17 s before the load ended
	commit := t0.Add(9900 * time.Millisecond)
	c := chain{prev: t0}
	c.add("load", load, Explanation{}, Bound{})
	c.add("find", find, Explanation{}, Bound{})
	c.add("first commit", commit, Explanation{}, Bound{})
	ps := c.phases
	if f := ps[1]; !f.End.Equal(find) || !f.Start.Equal(find) || f.Duration != 0 || f.Overlap != 171*time.Millisecond {
		t.Errorf("find %s → %s (%s), overlap %s; want zero-length at its line, 0.171 s before the load's end", f.Start, f.End, f.Duration, f.Overlap)
	}
	if cm := ps[2]; !cm.Start.Equal(load) || cm.Duration != 52*time.Millisecond {
		t.Errorf("first commit starts %s (%s), want at the load's end", cm.Start, cm.Duration)
	}
	if got := ps.Total(); got != commit.Sub(t0) {
		t.Errorf("total %s, want %s", got, commit.Sub(t0))
	}
}
