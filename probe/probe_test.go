package probe

import (
	"bytes"
	"context"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbf-project/kbf/results"
)

// These tests check the probe's bookkeeping against kfake, franz-go's fake
// cluster. kfake moves leaders and injects errors but has no ISR, high
// watermark or fencing: no timing here says anything about Kafka.

func newFake(t *testing.T) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func testConfig(c *kfake.Cluster) Config {
	cfg := Defaults()
	cfg.Bootstrap = c.ListenAddrs()
	cfg.Interval = 5 * time.Millisecond
	cfg.Drain = 5 * time.Second
	return cfg
}

// runProbe runs a probe for d, calling during (if set) halfway, and returns
// the decoded messages.
func runProbe(t *testing.T, cfg Config, d time.Duration, during func()) ([]results.Message, *bytes.Buffer) {
	t.Helper()
	var csv, log bytes.Buffer
	ctx := context.Background()
	p, err := New(ctx, cfg, Output{Messages: &csv, ClientLog: &log})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if during != nil {
		time.AfterFunc(d/2, during)
	}
	stats, err := p.Run(rctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stats {
		if st.LongestSendGap < cfg.Interval/2 {
			t.Errorf("p%d longest send gap %v, below half the interval %v", st.Partition, st.LongestSendGap, cfg.Interval)
		}
		if st.Acked > 0 && (st.FirstAck.IsZero() || st.FirstAck.After(st.LastAck)) {
			t.Errorf("p%d first ack %v, last %v", st.Partition, st.FirstAck, st.LastAck)
		}
	}
	dec := results.NewDecoder(&csv, "probe.csv")
	var ms []results.Message
	for {
		var m results.Message
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("decode what the probe wrote: %v", err)
		}
		ms = append(ms, m)
	}
	return ms, &log
}

// checkComplete checks every message was acked and read exactly once, with
// sequences from 0 without holes, and offsets rising with sequences.
func checkComplete(t *testing.T, ms []results.Message, parts int) {
	t.Helper()
	type key struct {
		p int32
		s int64
	}
	seen := map[key]bool{}
	maxSeq := map[int32]int64{}
	offsetOf := map[key]int64{}
	for _, m := range ms {
		k := key{m.Partition, m.Seq}
		if seen[k] {
			t.Errorf("p%d seq %d written twice", m.Partition, m.Seq)
		}
		seen[k] = true
		if m.Err != "" || m.Acked.IsZero() || m.Received.IsZero() || m.Offset < 0 {
			t.Errorf("p%d seq %d incomplete: %+v", m.Partition, m.Seq, m)
		}
		if m.Acked.Before(m.Sent) {
			t.Errorf("p%d seq %d acked before it was sent", m.Partition, m.Seq)
		}
		if m.Seq > maxSeq[m.Partition] {
			maxSeq[m.Partition] = m.Seq
		}
		offsetOf[k] = m.Offset
	}
	if len(maxSeq) != parts {
		t.Fatalf("messages on %d partitions, want %d", len(maxSeq), parts)
	}
	for p, max := range maxSeq {
		if max < 10 {
			t.Errorf("p%d: only %d messages", p, max+1)
		}
		for s := int64(0); s <= max; s++ {
			if !seen[key{p, s}] {
				t.Errorf("p%d seq %d missing", p, s)
				continue
			}
			if s > 0 && offsetOf[key{p, s}] <= offsetOf[key{p, s - 1}] {
				t.Errorf("p%d seq %d at offset %d, not after seq %d's %d", p, s, offsetOf[key{p, s}], s-1, offsetOf[key{p, s - 1}])
			}
		}
	}
}

func TestProbeHealthy(t *testing.T) {
	c := newFake(t)
	ms, log := runProbe(t, testConfig(c), 400*time.Millisecond, nil)
	checkComplete(t, ms, 3)
	if log.Len() == 0 {
		t.Error("client log is empty")
	}
}

