package probe

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestGroupReader: beside the assign reader, the group reader joins its
// group, processes this run's records on every partition and commits them
// as its mode says, each commit's offsets moving forward.
func TestGroupReader(t *testing.T) {
	for _, commit := range []string{results.CommitSync, results.CommitAsync, results.CommitInterval} {
		t.Run(commit, func(t *testing.T) {
			c := newFake(t)
			cfg := testConfig(c)
			cfg.Consumer, cfg.Commit = results.ConsumerGroup, commit
			var csv, log, group, events bytes.Buffer
			ctx := context.Background()
			p, err := New(ctx, cfg, Output{Messages: &csv, ClientLog: &log, Group: &group, GroupEvents: &events})
			if err != nil {
				t.Fatal(err)
			}
			if id := p.Config().Group; id != "kbf-probe-"+p.Config().RunID {
				t.Errorf("group %q, want one of the run's own", id)
			}
			rctx, cancel := context.WithTimeout(ctx, 2500*time.Millisecond)
			defer cancel()
			if _, err := p.Run(rctx); err != nil {
				t.Fatal(err)
			}
			processed := map[int32]int{}
			dec := results.NewGroupDecoder(&group, results.GroupFile)
			for {
				var r results.GroupRecord
				err := dec.Decode(&r)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				processed[r.Partition]++
			}
			if len(processed) != 3 {
				t.Errorf("records processed on %d partitions (%v), want 3", len(processed), processed)
			}
			kinds := map[results.GroupEventKind]int{}
			last := map[int32]int64{}
			edec := results.NewGroupEventDecoder(&events, results.GroupEventsFile)
			for {
				var ev results.GroupEvent
				err := edec.Decode(&ev)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				kinds[ev.Kind]++
				if ev.Failed() {
					t.Errorf("commit failed: %+v", ev)
				}
				if ev.Kind == results.GroupCommit && (ev.Start.IsZero() != (commit == results.CommitInterval)) {
					t.Errorf("commit %+v: a start only a commit kbf issued has", ev)
				}
				for _, o := range ev.Offsets {
					if o.Offset < last[o.Partition] {
						t.Errorf("p%d committed %d after %d", o.Partition, o.Offset, last[o.Partition])
					}
					last[o.Partition] = o.Offset
				}
			}
			if kinds[results.GroupAssigned] == 0 || kinds[results.GroupCommit] == 0 {
				t.Errorf("events %v, want an assignment and commits", kinds)
			}
		})
	}
}
