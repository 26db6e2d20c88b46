package experiment

// The faults of a broker's log directory served through kbf's FUSE layer:
// disk-slow, disk-error, power-loss (chaos/faultfs).

import (
	"fmt"
	"strings"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// DiskFault are the settings of the faults of a broker's FUSE layer.
type DiskFault struct {
	// Delay is disk-slow's wait before every write and fsync.
	Delay time.Duration
	// AllReplicas makes a power-loss cut every broker's power at once
	// (--brokers-lost all-replicas), not the faulted broker's alone.
	AllReplicas bool
}

// validateDisk checks the disk faults' settings against the fault.
func (o *Options) validateDisk() error {
	switch {
	case o.Kill == results.FaultDiskSlow && o.Disk.Delay <= 0:
		return invalid("disk_delay", o.Disk.Delay, "disk-slow needs a positive delay, such as 200ms")
	case o.Kill != results.FaultDiskSlow && o.Disk.Delay != 0:
		return invalid("disk_delay", o.Disk.Delay, "only disk-slow delays the disk, not %s", o.Kill)
	case o.Disk.AllReplicas && o.Kill != results.FaultPowerLoss:
		return invalid("brokers_lost", "all-replicas", "only power-loss takes several brokers, not %s", o.Kill)
	case o.Disk.AllReplicas && BrokerByRole(o.Broker):
		return invalid("broker", o.Broker, "a power-loss of every replica takes every broker: name one, such as k1")
	}
	return nil
}

// checkAllLost is Check for a power-loss of every broker: the target must
// be able to cut each one's power.
func checkAllLost(o *Options, t cluster.Shape) error {
	if !o.Disk.AllReplicas {
		return nil
	}
	for _, b := range sortedBrokers(t.Brokers()) {
		if err := t.Supports(o.Kill, b); err != nil {
			return cluster.Unsupportedf("--brokers-lost all-replicas: %v", err)
		}
	}
	return nil
}

// alsoLost are the brokers a power-loss takes with the faulted one.
func (t *trial) alsoLost() []string {
	if !t.o.Disk.AllReplicas {
		return nil
	}
	var others []string
	for _, b := range sortedBrokers(t.r.Target.Brokers()) {
		if b != t.o.Broker {
			others = append(others, b)
		}
	}
	return others
}

// diskSaid is what kbf says of a fault of a broker's FUSE layer once made.
func diskSaid(f results.Fault) string {
	if f.Disk == nil {
		return fmt.Sprintf("%s made on %s", f.Kind, f.Broker)
	}
	switch {
	case f.Kind == results.FaultDiskSlow:
		return fmt.Sprintf("%s's log directory is slow: every write and fsync waits %v", f.Broker, f.Disk.Delay)
	case f.Kind == results.FaultDiskError && f.Finished.IsZero():
		return fmt.Sprintf("%s's log directory answers EIO; its process runs on", f.Broker)
	case f.Kind == results.FaultDiskError:
		return fmt.Sprintf("%s's log directory answers EIO; its process ended %.2f s later, exit code %d", f.Broker, f.Finished.Sub(f.SignalSent).Seconds(), f.ExitCode)
	}
	return fmt.Sprintf("power lost on %s: %d files put back to their last fsync, %d bytes written and never fsynced lost; killed, exit code %d",
		strings.Join(f.Disk.Brokers, ", "), f.Disk.LostFiles, f.Disk.LostBytes, f.ExitCode)
}
