package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbf-project/kbf/results"
)

// Load is one load generator. Make it with New, then call Run once; Close
// releases the clients of a load that never ran.
type Load struct {
	cfg      Config
	settings results.LoadSettings
	prod     *kgo.Client
	cons     *kgo.Client
	count    *counter
	enc      *results.LoadEncoder
	value    []byte
	once     sync.Once
}

// tick is how often the load sends what is due.
const tick = 10 * time.Millisecond

// drain is how long, once sending stops, the load waits for its
// outstanding acks.
const drain = 2 * time.Second

// New makes the load's topic if it does not exist (like cfg.Like), and
// connects its producer and its consumer, which reads the topic from its
// end. Its rows go to w.
func New(ctx context.Context, cfg Config, w io.Writer) (*Load, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	base := append([]kgo.Opt{kgo.SeedBrokers(cfg.Bootstrap...)}, cfg.Security.KgoOpts()...)
	admin, err := kgo.NewClient(base...)
	if err != nil {
		return nil, fmt.Errorf("load: admin client: %w", err)
	}
	defer admin.Close()
	parts, rf, err := ensureTopic(ctx, kadm.NewClient(admin), cfg.Topic, cfg.Like)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	l := &Load{cfg: cfg, settings: cfg.settings(parts, rf), count: newCounter(nil),
		enc: results.NewLoadEncoder(w), value: make([]byte, cfg.Size)}
	for i := range l.value {
		l.value[i] = 'a' + byte(i%26)
	}
	// A default producer, as an application's would be, but for acks=all
	// and a bounded buffer: past it a record fails at once, not blocks the
	// schedule or grows the memory.
	l.prod, err = kgo.NewClient(append(base,
		kgo.DefaultProduceTopic(cfg.Topic),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.MaxBufferedBytes(BufferMemory),
		kgo.MaxBufferedRecords(BufferMemory/cfg.Size+1),
	)...)
	if err != nil {
		return nil, fmt.Errorf("load: producer: %w", err)
	}
	l.cons, err = kgo.NewClient(append(base,
		kgo.ConsumeTopics(cfg.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd()),
		kgo.FetchMaxBytes(16<<20),
	)...)
	if err != nil {
		l.prod.Close()
		return nil, fmt.Errorf("load: consumer: %w", err)
	}
	return l, nil
}

// ensureTopic makes topic like like — its partitions, replication factor
// and a min.insync.replicas set on it — unless it exists, and returns its
// shape.
func ensureTopic(ctx context.Context, adm *kadm.Client, topic, like string) (partitions, replication int, err error) {
	tds, err := adm.ListTopics(ctx, topic, like)
	if err != nil {
		return 0, 0, fmt.Errorf("list topics: %w", err)
	}
	if td, ok := tds[topic]; ok && td.Err == nil {
		return len(td.Partitions), td.Partitions.NumReplicas(), nil
	}
	ld, ok := tds[like]
	if !ok || ld.Err != nil || len(ld.Partitions) == 0 {
		return 0, 0, fmt.Errorf("the probe's topic %s is not there to make %s like it", like, topic)
	}
	partitions, replication = len(ld.Partitions), ld.Partitions.NumReplicas()
	configs := map[string]*string{}
	if rcs, err := adm.DescribeTopicConfigs(ctx, like); err == nil && len(rcs) == 1 {
		for _, c := range rcs[0].Configs {
			if c.Key == "min.insync.replicas" && c.Source == kmsg.ConfigSourceDynamicTopicConfig {
				configs[c.Key] = c.Value
			}
		}
	}
	resp, err := adm.CreateTopic(ctx, int32(partitions), int16(replication), configs, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return 0, 0, fmt.Errorf("create topic %s: %w", topic, err)
	}
	return partitions, replication, nil
}

// Settings are what meta.json records of the load.
func (l *Load) Settings() results.LoadSettings { return l.settings }

// Close closes the load's clients. It may be called more than once, and
// after Run.
func (l *Load) Close() {
	l.once.Do(func() {
		l.prod.Close()
		l.cons.Close()
	})
}

// Run sends at the load's rate until ctx is done, reading its topic beside
// it, writing each second's row once it is over; then it waits a little
// for the acks outstanding, writes the last rows and closes the clients.
// The error is the first write error.
func (l *Load) Run(ctx context.Context) (Totals, error) {
	defer l.Close()
	l.count.start()
	consCtx, stopCons := context.WithCancel(context.WithoutCancel(ctx))
	consDone := make(chan struct{})
	go func() {
		defer close(consDone)
		l.consume(consCtx)
	}()
	werr := l.send(ctx)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), drain)
	defer cancel()
	if err := l.prod.Flush(dctx); err != nil {
		// what is still outstanding fails as the clients close
		l.prod.PurgeTopicsFromProducing(l.cfg.Topic)
	}
	stopCons()
	<-consDone
	l.Close()
	return l.count.totals(), errors.Join(werr, l.write(true))
}

// send produces what is due every tick until ctx is done, writing the
// seconds that are over each second.
func (l *Load) send(ctx context.Context) error {
	start := time.Now()
	t := time.NewTicker(tick)
	defer t.Stop()
	var scheduled int64
	lastWrite := start
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			var n int64
			n, scheduled = pace(l.cfg.Rate, now.Sub(start), scheduled)
			for range n {
				l.produce(ctx)
			}
			if now.Sub(lastWrite) >= time.Second {
				lastWrite = now
				if err := l.write(false); err != nil {
					return err
				}
			}
		}
	}
}

func (l *Load) produce(ctx context.Context) {
	l.count.add(evSent, 1, "")
	// The record's context must outlive ctx: what is buffered when
	// sending stops is acked in the drain.
	l.prod.TryProduce(context.WithoutCancel(ctx), &kgo.Record{Value: l.value}, func(_ *kgo.Record, err error) {
		switch {
		case err == nil:
			l.count.add(evAcked, 1, "")
		case errors.Is(err, kgo.ErrMaxBuffered):
			l.count.add(evFailed, 1, "not sent: the producer's buffer was full")
		default:
			l.count.add(evFailed, 1, err.Error())
		}
	})
}

// consume reads the load's topic until ctx is done, counting its records.
func (l *Load) consume(ctx context.Context) {
	for {
		fs := l.cons.PollFetches(ctx)
		if ctx.Err() != nil {
			return
		}
		if n := int64(fs.NumRecords()); n > 0 {
			l.count.add(evReceived, n, "")
		}
	}
}

// write writes the seconds that are over (every one when final).
func (l *Load) write(final bool) error {
	for _, s := range l.count.done(final) {
		l.enc.Encode(&s)
	}
	if err := l.enc.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", results.LoadFile, err)
	}
	return nil
}
