package bench

import "fmt"

// The settings of the faults of a broker's FUSE layer (kbf run's
// --disk-delay and --brokers-lost), each only on its fault.

// diskProblem is what is wrong with the scenario's disk settings.
func (s *Scenario) diskProblem(where string) error {
	switch {
	case s.DiskDelay < 0:
		return fmt.Errorf("%s: disk_delay %v: must be positive", where, s.DiskDelay)
	case s.DiskDelay > 0 && s.Fault != "disk-slow":
		return fmt.Errorf("%s: disk_delay is fault disk-slow's, not %s's", where, s.Fault)
	case s.BrokersLost != "" && s.BrokersLost != "1" && s.BrokersLost != "all-replicas":
		return fmt.Errorf("%s: brokers_lost %q: want 1 or all-replicas", where, s.BrokersLost)
	case s.BrokersLost != "" && s.Fault != "power-loss":
		return fmt.Errorf("%s: brokers_lost is fault power-loss's, not %s's", where, s.Fault)
	}
	return nil
}
