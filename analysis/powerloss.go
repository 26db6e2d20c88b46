package analysis

// A power loss's audit: whether the acknowledged records it lost are a
// loss Kafka's flush settings allow, or one that breaks a promise.
//
// Kafka acknowledges a record once its ISR has it in memory (the page
// cache), and fsyncs it only as its flush settings say: by default never
// before a segment rolls (log.flush.interval.messages and
// log.flush.interval.ms unset). It relies on the replicas not failing
// together. So a loss of acknowledged records when every broker lost power
// at once is allowed by those settings, and reported with them, unless
// every lost broker fsyncs every record (log.flush.interval.messages=1):
// then the loss breaks a promise, as does any loss when one broker lost
// power while the others kept the records.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// The broker-wide flush settings (the topics' flush.messages and flush.ms
// default to them).
const (
	flushMessages = "log.flush.interval.messages"
	flushMs       = "log.flush.interval.ms"
)

// PowerLoss is what a power-loss trial's audit is judged against: the
// brokers that lost power, the flush settings each ran with, and the
// acknowledged records lost per partition.
type PowerLoss struct {
	// Brokers lost power at once; Every is whether they were every broker.
	Brokers []string
	Every   bool
	// Settings are each lost broker's log.flush.interval.messages and
	// log.flush.interval.ms. (The probed topic's min.insync.replicas is
	// not in meta.json, so it is not named: a broker's own default would
	// not be the topic's.)
	Settings []Setting
	// Lost are the acknowledged records lost, by partition, every probed
	// partition listed.
	Lost []PartitionLost
	// Allowed says why the settings allow the loss; "" when a loss breaks
	// a promise (one broker lost, or every record fsynced, or the settings
	// unknown).
	Allowed string
}

// PartitionLost is one partition's acknowledged records lost.
type PartitionLost struct {
	Partition int32
	Lost      int
}

// powerLossOf judges a power-loss trial of metadata m, whose nodes'
// configurations configs holds, by its audit in; nil for another fault.
func powerLossOf(dir string, m *results.Meta, configs *nodeConfigs, in *integrity.Report) *PowerLoss {
	if m == nil || m.Fault == nil || m.Fault.Kind != results.FaultPowerLoss || m.Fault.Disk == nil {
		return nil
	}
	pl := &PowerLoss{Brokers: m.Fault.Disk.Brokers}
	pl.Every = len(m.Cluster.Brokers) > 0
	for b := range m.Cluster.Brokers {
		pl.Every = pl.Every && slices.Contains(pl.Brokers, b)
	}
	if in != nil {
		for _, p := range in.Partitions {
			pl.Lost = append(pl.Lost, PartitionLost{Partition: p.Partition, Lost: p.Lost})
		}
	}
	fsyncEach, known := true, true
	for _, b := range pl.Brokers {
		cfg := brokerConfigOf(dir, m, configs, b)
		msgs := nodeSetting(cfg, nil, b, flushMessages)
		pl.Settings = append(pl.Settings, msgs, nodeSetting(cfg, nil, b, flushMs))
		known = known && msgs.Value != ""
		fsyncEach = fsyncEach && msgs.Value == "1"
	}
	if pl.Every && known && !fsyncEach {
		pl.Allowed = fmt.Sprintf("every broker (%s) lost power at once, and %s: Kafka fsyncs no record before acknowledging it, so what no flush had written was lost with every replica",
			strings.Join(pl.Brokers, ", "), settingsText(pl.Settings))
	}
	return pl
}

// brokerConfigOf is the configuration broker b logged at its start, or
// else the one read back from it into meta.json; nil when neither is.
func brokerConfigOf(dir string, m *results.Meta, configs *nodeConfigs, b string) *timeline.NodeConfig {
	var cfg *timeline.NodeConfig
	var err error
	if configs != nil {
		cfg, err = configs.node(dir, b)
	} else {
		cfg, err = timeline.ReadNodeConfig(dir, b)
	}
	if err != nil || cfg == nil {
		if rb, ok := timeline.ReadBackConfig(m, b); ok {
			return rb
		}
		return nil
	}
	return cfg
}

// settingsText spells settings as "k1's log.flush.interval.messages=…".
func settingsText(ss []Setting) string {
	var parts []string
	for _, s := range ss {
		v := s.Value
		if v == "" {
			v = "unknown"
		}
		parts = append(parts, fmt.Sprintf("%s's %s=%s", s.Node, s.Name, v))
	}
	return strings.Join(parts, ", ")
}

// String is the judgement in one line: who lost power, the settings, and
// the acknowledged records lost per partition.
func (pl *PowerLoss) String() string {
	who := strings.Join(pl.Brokers, ", ") + " alone, the other brokers keeping theirs"
	if pl.Every {
		who = "every broker (" + strings.Join(pl.Brokers, ", ") + ") at once"
	}
	return fmt.Sprintf("power lost on %s; %s; %s", who, settingsText(pl.Settings), pl.lostText())
}

// lostText is the acknowledged records lost, partition by partition.
func (pl *PowerLoss) lostText() string {
	var lost []string
	for _, p := range pl.Lost {
		lost = append(lost, fmt.Sprintf("p%d %d", p.Partition, p.Lost))
	}
	return "acknowledged records lost by partition: " + strings.Join(lost, ", ")
}

// powerLossFindings sets, on each finding of the probe, what a power loss
// allows: a loss under acks=all that Allowed explains is reported, not a
// finding.
func powerLossFindings(fs Findings, pl *PowerLoss) Findings {
	if pl == nil {
		return fs
	}
	for i := range fs {
		if fs[i].Client == FranzGo {
			fs[i].PowerLoss = pl
		}
	}
	return fs
}
