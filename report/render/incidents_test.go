package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

func TestWriteIncidents(t *testing.T) {
	at := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	tr := &analysis.Trial{
		Dir:     "watch/incident-0007",
		FaultAt: at,
		Meta: &results.Meta{Kind: results.KindIncident,
			Fault: &results.Fault{Kind: results.FaultExternal, Recovered: at.Add(19500 * time.Millisecond)}},
		External: &analysis.ExternalBroker{NodeID: 2, Broker: "k2", By: "cluster"},
		Stalls: []analysis.Stall{{Partition: 1, Phases: []analysis.Phase{
			{Name: "detect", Duration: 8570 * time.Millisecond}, {Name: "elect", Duration: 40 * time.Millisecond}}}},
	}
	var b bytes.Buffer
	if err := WriteIncidents(&b, "watch", []*analysis.Trial{tr}, []error{errors.New("watch/incident-0008/probe.csv: line 3: bad")}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4 (title, header, one incident, one not read):\n%s", len(lines), b.String())
	}
	if want := "watch: 2 incidents, 1 could not be read"; lines[0] != want {
		t.Errorf("title %q, want %q", lines[0], want)
	}
	for _, cell := range []string{"0007", "2026-12-05 03:00:00", "after 19.50 s", "k2", "cluster", "detect 8.57 s"} {
		if !strings.Contains(lines[2], cell) {
			t.Errorf("incident line %q lacks %q", lines[2], cell)
		}
	}
	if !strings.HasPrefix(lines[3], "not read: watch/incident-0008") {
		t.Errorf("last line %q, want the incident not read", lines[3])
	}
}
