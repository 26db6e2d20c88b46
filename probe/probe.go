package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/internal/firsterr"
	"github.com/kbf-project/kbf/results"
)

// Output is where a probe writes what it measures.
type Output struct {
	Messages  io.Writer // the probe CSV
	ClientLog io.Writer // the clients' log; nil discards it
	// Group and GroupEvents are the group reader's files (results.GroupFile,
	// results.GroupEventsFile), written only when there is one
	// (Config.GroupReader); nil discards them.
	Group, GroupEvents io.Writer
	// Txn is the transactions CSV (results.TxnFile), written only by a
	// transactional probe (Config.Transactional); nil discards it.
	Txn io.Writer
}

// Probe produces to and consumes from every probed partition. Make one with
// New, then call Run once; Close releases the clients of a probe that never
// ran (Run closes them itself).
type Probe struct {
	cfg    Config
	prod   *kgo.Client
	cons   *kgo.Client
	group  *groupReader // nil without one
	txn    *txnWriter   // nil for an idempotent producer
	logs   *clientLog
	starts map[int32]int64

	closeOnce sync.Once

	mu      sync.Mutex
	enc     *results.Encoder
	parts   map[int32]*partition
	closing bool // past the drain: late callbacks are not recorded
	werr    firsterr.Keeper
}

// partition is one partition's bookkeeping.
type partition struct {
	next    int64    // next sequence number
	pending inflight // the records not yet written (inflight.go)
	stats   PartitionStats
}

// PartitionStats is one partition's progress.
type PartitionStats struct {
	Partition  int32
	Sent       int64
	Acked      int64
	Received   int64
	Failed     int64
	LastAck    time.Time
	LastRecv   time.Time
	LastFailed string
	// FirstAck is the partition's first ack: the probe's start-up ends
	// when every partition has one.
	FirstAck time.Time
	// LastSent and LongestSendGap check the instrument: a send gap much
	// longer than the interval is a stall of the probe's own, not Kafka's.
	LastSent       time.Time
	LongestSendGap time.Duration
	// Missed are the send slots that passed before the probe could send on
	// them (see Run).
	Missed results.MissedSends
	// AckSteadySince is when the last ack gap longer than
	// Config.SteadyBound ended — or the first ack — and LastAckGap that
	// gap; RecvSteadySince and LastRecvGap the same for reads. With
	// LastAck and LastRecv they say whether the partition is steady now.
	AckSteadySince, RecvSteadySince time.Time
	LastAckGap, LastRecvGap         time.Duration
}

// errTopicMissing is returned when the probed topic does not exist.
var errTopicMissing = errors.New("topic does not exist")

// ErrNotInCluster marks New's error when the cluster answered but does not
// hold what the configuration names — the topic, or a partition of it: the
// settings are at fault, not the cluster, and the caller says so.
var ErrNotInCluster = errors.New("not in the cluster")

// notInCluster is err, marked ErrNotInCluster, its text unchanged.
type notInCluster struct{ err error }

func (e notInCluster) Error() string        { return e.err.Error() }
func (e notInCluster) Unwrap() error        { return e.err }
func (e notInCluster) Is(target error) bool { return target == ErrNotInCluster }

