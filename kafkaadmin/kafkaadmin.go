// Package kafkaadmin is the Kafka half of the kbf cluster: it asks the
// brokers, with a Kafka admin client, for their state and brings it to the
// experiment's starting shape.
//
// It reads what the brokers report (DescribeCluster, Metadata,
// DescribeTopicPartitions, ListOffsets, DescribeConfigs) and produces waits
// (every broker registered and unfenced, every ISR full, every leader the
// preferred one), the probe topics with a fixed replica assignment, and a
// description of each partition (leader, epoch, ISR, ELR, high watermark).
// The metadata quorum it asks through a broker (DescribeQuorum) or, with
// Controllers, of the controllers themselves.
// It knows nothing of containers or Docker: package compose runs the nodes
// and hands it their addresses.
package kafkaadmin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/kafkasec"
)

// Broker is one broker as the admin client reaches it.
type Broker struct {
	ID   int32
	Addr string // host:port, as reached from where kbf runs
}

// Config configures an Admin.
type Config struct {
	// Brokers are the cluster's brokers; New sorts them by node id.
	Brokers []Broker
	// Topics are the topics EnsureTopics makes sure exist.
	Topics []Topic
	// Alive, when set, is asked on every look of WaitBrokers whether the
	// nodes still run; an error ends the wait at once, as waiting for a
	// broker whose process has stopped would be in vain.
	Alive func(ctx context.Context) error
	// Security secures the client as a --command-config file says; nil
	// speaks PLAINTEXT.
	Security *kafkasec.Config
}

// Admin administers one cluster's Kafka state. Its Kafka client is made
// on first use; New contacts nothing.
type Admin struct {
	brokers []Broker
	topics  []Topic
	alive   func(ctx context.Context) error
	sec     *kafkasec.Config
	now     func() time.Time

	mu sync.Mutex // guards cl
	cl *kgo.Client
}

// New returns an Admin for cfg, after checking the topics fit the brokers.
func New(cfg Config) (*Admin, error) {
	if len(cfg.Brokers) == 0 {
		return nil, errors.New("no broker")
	}
	brokers := slices.Clone(cfg.Brokers)
	slices.SortFunc(brokers, func(a, b Broker) int { return int(a.ID) - int(b.ID) })
	c := &Admin{brokers: brokers, topics: slices.Clone(cfg.Topics), alive: cfg.Alive, sec: cfg.Security, now: time.Now}
	if err := ValidateTopics(c.topics, c.BrokerIDs()); err != nil {
		return nil, err
	}
	return c, nil
}

// BrokerIDs returns the brokers' node ids in order.
func (c *Admin) BrokerIDs() []int32 {
	ids := make([]int32, len(c.brokers))
	for i, b := range c.brokers {
		ids[i] = b.ID
	}
	return ids
}

// Bootstrap returns the brokers' addresses in node id order.
func (c *Admin) Bootstrap() []string {
	addrs := make([]string, len(c.brokers))
	for i, b := range c.brokers {
		addrs[i] = b.Addr
	}
	return addrs
}

// Topics returns the topics EnsureTopics makes sure exist.
func (c *Admin) Topics() []Topic { return slices.Clone(c.topics) }

// TopicNames returns the names of Topics.
func (c *Admin) TopicNames() []string {
	names := make([]string, len(c.topics))
	for i, t := range c.topics {
		names[i] = t.Name
	}
	return names
}

// Topic is a topic EnsureTopics makes sure exists, and its shape.
type Topic struct {
	Name              string
	Partitions        int32
	ReplicationFactor int16
	// MinInsync is the topic's min.insync.replicas; 0 leaves the broker
	// default (1) and does not check it on an existing topic.
	MinInsync int
	// Brokers are the node ids the replicas are spread over, in order; nil
	// means every broker, in node id order. Partition p has the replicas
	// Brokers[(p+i) % len(Brokers)] for i < ReplicationFactor, so the first
	// broker leads partition 0 and follows on the next ones.
	Brokers []int32
}

// DefaultTopics returns the experiment's topics: orders (3 partitions on
// every broker, RF 3, min.insync.replicas 2) and single (1 partition, RF 1,
// on broker 1 only).
func DefaultTopics() []Topic {
	return []Topic{
		{Name: "orders", Partitions: 3, ReplicationFactor: 3, MinInsync: 2},
		{Name: "single", Partitions: 1, ReplicationFactor: 1, Brokers: []int32{1}},
	}
}

// Assignment returns the topic's replicas per partition, given the cluster's
// brokers in node id order (used when t.Brokers is nil).
func (t Topic) Assignment(brokers []int32) [][]int32 {
	if t.Brokers != nil {
		brokers = t.Brokers
	}
	a := make([][]int32, t.Partitions)
	for p := range a {
		a[p] = make([]int32, t.ReplicationFactor)
		for i := range a[p] {
			a[p][i] = brokers[(p+i)%len(brokers)]
		}
	}
	return a
}

// LedFirstBy returns t with its replicas spread over brokers starting at
// lead, so that lead is partition 0's preferred leader whatever the number
// of brokers: a fault on lead then always hits a partition it leads.
func (t Topic) LedFirstBy(lead int32, brokers []int32) Topic {
	on := brokers
	if t.Brokers != nil {
		on = t.Brokers
	}
	i := slices.Index(on, lead)
	if i <= 0 {
		return t
	}
	t.Brokers = append(slices.Clone(on[i:]), on[:i]...)
	return t
}

// MaxPartitions bounds a topic's partitions: the probe probes partitions
// numbered below 10000, and a bound keeps a mistyped count from asking the
// controller for millions of replicas.
const MaxPartitions = 10000

// validate checks t against the cluster's brokers.
func (t Topic) validate(brokers []int32) error {
	switch {
	case t.Name == "":
		return errors.New("a topic needs a name")
	case t.Partitions < 1:
		return fmt.Errorf("topic %s: %d partitions: want at least 1", t.Name, t.Partitions)
	case t.Partitions > MaxPartitions:
		return fmt.Errorf("topic %s: %d partitions: want at most %d", t.Name, t.Partitions, MaxPartitions)
	case t.ReplicationFactor < 1:
		return fmt.Errorf("topic %s: replication factor %d: want at least 1", t.Name, t.ReplicationFactor)
	case t.MinInsync < 0 || t.MinInsync > int(t.ReplicationFactor):
		return fmt.Errorf("topic %s: min.insync.replicas %d: want 1 to the replication factor %d",
			t.Name, t.MinInsync, t.ReplicationFactor)
	}
	on := brokers
	if t.Brokers != nil {
		for _, id := range t.Brokers {
			if !slices.Contains(brokers, id) {
				return fmt.Errorf("topic %s: no broker %d (brokers: %s)", t.Name, id, JoinIDs(brokers))
			}
		}
		on = t.Brokers
	}
	if int(t.ReplicationFactor) > len(on) {
		return fmt.Errorf("topic %s: replication factor %d needs %d brokers, there are %d",
			t.Name, t.ReplicationFactor, t.ReplicationFactor, len(on))
	}
	return nil
}

// ValidateTopics checks topics against the brokers' node ids, contacting
// nothing.
func ValidateTopics(topics []Topic, brokers []int32) error {
	seen := make(map[string]bool)
	for _, t := range topics {
		if err := t.validate(brokers); err != nil {
			return err
		}
		if seen[t.Name] {
			return fmt.Errorf("topic %s named twice", t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}

// JoinIDs formats node ids as 1,2,3.
func JoinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, ",")
}