func TestProbeLeaderMoved(t *testing.T) {
	c := newFake(t)
	cfg := testConfig(c)
	moved := make(chan int32, 1)
	ms, log := runProbe(t, cfg, 600*time.Millisecond, func() {
		to := (c.LeaderFor("orders", 0) + 1) % 3 // kfake numbers nodes from 0
		if err := c.MoveTopicPartition("orders", 0, to); err != nil {
			t.Error(err)
		}
		moved <- to
	})
	checkComplete(t, ms, 3)
	// The producer must have learnt the new leader, and said so in the log
	// the timeline reads: from a metadata refresh, or from the broker's
	// NOT_LEADER_OR_FOLLOWER answer naming the new leader (KIP-951).
	to := <-moved
	learnt := regexp.MustCompile(`(?m)^\S+ \S+ producer (metadata refresh topic partition data changed|moving producing partition due to kip-951 \S+) topic=orders partition=0 new_leader=` + strconv.Itoa(int(to)) + ` `)
	if !learnt.Match(log.Bytes()) {
		t.Errorf("client log lacks the producer's leader change to %d:\n%s", to, grep(log.String(), "partition=0"))
	}
}

func TestProbeInjectedProduceError(t *testing.T) {
	c := newFake(t)
	cfg := testConfig(c)
	// p1 alone on node 1, so its produce requests carry no other partition.
	for part, node := range map[int32]int32{0: 0, 1: 1, 2: 0} {
		if err := c.MoveTopicPartition("orders", part, node); err != nil {
			t.Fatal(err)
		}
	}
	var armed, injected atomic.Int32
	// Once armed, answer one produce request carrying partition 1 with a
	// non-retriable error: those records fail, the others are unaffected.
	c.ControlKey(int16(kmsg.Produce), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if armed.Load() == 0 || injected.Load() > 0 {
			return nil, nil, false
		}
		req := kr.(*kmsg.ProduceRequest)
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		hit := false
		for _, rt := range req.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				if rp.Partition != 1 {
					return nil, nil, false
				}
				sp.ErrorCode = kerr.InvalidRecord.Code
				hit = true
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		if !hit {
			return nil, nil, false
		}
		injected.Add(1)
		return resp, nil, true
	})
	ms, _ := runProbe(t, cfg, 600*time.Millisecond, func() { armed.Store(1) })
	if injected.Load() == 0 {
		t.Fatal("no produce request for partition 1 after arming; nothing injected")
	}
	failed := map[int32]int{}
	for _, m := range ms {
		if m.Err != "" {
			failed[m.Partition]++
			if !bytes.Contains([]byte(m.Err), []byte("INVALID_RECORD")) {
				t.Errorf("p%d seq %d: error %q, want INVALID_RECORD", m.Partition, m.Seq, m.Err)
			}
			if !m.Acked.IsZero() {
				t.Errorf("p%d seq %d failed yet has an ack time", m.Partition, m.Seq)
			}
		}
	}
	if failed[1] == 0 {
		t.Errorf("no failed send recorded on p1; failed = %v", failed)
	}
	if failed[0]+failed[2] != 0 {
		t.Errorf("failures on partitions without an injected error: %v", failed)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Config)
	}{
		{"no bootstrap", func(c *Config) { c.Bootstrap = nil }},
		{"no topic", func(c *Config) { c.Topic = "" }},
		{"zero interval", func(c *Config) { c.Interval = 0 }},
		{"acks 0", func(c *Config) { c.Acks = "0" }},
		{"backoff max below min", func(c *Config) { c.RetryBackoffMax = time.Millisecond }},
		{"negative partition", func(c *Config) { c.Partitions = []int32{-1} }},
		{"zero delivery timeout", func(c *Config) { c.DeliveryTimeout = 0 }},
		// franz-go's own bounds (limits.go), refused before the client is made.
		{"metadata min age below 10ms", func(c *Config) { c.MetadataMinAge = 5 * time.Millisecond }},
		{"metadata min age past the max age", func(c *Config) { c.MetadataMinAge = 6 * time.Minute }},
		{"request timeout overhead below 100ms", func(c *Config) { c.RequestTimeoutOverhead = 50 * time.Millisecond }},
		{"request timeout overhead past 15m", func(c *Config) { c.RequestTimeoutOverhead = 16 * time.Minute }},
		{"produce timeout below 100ms", func(c *Config) { c.ProduceTimeout = 99 * time.Millisecond }},
		{"delivery timeout below 1s", func(c *Config) { c.DeliveryTimeout = 999 * time.Millisecond }},
		{"linger past a minute", func(c *Config) { c.Linger = 2 * time.Minute }},
		{"fetch max wait below 10ms", func(c *Config) { c.FetchMaxWait = time.Millisecond }},
	}
	good := Defaults()
	if err := good.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Defaults()
			tt.mod(&c)
			if err := c.Validate(); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestEffective checks the recorded configuration follows the settings, so