// New connects the probe's clients, resolves the partitions and records
// where each partition's log ends now: the probe reads from there.
func New(ctx context.Context, cfg Config, out Output) (*Probe, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.Identified()
	from := time.Now() // before the first record: where a new group reads from
	p := &Probe{
		cfg:   cfg,
		logs:  newClientLog(out.ClientLog, cfg.LogLevel),
		enc:   results.NewEncoder(out.Messages),
		parts: make(map[int32]*partition),
	}
	admin, err := kgo.NewClient(append(cfg.clientOpts(), kgo.WithLogger(p.logs.named("admin")))...)
	if err != nil {
		return nil, fmt.Errorf("admin client: %w", err)
	}
	defer admin.Close()
	if p.starts, err = resolve(ctx, kadm.NewClient(admin), cfg.Topic, cfg.Partitions); err != nil {
		return nil, err
	}
	if len(p.cfg.Partitions) == 0 {
		for part := range p.starts {
			p.cfg.Partitions = append(p.cfg.Partitions, part)
		}
		sort.Slice(p.cfg.Partitions, func(i, j int) bool { return p.cfg.Partitions[i] < p.cfg.Partitions[j] })
	}
	for _, part := range p.cfg.Partitions {
		p.parts[part] = &partition{stats: PartitionStats{Partition: part}}
	}

	// The admin client's requests above proved the connection's
	// configuration (TLS, SASL), which is what franz-go suspects of a
	// connection closed at its first read, and fails its records at once
	// for. From here that EOF is a broker going down — a halting broker
	// accepts a connection and closes it — and is retried, as the Java
	// client retries a NetworkException: the probe must not fail records a
	// client left to its retries would deliver.
	popts := append(append(cfg.clientOpts(), cfg.producerOpts()...),
		kgo.AlwaysRetryEOF(),
		kgo.WithLogger(p.logs.named("producer")),
		kgo.MaxBufferedRecords(1<<20), // never block the send loop, whatever the stall
	)
	if cfg.Transactional() {
		popts = append(popts, cfg.txnOpts()...)
		p.txn = newTxnWriter(p, popts, out)
	}
	p.prod, err = kgo.NewClient(popts...)
	if err != nil {
		return nil, fmt.Errorf("producer: %w", err)
	}
	offsets := make(map[int32]kgo.Offset, len(p.starts))
	for part, o := range p.starts {
		offsets[part] = kgo.NewOffset().At(o)
	}
	p.cons, err = kgo.NewClient(append(cfg.clientOpts(),
		kgo.AlwaysRetryEOF(),
		kgo.WithLogger(p.logs.named("consumer")),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{cfg.Topic: offsets}),
		kgo.FetchMaxWait(cfg.FetchMaxWait),
		// franz-go's 50 MB a fetch is, at the probe's hundred bytes a
		// record, half a million records decoded at once after a stall;
		// the probe reads a few kilobytes a second per partition.
		kgo.FetchMaxBytes(fetchMaxBytes),
		isolation(&cfg),
	)...)
	if err != nil {
		p.prod.Close()
		return nil, fmt.Errorf("consumer: %w", err)
	}
	if p.cfg.GroupReader() {
		if p.group, err = newGroupReader(&p.cfg, from, out, p.logs.named(results.ClientGroup)); err != nil {
			p.prod.Close()
			p.cons.Close()
			return nil, err
		}
	}
	return p, nil
}

