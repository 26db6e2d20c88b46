package htmlreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteIndex(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "index.html")
	p := IndexPage{Title: "watch: 2 incidents", Heads: []string{"incident", "broker"},
		Rows:    []IndexRow{{Cells: []string{"0001", "k2"}, Link: "incident-0001/report.html"}, {Cells: []string{"0002", "<k3>"}}},
		NotRead: []string{"incident-0003: bad"}}
	if err := WriteIndex(dst, p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{`<a href="incident-0001/report.html">0001</a>`, "<td>0002</td>", "&lt;k3&gt;", "not read: incident-0003: bad"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s:\n%s", want, page)
		}
	}
}