// a run read years later says what the clients really did.
func TestEffective(t *testing.T) {
	c := Defaults()
	c.Acks = "1"
	c.RequestTimeoutOverhead = 1500 * time.Millisecond
	c.MetadataMinAge = 250 * time.Millisecond
	c.ProduceTimeout = 3 * time.Second
	e := c.Effective()
	for k, want := range map[string]string{
		"acks": "1", "idempotent": "false", "request_timeout_overhead": "1.5s",
		"metadata_min_age": "250ms", "produce_request_timeout": "3s",
	} {
		if e[k] != want {
			t.Errorf("%s = %q, want %q", k, e[k], want)
		}
	}
}

// TestProbeClose checks a probe that never ran gives its clients back, and
// that Close may be called again, and after Run.
func TestProbeClose(t *testing.T) {
	c := newFake(t)
	ctx := context.Background()
	for _, run := range []bool{false, true} {
		p, err := New(ctx, testConfig(c), Output{Messages: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		if run {
			rctx, cancel := context.WithCancel(ctx)
			cancel()
			if _, err := p.Run(rctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := errors.Join(p.Close(), p.Close()); err != nil {
			t.Fatal(err)
		}
		r := &kgo.Record{Topic: "orders", Value: []byte("x")}
		if err := p.prod.ProduceSync(ctx, r).FirstErr(); !errors.Is(err, kgo.ErrClientClosed) {
			t.Errorf("run %v: produce after Close: %v, want the client closed", run, err)
		}
		if fs := p.cons.PollFetches(ctx); !fs.IsClientClosed() {
			t.Errorf("run %v: the consumer still polls after Close", run)
		}
	}
}

// TestNewBadTopic checks New fails cleanly for a topic that does not exist.
func TestNewBadTopic(t *testing.T) {
	c := newFake(t)
	cfg := testConfig(c)
	cfg.Topic = "nope"
	if _, err := New(context.Background(), cfg, Output{Messages: io.Discard}); err == nil {
		t.Fatal("a probe of a missing topic")
	}
}

// TestProbeCountsMissedSlots stalls the send loop by holding the probe's
// lock for a hundred intervals: the slots that pass meanwhile must be
// counted as missed on every partition, not sent late or dropped.
func TestProbeCountsMissedSlots(t *testing.T) {
	c := newFake(t)
	cfg := testConfig(c)
	var csv bytes.Buffer
	p, err := New(context.Background(), cfg, Output{Messages: &csv})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []PartitionStats)
	go func() {
		stats, err := p.Run(ctx)
		if err != nil {
			t.Error(err)
		}
		done <- stats
	}()
	for p.Progress()[0].Sent == 0 {
		time.Sleep(cfg.Interval)
	}
	p.mu.Lock()
	before := p.parts[p.cfg.Partitions[0]].stats.Sent
	time.Sleep(100 * cfg.Interval)
	p.mu.Unlock()
	// The loop held up by the lock may still owe partition 0 the slot it
	// was sending; the slot after that is sent only once the loop has seen
	// the missed ones. Cancelling sooner would end the loop before it looks.
	for p.Progress()[0].Sent < before+2 {
		time.Sleep(cfg.Interval)
	}
	cancel()
	stats := <-done
	for _, st := range stats {
		m := st.Missed
		if m.Count == 0 || len(m.Runs) == 0 || m.First.IsZero() || m.Last.Before(m.First) {
			t.Errorf("p%d missed %+v after a stall of 100 intervals", st.Partition, m)
		}
		var n int64
		for _, r := range m.Runs {
			n += r.Slots
		}
		if n != m.Count {
			t.Errorf("p%d runs hold %d slots, count %d", st.Partition, n, m.Count)
		}
		if st.Sent+m.Count != stats[0].Sent+stats[0].Missed.Count {
			t.Errorf("p%d: %d sent + %d missed; p%d %d + %d: every partition has the same slots",
				st.Partition, st.Sent, m.Count, stats[0].Partition, stats[0].Sent, stats[0].Missed.Count)
		}
	}
}

func TestSteady(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	bound := 200 * time.Millisecond
	for _, tt := range []struct {
		name      string
		last, now time.Time
		since     time.Time // before
		wantSince time.Time
		wantGap   time.Duration
	}{
		{"first", time.Time{}, t0, time.Time{}, t0, 0},
		{"within the bound", t0, t0.Add(bound), t0, t0, 0},
		{"past the bound", t0, t0.Add(bound + 1), t0.Add(-time.Hour), t0.Add(bound + 1), bound + 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			since, gap := tt.since, time.Duration(0)
			steady(&since, &gap, tt.last, tt.now, bound)
			if !since.Equal(tt.wantSince) || gap != tt.wantGap {
				t.Errorf("since %v gap %v, want %v %v", since, gap, tt.wantSince, tt.wantGap)
			}
		})
	}
}

// TestClientLimitsAreKgos: the probe's bounds are franz-go's: a client
// made with a value at each bound is accepted by kgo, and one past it
// refused, so the probe's refusal is never stricter or looser than kgo's.
func TestClientLimitsAreKgos(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*Config)
		ok   bool
	}{
		{"metadata min age at 10ms", func(c *Config) { c.MetadataMinAge = minMetadataMinAge }, true},
		{"metadata min age below", func(c *Config) { c.MetadataMinAge = minMetadataMinAge - 1 }, false},
		{"metadata min age at the max age", func(c *Config) { c.MetadataMinAge = kgoMetadataMaxAge }, true},
		{"metadata min age past the max age", func(c *Config) { c.MetadataMinAge = kgoMetadataMaxAge + 1 }, false},
		{"overhead at 100ms", func(c *Config) { c.RequestTimeoutOverhead = minRequestTimeoutOverhead }, true},
		{"overhead below", func(c *Config) { c.RequestTimeoutOverhead = minRequestTimeoutOverhead - 1 }, false},
		{"overhead at 15m", func(c *Config) { c.RequestTimeoutOverhead = maxRequestTimeoutOverhead }, true},
		{"overhead past", func(c *Config) { c.RequestTimeoutOverhead = maxRequestTimeoutOverhead + 1 }, false},
		{"produce timeout below", func(c *Config) { c.ProduceTimeout = minProduceTimeout - 1 }, false},
		{"delivery timeout below", func(c *Config) { c.DeliveryTimeout = minDeliveryTimeout - 1 }, false},
		{"linger past", func(c *Config) { c.Linger = maxLinger + 1 }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Defaults()
			cfg.Bootstrap, cfg.Topic = []string{"127.0.0.1:1"}, "orders"
			c.mod(&cfg)
			ours := cfg.validateClientLimits() == nil
			opts := append(cfg.clientOpts(), cfg.producerOpts()...)
			cl, err := kgo.NewClient(opts...)
			if err == nil {
				cl.Close()
			}
			if theirs := err == nil; ours != c.ok || theirs != c.ok {
				t.Errorf("probe accepts %v, kgo accepts %v (%v), want %v", ours, theirs, err, c.ok)
			}
		})
	}
}

// TestNotInCluster: a topic or a partition the cluster answered without
// is the configuration's fault, marked ErrNotInCluster, in words that name
// it — never a question whether the cluster is up.
func TestNotInCluster(t *testing.T) {
	c := newFake(t)
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"a partition past the topic's", func(cfg *Config) { cfg.Partitions = []int32{0, 5} }, "partition 5 does not exist: orders has 3 partitions, 0 to 2"},
		{"a topic it lacks", func(cfg *Config) { cfg.Topic = "no-such-topic" }, "no-such-topic: topic does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(c)
			cfg.Topic = "orders"
			tc.edit(&cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			p, err := New(ctx, cfg, Output{Messages: io.Discard, ClientLog: io.Discard})
			if err == nil {
				p.Close()
				t.Fatal("New: no error")
			}
			if !errors.Is(err, ErrNotInCluster) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrNotInCluster saying %q", err, tc.want)
			}
		})
	}
}
