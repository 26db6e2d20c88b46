package tune

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/htmlreport"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// tradeAnswer is a constructed answer of four settings: 9 s and 6 s
// dominated by 4 s (as safe, shorter), 4 s the recommendation, 3 s on the
// front with fences (2 of 6).
func tradeAnswer() Answer {
	g := grid(9*s, 6*s, 4*s, 3*s)
	return Decide(Rows(g, measured(g, map[time.Duration]pt{
		9 * s: {9400 * time.Millisecond, 6, 6, 0},
		6 * s: {6400 * time.Millisecond, 6, 6, 0},
		4 * s: {4500 * time.Millisecond, 6, 6, 0},
		3 * s: {3400 * time.Millisecond, 6, 6, 2},
	})), MinTrials)
}

// pageData is the page model a tune page embeds.
func pageData(t *testing.T, html string) (kind string, p htmlreport.TunePage) {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="kbf-data">(.*?)</script>`).FindStringSubmatch(html)
	if m == nil {
		t.Fatal("the page embeds no data")
	}
	var pg struct {
		Kind string               `json:"kind"`
		Tune *htmlreport.TunePage `json:"tune"`
	}
	if err := json.Unmarshal([]byte(m[1]), &pg); err != nil {
		t.Fatal(err)
	}
	if pg.Tune == nil {
		t.Fatalf("a %q page without a tune", pg.Kind)
	}
	return pg.Kind, *pg.Tune
}

// TestPageIsTheAnswer checks that the page carries the answer's decisions
// as they are: the front, the pick, the fence counts and shares, the
// rows placed, and the verdict in the text's words.
func TestPageIsTheAnswer(t *testing.T) {
	a := tradeAnswer()
	p := Page(a)
	if len(p.Settings) != len(a.Rows) || !slices.Equal(p.Hiccups, []string{"pause 2s"}) {
		t.Fatalf("%d settings, hiccups %v; want %d and [pause 2s]", len(p.Settings), p.Hiccups, len(a.Rows))
	}
	var front []int
	for i, st := range p.Settings {
		r := a.Rows[i]
		if st.Front {
			front = append(front, i)
		}
		if st.Pick != (i == a.Pick) {
			t.Errorf("%s: pick %v, the answer picks row %d", st.Name, st.Pick, a.Pick)
		}
		if st.Fenced != r.Risks[0].Fenced || st.Counted != r.Risks[0].N || st.FenceShare != r.fenceRate() {
			t.Errorf("%s: fenced %d of %d (%v), the row %d of %d", st.Name, st.Fenced, st.Counted, st.FenceShare, r.Risks[0].Fenced, r.Risks[0].N)
		}
		if st.Stall.Median != r.Kill.Median.Seconds() || st.Stall.Low != r.Kill.Low.Seconds() || st.Stall.High != r.Kill.High.Seconds() {
			t.Errorf("%s: stall %+v, the row's %+v", st.Name, st.Stall, r.Kill)
		}
	}
	if !slices.Equal(front, a.Front) {
		t.Errorf("front %v, the answer's %v", front, a.Front)
	}
	if a.Pick < 0 || p.Settings[a.Pick].Name != "session-4000" || p.Settings[3].FenceShare != 2.0/6 {
		t.Fatalf("the constructed answer changed: pick %d, %+v", a.Pick, p.Settings)
	}
	var text bytes.Buffer
	if err := WriteText(&text, a); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(text.String(), strings.Join(p.Answer, "\n")+"\n") || !strings.HasPrefix(p.Answer[0], "recommendation: ") {
		t.Errorf("the page's answer\n%s\nis not the text's end:\n%s", strings.Join(p.Answer, "\n"), text.String())
	}
}

// TestPagePlaced checks that a setting with too few trials is drawn but
// not placed, and a fence places a setting whatever its trials.
func TestPagePlaced(t *testing.T) {
	g := grid(9*s, 3*s, 2*s)
	a := Decide(Rows(g, measured(g, map[time.Duration]pt{
		9 * s: {9400 * time.Millisecond, 6, 6, 0},
		3 * s: {3400 * time.Millisecond, 6, 2, 0},
		2 * s: {2400 * time.Millisecond, 6, 1, 1},
	})), MinTrials)
	p := Page(a)
	for i, want := range []bool{true, false, true} {
		if st := p.Settings[i]; st.Placed != want || (st.Front && !st.Placed) {
			t.Errorf("%s: placed %v front %v, want placed %v", st.Name, st.Placed, st.Front, want)
		}
	}
	if a.Pick >= 0 || !strings.HasPrefix(p.Answer[0], "cannot decide") {
		t.Errorf("answer %q: want cannot decide", p.Answer)
	}
}

// TestWriteHTMLGolden checks the page's model against the golden file
// (refresh with -update) and that the page embeds it whole.
func TestWriteHTMLGolden(t *testing.T) {
	a := tradeAnswer()
	var b bytes.Buffer
	if err := WriteHTML(&b, a); err != nil {
		t.Fatal(err)
	}
	kind, p := pageData(t, b.String())
	if kind != "tune" {
		t.Errorf("page of kind %q, want tune", kind)
	}
	got, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(Page(a), "", "  ")
	if !bytes.Equal(got, want) {
		t.Errorf("the page embeds\n%s\nwant\n%s", got, want)
	}
	golden := filepath.Join("testdata", "trade.page.json.golden")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(got)+"\n" {
		t.Errorf("page model differs from %s (go test -update to refresh):\n%s", golden, got)
	}
}

// TestWriteFileWritesPage checks that a tune's directory gets its page
// beside its text answer.
func TestWriteFileWritesPage(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(dir, tradeAnswer()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{File, HTMLFile} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
