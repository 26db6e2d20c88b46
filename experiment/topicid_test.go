package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// TestReadBackTopicID: the trial records the probe's topic's ID when it
// starts and again at the read-back, so a topic deleted and made again
// under it (another kbf recreating the cluster) is told from a loss; a
// topic gone at the read-back is not read back at all.
func TestReadBackTopicID(t *testing.T) {
	withID := func(id string) []cluster.Partition {
		return []cluster.Partition{
			{Partition: 0, Leader: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}, TopicID: id},
			{Partition: 1, Leader: 2, Replicas: []int32{2, 3, 1}, ISR: []int32{2, 3, 1}, TopicID: id},
		}
	}
	for _, tc := range []struct {
		name string
		// hook is the call at which change alters the cluster: the ISR
		// wait before the read-back, or the read-back itself.
		hook              string
		change            func(w *world)
		wantID            string
		wantGone, wantLog bool
	}{
		{name: "same topic", hook: "isr", change: func(*world) {}, wantID: "AAA", wantLog: true},
		{name: "made anew before the read-back", hook: "isr", change: func(w *world) { w.parts = withID("BBB") }, wantID: "BBB", wantLog: true},
		{name: "made anew while it was read", hook: "readback", change: func(w *world) { w.parts = withID("BBB") }, wantID: "BBB", wantLog: true},
		{name: "gone", hook: "isr", change: func(w *world) {
			w.partsErr = fmt.Errorf("%w: UNKNOWN_TOPIC_OR_PARTITION", cluster.ErrNoTopic)
		}, wantGone: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			w.parts = withID("AAA")
			w.hooks[tc.hook] = func(context.Context) error {
				w.mu.Lock()
				defer w.mu.Unlock()
				tc.change(w)
				return nil
			}
			r, _, _ := newRunner(t, w, results.FaultSIGKILL)
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			if err := r.Trial(context.Background(), 1, dir); err != nil {
				t.Fatal(err)
			}
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			p := m.Probe
			if p.TopicID != "AAA" || p.ReadBackTopicID != tc.wantID || p.ReadBackTopicGone != tc.wantGone {
				t.Errorf("topic ID at the start %q, at the read-back %q, gone %v; want AAA, %q, %v",
					p.TopicID, p.ReadBackTopicID, p.ReadBackTopicGone, tc.wantID, tc.wantGone)
			}
			if _, err := os.Stat(filepath.Join(dir, results.LogFile)); (err == nil) != tc.wantLog {
				t.Errorf("%s written: %v, want %v", results.LogFile, err == nil, tc.wantLog)
			}
		})
	}
}
