package analysis

import (
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestCoordinatorOf: the group's coordinator found before the fault is
// said to be the faulted broker, or not, or not found; a trial without a
// group says nothing of it.
func TestCoordinatorOf(t *testing.T) {
	at := time.Date(2026, 11, 30, 3, 26, 8, 120e6, time.UTC)
	found := func(id int32, svc string) *results.Coordinator {
		return &results.Coordinator{Kind: results.CoordinatorGroup, Key: "kbf-g", NodeID: id, Broker: svc, Via: results.FoundByFindCoordinator, At: at}
	}
	for _, c := range []struct {
		name string
		f    *results.Fault
		ext  *ExternalBroker
		want string // "": none
	}{
		{name: "no group", f: &results.Fault{Broker: "k1", NodeID: 1}},
		{name: "no fault"},
		{name: "faulted", f: &results.Fault{Broker: "k2", NodeID: 2, GroupCoordinator: found(2, "k2")},
			want: "group kbf-g's coordinator, broker 2 (k2), was the faulted broker (FindCoordinator at 03:26:08.120)"},
		{name: "chosen", f: &results.Fault{Broker: "k2", NodeID: 2, ChosenAs: results.ChosenGroupCoordinator, GroupCoordinator: found(2, "k2")},
			want: "group kbf-g's coordinator, broker 2 (k2), was the faulted broker, chosen as such (FindCoordinator at 03:26:08.120)"},
		{name: "another", f: &results.Fault{Broker: "k1", NodeID: 1, GroupCoordinator: found(3, "k3")},
			want: "group kbf-g's coordinator was broker 3 (k3), not the faulted one (FindCoordinator at 03:26:08.120)"},
		{name: "another, unnamed", f: &results.Fault{Broker: "k1", NodeID: 1, GroupCoordinator: found(7, "")},
			want: "group kbf-g's coordinator was broker 7, not the faulted one (FindCoordinator at 03:26:08.120)"},
		{name: "external, named by the analysis", f: &results.Fault{Broker: results.BrokerUnknown, NodeID: -1, Kind: results.FaultExternal, GroupCoordinator: found(3, "k3")},
			ext: &ExternalBroker{NodeID: 3, Broker: "k3"}, want: "group kbf-g's coordinator, broker 3 (k3), was the faulted broker (FindCoordinator at 03:26:08.120)"},
		{name: "not found", f: &results.Fault{Broker: "k1", NodeID: 1, GroupCoordinator: &results.Coordinator{Kind: results.CoordinatorGroup, Key: "kbf-g", NodeID: -1,
			Via: results.FoundByFindCoordinator, At: at, Err: "context deadline exceeded"}},
			want: "group kbf-g's coordinator was not found before the fault (FindCoordinator at 03:26:08.120: context deadline exceeded)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := coordinatorOf(c.f, c.ext)
			switch {
			case c.want == "" && g != nil:
				t.Errorf("coordinator %+v, want none", g)
			case c.want != "" && g == nil:
				t.Errorf("no coordinator, want %q", c.want)
			case g != nil && g.String() != c.want:
				t.Errorf("coordinator:\n got %s\nwant %s", g, c.want)
			}
		})
	}
}
