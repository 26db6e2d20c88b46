package results

import (
	"strings"
	"testing"
	"time"
)

func TestParseLoss(t *testing.T) {
	for in, want := range map[string]float64{"30%": 0.3, "30": 0.3, " 2.5 % ": 0.025, "99%": 0.99} {
		if got, err := ParseLoss(in); err != nil || got != want {
			t.Errorf("ParseLoss(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "0%", "100%", "-5%", "abc", "NaN", "30%%"} {
		if _, err := ParseLoss(in); err == nil || !strings.Contains(err.Error(), "want a percentage between 0 and 100") {
			t.Errorf("ParseLoss(%q): error %v", in, err)
		}
	}
	if got := LossText(0.3); got != "30%" {
		t.Errorf("LossText(0.3) = %q", got)
	}
}

// TestHiccupFaultRoundTrip: a starve's sliver and time, a loss's share
// are written to meta.json and read back; At is when each took effect.
func TestHiccupFaultRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	for _, f := range []Fault{
		{Broker: "k1", NodeID: 1, Kind: FaultCPUStarve, CPUs: 0.05, SignalSent: t0, Starved: t0.Add(5 * time.Millisecond), Returned: t0.Add(2 * time.Second)},
		{Broker: "k1", NodeID: 1, Kind: FaultPacketLoss, Loss: 0.3, SignalSent: t0, Cut: t0.Add(5 * time.Millisecond), Returned: t0.Add(2 * time.Second)},
	} {
		dir := t.TempDir()
		if err := WriteMeta(dir, &Meta{Kind: "trial", Started: t0.Add(-10 * time.Second), Fault: &f}); err != nil {
			t.Fatal(err)
		}
		m, err := ReadMeta(dir)
		if err != nil {
			t.Fatal(err)
		}
		g := m.Fault
		if g.Kind != f.Kind || g.CPUs != f.CPUs || g.Loss != f.Loss || !g.Starved.Equal(f.Starved) || !g.Cut.Equal(f.Cut) || !g.At().Equal(t0.Add(5*time.Millisecond)) {
			t.Errorf("read back %+v, want %+v", g, f)
		}
		if !g.Kind.Undoable() || !g.Kind.SingleNode() || g.Kind.Network() {
			t.Errorf("%s: want a single-node fault kbf undoes, not a cut", g.Kind)
		}
	}
}
