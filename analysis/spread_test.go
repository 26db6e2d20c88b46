package analysis

import (
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestApplied: each elect phase's end is counted for the broker that
// applied it — the new leader of a led partition, the leader that shrank
// the ISR of a followed one — with its first and last after the fault.
func TestApplied(t *testing.T) {
	fault := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	elect := func(end time.Duration) []Phase {
		return []Phase{{Name: PhaseDetect, End: fault.Add(end - 50*time.Millisecond)}, {Name: PhaseElect, End: fault.Add(end)}}
	}
	tr := &Trial{FaultAt: fault, Stalls: []Stall{
		{Partition: 0, Role: results.RoleLed, Leader: 1, NewLeader: 2, Phases: elect(9010 * time.Millisecond)},
		{Partition: 3, Role: results.RoleLed, Leader: 1, NewLeader: 2, Phases: elect(9350 * time.Millisecond)},
		{Partition: 6, Role: results.RoleLed, Leader: 1, NewLeader: 3, Phases: elect(9020 * time.Millisecond)},
		{Partition: 1, Role: results.RoleFollowed, Leader: 3, NewLeader: -1, Phases: elect(9040 * time.Millisecond)},
		{Partition: 2, Role: results.RoleFollowed, Leader: 2, NewLeader: -1, Phases: []Phase{{Name: PhaseDetect, End: fault}}}, // no elect: not counted
		{Partition: 4, Role: results.RoleLed, Leader: 1, NewLeader: -1, Phases: elect(time.Second)},                            // leader unknown
	}}
	got := applied(tr)
	want := []Applied{{Broker: 2, Partitions: 2, First: 9010 * time.Millisecond, Last: 9350 * time.Millisecond},
		{Broker: 3, Partitions: 2, First: 9020 * time.Millisecond, Last: 9040 * time.Millisecond}}
	if len(got) != len(want) {
		t.Fatalf("applied %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("applied[%d] %+v, want %+v", i, got[i], want[i])
		}
	}
}
