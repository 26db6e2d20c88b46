// Package experiment runs kbf's trial protocol: bring the cluster up, start
// the probe, wait for a healthy baseline, inject the fault, keep probing,
// copy the nodes' logs, undo the fault and read the partitions back. It is
// the run side only: it records each trial into its own directory (the
// results package's contract) and analyses nothing. Package analysis
// reads the directory back, so a trial's report is the same whether
// written now or by kbf report later.
//
// The cluster under test is a cluster.Cluster: the protocol asks it only
// what package cluster's interfaces say, and a fault it cannot do is
// refused before anything starts (Check), from the abilities it states.
// Package clusters makes one from a spec; the tests pass fakes. kbf run,
// kbf bench and kbf probe all go through one runner (Runner.Run,
// Runner.Trial): kbf probe's is a trial with no fault (NoFault), the
// cluster identified rather than brought up, nothing faulted, copied or
// read back. The options are checked here only (Options.Validate).
package experiment

import (
	"context"
	"io"
	"time"

	"github.com/kbf-project/kbf/load"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// Probe is what a trial asks of the probe (probe.Probe).
type Probe interface {
	Config() probe.Config
	StartOffsets() map[int32]int64
	Progress() []probe.PartitionStats
	Run(ctx context.Context) ([]probe.PartitionStats, error)
	Close() error
}

// NewProbe makes a probe; the default is probe.New.
type NewProbe func(ctx context.Context, cfg probe.Config, out probe.Output) (Probe, error)

// ReadBack reads the probed partitions back from their start offsets into
// out; the default is probe.ReadBack.
type ReadBack func(ctx context.Context, cfg probe.Config, starts map[int32]int64, out *results.LogEncoder) error

// Sampler watches the probed partitions' replicas while a trial probes
// (replicas.Sampler): it writes the replica view, results.ReplicasFile.
type Sampler interface {
	Run(ctx context.Context) (results.ReplicaStats, error)
	Close()
}

// NewSampler makes a sampler of topic's partitions, asking every interval,
// writing to w.
type NewSampler func(ctx context.Context, bootstrap []string, topic string, partitions []int32, interval time.Duration, w io.Writer) (Sampler, error)

// Reporter shows a run's progress to its user.
type Reporter interface {
	// Say prints a line that stays.
	Say(line string)
	// Live shows the probe's state now, once a second; a terminal rewrites
	// one line in place, a log may keep only some.
	Live(line string)
}

// Discard is a Reporter that shows nothing.
var Discard Reporter = discard{}

type discard struct{}

func (discard) Say(string)  {}
func (discard) Live(string) {}

func defaultNewProbe(ctx context.Context, cfg probe.Config, out probe.Output) (Probe, error) {
	p, err := probe.New(ctx, cfg, out)
	if err != nil {
		return nil, err // a nil *probe.Probe must not become a non-nil Probe
	}
	return p, nil
}

func defaultReadBack(ctx context.Context, cfg probe.Config, starts map[int32]int64, out *results.LogEncoder) error {
	_, err := probe.ReadBack(ctx, cfg.Bootstrap, cfg.Topic, cfg.RunID, starts, cfg.Transactional(), out, cfg.Security.KgoOpts()...)
	return err
}

// Load is what a trial asks of its real traffic (load.Load).
type Load interface {
	Settings() results.LoadSettings
	Run(ctx context.Context) (load.Totals, error)
	Close()
}

// NewLoad makes a load writing its rows to w; the default is load.New.
type NewLoad func(ctx context.Context, cfg load.Config, w io.Writer) (Load, error)

func defaultNewLoad(ctx context.Context, cfg load.Config, w io.Writer) (Load, error) {
	l, err := load.New(ctx, cfg, w)
	if err != nil {
		return nil, err // a nil *load.Load must not become a non-nil Load
	}
	return l, nil
}
