// Package replicas watches a topic's replicas while a trial probes it: every
// replica's log end offset (LEO), the high watermark (HW), the leader and its
// epoch, and the ISR, ELR and last known ELR, each sampled about every
// Interval. It writes what it sees as results.ReplicaSample rows, the replica
// view of a trial (replicas.csv), from which the analysis draws the LEOs and
// the HW through a fault: the dead follower's LEO frozen, the HW held until
// the fence, the new leader's LEO taking over.
//
// Each broker is asked on a loop of its own, so a broker that is dead or
// frozen delays only its own samples: its requests time out (Timeout) and
// are recorded as such, while the other replicas go on being sampled at the
// interval.
//
// A partition with no leader (leader -1: the last replica of its ISR died,
// or two of three brokers did) is sampled as any other: every live broker
// of its replica assignment still answers with its own LEO, while no broker
// answers as leader, so its rows carry no HW (-1) until a leader is elected
// again. A replica of the assignment that answers with an error for the
// partition (its log not loaded yet after a restart) gets a row saying so,
// rather than none.
package replicas

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbf-project/kbf/kafkaadmin"
	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/results"
)

// debugReplicaID is ListOffsets' replica id for a debugging client: a broker
// answers it from a follower replica as from the leader, with the replica's
// own log end offset rather than the high watermark (checked on Kafka 4.3.1).
const debugReplicaID = -2

// Config is what to watch and how often.
type Config struct {
	Bootstrap  []string
	Topic      string
	Partitions []int32 // empty: every partition of Topic
	// Interval is the time between two samples of one broker (default
	// 100 ms).
	Interval time.Duration
	// Timeout bounds each request (default 1 s): the longest a dead or
	// frozen broker holds its own loop.
	Timeout time.Duration
	// Flush is how often rows reach the file (default 1 s).
	Flush time.Duration
	// Security secures the client (--command-config); nil is PLAINTEXT.
	Security *kafkasec.Config
}

func (c *Config) defaults() {
	if c.Interval <= 0 {
		c.Interval = 100 * time.Millisecond
	}
	if c.Timeout <= 0 {
		c.Timeout = time.Second
	}
	if c.Flush <= 0 {
		c.Flush = time.Second
	}
}

// Sampler samples the replicas of a topic. Make one with New, call Run once,
// then Close.
type Sampler struct {
	cfg     Config
	cl      *kgo.Client
	brokers []int32

	mu    sync.Mutex
	enc   *results.ReplicaEncoder
	werr  error
	stats results.ReplicaStats
	// assigned are each partition's replicas, as the cluster last listed
	// them (DescribeTopicPartitions lists them even without a leader).
	assigned map[int32][]int32
}

// New connects to the cluster and learns its brokers and the topic's
// partitions.
func New(ctx context.Context, cfg Config, w io.Writer) (*Sampler, error) {
	cfg.defaults()
	if cfg.Topic == "" {
		return nil, errors.New("replica view: no topic")
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(cfg.Bootstrap...), kgo.MetadataMinAge(cfg.Interval)}, cfg.Security.KgoOpts()...)...)
	if err != nil {
		return nil, fmt.Errorf("replica view: %w", err)
	}
	s := &Sampler{cfg: cfg, cl: cl, enc: results.NewReplicaEncoder(w),
		stats:    results.ReplicaStats{Interval: cfg.Interval, LongestGap: map[int32]time.Duration{}},
		assigned: map[int32][]int32{}}
	if err := s.discover(ctx); err != nil {
		cl.Close()
		return nil, err
	}
	return s, nil
}

// discover finds the brokers, the partitions' replicas and, when none were
// named, the partitions. A broker the assignment lists but the metadata
// does not (down when the sampler started) is asked too.
func (s *Sampler) discover(ctx context.Context) error {
	req := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(s.cfg.Topic)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, s.cl)
	if err != nil {
		return fmt.Errorf("replica view: metadata: %w", err)
	}
	for _, b := range resp.Brokers {
		s.brokers = append(s.brokers, b.NodeID)
	}
	if len(resp.Topics) != 1 {
		return fmt.Errorf("replica view: metadata of %s: %d topics in the answer", s.cfg.Topic, len(resp.Topics))
	}
	if err := kerr.ErrorForCode(resp.Topics[0].ErrorCode); err != nil {
		return fmt.Errorf("replica view: topic %s: %w", s.cfg.Topic, err)
	}
	for _, p := range resp.Topics[0].Partitions {
		s.assigned[p.Partition] = slices.Clone(p.Replicas)
		s.brokers = append(s.brokers, p.Replicas...)
	}
	slices.Sort(s.brokers)
	s.brokers = slices.Compact(s.brokers)
	if len(s.cfg.Partitions) == 0 {
		for _, p := range resp.Topics[0].Partitions {
			s.cfg.Partitions = append(s.cfg.Partitions, p.Partition)
		}
		slices.Sort(s.cfg.Partitions)
	}
	return nil
}