// listEnds lists topic's end offsets, asking again for a while when a
// partition answers with a retriable error: just after a leader election
// (a broker back from a fault, a preferred election) its new leader
// answers OFFSET_NOT_AVAILABLE until its high watermark has caught up.
func listEnds(ctx context.Context, adm *kadm.Client, topic string) (kadm.ListedOffsets, error) {
	deadline := time.Now().Add(listEndsPatience)
	for {
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err == nil {
			err = ends.Error()
		}
		if err == nil || !kerr.IsRetriable(err) || time.Now().After(deadline) {
			return ends, err
		}
		select {
		case <-ctx.Done():
			return ends, err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// fetchMaxBytes bounds what one fetch of the probe's reader returns.
const fetchMaxBytes = 8 << 20

// listEndsPatience is how long listEnds asks again.
const listEndsPatience = 10 * time.Second

// resolve returns each probed partition's end offset, checking they exist.
func resolve(ctx context.Context, adm *kadm.Client, topic string, want []int32) (map[int32]int64, error) {
	ends, err := listEnds(ctx, adm, topic)
	if errors.Is(err, kerr.UnknownTopicOrPartition) && ctx.Err() == nil {
		// The cluster answered, for the whole patience: it has no such topic.
		return nil, notInCluster{fmt.Errorf("%s: %w (kbf up creates it; the cluster answered %w)", topic, errTopicMissing, err)}
	}
	if err != nil {
		return nil, fmt.Errorf("list end offsets of %s: %w", topic, err)
	}
	got := make(map[int32]int64)
	ends.Each(func(o kadm.ListedOffset) { got[o.Partition] = o.Offset })
	if len(got) == 0 {
		return nil, notInCluster{fmt.Errorf("%s: %w (kbf up creates it)", topic, errTopicMissing)}
	}
	if len(want) == 0 {
		return got, nil
	}
	starts := make(map[int32]int64, len(want))
	for _, part := range want {
		o, ok := got[part]
		if !ok {
			return nil, notInCluster{fmt.Errorf("partition %d does not exist: %s has %s", part, topic, partitionsText(len(got)))}
		}
		starts[part] = o
	}
	return starts, nil
}

// partitionsText says how many partitions a topic of n has, and which.
func partitionsText(n int) string {
	if n == 1 {
		return "1 partition, 0"
	}
	return fmt.Sprintf("%d partitions, 0 to %d", n, n-1)
}

// Close closes the probe's clients. It may be called more than once, and
// after Run.
func (p *Probe) Close() error {
	p.closeOnce.Do(func() {
		p.prod.Close()
		p.cons.Close()
		if p.group != nil {
			p.group.cl.Close()
		}
	})
	return nil
}

// Config returns the configuration in effect, with the partitions resolved
// and the run ID chosen.
func (p *Probe) Config() Config { return p.cfg }

// StartOffsets returns, per partition, the offset the probe's first record
// can take: the log's end when the probe started.
func (p *Probe) StartOffsets() map[int32]int64 {
	m := make(map[int32]int64, len(p.starts))
	for k, v := range p.starts {
		m[k] = v
	}
	return m
}

// Progress returns every partition's progress so far, by partition.
func (p *Probe) Progress() []PartitionStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]PartitionStats, 0, len(p.parts))
	for _, part := range p.cfg.Partitions {
		st := p.parts[part].stats
		st.Missed.Runs = slices.Clone(st.Missed.Runs)
		out = append(out, st)
	}
	return out
}

// Run sends until ctx is done, then waits up to the drain time for what is
// outstanding, writes every message and closes the clients. It returns the
// partitions' final progress; the error is the first write error, if any.
func (p *Probe) Run(ctx context.Context) ([]PartitionStats, error) {
	flushDone := make(chan struct{})
	stopFlush := make(chan struct{})
	go results.FlushEvery(time.Second, stopFlush, flushDone, p.flush)

	consCtx, stopCons := context.WithCancel(context.WithoutCancel(ctx))
	consDone := make(chan struct{})
	go func() {
		defer close(consDone)
		p.consume(consCtx)
	}()
	groupDone := make(chan struct{})
	go func() {
		defer close(groupDone)
		if p.group != nil {
			p.group.run(consCtx)
		}
	}()

	txnCtx, stopTxn := context.WithCancel(context.WithoutCancel(ctx))
	defer stopTxn()
	txnStop, txnDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(txnDone)
		if p.txn != nil {
			p.txn.run(txnCtx, txnStop)
		}
	}()

	p.send(ctx)

	drainCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.cfg.Drain)
	defer cancel()
	close(txnStop) // the last transaction ends within the drain
	select {
	case <-txnDone:
	case <-drainCtx.Done():
		stopTxn()
		<-txnDone
	}
	p.prod.Flush(drainCtx) // returns early when drainCtx expires
	p.waitReceived(drainCtx)

	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	if p.group != nil {
		p.group.halt()
	}
	stopCons()
	<-consDone
	<-groupDone
	p.Close()
	close(stopFlush)
	<-flushDone

	p.mu.Lock()
	p.writeRemaining()
	p.mu.Unlock()
	p.flush()
	out := p.Progress()
	return out, p.werr.Err()
}

