package main

import (
	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/bench/trialrun"
	"github.com/kbf-project/kbf/results"
)

// The flags of the hiccups besides a pause: cpu-starve's sliver of a CPU
// and packet-loss's share of packets.

func registerHiccup(f *pflag.FlagSet, o *trialrun.Options) {
	f.Float64Var(&o.StarveCPUs, "starve-cpus", 0, "cpu-starve: the sliver of a CPU the broker's container is held to, 0.01 to 1 (default 0.05)")
	f.StringVar(&o.Loss, "loss", "", "packet-loss: the share of the broker's packets dropped at random, each way, on every link but the loopback (such as 30%)")
}

// validateHiccup checks the hiccups' flags against the fault: one line,
// exit 2.
func validateHiccup(o *trialrun.Options) error {
	kill := o.Trial.Kill
	switch {
	case kill == results.FaultPacketLoss && o.Loss == "":
		return usagef("--fault packet-loss needs --loss, a percentage such as 30%%")
	case o.Loss != "" && kill != results.FaultPacketLoss:
		return usagef("--loss is packet-loss's, not %s's", kill)
	case o.StarveCPUs != 0 && kill != results.FaultCPUStarve:
		return usagef("--starve-cpus is cpu-starve's, not %s's", kill)
	}
	return nil
}