// isReplica reports whether broker b is among partition p's replicas as
// the cluster last listed them.
func (s *Sampler) isReplica(p, b int32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.assigned[p], b)
}

// Brokers returns the brokers the sampler asks, by node id.
func (s *Sampler) Brokers() []int32 { return slices.Clone(s.brokers) }

// Run samples until ctx is done and flushes what it saw. The error is the
// first write error; a broker that does not answer is recorded, not an
// error.
func (s *Sampler) Run(ctx context.Context) (results.ReplicaStats, error) {
	var wg sync.WaitGroup
	for _, b := range s.brokers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.loop(ctx, func(ctx context.Context) []results.ReplicaSample { return s.sampleBroker(ctx, b) },
				func(d time.Duration) {
					s.stats.LongestGap[b] = max(s.stats.LongestGap[b], d)
				})
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.loop(ctx, s.sampleState, func(d time.Duration) { s.stats.StateLongestGap = max(s.stats.StateLongestGap, d) })
	}()

	t := time.NewTicker(s.cfg.Flush)
	defer t.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-t.C:
		}
		if done {
			wg.Wait()
		}
		s.mu.Lock()
		if err := s.enc.Flush(); err != nil && s.werr == nil {
			s.werr = fmt.Errorf("replica view: %w", err)
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.LongestGap = maps.Clone(st.LongestGap)
	return st, s.werr
}

// loop calls sample every interval, on an absolute schedule, until ctx is
// done, recording its rows and the gap between two answers.
func (s *Sampler) loop(ctx context.Context, sample func(context.Context) []results.ReplicaSample, gap func(time.Duration)) {
	next := time.Now()
	var last time.Time
	for ctx.Err() == nil {
		rctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		rows := sample(rctx)
		cancel()
		if ctx.Err() != nil {
			return // an answer cut short by the end of the trial says nothing
		}
		now := time.Now()
		s.mu.Lock()
		if !last.IsZero() {
			gap(now.Sub(last))
		}
		for i := range rows {
			s.enc.Encode(&rows[i])
		}
		s.stats.Rows += len(rows)
		s.mu.Unlock()
		last = now
		// A late sample is not made up for: the next one is due at the next
		// slot from now.
		for next = next.Add(s.cfg.Interval); !next.After(now); next = next.Add(s.cfg.Interval) {
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(next)):
		}
	}
}

// sampleBroker asks broker b for its replicas' LEOs and, for the partitions
// it leads, the high watermark. Whether the partition has a leader does not
// matter to the LEO: only the HW needs one.
func (s *Sampler) sampleBroker(ctx context.Context, b int32) []results.ReplicaSample {
	leo, lerr := s.listOffsets(ctx, b, debugReplicaID)
	hw, _ := s.listOffsets(ctx, b, -1)
	now := time.Now().UTC()
	var rows []results.ReplicaSample
	for _, p := range s.cfg.Partitions {
		row := results.ReplicaSample{Time: now, Partition: p, Broker: b, LEO: -1, HW: -1}
		a := leo[p]
		switch {
		case lerr != nil:
			row.Err = shortError(lerr)
		case a.err == nil:
			row.LEO = a.offset
		case s.isReplica(p, b):
			row.Err = shortError(a.err)
		default:
			continue // not a replica of p
		}
		if h, ok := hw[p]; ok && h.err == nil {
			row.HW = h.offset
		}
		rows = append(rows, row)
	}
	return rows
}

// offsetAnswer is a broker's answer for one partition: its offset, or why
// it gave none.
type offsetAnswer struct {
	offset int64
	err    error
}

// errNoAnswer is a partition the broker's answer left out.
var errNoAnswer = errors.New("no answer for the partition")