// send produces one record per partition on an absolute schedule, slot k
// at start + k × interval, until ctx is done. A slot that has passed by
// the time the loop wakes (the machine stalled the probe) is not sent late
// in a burst: it is counted as missed, per partition, and the loop goes on
// from the latest slot.
func (p *Probe) send(ctx context.Context) {
	start := time.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for k := int64(0); ; k++ {
		slot := start.Add(time.Duration(k) * p.cfg.Interval)
		if d := time.Until(slot); d > 0 {
			timer.Reset(d)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		} else if ctx.Err() != nil {
			return
		}
		if late := time.Since(slot); late >= p.cfg.Interval {
			n := int64(late / p.cfg.Interval)
			p.missed(slot, n)
			k += n
		}
		for _, part := range p.cfg.Partitions {
			p.produce(ctx, part)
		}
	}
}

// missed records n consecutive slots from first as missed, on every
// partition: the loop sends to all of them in each slot.
func (p *Probe) missed(first time.Time, n int64) {
	last := first.Add(time.Duration(n-1) * p.cfg.Interval)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ps := range p.parts {
		m := &ps.stats.Missed
		if m.Count == 0 {
			m.First = first.UTC()
		}
		m.Count += n
		m.Last = last.UTC()
		if len(m.Runs) < results.MaxMissedRuns {
			m.Runs = append(m.Runs, results.MissedRun{From: first.UTC(), Slots: n})
		}
	}
}

func (p *Probe) produce(ctx context.Context, part int32) {
	p.mu.Lock()
	ps := p.parts[part]
	seq := ps.next
	ps.next++
	now := time.Now()
	ps.pending.add(seq, now)
	ps.stats.Sent++
	if !ps.stats.LastSent.IsZero() {
		ps.stats.LongestSendGap = max(ps.stats.LongestSendGap, now.Sub(ps.stats.LastSent))
	}
	ps.stats.LastSent = now
	p.mu.Unlock()

	r := &kgo.Record{
		Topic:     p.cfg.Topic,
		Partition: part,
		Value:     results.AppendValue(make([]byte, 0, 64), results.Value{RunID: p.cfg.RunID, Partition: part, Seq: seq, Sent: now}),
	}
	if p.txn != nil {
		p.txn.enqueue(r, part, seq)
		return
	}
	// The record's context must outlive ctx: cancelling the send loop must
	// not fail what is already buffered.
	p.prod.Produce(context.WithoutCancel(ctx), r, func(r *kgo.Record, err error) {
		p.acked(part, seq, r, err)
	})
}

// acked records a produce result, in the producer's goroutine.
func (p *Probe) acked(part int32, seq int64, r *kgo.Record, err error) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closing {
		return
	}
	ps := p.parts[part]
	m := ps.pending.get(seq)
	if m == nil {
		return
	}
	if err != nil {
		ps.pending.fail(m, err.Error()) // kept until the end: a failed record may yet be read
		ps.stats.Failed++
		ps.stats.LastFailed = err.Error()
		return
	}
	m.acked = now.UnixNano()
	m.offset = r.Offset
	ps.stats.Acked++
	if ps.stats.FirstAck.IsZero() {
		ps.stats.FirstAck = now
	}
	steady(&ps.stats.AckSteadySince, &ps.stats.LastAckGap, ps.stats.LastAck, now, p.cfg.SteadyBound())
	ps.stats.LastAck = now
	p.maybeDone(ps, seq, m)
}

// steady moves since to now when the gap from last to now is longer than
// bound, or when there was no last: a steady run starts there.
func steady(since *time.Time, gap *time.Duration, last, now time.Time, bound time.Duration) {
	switch {
	case last.IsZero():
		*since = now
	case now.Sub(last) > bound:
		*since, *gap = now, now.Sub(last)
	}
}

