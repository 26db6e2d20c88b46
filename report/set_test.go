package report_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

func TestWatchDir(t *testing.T) {
	inc := func(dir string) results.Trial {
		return results.Trial{Dir: dir, Meta: &results.Meta{Kind: results.KindIncident}}
	}
	run := results.Trial{Dir: "w/trial-001", Meta: &results.Meta{Kind: results.KindTrial}}
	for _, c := range []struct {
		name   string
		path   string
		trials []results.Trial
		want   bool
	}{
		{"a watch's directory", "w", []results.Trial{inc("w/incident-0001"), inc("w/incident-0002")}, true},
		{"one incident itself", "w/incident-0001/", []results.Trial{inc("w/incident-0001")}, false},
		{"a run", "w", []results.Trial{run}, false},
		{"incidents and a trial", "w", []results.Trial{inc("w/incident-0001"), run}, false},
		{"nothing", "w", nil, false},
	} {
		analysed := make([]*analysis.Trial, len(c.trials))
		if got, _, _, _ := report.WatchIndex(c.path, analysed, c.trials, nil); got != c.want {
			t.Errorf("%s: report.WatchIndex %v, want %v", c.name, got, c.want)
		}
	}
}

// TestWatchIndexOddEntries: in a watch's directory, what is named as an
// incident and is none — a directory without meta.json or of another
// kind, a file — is named among those not read, and the index stays.
func TestWatchIndexOddEntries(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "incident-x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	trial := func(name string, m *results.Meta) results.Trial {
		return results.Trial{Dir: filepath.Join(dir, name), Meta: m}
	}
	good := trial("incident-0001", &results.Meta{Kind: results.KindIncident})
	noMeta := trial("incident-0002", nil)
	probeKind := trial("incident-0003", &results.Meta{Kind: results.KindProbe})
	trials := []results.Trial{good, noMeta, probeKind}
	analysed := []*analysis.Trial{{Dir: good.Dir}, {Dir: noMeta.Dir}, {Dir: probeKind.Dir}}
	watching, keptA, keptT, broken := report.WatchIndex(dir, analysed, trials, nil)
	if !watching || len(keptA) != 1 || keptA[0].Dir != good.Dir || len(keptT) != 1 {
		t.Fatalf("watching %v, kept %d: want the index of the one incident", watching, len(keptA))
	}
	var lines []string
	for _, err := range broken {
		lines = append(lines, err.Error())
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{noMeta.Dir + ": no meta.json", probeKind.Dir + ": a probe's directory, not an incident", filepath.Join(dir, "incident-x") + ": not a directory"} {
		if !strings.Contains(got, want) {
			t.Errorf("not read:\n%s\nwant %q", got, want)
		}
	}
}
