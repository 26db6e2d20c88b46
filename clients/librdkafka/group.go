package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/kbf-project/kbf/internal/grouprec"
	"github.com/kbf-project/kbf/results"
)

// groupSettings are the group reader's librdkafka settings over the
// consumer's (cons): its group.id and group.protocol, how it commits, and
// under the classic protocol the cooperative-sticky assignor kbf's franz-go
// reader uses. Under group.protocol=consumer (KIP-848) librdkafka refuses
// the settings the broker now decides — partition.assignment.strategy,
// session.timeout.ms, heartbeat.interval.ms — so none is set; the broker's
// assignor is asked for by group.remote.assignor.
func groupSettings(o *options, cons kafka.ConfigMap) kafka.ConfigMap {
	g := kafka.ConfigMap{}
	for k, v := range cons {
		g[k] = v
	}
	g["client.id"] = "kbf-librdkafka-group"
	g["group.id"] = o.group.id
	g["group.protocol"] = o.group.protocol
	// The coordinator found and lost, and the rebalances; its metadata lines
	// stay out of client.log, where the producer's and consumer's date
	// their leader changes.
	g["debug"] = "cgrp"
	// A partition with no committed offset starts where the probe started
	// (set when it is assigned); earliest is only the fallback when its
	// committed offset cannot be read.
	g["auto.offset.reset"] = "earliest"
	if o.group.protocol == results.GroupProtocolClassic {
		g["partition.assignment.strategy"] = "cooperative-sticky"
	} else {
		g["group.remote.assignor"] = "uniform"
	}
	g["enable.auto.commit"] = o.group.commit == results.CommitInterval
	if o.group.commit == results.CommitInterval {
		g["auto.commit.interval.ms"] = int(o.group.autoCommitInterval.Milliseconds())
	}
	for k, v := range o.set {
		if o.group.protocol == results.GroupProtocolConsumer && consumerProtocolRefuses[k] {
			continue
		}
		g[k] = v
	}
	return g
}

// consumerProtocolRefuses are the settings librdkafka refuses under
// group.protocol=consumer: --set gives them to the other consumers only.
var consumerProtocolRefuses = map[string]bool{
	"partition.assignment.strategy": true,
	"session.timeout.ms":            true,
	"heartbeat.interval.ms":         true,
	"group.protocol.type":           true,
}

// groupReader reads the probed topic in a consumer group, as kbf's
// franz-go group reader does (probe/group.go): it subscribes, processes
// what each round of polls returns and commits as --commit says. It writes
// results.GroupFile and results.GroupEventsFile in the probe's directory.
//
// Generation: confluent-kafka-go exposes neither the classic group's
// generation nor KIP-848's member epoch (librdkafka keeps both inside its
// consumer group metadata, which has no getter), so every event's
// generation is -1, "not known"; client.log's cgrp lines carry them.
type groupReader struct {
	o    *options
	cons *kafka.Consumer

	rec   *grouprec.Recorder
	files []*os.File

	mu      sync.Mutex
	pending map[int32]int64 // the next offset to commit, per partition
	wg      sync.WaitGroup  // async commits in flight
}

// newGroupReader creates the group reader's files and consumer; it joins
// the group when it first polls.
func newGroupReader(o *options, conf kafka.ConfigMap) (*groupReader, error) {
	g := &groupReader{o: o, pending: map[int32]int64{}}
	for _, name := range []string{results.GroupFile, results.GroupEventsFile} {
		f, err := os.Create(filepath.Join(o.out, name))
		if err != nil {
			g.closeFiles()
			return nil, fmt.Errorf("group reader: %w", err)
		}
		g.files = append(g.files, f)
	}
	g.rec = grouprec.New(g.files[0], g.files[1])
	var err error
	if g.cons, err = kafka.NewConsumer(&conf); err != nil {
		g.closeFiles()
		return nil, fmt.Errorf("group reader: %w", err)
	}
	return g, nil
}

func (g *groupReader) closeFiles() {
	for _, f := range g.files {
		f.Close()
	}
}

// rebalanced is the rebalance callback: it records the change and applies
// it, incrementally under a cooperative protocol (cooperative-sticky, and
// KIP-848's). A partition assigned with no committed offset starts at the
// probe's start offset, so a new group reads the records of this run.
func (g *groupReader) rebalanced(c *kafka.Consumer, ev kafka.Event) error {
	incremental := c.GetRebalanceProtocol() == "COOPERATIVE"
	switch e := ev.(type) {
	case kafka.AssignedPartitions:
		parts := g.startAt(c, e.Partitions)
		g.record(&results.GroupEvent{Time: time.Now(), Kind: results.GroupAssigned, Generation: -1, Partitions: g.ours(parts)})
		if incremental {
			return c.IncrementalAssign(parts)
		}
		return c.Assign(parts)
	case kafka.RevokedPartitions:
		kind := results.GroupRevoked
		if c.AssignmentLost() {
			kind = results.GroupLost
		}
		g.record(&results.GroupEvent{Time: time.Now(), Kind: kind, Generation: -1, Partitions: g.ours(e.Partitions)})
		g.mu.Lock()
		for _, tp := range e.Partitions {
			delete(g.pending, tp.Partition)
		}
		g.mu.Unlock()
		if incremental {
			return c.IncrementalUnassign(e.Partitions)
		}
		return c.Unassign()
	}
	return nil
}

