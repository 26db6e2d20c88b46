// Package probe is kbf's instrument: for each partition of a topic it produces
// one record every interval and reads the same partitions back in the same
// process, writing each message's send, ack and receive times to the results
// CSV (results.Message) and the clients' own log to client.log. After a
// trial it reads the partitions back from the first offset it wrote
// (ReadBack), so every acknowledged record can be accounted for.
package probe

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kbf-project/kbf/internal/probespec"
	"github.com/kbf-project/kbf/kafkasec"
)

// Config is one probe's configuration. The client settings shape the stall a
// probe measures, so their defaults are chosen not to add one of their own —
// no lingering, retries and metadata refreshes about as eager as librdkafka's
// — and every one of them is written into the run's metadata.
type Config struct {
	Bootstrap  []string
	Topic      string
	Partitions []int32 // empty: every partition of Topic
	Interval   time.Duration
	Acks       string // "all" or "1"

	// Linger is how long the producer waits to batch records (franz-go's
	// default is 10 ms; the probe sends each record at once).
	Linger time.Duration
	// RetryBackoff and RetryBackoffMax bound the exponential backoff between
	// retries of a failed request (franz-go: 250 ms to 5 s; librdkafka:
	// 100 ms to 1 s).
	RetryBackoff, RetryBackoffMax time.Duration
	// MetadataMinAge is the least time between two metadata refreshes, also
	// after an error (franz-go: 5 s; librdkafka's fast refresh: 100 ms).
	MetadataMinAge time.Duration
	// DeliveryTimeout is how long a record may wait for its ack before the
	// producer fails it (franz-go: unlimited; librdkafka's
	// message.timeout.ms: 300 s).
	DeliveryTimeout time.Duration
	// ProduceTimeout is the produce request's timeout, how long the leader
	// may wait for the ISR before answering (franz-go: 10 s).
	ProduceTimeout time.Duration
	// RequestTimeoutOverhead is how long past a request's own timeout the
	// client waits for its answer before it gives up on the connection: what
	// a broker that stops answering without closing its connections costs
	// (franz-go: 10 s).
	RequestTimeoutOverhead time.Duration
	// FetchMaxWait is how long the broker may hold a fetch with no new data
	// (franz-go: 5 s; Kafka's fetch.max.wait.ms: 500 ms).
	FetchMaxWait time.Duration
	// Drain is how long, once sending stops, the probe waits for the acks
	// and reads still outstanding.
	Drain time.Duration
	// SteadyGap is the longest ack or receive gap a steady partition has
	// (PartitionStats.AckSteadySince); zero means SteadyBound's default.
	SteadyGap time.Duration
	// LogLevel is the clients' log level written to client.log.
	LogLevel kgo.LogLevel
	// NoKIP951 turns off KIP-951 leader discovery: the clients then use
	// Produce and Fetch versions below those whose answers name a
	// partition's current leader (Produce v10, Fetch v16), so a moved
	// leader is learnt from a metadata refresh only. Metadata's own
	// version is left alone: KIP-951 changed no Metadata field.
	NoKIP951 bool

	// RunID marks this run's records; empty picks a random one.
	RunID string

	// Consumer is how the probe reads: results.ConsumerAssign (empty too),
	// its own reader alone, which assigns itself the partitions, or
	// results.ConsumerGroup, a group reader beside it, on the same records.
	Consumer string
	// Group is the consumer group the group reader joins; empty: no group reader
	Group string
	// GroupProtocol is the group reader's protocol, results.GroupProtocolClassic
	// (empty too) or results.GroupProtocolConsumer (KIP-848).
	GroupProtocol string
	// Commit is how the group reader commits: results.CommitSync (empty
	// too), CommitAsync or CommitInterval (autocommit, every
	// AutoCommitInterval).
	Commit string

	// Producer is how the probe writes: results.ProducerIdempotent (empty
	// too) or results.ProducerTransactional, in transactions of TxnRecords
	// records or TxnInterval, whichever first, read back at read_committed.
	Producer    string
	TxnRecords  int
	TxnInterval time.Duration
	// TxnID is the transactional producer's id; Identified chooses it.
	TxnID string

	// Security secures every client as a --command-config file says (TLS,
	// SASL); nil speaks PLAINTEXT. Its JSON and its String are what may be
	// recorded (kafkasec.Description), never a secret.
	Security *kafkasec.Config
}

// SteadyBound is the longest ack or receive gap of a steady partition:
// SteadyGap, or by default max(10 × Interval, 200 ms) — ten records in a
// row late, and more than a scheduler's or a collector's hiccup. A
// transactional probe's records become readable only when their
// transaction commits, so its reader receives in bursts up to
// TxnInterval apart: its default bound is that much longer.
func (c *Config) SteadyBound() time.Duration {
	if c.SteadyGap > 0 {
		return c.SteadyGap
	}
	d := max(10*c.Interval, 200*time.Millisecond)
	if c.Transactional() {
		d += c.TxnInterval
	}
	return d
}

// Defaults returns the probe's defaults.
func Defaults() Config {
	return Config{
		Bootstrap:              []string{"127.0.0.1:19092", "127.0.0.1:19093", "127.0.0.1:19094"},
		Topic:                  "orders",
		Interval:               20 * time.Millisecond,
		Acks:                   "all",
		Linger:                 0,
		RetryBackoff:           100 * time.Millisecond,
		RetryBackoffMax:        time.Second,
		MetadataMinAge:         100 * time.Millisecond,
		DeliveryTimeout:        300 * time.Second,
		ProduceTimeout:         10 * time.Second,
		RequestTimeoutOverhead: 10 * time.Second,
		FetchMaxWait:           500 * time.Millisecond,
		Drain:                  10 * time.Second,
		LogLevel:               kgo.LogLevelDebug,
		TxnRecords:             DefaultTxnRecords,
		TxnInterval:            DefaultTxnInterval,
	}
}

