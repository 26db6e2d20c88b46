package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/clusters"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/results"
)

// The flags of the faults of a broker's FUSE layer: disk-slow's delay and
// power-loss's brokers.

const (
	lostOne = "1"
	lostAll = "all-replicas"
)

func (o *runOptions) registerDisk(f *pflag.FlagSet) {
	f.DurationVar(&o.diskDelay, "disk-delay", 0, "disk-slow: how long every write and fsync into the broker's log directory waits (such as 200ms)")
	f.StringVar(&o.brokersLost, "brokers-lost", lostOne, "power-loss: whose power is cut: 1 (the broker's) or all-replicas (every broker's at once)")
}

// validateDisk checks the disk faults' flags against the fault: one line,
// exit 2.
func (o *runOptions) validateDisk() error {
	if o.kill == results.FaultDiskSlow && o.diskDelay <= 0 {
		return usagef("--fault disk-slow needs --disk-delay, a positive duration such as 200ms")
	}
	if err := o.validateDiskValues(); err != nil {
		return err
	}
	switch {
	case o.diskDelay > 0 && o.kill != results.FaultDiskSlow:
		return usagef("--disk-delay is disk-slow's, not %s's", o.kill)
	case o.brokersLost == lostAll && o.kill != results.FaultPowerLoss:
		return usagef("--brokers-lost all-replicas is power-loss's, not %s's", o.kill)
	}
	return nil
}

// validateDiskValues checks the disk flags' values, whatever the fault:
// kbf bench's apply to the scenarios of their fault.
func (o *runOptions) validateDiskValues() error {
	switch {
	case o.brokersLost != lostOne && o.brokersLost != lostAll:
		return usagef("--brokers-lost %q: want 1 or all-replicas", o.brokersLost)
	case o.diskDelay < 0:
		return usagef("--disk-delay %v: must be positive", o.diskDelay)
	case o.diskDelay > time.Minute:
		return usagef("--disk-delay %v: at most 1m (each write and fsync waits it; Kafka's own timeouts are 30 s)", o.diskDelay)
	}
	return nil
}

// diskOptions are the experiment's disk settings from the flags, each for
// its own fault only: kbf bench's --disk-delay applies to its disk-slow
// scenarios, not to its others (kbf run refuses it on another fault).
func (o *runOptions) diskOptions() experiment.DiskFault {
	var d experiment.DiskFault
	if o.kill == results.FaultDiskSlow {
		d.Delay = o.diskDelay
	}
	if o.kill == results.FaultPowerLoss {
		d.AllReplicas = o.brokersLost == lostAll
	}
	return d
}

// faultShape is the fault a trial's cluster is shaped for: a disk-full
// fault's tmpfs of size, a disk fault's FUSE layer under the faulted
// broker or, for a power loss of every replica, under every broker; none
// when the broker is found only at the fault.
func faultShape(kind results.FaultKind, broker, size string, d experiment.DiskFault) clusters.Fault {
	return clusters.Fault{Kind: kind, Broker: leadOf(broker), DiskSize: size, AllReplicas: d.AllReplicas}
}
