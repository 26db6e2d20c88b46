package trialrun

import (
	"path/filepath"
	"time"

	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/load"
	"github.com/kbf-project/kbf/platform"
)

// Command is what kbf run's flags set, and kbf bench's and kbf tune's,
// which share them: Base, what every trial starts from (the trial's
// experiment options among them, a scenario's settings over them), and
// the flags that become options only once the command has checked them
// (the cluster, the clients, the load, where the cluster lives).
type Command struct {
	Base     Options
	Cluster  compose.Flags
	Clients  clients.Flags
	Load     load.Flags
	External External
}

// Experiment is the trial's options: those the flags are bound to, and
// those of the flags the command checked before (clients.Flags.Parse,
// load.Flags.Config, compose.Flags.Security), whose errors are not asked
// again here. Without Out, the trial goes to a new directory named for
// its fault (DefaultOut).
func (c *Command) Experiment() experiment.Options {
	e := c.Base.Trial
	e.Clients, e.ClientSettings, _ = c.Clients.Parse()
	e.Load, _ = c.Load.Config()
	e.Probe.Security, _ = c.Cluster.Security()
	e.Disk = Disk(e.Kill, c.Base.DiskDelay, c.Base.BrokersLost)
	e.Hiccup = Hiccup(e.Kill, c.Base.StarveCPUs, c.Base.Loss)
	e.External = c.External.Options()
	if e.Out == "" {
		e.Out = DefaultOut(string(e.Kill))
	}
	return e
}

// Trials are what each trial of kbf bench and kbf tune starts from: Base,
// with the trial's options (Experiment) and the clients as given.
func (c *Command) Trials() Options {
	b := c.Base
	b.Trial = c.Experiment()
	b.Clients, b.ClientSet = c.Clients.List, c.Clients.Set
	return b
}

// Spec is where the flags say the cluster lives: a Kafka in Kubernetes
// (--target k8s, its notes to Base.Log), a cluster reached by --bootstrap,
// else kbf's Docker cluster shaped for the fault (Options.DockerSpec). An
// error is the cluster flags' (compose.Flags.Options).
func (c *Command) Spec() (platform.Spec, error) {
	e := c.Experiment()
	switch {
	case c.Base.K8s.On():
		return c.Base.K8s.Spec(c.External.Bootstrap, Lead(e.Broker), e.Kill, e.Probe.Security, c.Base.Log), nil
	case len(c.External.Bootstrap) > 0:
		return c.External.Remote(e.Probe.Security), nil
	}
	opts, err := c.Cluster.Options()
	if err != nil {
		return platform.Spec{}, err
	}
	opts.Image = c.Base.Image
	return c.Base.DockerSpec(opts, e), nil
}

// DefaultOut names a new results directory, under kbf-runs, for a run of
// the given kind (a fault, probe, bench, tune) started now.
func DefaultOut(kind string) string {
	return filepath.Join("kbf-runs", time.Now().UTC().Format("20060102-150405")+"-"+kind)
}
