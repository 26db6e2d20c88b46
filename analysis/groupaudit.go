package analysis

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/kbf-project/kbf/results"
)

// maxSkipped bounds the skipped records a group view keeps by name; all
// are counted.
const maxSkipped = 10

// GroupSkip is a record the group reader never processed though its
// group committed an offset past it.
type GroupSkip struct {
	Partition int32
	Offset    int64
	Seq       int64
}

// groupPromise is what the group reader's commit mode promises of the
// records below a committed offset. Each mode commits only what a poll
// returned and the reader processed before its next poll, so each is
// at-least-once: a record may be processed again after a rebalance, never
// skipped.
func groupPromise(commit string) string {
	switch commit {
	case results.CommitInterval:
		return "at-least-once (autocommit of what the polls before it returned, each processed before the next poll)"
	case results.CommitAsync:
		return "at-least-once (a commit after each poll's records are processed, not waited for)"
	default:
		return "at-least-once (a commit after each poll's records are processed, the next poll waiting for it)"
	}
}

// auditGroup weighs what the group reader processed (recs) against the
// partitions as read back after the trial and the offsets its group
// committed (evs): every record of the probe's below a partition's
// highest committed offset must have been processed at least once. A
// trial without a read-back is not audited: Audited stays false.
func (v *GroupView) auditGroup(ctx context.Context, t results.Trial, recs []results.GroupRecord, evs []results.GroupEvent) error {
	v.Promise = groupPromise(v.Settings.Commit)
	committed := map[int32]int64{}
	for _, ev := range evs {
		if ev.Kind != results.GroupCommit || ev.Failed() {
			continue
		}
		for _, o := range ev.Offsets {
			committed[o.Partition] = max(committed[o.Partition], o.Offset)
		}
	}
	path, err := t.LogPath()
	if err != nil || path == "" {
		return err
	}
	processed := map[int32][]int64{}
	for _, r := range recs {
		processed[r.Partition] = append(processed[r.Partition], r.Offset)
	}
	for _, offs := range processed {
		slices.Sort(offs)
	}
	dec, err := t.OpenLog(ctx)
	if err != nil {
		return err
	}
	defer dec.Close()
	for {
		var r results.LogRecord
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if r.Offset >= committed[r.Partition] {
			continue // not committed: nothing promised of it yet
		}
		if _, ok := slices.BinarySearch(processed[r.Partition], r.Offset); ok {
			continue
		}
		v.SkippedN++
		if len(v.Skipped) < maxSkipped {
			v.Skipped = append(v.Skipped, GroupSkip{Partition: r.Partition, Offset: r.Offset, Seq: r.Seq})
		}
	}
	v.Audited = true
	return nil
}
