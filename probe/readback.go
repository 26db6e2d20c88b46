package probe

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/results"
)

// ReadBack reads each partition of topic from its start offset to its
// current high watermark and writes, in offset order, every record of run
// runID it finds. It is the evidence the integrity check weighs against what
// the probe saw acknowledged. opts are added to its clients' options: the
// security ones (kafkasec.Config.KgoOpts).
//
// committed reads as a read_committed consumer does, for a transactional
// probe: up to each partition's last stable offset, without the records of
// aborted transactions. Control records (a transaction's commit or abort
// marker) are kept, unwritten, so that a partition whose last offset is a
// marker is known to be read to its end.
func ReadBack(ctx context.Context, bootstrap []string, topic, runID string, starts map[int32]int64, committed bool, out *results.LogEncoder, opts ...kgo.Opt) (int, error) {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap...)}, opts...)...)
	if err != nil {
		return 0, fmt.Errorf("read-back client: %w", err)
	}
	// Just after a leader election (recovery's preferred one) the new
	// leader answers OFFSET_NOT_AVAILABLE until its high watermark has
	// caught up: a retriable error, retried until ctx ends.
	var ends kadm.ListedOffsets
	for {
		if committed {
			ends, err = kadm.NewClient(cl).ListCommittedOffsets(ctx, topic)
		} else {
			ends, err = kadm.NewClient(cl).ListEndOffsets(ctx, topic)
		}
		if err == nil {
			err = ends.Error()
		}
		if err == nil || !kerr.IsRetriable(err) || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	cl.Close()
	if err != nil {
		return 0, fmt.Errorf("read back %s: end offsets: %w", topic, err)
	}
	left := make(map[int32]int64) // partition → end offset still to reach
	offsets := make(map[int32]kgo.Offset)
	for part, start := range starts {
		end, ok := ends.Lookup(topic, part)
		if !ok {
			return 0, fmt.Errorf("read back %s: no end offset for partition %d", topic, part)
		}
		if end.Offset > start {
			left[part] = end.Offset
			offsets[part] = kgo.NewOffset().At(start)
		}
	}
	if len(left) == 0 {
		// Nothing past the start offsets (a log truncated back below them,
		// as a power loss of every replica leaves it): a read-back of no
		// row, written as such — its header — rather than no file at all.
		return 0, out.Flush()
	}
	copts := []kgo.Opt{kgo.SeedBrokers(bootstrap...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: offsets}),
		kgo.FetchMaxWait(100 * time.Millisecond), kgo.KeepControlRecords()}
	if committed {
		copts = append(copts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err = kgo.NewClient(append(copts, opts...)...)
	if err != nil {
		return 0, fmt.Errorf("read-back client: %w", err)
	}
	defer cl.Close()
	n := 0
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return n, fmt.Errorf("read back %s: %w", topic, err)
		}
		var ferr error
		fs.EachError(func(t string, p int32, err error) {
			if ferr == nil {
				ferr = fmt.Errorf("read back %s[%d]: %w", t, p, err)
			}
		})
		if ferr != nil {
			return n, ferr
		}
		fs.EachRecord(func(r *kgo.Record) {
			if v, ok := results.ParseValue(r.Value); ok && !r.Attrs.IsControl() && v.RunID == runID && v.Partition == r.Partition {
				out.Encode(&results.LogRecord{Partition: r.Partition, Offset: r.Offset, Seq: v.Seq})
				n++
			}
			if end, ok := left[r.Partition]; ok && r.Offset+1 >= end {
				delete(left, r.Partition)
			}
		})
		if err := out.Flush(); err != nil {
			return n, fmt.Errorf("write read-back: %w", err)
		}
	}
	return n, nil
}
