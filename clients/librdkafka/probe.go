package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/internal/firsterr"
	"github.com/kbf-project/kbf/results"
)

// settings returns the producer's and the consumer's librdkafka settings.
// They match the franz-go probe's where librdkafka has an equivalent, so a
// difference in a stall is the client's rules, not its tuning. Idempotence
// is left at librdkafka's default (off), as most of its users run it.
func settings(o *options) (producer, consumer kafka.ConfigMap) {
	common := kafka.ConfigMap{
		"bootstrap.servers": o.bootstrap,
		// Enough to see leader changes, retries and connections go.
		"debug":                  "metadata,topic,msg,broker",
		"go.logs.channel.enable": true,
		// A probe of a topic that does not exist must not create it: a
		// broker at its defaults creates any topic a client asks about.
		"allow.auto.create.topics": false,
		// librdkafka's own defaults, written down so client.json has them.
		"retry.backoff.ms":                        100,
		"retry.backoff.max.ms":                    1000,
		"topic.metadata.refresh.fast.interval.ms": 100,
		"topic.metadata.refresh.interval.ms":      300000,
		"socket.timeout.ms":                       60000,
	}
	// A broker answers one request per connection at a time, so with
	// librdkafka's default (a million in flight) and no linger every record
	// is its own request, and once acks slow down they queue one behind the
	// other and recover a record per replication round trip. The franz-go
	// probe's limit: 5 per broker idempotent (acks=all), 1 without.
	inflight := 5
	if o.acks == "1" {
		inflight = 1
	}
	producer = kafka.ConfigMap{
		"client.id": "kbf-librdkafka-producer",
		// Idempotent with acks=all, as the franz-go and Java probes are by
		// their clients' defaults: a retried batch is then not written
		// twice, so the three audits judge the brokers alike. librdkafka's
		// default is off; --client-set librdkafka:enable.idempotence=false
		// turns it off again.
		"enable.idempotence":                    o.acks != "1",
		"max.in.flight.requests.per.connection": inflight,
		"acks":                                  o.acks,
		"linger.ms":                             0,
		"message.timeout.ms":                    300000,
		"request.timeout.ms":                    10000,
		"go.delivery.report.fields":             "none",
	}
	consumer = kafka.ConfigMap{
		"client.id": "kbf-librdkafka-consumer",
		// confluent-kafka-go refuses a consumer without a group; the probe
		// assigns its partitions and never subscribes, commits or joins.
		"group.id":           "kbf-probe-" + o.runID,
		"enable.auto.commit": false,
		"fetch.wait.max.ms":  500,
		"auto.offset.reset":  "earliest",
		"isolation.level":    "read_uncommitted",
	}
	for k, v := range common {
		producer[k], consumer[k] = v, v
	}
	for k, v := range o.security {
		producer[k], consumer[k] = v, v
	}
	for k, v := range o.set {
		producer[k], consumer[k] = v, v
	}
	return producer, consumer
}

// prober is one run's bookkeeping, shared by the send loop, the delivery
// reports and the consumer.
type prober struct {
	o     *options
	prod  *kafka.Producer
	cons  *kafka.Consumer
	group *groupReader // nil without --consumer group
	log   *clientLog

	mu      sync.Mutex
	csv     *results.Encoder
	parts   map[int32]*partition
	closing bool // past the drain: late reports are not recorded
	werr    firsterr.Keeper
}

type partition struct {
	next     int64
	pending  map[int64]*results.Message
	lastSent time.Time
	sendGap  time.Duration // the longest between two sends: the probe's own stall
}