// listOffsets asks broker b for the latest offset of every probed partition
// as replica id rid, returning each partition's answer (errNoAnswer for one
// left out): as the debugging replica (-2) every replica answers with its
// LEO; as a consumer (-1, read uncommitted) only the leader answers, with
// the HW.
func (s *Sampler) listOffsets(ctx context.Context, b int32, rid int32) (map[int32]offsetAnswer, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = rid
	t := kmsg.NewListOffsetsRequestTopic()
	t.Topic = s.cfg.Topic
	for _, p := range s.cfg.Partitions {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition = p
		rp.CurrentLeaderEpoch = -1
		rp.Timestamp = -1 // latest
		t.Partitions = append(t.Partitions, rp)
	}
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, s.cl.Broker(int(b)))
	if err != nil {
		return nil, err
	}
	got := make(map[int32]offsetAnswer, len(s.cfg.Partitions))
	for _, p := range s.cfg.Partitions {
		got[p] = offsetAnswer{offset: -1, err: errNoAnswer}
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			a := offsetAnswer{offset: rp.Offset, err: kerr.ErrorForCode(rp.ErrorCode)}
			if a.err == nil && rp.Offset < 0 {
				a.err = errNoAnswer
			}
			got[rp.Partition] = a
		}
	}
	return got, nil
}

// sampleState asks the cluster for each partition's leader, epoch, ISR,
// ELR and last known ELR.
func (s *Sampler) sampleState(ctx context.Context) []results.ReplicaSample {
	parts, err := s.describe(ctx)
	now := time.Now().UTC()
	want := make(map[int32]bool, len(s.cfg.Partitions))
	for _, p := range s.cfg.Partitions {
		want[p] = true
	}
	failed := func(err error) []results.ReplicaSample {
		rows := make([]results.ReplicaSample, 0, len(s.cfg.Partitions))
		for _, p := range s.cfg.Partitions {
			rows = append(rows, results.ReplicaSample{Time: now, Partition: p, Broker: -1, LEO: -1, HW: -1, Leader: -1, LeaderEpoch: -1, Err: shortError(err)})
		}
		return rows
	}
	if err != nil {
		return failed(err)
	}
	var rows []results.ReplicaSample
	for _, rp := range parts {
		if !want[rp.Partition] {
			continue
		}
		row := results.ReplicaSample{Time: now, Partition: rp.Partition, Broker: -1, LEO: -1, HW: -1,
			Leader: rp.LeaderID, LeaderEpoch: rp.LeaderEpoch,
			ISR: slices.Clone(rp.ISR), ELR: slices.Clone(rp.EligibleLeaderReplicas), LastKnownELR: slices.Clone(rp.LastKnownELR)}
		if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
			row.Err = shortError(err)
		}
		if len(rp.Replicas) > 0 {
			s.mu.Lock()
			s.assigned[rp.Partition] = slices.Clone(rp.Replicas)
			s.mu.Unlock()
		}
		rows = append(rows, row)
	}
	slices.SortFunc(rows, func(a, b results.ReplicaSample) int { return int(a.Partition - b.Partition) })
	return rows
}

// describe asks for the topic's partitions' state, a page of at most
// describeLimit partitions at a time: a topic of more is asked on from the
// answer's cursor, so that every partition has its state.
func (s *Sampler) describe(ctx context.Context) ([]kmsg.DescribeTopicPartitionsResponseTopicPartition, error) {
	var out []kmsg.DescribeTopicPartitionsResponseTopicPartition
	err := kafkaadmin.DescribeTopicPartitions(ctx, s.cl, []string{s.cfg.Topic}, describeLimit,
		func(_ string, p *kmsg.DescribeTopicPartitionsResponseTopicPartition) { out = append(out, *p) })
	return out, err
}

// describeLimit is the most partitions one DescribeTopicPartitions answer
// holds (the broker's own limit is 2,000); a variable for the tests.
var describeLimit int32 = 2000

// Close closes the sampler's client.
func (s *Sampler) Close() { s.cl.Close() }

// shortError names why a broker gave no answer in a few words: a Kafka
// error by its name, without the paragraph that explains it.
func shortError(err error) string {
	var ke *kerr.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &ke):
		return ke.Message
	}
	return err.Error()
}
