package probe

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbf-project/kbf/internal/grouprec"
	"github.com/kbf-project/kbf/results"
)

// groupReader reads the probed topic in a consumer group beside the
// probe's own reader, as most applications read: it joins the group,
// subscribes, processes what each poll returns and commits it as
// Config.Commit says. It writes the records it processed (results.GroupFile)
// and every commit and change of its assignment (results.GroupEventsFile):
// one trial measures both readers on the same records.
type groupReader struct {
	topic, runID, mode string // copied: callbacks run on franz-go's goroutines
	cl                 *kgo.Client

	// commits counts the commits issued and not yet answered: the
	// client is closed only once each has called back.
	commits sync.WaitGroup

	// mu serialises the polls' records; rec locks its own.
	mu  sync.Mutex
	rec *grouprec.Recorder
}

// newGroupReader makes the group reader's client; it joins the group when
// it first polls. from is the probe's start: a new group reads from the
// first record written since.
func newGroupReader(cfg *Config, from time.Time, out Output, logger kgo.Logger) (*groupReader, error) {
	g := &groupReader{topic: cfg.Topic, runID: cfg.RunID, mode: cfg.commit(),
		rec: grouprec.New(orDiscard(out.Group), orDiscard(out.GroupEvents))}
	opts := append(cfg.clientOpts(), cfg.groupOpts(from.UnixMilli())...)
	opts = append(opts,
		kgo.AlwaysRetryEOF(),
		kgo.WithLogger(logger),
		kgo.OnPartitionsAssigned(g.changed(results.GroupAssigned)),
		kgo.OnPartitionsRevoked(g.changed(results.GroupRevoked)),
		kgo.OnPartitionsLost(g.changed(results.GroupLost)),
	)
	if g.mode == results.CommitInterval {
		opts = append(opts, kgo.AutoCommitCallback(g.committed(time.Time{}, nil)))
	}
	var err error
	if g.cl, err = kgo.NewClient(opts...); err != nil {
		return nil, fmt.Errorf("group reader: %w", err)
	}
	return g, nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// generation is the group's generation (classic) or the member's epoch
// (KIP-848) that cl holds; -1 when it holds none. The callbacks ask the
// client franz-go hands them, not g.cl: a callback may run before
// newGroupReader has set it.
func generation(cl *kgo.Client) int32 {
	_, gen := cl.GroupMetadata()
	return gen
}

// changed records an assignment change of kind k, from franz-go's
// callback: the probed topic's partitions, when the callback ran.
func (g *groupReader) changed(k results.GroupEventKind) func(context.Context, *kgo.Client, map[string][]int32) {
	return func(_ context.Context, cl *kgo.Client, m map[string][]int32) {
		parts := slices.Clone(m[g.topic])
		if len(parts) == 0 {
			return
		}
		g.rec.Event(&results.GroupEvent{Time: time.Now(), Kind: k, Generation: generation(cl), Partitions: parts})
	}
}

// committed records the commit issued at start of offsets (nil: read from
// the request, as for an autocommit), from franz-go's callback.
func (g *groupReader) committed(start time.Time, offsets map[string]map[int32]kgo.EpochOffset) func(*kgo.Client, *kmsg.OffsetCommitRequest, *kmsg.OffsetCommitResponse, error) {
	return func(cl *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		ev := &results.GroupEvent{Time: time.Now(), Kind: results.GroupCommit, Start: start, Generation: generation(cl)}
		if req != nil && req.Generation >= 0 && len(req.Topics) > 0 {
			ev.Generation = req.Generation
		}
		seen := map[int32]bool{}
		if req != nil {
			for _, t := range req.Topics {
				if t.Topic != g.topic {
					continue
				}
				for _, p := range t.Partitions {
					if !seen[p.Partition] {
						seen[p.Partition] = true
						ev.Offsets = append(ev.Offsets, results.PartitionOffset{Partition: p.Partition, Offset: p.Offset})
					}
				}
			}
		}
		for p, o := range offsets[g.topic] {
			if !seen[p] {
				seen[p] = true
				ev.Offsets = append(ev.Offsets, results.PartitionOffset{Partition: p, Offset: o.Offset})
			}
		}
		if len(ev.Offsets) == 0 && err == nil {
			return // nothing of the probed topic committed
		}
		if err != nil {
			ev.Err = err.Error()
		} else if resp != nil {
			ev.Err = partitionError(resp)
		}
		g.rec.Event(ev)
	}
}

// partitionError is the first partition's error of a commit's answer, ""
// when none failed.
func partitionError(resp *kmsg.OffsetCommitResponse) string {
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Sprintf("partition %d: %v", p.Partition, err)
			}
		}
	}
	return ""
}

// run polls until ctx is done: each poll's probe records are processed
// (recorded), then committed as Config.Commit says — under CommitSync
// before the next poll, as an application that blocks on its commit does.
// It returns once every commit it issued has been answered (the cancelled
// context answers those still in flight at once), or after commitWait.
func (g *groupReader) run(ctx context.Context) {
	defer g.awaitCommits(commitWait)
	record := func(r *kgo.Record, v results.Value, now time.Time) {
		g.rec.Record(&results.GroupRecord{Partition: r.Partition, Offset: r.Offset, Seq: v.Seq, Processed: now})
	}
	for pollOwn(ctx, g.cl, g.runID, &g.mu, record) {
		if g.mode == results.CommitInterval {
			continue
		}
		offsets := g.cl.UncommittedOffsets()
		if len(offsets) == 0 {
			continue
		}
		start := time.Now()
		done := g.committed(start, offsets)
		g.commits.Add(1)
		answered := func(cl *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			defer g.commits.Done()
			done(cl, req, resp, err)
		}
		if g.mode == results.CommitSync {
			g.cl.CommitOffsetsSync(ctx, offsets, answered)
		} else {
			g.cl.CommitOffsets(ctx, offsets, answered)
		}
	}
}

// commitWait bounds how long a stopping reader waits for its commits'
// answers: franz-go answers a cancelled commit at once, so the bound is
// only a guard against a hang.
const commitWait = 10 * time.Second

func (g *groupReader) awaitCommits(d time.Duration) {
	done := make(chan struct{})
	go func() {
		g.commits.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// halt ends the recording of events, before the reader's context is
// cancelled: the commit that cancels, the leave's revoke and what is still
// in flight are no part of the trial.
func (g *groupReader) halt() { g.rec.Halt() }

// flush writes the buffered rows; the first write error is kept.
func (g *groupReader) flush() error { return g.rec.Flush() }
