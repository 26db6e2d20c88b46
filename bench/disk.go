package bench

import (
	"fmt"

	"github.com/kbf-project/kbf/results"
)

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

// hiccupProblem is what is wrong with the scenario's hiccup settings
// (kbf run's --starve-cpus and --loss), each only on its fault.
func (s *Scenario) hiccupProblem(where string) error {
	switch {
	case s.StarveCPUs != 0 && (s.StarveCPUs < results.MinCPUs || s.StarveCPUs > results.MaxCPUs):
		return fmt.Errorf("%s: starve_cpus %g: want %g to %g of a CPU", where, s.StarveCPUs, results.MinCPUs, results.MaxCPUs)
	case s.StarveCPUs != 0 && s.Fault != "cpu-starve":
		return fmt.Errorf("%s: starve_cpus is fault cpu-starve's, not %s's", where, s.Fault)
	case s.Loss != "" && s.Fault != "packet-loss":
		return fmt.Errorf("%s: loss is fault packet-loss's, not %s's", where, s.Fault)
	}
	if s.Loss != "" {
		if _, err := results.ParseLoss(s.Loss); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}
