package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kbf-project/kbf/results"
)

// TestConfigsReadUpFront checks that the nodes' configurations are read
// once, by Analyze, before the explanations: with the node logs gone
// afterwards, an explanation still finds every setting it found before.
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
			tr := analyze(t, dir)
			if tr.configs == nil {
				t.Fatal("Analyze read no configuration")
			}
			if c, err := tr.configs.node(tr.Dir, tc.node); err != nil || c == nil {
				t.Fatalf("%s's configuration: %v, want it read", tc.node, err)
			}
			before := newExplainer(tr, tr.Meta.Fault).sessionTimeout()
			if before.Source == SourceUnknown {
				t.Fatalf("session timeout %+v: want it known from the controller's log", before)
			}
			if err := os.RemoveAll(filepath.Join(dir, results.NodeLogsDir)); err != nil {
				t.Fatal(err)
			}
			if after := newExplainer(tr, tr.Meta.Fault).sessionTimeout(); after != before {
				t.Errorf("session timeout %+v with the logs gone, %+v with them: an explanation read a file", after, before)
			}
		})
	}
}