// probe runs the probe until ctx is done, then drains and writes everything.
func probe(ctx context.Context, o *options) error {
	if o.runID == "" {
		var b [6]byte
		rand.Read(b[:])
		o.runID = hex.EncodeToString(b[:])
	}
	if o.group != nil && o.group.id == "" {
		o.group.id = "kbf-group-" + o.runID // a group of its own: nothing committed yet
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("results directory: %w", err)
	}
	csvFile, err := os.Create(filepath.Join(o.out, results.ProbeFile))
	if err != nil {
		return fmt.Errorf("probe csv: %w", err)
	}
	defer csvFile.Close()
	logFile, err := os.Create(filepath.Join(o.out, results.ClientLog))
	if err != nil {
		return fmt.Errorf("client log: %w", err)
	}
	defer logFile.Close()

	p := &prober{o: o, log: newClientLog(logFile), csv: results.NewEncoder(csvFile), parts: map[int32]*partition{}}
	pconf, cconf := settings(o)
	if p.prod, err = kafka.NewProducer(&pconf); err != nil {
		return fmt.Errorf("producer: %w", err)
	}
	logsDone := make(chan struct{}, 3)
	logs := 1
	go p.log.follow("producer", p.prod.Logs(), logsDone)
	if p.cons, err = kafka.NewConsumer(&cconf); err != nil {
		p.prod.Close()
		return fmt.Errorf("consumer: %w", err)
	}
	logs++
	go p.log.follow("consumer", p.cons.Logs(), logsDone)
	var gconf kafka.ConfigMap
	if o.group != nil {
		gconf = groupSettings(o, cconf)
		if p.group, err = newGroupReader(o, gconf); err != nil {
			p.cons.Close()
			p.prod.Close()
			return err
		}
		defer p.group.closeFiles()
		logs++
		go p.log.follow(string(results.ClientGroup), p.group.cons.Logs(), logsDone)
	}

	stopFlush := make(chan struct{})
	flushDone := make(chan struct{})
	go results.FlushEvery(time.Second, stopFlush, flushDone, p.flush)
	closed := false
	closeAll := func() {
		if closed {
			return
		}
		closed = true
		if p.group != nil {
			p.group.cons.Close()
		}
		p.cons.Close()
		p.prod.Close()
		for range logs {
			<-logsDone
		}
		close(stopFlush)
		<-flushDone
	}
	defer closeAll()

	if err := p.resolve(ctx); err != nil {
		return fmt.Errorf("%w (is the cluster up? kbf up starts it)", err)
	}
	started := time.Now().UTC()
	info := p.info(pconf, cconf, gconf, started)
	if err := clients.WriteInfo(o.out, info); err != nil {
		return err
	}
	assign := make([]kafka.TopicPartition, 0, len(o.partitions))
	for _, part := range o.partitions {
		assign = append(assign, kafka.TopicPartition{Topic: &o.topic, Partition: part, Offset: kafka.Offset(o.startOffsets[part])})
	}
	if err := p.cons.Assign(assign); err != nil {
		return fmt.Errorf("assign %s %v: %w", o.topic, o.partitions, err)
	}

	reportsDone := make(chan struct{})
	go p.deliveries(reportsDone)
	consCtx, stopCons := context.WithCancel(context.Background())
	consDone := make(chan struct{})
	go p.consume(consCtx, consDone)
	stopGroup := make(chan struct{})
	groupDone := make(chan error, 1)
	if p.group != nil {
		go func() { groupDone <- p.group.run(stopGroup) }()
	} else {
		groupDone <- nil
	}

	p.send(ctx)

	drainEnd := time.Now().Add(o.drain)
	p.prod.Flush(int(o.drain.Milliseconds()))
	// Flush counts a delivery report done once it is off the events channel,
	// which is before deliveries has recorded it.
	p.wait(drainEnd, func(m *results.Message) bool { return m.Acked.IsZero() && m.Err == "" })
	p.wait(drainEnd, func(m *results.Message) bool { return !m.Acked.IsZero() && m.Received.IsZero() })
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	if p.group != nil {
		p.group.halt()
	}
	stopCons()
	close(stopGroup)
	<-consDone
	p.werr.Keep(<-groupDone)
	// What is still queued would keep Close waiting on a dead broker; its
	// rows are written as never acked.
	p.prod.Purge(kafka.PurgeQueue | kafka.PurgeInFlight | kafka.PurgeNonBlocking)
	closeAll()
	<-reportsDone

	p.mu.Lock()
	p.writeRemaining()
	p.mu.Unlock()
	p.flush()
	p.mu.Lock()
	defer p.mu.Unlock()
	info.Ended = time.Now().UTC()
	for _, ps := range p.parts {
		info.LongestSendGap = max(info.LongestSendGap, ps.sendGap)
	}
	p.werr.Keep(clients.WriteInfo(o.out, info))
	return p.werr.Err()
}