// consume reads the probed partitions until ctx is done.
func (p *Probe) consume(ctx context.Context) {
	read := func(_ *kgo.Record, v results.Value, now time.Time) {
		ps := p.parts[v.Partition]
		if ps == nil {
			return
		}
		m := ps.pending.get(v.Seq)
		if m == nil || m.received != 0 {
			return // already complete, or read twice: the read-back judges that
		}
		m.received = now.UnixNano()
		ps.stats.Received++
		steady(&ps.stats.RecvSteadySince, &ps.stats.LastRecvGap, ps.stats.LastRecv, now, p.cfg.SteadyBound())
		ps.stats.LastRecv = now
		p.maybeDone(ps, v.Seq, m)
	}
	for pollOwn(ctx, p.cons, p.cfg.RunID, &p.mu, read) {
		// read has handled the poll's records
	}
}

// pollOwn polls cl once and hands each, under mu, every record of run
// runID the poll returned (its value naming the record's own partition),
// with the poll's time; false once ctx is done.
func pollOwn(ctx context.Context, cl *kgo.Client, runID string, mu *sync.Mutex, each func(r *kgo.Record, v results.Value, now time.Time)) bool {
	fs := cl.PollFetches(ctx)
	if ctx.Err() != nil {
		return false
	}
	now := time.Now()
	mu.Lock()
	defer mu.Unlock()
	fs.EachRecord(func(r *kgo.Record) {
		v, ok := results.ParseValue(r.Value)
		if !ok || v.RunID != runID || v.Partition != r.Partition {
			return
		}
		each(r, v, now)
	})
	return true
}

// maybeDone writes record seq once it is both acknowledged and read, and
// forgets it.
func (p *Probe) maybeDone(ps *partition, seq int64, m *slot) {
	if m.acked == 0 || m.received == 0 || m.failed() {
		return
	}
	msg := ps.pending.message(m, ps.stats.Partition, seq)
	ps.pending.drop(seq)
	p.enc.Encode(&msg)
}

// waitReceived waits until every acknowledged message has been read, or ctx
// is done.
func (p *Probe) waitReceived(ctx context.Context) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		p.mu.Lock()
		waiting := false
		for _, ps := range p.parts {
			ps.pending.each(func(m *slot) bool {
				waiting = m.acked != 0 && m.received == 0 && !m.failed()
				return !waiting
			})
			if waiting {
				break
			}
		}
		p.mu.Unlock()
		if !waiting {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// writeRemaining writes the messages not yet written — failed, never
// acknowledged or never read — in partition and sequence order.
func (p *Probe) writeRemaining() {
	for _, part := range p.cfg.Partitions {
		rest := p.parts[part].pending.remaining(part)
		for i := range rest {
			p.enc.Encode(&rest[i])
		}
	}
}

// flush writes the buffered rows and log lines; the first write error
// is kept. p.mu must not be held: the group reader, the transactions and
// the log lock their own.
func (p *Probe) flush() {
	p.werr.FlushFiles(firsterr.Files{Lock: &p.mu, What: "write messages", Rows: p.enc.Flush, Readers: p.flushGroup, Log: p.logs.flush})
}

// flushGroup writes the group reader's and the transactions' buffered
// rows; nil without either.
func (p *Probe) flushGroup() error {
	var err error
	if p.group != nil {
		err = p.group.flush()
	}
	if p.txn != nil {
		err = errors.Join(err, p.txn.flush())
	}
	return err
}

// isolation is the probe's reader's isolation level: read_committed for
// a transactional probe, which must not read what was not committed.
func isolation(c *Config) kgo.Opt {
	if c.Transactional() {
		return kgo.FetchIsolationLevel(kgo.ReadCommitted())
	}
	return kgo.FetchIsolationLevel(kgo.ReadUncommitted())
}
