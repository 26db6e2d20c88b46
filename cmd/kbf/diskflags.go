package main

import (
	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/bench/trialrun"
	"github.com/kbf-project/kbf/results"
)

// The flags of the faults of a broker's FUSE layer: disk-slow's delay and
// power-loss's brokers.

func registerDisk(f *pflag.FlagSet, o *trialrun.Options) {
	f.DurationVar(&o.DiskDelay, "disk-delay", 0, "disk-slow: how long every write and fsync into the broker's log directory waits (such as 200ms)")
	f.StringVar(&o.BrokersLost, "brokers-lost", trialrun.LostOne, "power-loss: whose power is cut: 1 (the broker's) or all-replicas (every broker's at once)")
}

// validateDisk checks the disk faults' flags against the fault: one line,
// exit 2.
func validateDisk(o *trialrun.Options) error {
	kill := o.Trial.Kill
	if kill == results.FaultDiskSlow && o.DiskDelay <= 0 {
		return usagef("--fault disk-slow needs --disk-delay, a positive duration such as 200ms")
	}
	if err := flagError(o.Validate()); err != nil {
		return err
	}
	switch {
	case o.DiskDelay > 0 && kill != results.FaultDiskSlow:
		return usagef("--disk-delay is disk-slow's, not %s's", kill)
	case o.BrokersLost == trialrun.LostAll && kill != results.FaultPowerLoss:
		return usagef("--brokers-lost all-replicas is power-loss's, not %s's", kill)
	}
	return nil
}
