package render

import (
	"testing"

	"github.com/kbf-project/kbf/results"
)

func TestUndoneDisk(t *testing.T) {
	for k, want := range map[results.FaultKind]string{
		results.FaultDiskSlow:   "disk back to normal",
		results.FaultDiskError:  "disk back to normal, broker restarted",
		results.FaultPowerLoss:  "broker restarted on what was fsynced",
		results.FaultCPUStarve:  "CPU given back",
		results.FaultPacketLoss: "packet loss ended",
	} {
		if got := undone(&results.Fault{Kind: k}); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
}
