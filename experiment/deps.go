// Package experiment runs kbf's trial protocol: bring the cluster up, start
// the probe, wait for a healthy baseline, inject the fault, keep probing,
// copy the nodes' logs, undo the fault, read the partitions back and report.
// It writes each trial into its own directory (the results package's
// contract) and reads it back through report, so a trial's report is the
// same whether printed now or by kbf report later.
//
// The cluster, the fault injector and the probe are interfaces declared
// here with only the methods the protocol calls; cmd/kbf adapts compose,
// chaos and probe to them, and the tests pass fakes.
package experiment

import (
	"context"
	"io"
	"time"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

// Cluster is what a trial asks of the cluster.
type Cluster interface {
	// Up makes sure every node runs and every ISR is full.
	Up(ctx context.Context) (UpInfo, error)
	// WaitISRFull waits until every partition of topics has its whole
	// replica set in sync.
	WaitISRFull(ctx context.Context, topics ...string) error
	// EnsurePreferred runs a preferred leader election where a partition
	// is not led by its first replica.
	EnsurePreferred(ctx context.Context) error
	// LeadersPreferred says whether every partition of topics is led by
	// its first replica.
	LeadersPreferred(ctx context.Context, topics ...string) (bool, error)
	// Partitions describes the partitions of topic.
	Partitions(ctx context.Context, topic string) ([]Partition, error)
	Bootstrap() []string
	Brokers() map[string]int32 // service name → node id
	Services() []string        // every node's service, in start order
	TopicNames() []string      // the topics recovery waits for
	Image() string
	KafkaVersion(ctx context.Context) (string, error)
	// NodeConfigs reads back every node's configuration in effect, by
	// service: what the trial's settings really were.
	NodeConfigs(ctx context.Context) (map[string]map[string]string, error)
	// CPUTimes is the CPU time each running node has used so far, by
	// service: what the host's load owes to the cluster rather than to
	// others.
	CPUTimes(ctx context.Context) (map[string]time.Duration, error)
}

// UpInfo is what Cluster.Up did.
type UpInfo struct {
	Reused bool // every node already ran as configured
	Took   time.Duration
}

// Partition is one partition's replicas as the cluster describes them.
type Partition struct {
	Partition int32
	Leader    int32   // -1: none
	Replicas  []int32 // the preferred leader first
	ISR       []int32
}

// Injector is what a trial asks of the fault injector.
type Injector interface {
	// Inject injects f and returns what it saw. Once a signal may have
	// been sent, the returned fault names its broker.
	Inject(ctx context.Context, f chaos.Fault) (results.Fault, error)
	// Restart starts (or unpauses) a faulted node again; a node that runs
	// is an error wrapping chaos.ErrAlreadyRunning.
	Restart(ctx context.Context, service string) error
	// CollectLogs copies a node's logs written since since into dst.
	CollectLogs(ctx context.Context, service string, since time.Time, dst string) error
}

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

// Drawing draws an analysed trial into a file beside its report (plot.svg,
// report.html). It is handed each probe.csv row during the analysis's one
// read of the file, so no drawing reads it again.
type Drawing interface {
	Add(m *results.Message)
	Draw(w io.Writer, tr *report.Trial) error
}

// Drawings makes one trial's drawings, by the file each is written to.
type Drawings func() map[string]Drawing

// Sampler watches the probed partitions' replicas while a trial probes
// (replicas.Sampler): it writes the replica view, results.ReplicasFile.
type Sampler interface {
	Run(ctx context.Context) (results.ReplicaStats, error)
	Close()
}

// NewSampler makes a sampler of topic's partitions writing to w.
type NewSampler func(ctx context.Context, bootstrap []string, topic string, partitions []int32, w io.Writer) (Sampler, error)

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
	_, err := probe.ReadBack(ctx, cfg.Bootstrap, cfg.Topic, cfg.RunID, starts, out)
	return err
}