// startAt returns parts with each start offset set: the committed one, or
// the probe's start offset when none was committed; librdkafka's (the
// committed offset, else auto.offset.reset) when it cannot be read.
func (g *groupReader) startAt(c *kafka.Consumer, parts []kafka.TopicPartition) []kafka.TopicPartition {
	out := slices.Clone(parts)
	committed, err := c.Committed(out, 10000)
	if err != nil {
		return out
	}
	for i := range out {
		start, ok := g.o.startOffsets[out[i].Partition]
		if i < len(committed) && committed[i].Offset < 0 && ok && out[i].Topic != nil && *out[i].Topic == g.o.topic {
			out[i].Offset = kafka.Offset(start)
		}
	}
	return out
}

// ours returns the probed topic's partitions among parts.
func (g *groupReader) ours(parts []kafka.TopicPartition) []int32 {
	var out []int32
	for _, tp := range parts {
		if tp.Topic != nil && *tp.Topic == g.o.topic {
			out = append(out, tp.Partition)
		}
	}
	return out
}

func (g *groupReader) record(ev *results.GroupEvent) {
	if len(ev.Partitions) == 0 && ev.Kind != results.GroupCommit {
		return
	}
	g.rec.Event(ev)
}

// pollBatch is the most events one round of polls takes before it
// commits: librdkafka's poll returns one record at a time, so a round
// polls until nothing is ready, as one poll of franz-go or Java returns a
// batch.
const pollBatch = 500

// run polls until stop is closed: each round's probe records are processed
// (recorded), then committed as --commit says — under sync before the next
// round, as an application that blocks on its commit does.
func (g *groupReader) run(stop <-chan struct{}) error {
	if err := g.cons.SubscribeTopics([]string{g.o.topic}, g.rebalanced); err != nil {
		return fmt.Errorf("group reader: subscribe to %s: %w", g.o.topic, err)
	}
	for {
		select {
		case <-stop:
			g.wg.Wait()
			return nil
		default:
		}
		wait := 100
		for range pollBatch {
			ev := g.cons.Poll(wait)
			if ev == nil {
				break
			}
			wait = 0
			g.handle(ev, time.Now())
		}
		if g.o.group.commit != results.CommitInterval {
			g.commit()
		}
	}
}

// handle processes one polled event: a probe record, or an autocommit's
// result.
func (g *groupReader) handle(ev kafka.Event, now time.Time) {
	switch e := ev.(type) {
	case *kafka.Message:
		if e.TopicPartition.Error != nil || e.TopicPartition.Topic == nil || *e.TopicPartition.Topic != g.o.topic {
			return // a consumer error is in client.log; the consumer retries by itself
		}
		v, ok := results.ParseValue(e.Value)
		part, off := e.TopicPartition.Partition, int64(e.TopicPartition.Offset)
		g.mu.Lock()
		defer g.mu.Unlock()
		g.pending[part] = off + 1
		if ok && v.RunID == g.o.runID && v.Partition == part {
			g.rec.Record(&results.GroupRecord{Partition: part, Offset: off, Seq: v.Seq, Processed: now})
		}
	case kafka.OffsetsCommitted:
		// An autocommit's result (--commit interval): only its end is seen.
		var kerr kafka.Error
		if errors.As(e.Error, &kerr) && kerr.Code() == kafka.ErrNoOffset {
			return // nothing to commit
		}
		if ce := commitEvent(g.o.topic, time.Time{}, time.Now(), e.Offsets, e.Error); ce != nil {
			g.record(ce)
		}
	}
}

// commit commits what was processed since the last commit: synchronously,
// or under --commit async without holding up the next poll.
func (g *groupReader) commit() {
	g.mu.Lock()
	offs := make([]kafka.TopicPartition, 0, len(g.pending))
	for _, part := range slices.Sorted(maps.Keys(g.pending)) {
		offs = append(offs, kafka.TopicPartition{Topic: &g.o.topic, Partition: part, Offset: kafka.Offset(g.pending[part])})
	}
	clear(g.pending)
	g.mu.Unlock()
	if len(offs) == 0 {
		return
	}
	do := func() {
		start := time.Now()
		got, err := g.cons.CommitOffsets(offs)
		if got == nil {
			got = offs
		}
		if ce := commitEvent(g.o.topic, start, time.Now(), got, err); ce != nil {
			g.record(ce)
		}
	}
	if g.o.group.commit == results.CommitSync {
		do()
		return
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		do()
	}()
}

// commitEvent is a commit's row: the probed topic's offsets, and the
// commit's error or its first partition's; nil when it committed nothing
// of the probed topic.
func commitEvent(topic string, start, end time.Time, offs []kafka.TopicPartition, err error) *results.GroupEvent {
	ev := &results.GroupEvent{Time: end, Kind: results.GroupCommit, Start: start, Generation: -1}
	for _, tp := range offs {
		if tp.Topic == nil || *tp.Topic != topic {
			continue
		}
		if tp.Offset >= 0 {
			ev.Offsets = append(ev.Offsets, results.PartitionOffset{Partition: tp.Partition, Offset: int64(tp.Offset)})
		}
		if tp.Error != nil && ev.Err == "" {
			ev.Err = fmt.Sprintf("partition %d: %v", tp.Partition, tp.Error)
		}
	}
	if err != nil {
		ev.Err = err.Error()
	}
	if len(ev.Offsets) == 0 && ev.Err == "" {
		return nil
	}
	return ev
}

// halt ends the recording, before the consumer closes: its leave's revoke
// and the commits still in flight are no part of the trial.
func (g *groupReader) halt() { g.rec.Halt() }

// flush writes the buffered rows; the first write error is kept.
func (g *groupReader) flush() error { return g.rec.Flush() }
