package trialrun

import (
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/results"
)

// Hiccup is the experiment's hiccup settings of a fault of kind:
// cpu-starve's sliver (cpus; zero is experiment.DefaultStarveCPUs) and
// packet-loss's share (loss, as --loss spells it: "30%"), each for its
// own fault only, as Disk's are. A loss that does not parse is left for
// the experiment to refuse: Validate has refused it first.
func Hiccup(kind results.FaultKind, cpus float64, loss string) experiment.HiccupFault {
	var h experiment.HiccupFault
	switch kind {
	case results.FaultCPUStarve:
		h.CPUs = cpus
		if h.CPUs == 0 {
			h.CPUs = experiment.DefaultStarveCPUs
		}
	case results.FaultPacketLoss:
		h.Loss, _ = results.ParseLoss(loss)
	}
	return h
}

// CheckHiccup checks the hiccups' flags against the fault: a share of
// packets for packet-loss alone (and packet-loss needs one), a sliver of
// a CPU for cpu-starve alone.
func (o *Options) CheckHiccup() error {
	kill := o.Trial.Kill
	switch {
	case kill == results.FaultPacketLoss && o.Loss == "":
		return experiment.Refusef("--fault packet-loss needs --loss, a percentage such as 30%%")
	case o.Loss != "" && kill != results.FaultPacketLoss:
		return experiment.Refusef("--loss is packet-loss's, not %s's", kill)
	case o.StarveCPUs != 0 && kill != results.FaultCPUStarve:
		return experiment.Refusef("--starve-cpus is cpu-starve's, not %s's", kill)
	}
	return nil
}
