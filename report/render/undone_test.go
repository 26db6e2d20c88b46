package render

import (
	"testing"

	"github.com/kbf-project/kbf/results"
)

// TestUndone pins what recovery's line says undid each fault kind: a
// kind of its own, else the family it is of (a cut, a controller), else a
// restarted broker.
func TestUndone(t *testing.T) {
	want := map[results.FaultKind]string{
		results.FaultSIGKILL:            "broker restarted",
		results.FaultSIGTERM:            "broker restarted",
		results.FaultPause:              "unpaused",
		results.FaultIsolate:            "cut healed",
		results.FaultIsolateController:  "cut healed",
		results.FaultIsolateClients:     "cut healed",
		results.FaultIsolateReplication: "cut healed",
		results.FaultTwoBrokers:         "broker restarted",
		results.FaultRolling:            "broker restarted",
		results.FaultControllerKill:     "controller restarted",
		results.FaultControllerPause:    "unpaused",
		results.FaultLastReplica:        "broker restarted",
		results.FaultDiskFull:           "broker restarted on an empty log directory",
		results.FaultDiskSlow:           "disk back to normal",
		results.FaultDiskError:          "disk back to normal, broker restarted",
		results.FaultPowerLoss:          "broker restarted on what was fsynced",
		results.FaultExternal:           "broker restarted",
		results.FaultCPUStarve:          "CPU given back",
		results.FaultPacketLoss:         "packet loss ended",
	}
	for _, k := range results.FaultKinds() {
		w, ok := want[k]
		if !ok {
			t.Errorf("%s: no expectation; add one", k)
			continue
		}
		if got := undone(&results.Fault{Kind: k}); got != w {
			t.Errorf("%s: %q, want %q", k, got, w)
		}
	}
	if got := undone(nil); got != "broker restarted" {
		t.Errorf("no fault: %q, want %q", got, "broker restarted")
	}
}