// resolve finds the topic's partitions when none were given and, for those
// with no start offset given, where their logs end now.
func (p *prober) resolve(ctx context.Context) error {
	o := p.o
	md, err := p.cons.GetMetadata(&o.topic, false, 10000)
	if err != nil {
		return fmt.Errorf("metadata of %s: %w", o.topic, err)
	}
	tm, ok := md.Topics[o.topic]
	if !ok || tm.Error.Code() == kafka.ErrUnknownTopicOrPart || len(tm.Partitions) == 0 {
		return fmt.Errorf("topic %s does not exist", o.topic)
	}
	have := map[int32]bool{}
	for _, pm := range tm.Partitions {
		have[pm.ID] = true
	}
	if len(o.partitions) == 0 {
		for id := range have {
			o.partitions = append(o.partitions, id)
		}
		sort.Slice(o.partitions, func(i, j int) bool { return o.partitions[i] < o.partitions[j] })
	}
	if o.startOffsets == nil {
		o.startOffsets = map[int32]int64{}
	}
	for _, part := range o.partitions {
		if !have[part] {
			return fmt.Errorf("%s has no partition %d (it has %d)", o.topic, part, len(have))
		}
		p.parts[part] = &partition{pending: map[int64]*results.Message{}}
		if _, ok := o.startOffsets[part]; ok {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("end offsets of %s: %w", o.topic, err)
		}
		_, high, err := p.cons.QueryWatermarkOffsets(o.topic, part, 10000)
		if err != nil {
			return fmt.Errorf("end offset of %s[%d]: %w", o.topic, part, err)
		}
		o.startOffsets[part] = high
	}
	return nil
}

// send produces one record per partition at start + k·interval until ctx
// is done. A send loop that falls behind skips the ticks it missed rather
// than bursting, as a ticker does, so the records keep their spacing.
func (p *prober) send(ctx context.Context) {
	start := time.Now()
	t := time.NewTimer(0)
	defer t.Stop()
	for k := int64(0); ; {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, part := range p.o.partitions {
			p.produce(part)
		}
		now := time.Now()
		k = max(k+1, int64(now.Sub(start)/p.o.interval)+1)
		t.Reset(time.Until(start.Add(time.Duration(k) * p.o.interval)))
	}
}

// record is a message's identity in the producer's delivery report.
type record struct {
	part int32
	seq  int64
}

func (p *prober) produce(part int32) {
	p.mu.Lock()
	ps := p.parts[part]
	seq := ps.next
	ps.next++
	now := time.Now()
	m := &results.Message{Partition: part, Seq: seq, Offset: -1, Sent: now}
	ps.pending[seq] = m
	if !ps.lastSent.IsZero() {
		ps.sendGap = max(ps.sendGap, now.Sub(ps.lastSent))
	}
	ps.lastSent = now
	p.mu.Unlock()

	err := p.prod.Produce(&kafka.Message{
		TopicPartition: kafka.TopicPartition{Topic: &p.o.topic, Partition: part},
		Value:          results.AppendValue(make([]byte, 0, 64), results.Value{RunID: p.o.runID, Partition: part, Seq: seq, Sent: now}),
		Opaque:         record{part, seq},
	}, nil)
	if err != nil {
		p.mu.Lock()
		m.Err = err.Error()
		p.mu.Unlock()
	}
}

// deliveries records the producer's delivery reports until the producer
// is closed.
func (p *prober) deliveries(done chan<- struct{}) {
	defer close(done)
	for ev := range p.prod.Events() {
		m, ok := ev.(*kafka.Message)
		if !ok {
			continue // errors of the client as a whole are in client.log
		}
		now := time.Now()
		r, ok := m.Opaque.(record)
		if !ok {
			continue
		}
		p.mu.Lock()
		ps := p.parts[r.part]
		pm := ps.pending[r.seq]
		if p.closing || pm == nil {
			p.mu.Unlock()
			continue
		}
		if err := m.TopicPartition.Error; err != nil {
			pm.Err = err.Error() // kept until the end: a failed record may yet be read
		} else {
			pm.Acked, pm.Offset = now, int64(m.TopicPartition.Offset)
			p.maybeDone(ps, pm)
		}
		p.mu.Unlock()
	}
}

// consume reads the probed partitions until ctx is done.
func (p *prober) consume(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	for ctx.Err() == nil {
		ev := p.cons.Poll(100)
		m, ok := ev.(*kafka.Message)
		if !ok {
			continue // errors are in client.log; the consumer retries by itself
		}
		now := time.Now()
		v, ok := results.ParseValue(m.Value)
		if !ok || v.RunID != p.o.runID || v.Partition != m.TopicPartition.Partition {
			continue
		}
		p.mu.Lock()
		if ps := p.parts[v.Partition]; ps != nil && !p.closing {
			if pm := ps.pending[v.Seq]; pm != nil && pm.Received.IsZero() {
				pm.Received = now
				p.maybeDone(ps, pm)
			}
		}
		p.mu.Unlock()
	}
}

