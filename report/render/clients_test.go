package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
)

// TestClientsGroup checks each client's group reader in the clients'
// section: one line each, in the text and in report.json, and nothing for a
// client without one.
func TestClientsGroup(t *testing.T) {
	crs := []analysis.ClientResult{
		{Name: "franz-go", Group: &analysis.ClientGroup{Protocol: "classic", Commit: "sync", Found: true,
			Processing: 3210 * time.Millisecond, Partition: 1, HasCommitStall: true, CommitStall: 9800 * time.Millisecond,
			Commits: 40, Failed: 2, Rebalances: 1}},
		{Name: "librdkafka", Group: &analysis.ClientGroup{Protocol: "classic", Commit: "sync", Found: true,
			Processing: 4500 * time.Millisecond, ProcessingOpen: true, Partition: 0, Commits: 3}},
		{Name: "java"},
	}
	var text bytes.Buffer
	if err := WriteText(&text, trial(nil, crs, nil)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  franz-go group reader (classic, commit sync): processing stall 3.21 s on p1, commit stall 9.80 s, 2 of 40 commits failed, 1 rebalance\n",
		"  librdkafka group reader (classic, commit sync): processing stall >4.50 s on p0, no commit, 0 of 3 commits failed, 0 rebalances\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text has no line\n%s\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "java group reader") {
		t.Error("a line for java's group reader, which it did not run")
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, trial(nil, crs, nil)); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Clients []struct {
			Name  string           `json:"name"`
			Group *clientGroupJSON `json:"group"`
		} `json:"clients"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || len(doc.Clients) != 3 {
		t.Fatalf("report.json's clients: %+v (%v)", doc.Clients, err)
	}
	fg, lr, jv := doc.Clients[0].Group, doc.Clients[1].Group, doc.Clients[2].Group
	switch {
	case fg == nil || fg.ProcessingStall == nil || *fg.ProcessingStall != 3.21 || fg.CommitStall == nil || *fg.CommitStall != 9.8 ||
		*fg.ProcessingPartition != 1 || fg.Failed != 2 || fg.Rebalances != 1:
		t.Errorf("franz-go's group %+v", fg)
	case lr == nil || !lr.ProcessingOpen || lr.CommitStall != nil:
		t.Errorf("librdkafka's group %+v: want its stall open and no commit stall", lr)
	case jv != nil:
		t.Errorf("java's group %+v, want none", jv)
	}
}
