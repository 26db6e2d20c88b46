package trialrun

import (
	"testing"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/results"
)

// TestHiccup: the hiccups' settings go to their own fault only, a
// scenario's over the command line's, cpu-starve's sliver defaulted.
func TestHiccup(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  Options
		s    bench.Scenario
		want experiment.HiccupFault
	}{
		{"starve, default", Options{}, bench.Scenario{Fault: "cpu-starve"}, experiment.HiccupFault{CPUs: experiment.DefaultStarveCPUs}},
		{"starve, the flag's", Options{StarveCPUs: 0.2}, bench.Scenario{Fault: "cpu-starve"}, experiment.HiccupFault{CPUs: 0.2}},
		{"starve, the scenario's", Options{StarveCPUs: 0.2}, bench.Scenario{Fault: "cpu-starve", StarveCPUs: 0.1}, experiment.HiccupFault{CPUs: 0.1}},
		{"loss, the scenario's", Options{Loss: "10%"}, bench.Scenario{Fault: "packet-loss", Loss: "30%"}, experiment.HiccupFault{Loss: 0.3}},
		{"loss, not a pause's", Options{Loss: "10%", StarveCPUs: 0.2}, bench.Scenario{Fault: "pause"}, experiment.HiccupFault{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opt
			o.BrokersLost = LostOne
			r := New(o)
			defer r.Close()
			tc.s.Name = "a"
			e, err := r.Experiment(tc.s)
			if err != nil {
				t.Fatal(err)
			}
			if e.Hiccup != tc.want {
				t.Errorf("hiccup %+v, want %+v", e.Hiccup, tc.want)
			}
		})
	}
	if h := Hiccup(results.FaultPacketLoss, 0, "30"); h.Loss != 0.3 {
		t.Errorf("Hiccup(packet-loss, 30) = %+v", h)
	}
}
