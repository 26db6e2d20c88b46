// Package adminhealth answers the trial protocol's health questions
// (cluster.Health), and who coordinates a group (cluster.Coordinators),
// through the brokers' admin API. Whatever runs the
// nodes — compose, Kubernetes, someone else — the brokers answer these the
// same way, so every target asks them here: the remote and Kubernetes
// targets embed Health whole, and the Docker target, which starts its
// nodes itself, takes its partition view from it.
package adminhealth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/kafkaadmin"
	"github.com/kbf-project/kbf/results"
)

// Health asks a cluster's brokers through admin.
type Health struct{ admin *kafkaadmin.Admin }

// New is the health of the cluster admin reaches.
func New(admin *kafkaadmin.Admin) Health { return Health{admin: admin} }

// Open makes the admin client of cfg and the health it answers: what the
// remote and Kubernetes targets ask their brokers through.
func Open(cfg kafkaadmin.Config) (*kafkaadmin.Admin, Health, error) {
	admin, err := kafkaadmin.New(cfg)
	if err != nil {
		return nil, Health{}, err
	}
	return admin, New(admin), nil
}

// Up is a cluster kbf did not start: it is taken as it is, its nodes
// running, once kbf's topics exist, every ISR is full and every partition
// is led by its preferred replica.
func (h Health) Up(ctx context.Context) (cluster.UpInfo, error) {
	start := time.Now()
	if _, err := h.admin.EnsureTopics(ctx); err != nil {
		return cluster.UpInfo{}, err
	}
	if err := h.admin.WaitISRFull(ctx, h.admin.TopicNames()...); err != nil {
		return cluster.UpInfo{}, err
	}
	// The baseline asks for every partition led by its preferred replica,
	// and after a fault nothing moves the leaders back before Kafka's own
	// rebalance, minutes later: the election Kafka would run, run now.
	if _, err := h.admin.EnsurePreferred(ctx); err != nil {
		return cluster.UpInfo{}, err
	}
	return cluster.UpInfo{Reused: true, Took: time.Since(start)}, nil
}

// Partitions describes topic's partitions as the brokers see them; a
// topic they do not know is an error wrapping cluster.ErrNoTopic.
func (h Health) Partitions(ctx context.Context, topic string) ([]cluster.Partition, error) {
	parts, err := h.admin.Describe(ctx, topic)
	if errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.UnknownTopicID) {
		return nil, fmt.Errorf("%w: %w", cluster.ErrNoTopic, err)
	}
	if err != nil {
		return nil, err
	}
	return partitions(parts, topic), nil
}

// PartitionsSeenBy describes topic's partitions as broker id sees them.
func (h Health) PartitionsSeenBy(ctx context.Context, topic string, id int32) ([]cluster.Partition, error) {
	parts, err := h.admin.DescribeBy(ctx, id, topic)
	if err != nil {
		return nil, err
	}
	return partitions(parts, topic), nil
}

func partitions(parts []kafkaadmin.Partition, topic string) []cluster.Partition {
	out := make([]cluster.Partition, 0, len(parts))
	for _, p := range parts {
		if p.Topic != topic {
			continue
		}
		out = append(out, cluster.Partition{Partition: p.Partition, Leader: p.Leader, Replicas: p.Replicas, ISR: p.ISR, TopicID: p.TopicID})
	}
	return out
}

// WaitISRFull waits until every partition of topics has a full ISR.
func (h Health) WaitISRFull(ctx context.Context, topics ...string) error {
	return h.admin.WaitISRFull(ctx, topics...)
}

// EnsurePreferred runs a preferred leader election where one is due, on
// topics (none: kbf's topics).
func (h Health) EnsurePreferred(ctx context.Context, topics ...string) error {
	_, err := h.admin.EnsurePreferred(ctx, topics...)
	return err
}

// LeadersPreferred says whether every partition of topics is led by its
// first replica.
func (h Health) LeadersPreferred(ctx context.Context, topics ...string) (bool, error) {
	return h.admin.LeadersPreferred(ctx, topics...)
}

// TopicNames are kbf's topics, those recovery waits for.
func (h Health) TopicNames() []string { return h.admin.TopicNames() }

// Coordinator is the node id of the broker coordinating key of kind now,
// as FindCoordinator answers.
func (h Health) Coordinator(ctx context.Context, kind results.CoordinatorKind, key string) (int32, error) {
	switch kind {
	case results.CoordinatorGroup:
		return h.admin.GroupCoordinator(ctx, key)
	case results.CoordinatorTransaction:
		return h.admin.TxnCoordinator(ctx, key)
	}
	return -1, fmt.Errorf("coordinator of %q: want a group's or a transactional id's", kind)
}

// Quorum is the controllers' quorum as the brokers describe it, for a
// target that names its nodes with node (a service, a pod) and asks
// through the admin client admin returns (one a target may make anew);
// none says, in an error, what a node id node does not know is not
// ("no pod kbf found"). With direct (not nil) it asks the controllers
// themselves first, and the brokers only where it reaches none.
func Quorum(admin func() *kafkaadmin.Admin, node func(id int32) (string, bool), none string, direct *Controllers) cluster.Quorum {
	q := quorum{
		viaBrokers: func(ctx context.Context) (kafkaadmin.Quorum, error) { return admin().DescribeQuorum(ctx) },
		node:       node,
		none:       none,
	}
	if direct != nil { // a nil *Controllers in the interface would not be nil
		q.direct = direct
	}
	return q
}

type quorum struct {
	viaBrokers func(ctx context.Context) (kafkaadmin.Quorum, error)
	direct     leaderAsker // nil: the brokers only
	node       func(id int32) (string, bool)
	none       string
}

// leaderAsker asks the controllers themselves (Controllers.Leader).
type leaderAsker interface {
	Leader(ctx context.Context) (kafkaadmin.Quorum, bool, error)
}

// describe is the quorum as its leader describes it: asked of the
// controllers where they are reached, else through a broker, which
// forwards the question to the controller it believes leads. A quorum the
// reached controllers say has no leader is not asked of the brokers: the
// one they would name is the one that just died.
func (q quorum) describe(ctx context.Context) (kafkaadmin.Quorum, error) {
	if q.direct != nil {
		qd, reached, err := q.direct.Leader(ctx)
		if reached {
			return qd, err
		}
	}
	return q.viaBrokers(ctx)
}

// ActiveController names the node leading the metadata quorum.
func (q quorum) ActiveController(ctx context.Context) (string, int32, int32, error) {
	qd, err := q.describe(ctx)
	if err != nil {
		return "", -1, -1, err
	}
	name, ok := q.node(qd.Leader)
	if !ok {
		return "", qd.Leader, qd.Epoch, fmt.Errorf("the quorum's leader, node %d, is %s", qd.Leader, q.none)
	}
	return name, qd.Leader, qd.Epoch, nil
}

// Rejoined reports whether controller id has caught up with the quorum's
// leader since since, as the leader describes the quorum.
func (q quorum) Rejoined(ctx context.Context, id int32, since time.Time) (bool, string, error) {
	qd, err := q.describe(ctx)
	if err != nil {
		return false, "", err
	}
	ok, where := qd.CaughtUpSince(id, since)
	return ok, where, nil
}
