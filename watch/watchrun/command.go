package watchrun

import (
	"io"
	"time"

	"github.com/kbf-project/kbf/bench/trialrun"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/watch"
)

// Command is what kbf watch's flags set: the probe's settings, the
// cluster watched (kbf's own or -f FILE's, one at --bootstrap, or a Kafka
// in Kubernetes) and the watch's own options.
type Command struct {
	Probe   probe.Config
	Cluster compose.Flags
	K8s     trialrun.K8s
	Watch   watch.Options
	// Logs and LogsCommand are where a --bootstrap cluster's node logs
	// come from (kbf run --fault external's flags).
	Logs, LogsCommand string
	// BootstrapSet is true when --bootstrap was given.
	BootstrapSet bool
}

// CheckLogs holds --logs and --logs-command to a --bootstrap cluster
// (kbf's own and Kubernetes' logs are read from the engine and the API)
// and checks them as kbf run does (trialrun.CheckLogs), refusing them
// with experiment.Refusef.
func (c *Command) CheckLogs() error {
	if c.Logs == "" && c.LogsCommand == "" {
		return nil
	}
	if !c.BootstrapSet || c.K8s.On() {
		return experiment.Refusef("--logs and --logs-command are for a --bootstrap cluster: kbf reads its own cluster's and Kubernetes' logs itself")
	}
	return trialrun.CheckLogs(c.Logs, c.LogsCommand)
}

// Options are the watch's options: Watch with the probe's settings,
// secured as --command-config says (checked by the command before).
func (c *Command) Options() watch.Options {
	opt := c.Watch
	opt.Probe = c.Probe
	opt.Probe.Security, _ = c.Cluster.Security()
	return opt
}

// Spec is the cluster watched: a Kafka in Kubernetes (its notes to say),
// whatever answers at --bootstrap, else kbf's own as it runs
// (platform.Running), as kbf probe's is.
func (c *Command) Spec(say io.Writer) (platform.Spec, error) {
	opt := c.Options()
	switch {
	case c.K8s.On():
		var bs []string
		if c.BootstrapSet {
			bs = opt.Probe.Bootstrap
		}
		return c.K8s.Spec(bs, "", results.FaultExternal, opt.Probe.Security, say), nil
	case c.BootstrapSet:
		return platform.Spec{Remote: &platform.RemoteOptions{Bootstrap: opt.Probe.Bootstrap, Security: opt.Probe.Security,
			Logs: c.Logs, LogsCommand: c.LogsCommand}}, nil
	}
	return platform.Running(&c.Cluster)
}

// CheckProbe checks the probe's settings as kbf probe's are (partitions
// given twice or out of range, the interval's floor, the probe's own
// rules): as the options of a trial with no fault (experiment.Options.Validate).
func (c *Command) CheckProbe() error {
	probeOnly := experiment.Options{Kill: experiment.NoFault, Duration: time.Second, Probe: c.Options().Probe}
	return probeOnly.Validate()
}