// Validate reports the first setting that cannot work.
func (c *Config) Validate() error {
	if err := (probespec.Sending{Bootstrap: c.Bootstrap, Topic: c.Topic, Interval: c.Interval, Acks: c.Acks}).Check(); err != nil {
		return err
	}
	switch {
	case c.Linger < 0, c.RetryBackoff < 0, c.MetadataMinAge < 0, c.FetchMaxWait < 0, c.Drain < 0, c.SteadyGap < 0:
		return errors.New("durations must not be negative")
	case c.RetryBackoffMax < c.RetryBackoff:
		return fmt.Errorf("retry backoff max %v is below retry backoff %v", c.RetryBackoffMax, c.RetryBackoff)
	case c.DeliveryTimeout <= 0:
		return fmt.Errorf("delivery timeout %v: must be positive", c.DeliveryTimeout)
	case c.ProduceTimeout <= 0:
		return fmt.Errorf("produce timeout %v: must be positive", c.ProduceTimeout)
	case c.RequestTimeoutOverhead <= 0:
		return fmt.Errorf("request timeout overhead %v: must be positive", c.RequestTimeoutOverhead)
	}
	if err := c.validateClientLimits(); err != nil { // limits.go
		return err
	}
	if err := c.validateGroup(); err != nil {
		return err
	}
	if err := c.validateTxn(); err != nil {
		return err
	}
	for _, p := range c.Partitions {
		if p < 0 {
			return fmt.Errorf("partition %d: must not be negative", p)
		}
	}
	return nil
}

// backoff is an exponential backoff from min to max with ±20% jitter, as
// franz-go's own but with the probe's bounds.
func backoff(min, max time.Duration) func(int) time.Duration {
	return func(fails int) time.Duration {
		if fails <= 0 {
			return min
		}
		d := min
		for i := 1; i < fails && d < max; i++ {
			d *= 2
		}
		d = time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
		return clamp(d, min, max)
	}
}

func clamp(d, min, max time.Duration) time.Duration {
	if d < min {
		return min
	}
	if d > max {
		return max
	}
	return d
}

// clientOpts returns the options both clients share.
func (c *Config) clientOpts() []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(c.Bootstrap...),
		kgo.RetryBackoffFn(backoff(c.RetryBackoff, c.RetryBackoffMax)),
		kgo.MetadataMinAge(c.MetadataMinAge),
		kgo.RequestTimeoutOverhead(c.RequestTimeoutOverhead),
	}
	if c.NoKIP951 {
		opts = append(opts, kgo.MaxVersions(noKIP951Versions()))
	}
	return append(opts, c.Security.KgoOpts()...)
}

// The last request versions whose answers carry no current-leader hint:
// KIP-951 added CurrentLeader to Produce v10 and Fetch v16.
const (
	maxProduceNoKIP951 = 9
	maxFetchNoKIP951   = 15
)

// noKIP951Versions are franz-go's default versions (kversion.Stable) with
// Produce and Fetch capped below KIP-951.
func noKIP951Versions() *kversion.Versions {
	vs := kversion.Stable()
	vs.SetMaxKeyVersion(kmsg.Produce.Int16(), maxProduceNoKIP951)
	vs.SetMaxKeyVersion(kmsg.Fetch.Int16(), maxFetchNoKIP951)
	return vs
}

func (c *Config) producerOpts() []kgo.Opt {
	opts := []kgo.Opt{
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(c.Linger),
		kgo.RecordDeliveryTimeout(c.DeliveryTimeout),
		kgo.ProduceRequestTimeout(c.ProduceTimeout),
	}
	if c.Acks == "1" {
		// acks=1 cannot be idempotent.
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	} else {
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	}
	return opts
}

// Effective returns the client configuration in effect, by setting name, for
// the run's metadata.
func (c *Config) Effective() map[string]string {
	d := func(v time.Duration) string { return v.String() }
	idem, inflight := "true", "5 per broker"
	if c.Acks == "1" {
		idem, inflight = "false", "1 per broker"
	}
	e := map[string]string{
		"client":                   "franz-go " + kgoVersion(),
		"acks":                     c.Acks,
		"idempotent":               idem,
		"linger":                   d(c.Linger),
		"retry_backoff":            d(c.RetryBackoff),
		"retry_backoff_max":        d(c.RetryBackoffMax),
		"metadata_min_age":         d(c.MetadataMinAge),
		"metadata_max_age":         "5m0s",
		"record_delivery_timeout":  d(c.DeliveryTimeout),
		"produce_request_timeout":  d(c.ProduceTimeout),
		"request_timeout_overhead": d(c.RequestTimeoutOverhead),
		"dial_timeout":             "10s",
		"retry_first_read_eof":     "true (after the admin client's requests proved the configuration)",
		"fetch_max_wait":           d(c.FetchMaxWait),
		"max_produce_inflight":     inflight,
		"interval":                 d(c.Interval),
		"drain":                    d(c.Drain),
		"log_level":                c.LogLevel.String(),
		"kip951":                   strconv.FormatBool(!c.NoKIP951),
		"consumer":                 "direct partition assignment, no group, read_uncommitted",
		"partitions":               strconv.Itoa(len(c.Partitions)),
	}
	c.groupEffective(e)
	c.txnEffective(e)
	return e
}

// kgoVersion is the franz-go version this binary was built with.
func kgoVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/twmb/franz-go" {
				return dep.Version
			}
		}
	}
	return "(unknown version)"
}