// maybeDone writes a message once it is both acknowledged and read.
func (p *prober) maybeDone(ps *partition, m *results.Message) {
	if m.Acked.IsZero() || m.Received.IsZero() || m.Err != "" {
		return
	}
	delete(ps.pending, m.Seq)
	p.csv.Encode(m)
}

// wait waits until no pending message is waiting, or until the deadline.
func (p *prober) wait(deadline time.Time, waiting func(*results.Message) bool) {
	for time.Now().Before(deadline) {
		p.mu.Lock()
		some := false
		for _, ps := range p.parts {
			for _, m := range ps.pending {
				if waiting(m) {
					some = true
					break
				}
			}
		}
		p.mu.Unlock()
		if !some {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// writeRemaining writes the messages not yet written — failed, never
// acknowledged or never read — in partition and sequence order.
func (p *prober) writeRemaining() {
	for _, part := range p.o.partitions {
		p.csv.EncodePending(p.parts[part].pending)
	}
}

// flush writes the complete rows and log lines; the first write error is
// kept. p.mu must not be held: the group reader and the log lock their
// own.
func (p *prober) flush() {
	p.werr.FlushFiles(firsterr.Files{Lock: &p.mu, What: "write probe csv", Rows: p.csv.Flush, Readers: p.flushGroup, Log: p.log.flush})
}

// flushGroup writes the group reader's buffered rows; nil without one.
func (p *prober) flushGroup() error {
	if p.group == nil {
		return nil
	}
	return p.group.flush()
}

// info is client.json: what ran and with which settings, by librdkafka's
// own names; gconf is the group reader's, nil without one.
func (p *prober) info(pconf, cconf, gconf kafka.ConfigMap, started time.Time) *clients.Info {
	_, ver := kafka.LibraryVersion()
	starts := make(map[int32]int64, len(p.o.startOffsets)) // never nil: written as {}, not null
	maps.Copy(starts, p.o.startOffsets)
	return &clients.Info{
		Client:       clients.Librdkafka,
		Version:      ver,
		Library:      "github.com/confluentinc/confluent-kafka-go/v2 " + modVersion("github.com/confluentinc/confluent-kafka-go/v2"),
		Producer:     withDefault(flat(pconf), "enable.idempotence", "false"),
		Consumer:     flat(cconf),
		Group:        groupInfo(gconf),
		Topic:        p.o.topic,
		Partitions:   p.o.partitions,
		Interval:     clients.Duration(p.o.interval),
		Acks:         p.o.acks,
		RunID:        p.o.runID,
		StartOffsets: starts,
		Drain:        clients.Duration(p.o.drain),
		Started:      started,
	}
}

// secretSettings are the settings client.json never holds: passwords,
// and where the keys are (files kbf writes for the run and removes).
var secretSettings = map[string]bool{
	"sasl.password":                  true,
	"sasl.oauthbearer.client.secret": true,
	"ssl.key.password":               true,
	"ssl.key.location":               true,
	"ssl.key.pem":                    true,
	"ssl.keystore.location":          true,
	"ssl.keystore.password":          true,
	"ssl.certificate.location":       true,
	"ssl.certificate.pem":            true,
}

// flat returns the settings as text, without the Go binding's own and
// without a secret (secretSettings).
func flat(c kafka.ConfigMap) map[string]string {
	out := map[string]string{}
	for k, v := range c {
		if strings.HasPrefix(k, "go.") || secretSettings[k] {
			continue
		}
		out[k] = fmt.Sprint(v)
	}
	return out
}

// withDefault sets a setting the probe leaves at librdkafka's default, so
// client.json says what was in effect.
func withDefault(m map[string]string, k, v string) map[string]string {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
	return m
}

func modVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == path {
				return dep.Version
			}
		}
	}
	return "(unknown version)"
}

// groupInfo is the group reader's settings for client.json: nil without
// one.
func groupInfo(gconf kafka.ConfigMap) map[string]string {
	if gconf == nil {
		return nil
	}
	return flat(gconf)
}
