package htmlreport

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/internal/testsupport/testtrial"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// The recorded trials are the report package's: kbf run against a real
// three-broker cluster, a SIGKILL and a SIGTERM of k1, each archive holding
// one directory, trial-01.
// The paths are made absolute before any test changes directory.
var recordedArchives = func() map[string]string {
	m := map[string]string{}
	for _, name := range []string{"sigkill", "sigterm", "txn-coordinator-1", "group-coordinator-classic", "probe-1000"} {
		p, err := filepath.Abs(filepath.Join("..", "analysis", "testdata", name+".tar.gz"))
		if err != nil {
			panic(err)
		}
		m[name] = p
	}
	return m
}()

const recordedTrial = "trial-01"

// unpackTrial unpacks the named recorded trial into a new temporary
// directory, makes that the working directory (so that the trial's name is
// the relative trial-01, as in report.json) and analyses it as kbf report
// does.
func unpackTrial(t *testing.T, name string) (results.Trial, *analysis.Trial) {
	t.Helper()
	f, err := os.Open(recordedArchives[name])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	if err := testtrial.Untar(f, dir); err != nil {
		t.Fatalf("unpack %s: %v", name, err)
	}
	t.Chdir(dir)
	trials, err := results.Find(recordedTrial)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := analysis.Analyze(trials[0], analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	return trials[0], tr
}

// trialPage opens the trial's probe CSV for a TrialPage; the file is closed
// when the test ends.
func trialPage(t *testing.T, trial results.Trial, tr *analysis.Trial) TrialPage {
	t.Helper()
	f, err := os.Open(trial.Probe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	page := TrialPage{Report: tr, Probe: f, ProbeName: trial.Probe}
	// The group reader's events, where the trial has them, as WriteFile
	// reads them.
	if g, err := os.Open(trial.Path(results.GroupEventsFile)); err == nil {
		t.Cleanup(func() { g.Close() })
		page.GroupEvents, page.GroupEventsName = g, g.Name()
	}
	return page
}

// reportJSON is the trial's report.json as kbf writes it, decoded.
func reportJSON(t *testing.T, tr *analysis.Trial) any {
	t.Helper()
	var b bytes.Buffer
	if err := render.WriteJSON(&b, tr); err != nil {
		t.Fatal(err)
	}
	v, err := decodeJSON(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return v
}
