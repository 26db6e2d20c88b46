package analysis

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestConfigsReadUpFront checks that the nodes' configurations are read
// once, by the settings stage, before the explanations: with the node logs
// gone afterwards, an explanation still finds every setting it found
// before.
func TestConfigsReadUpFront(t *testing.T) {
	for _, tc := range []struct {
		name, archive string
		// node is one the trial's configs must hold, read.
		node string
	}{
		{name: "sigkill", archive: sigkillArchive, node: "k2"},
		{name: "isolate-controller", archive: isolateControllerArchive, node: "c1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := unpack(t, tc.archive)
			trials, err := results.Find(dir)
			if err != nil {
				t.Fatal(err)
			}
			tr := trials[0]
			tl := timelineOf(context.Background(), tr, time.Time{})
			ev := settingsOf(context.Background(), tr, tr.Meta.Fault, tl.tl, faultStartOf(tr.Meta.Fault, tl.tl, time.Time{}))
			if ev.configs == nil {
				t.Fatal("the settings stage read no configuration")
			}
			if c, err := ev.configs.node(ev.dir, tc.node); err != nil || c == nil {
				t.Fatalf("%s's configuration: %v, want it read", tc.node, err)
			}
			before := newExplainer(ev, tr.Meta.Fault).sessionTimeout()
			if before.Source == SourceUnknown {
				t.Fatalf("session timeout %+v: want it known from the controller's log", before)
			}
			if err := os.RemoveAll(filepath.Join(dir, results.NodeLogsDir)); err != nil {
				t.Fatal(err)
			}
			if after := newExplainer(ev, tr.Meta.Fault).sessionTimeout(); after != before {
				t.Errorf("session timeout %+v with the logs gone, %+v with them: an explanation read a file", after, before)
			}
		})
	}
}
