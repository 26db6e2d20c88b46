package probe

import (
	"cmp"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/results"
)

// AutoCommitInterval is the group reader's time between two autocommits
// under results.CommitInterval: franz-go's default is 5 s, and a second
// keeps a commit's stall within the probe's resolution of a fault while
// still committing far less often than every poll.
const AutoCommitInterval = time.Second

// groupBalancer is the group reader's balancer: cooperative-sticky, the
// default of franz-go and of the Java client, under the classic protocol;
// under KIP-848's the client asks the broker for its "uniform" assignor,
// franz-go's name for the same (kgo.ServerSideBalancer takes a sticky or a
// range balancer only).
const (
	classicBalancer  = "cooperative-sticky"
	consumerAssignor = "uniform"
)

// Identified returns c with its run id, its group when it reads in one,
// and its transactional id when it writes in transactions, chosen if
// empty: a caller that must know the group or the transactional id before
// the probe starts (to ask who coordinates it) fixes them with this first.
func (c Config) Identified() Config {
	if c.RunID == "" {
		c.RunID = NewRunID()
	}
	if c.Consumer == results.ConsumerGroup && c.Group == "" {
		c.Group = "kbf-probe-" + c.RunID // a group of its own: nothing committed yet
	}
	if c.Transactional() && c.TxnID == "" {
		c.TxnID = "kbf-probe-" + c.RunID + "-tx" // its own: no transaction of another's to fence
	}
	return c
}

// GroupReader reports whether the probe runs a group reader beside its own.
func (c *Config) GroupReader() bool {
	return c.Consumer == results.ConsumerGroup || c.Group != ""
}

// validateGroup checks the group reader's settings: each a value it knows,
// and none without a group reader.
func (c *Config) validateGroup() error {
	switch c.Consumer {
	case "", results.ConsumerAssign, results.ConsumerGroup:
	default:
		return fmt.Errorf("consumer %q: want %s or %s", c.Consumer, results.ConsumerAssign, results.ConsumerGroup)
	}
	switch c.GroupProtocol {
	case "", results.GroupProtocolClassic, results.GroupProtocolConsumer:
	default:
		return fmt.Errorf("group-protocol %q: want %s or %s", c.GroupProtocol, results.GroupProtocolClassic, results.GroupProtocolConsumer)
	}
	switch c.Commit {
	case "", results.CommitSync, results.CommitAsync, results.CommitInterval:
	default:
		return fmt.Errorf("commit %q: want %s, %s or %s", c.Commit, results.CommitSync, results.CommitAsync, results.CommitInterval)
	}
	if !c.GroupReader() {
		switch {
		case c.GroupProtocol != "":
			return fmt.Errorf("group-protocol %s: only with consumer %s", c.GroupProtocol, results.ConsumerGroup)
		case c.Commit != "":
			return fmt.Errorf("commit %s: only with consumer %s", c.Commit, results.ConsumerGroup)
		}
	}
	return nil
}

// GroupSettings are the group reader's settings as meta.json records them;
// nil without a group reader. The group's id is chosen by New.
func (c *Config) GroupSettings() *results.GroupSettings {
	if !c.GroupReader() {
		return nil
	}
	g := &results.GroupSettings{ID: c.Group, Protocol: c.groupProtocol(), Commit: c.commit(), Balancer: classicBalancer}
	if g.Protocol == results.GroupProtocolConsumer {
		g.Balancer = consumerAssignor
	}
	if g.Commit == results.CommitInterval {
		g.AutoCommitInterval = AutoCommitInterval
	}
	return g
}

func (c *Config) groupProtocol() string { return cmp.Or(c.GroupProtocol, results.GroupProtocolClassic) }
func (c *Config) commit() string        { return cmp.Or(c.Commit, results.CommitSync) }

// groupOpts are the group reader's options beyond those every client
// shares: its group and topic, its protocol and balancer, how it commits,
// and where it starts, the probe's start (from ms, Unix milliseconds): a
// new group has no committed offset, and reads from the first record
// written at or after it.
func (c *Config) groupOpts(from int64) []kgo.Opt {
	opts := []kgo.Opt{
		kgo.ConsumerGroup(c.Group),
		kgo.ConsumeTopics(c.Topic),
		kgo.FetchMaxWait(c.FetchMaxWait),
		kgo.ConsumeResetOffset(kgo.NewOffset().AfterMilli(from)),
		kgo.Balancers(kgo.CooperativeStickyBalancer()),
	}
	if c.groupProtocol() == results.GroupProtocolConsumer {
		opts = append(opts, kgo.ServerSideBalancer())
	}
	if c.commit() == results.CommitInterval {
		opts = append(opts, kgo.AutoCommitInterval(AutoCommitInterval))
	} else {
		opts = append(opts, kgo.DisableAutoCommit())
	}
	return opts
}

// groupEffective adds the group reader's settings to the client
// configuration in effect, e.
func (c *Config) groupEffective(e map[string]string) {
	g := c.GroupSettings()
	if g == nil {
		return
	}
	e["group_consumer"] = fmt.Sprintf("group %s, protocol %s (%s), commit %s, subscribed to %s, read_uncommitted",
		g.ID, g.Protocol, g.Balancer, g.Commit, c.Topic)
	e["group_protocol"] = g.Protocol
	e["commit"] = g.Commit
	if g.Commit == results.CommitInterval {
		e["auto_commit_interval"] = g.AutoCommitInterval.String()
	}
}
