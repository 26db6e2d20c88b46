//go:build integration

// The browser test opens report.html in headless Chromium (Debian's
// chromium package; .ci/run installs it) with the network cut off, and
// checks what the page drew against report.json. It needs no Docker: the
// pages are built from the recorded trials.
//
//	go test -tags integration ./htmlreport/ -run Integration -v -artifacts

package htmlreport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// browserResult is what the page's script writes into #kbf-result.
type browserResult struct {
	Errors []string `json:"errors"`
	Kind   string   `json:"kind"`
	Charts int      `json:"charts"`
	Lanes  []struct {
		Trial     int   `json:"trial"`
		Partition int32 `json:"partition"`
		Points    int   `json:"points"`
		Canvas    int   `json:"canvas"`
		Inked     int   `json:"inked"`
	} `json:"lanes"`
	RenderMs int `json:"render_ms"`
	// Group is the group reader's commits' lane, when the trial had one.
	Group *struct {
		Commits int `json:"commits"`
		Changes int `json:"changes"`
		Canvas  int `json:"canvas"`
		Inked   int `json:"inked"`
	} `json:"group"`
	// Txn is the transactions' lane, when the trial had one.
	Txn *struct {
		Commits int `json:"commits"`
		Phases  int `json:"phases"`
		Canvas  int `json:"canvas"`
		Inked   int `json:"inked"`
	} `json:"txn"`
	// Heat is the heat map, for a trial of many partitions.
	Heat *browserHeat `json:"heat"`
	// Tune is a tune's chart: the settings drawn, those on the front, the
	// pick, and what hovering each said.
	Tune *struct {
		Points []string `json:"points"`
		Front  []string `json:"front"`
		Pick   string   `json:"pick"`
		Hover  []string `json:"hover"`
	} `json:"tune"`
	// Hover is what each lane showed when the self-test hovered a point
	// and a marker.
	Hover []struct {
		Partition int32  `json:"partition"`
		Point     string `json:"point"`
		Marker    string `json:"marker"`
	} `json:"hover"`
	// Zoom is the time axis of every lane after the self-test zoomed the
	// first into [Min, Max].
	Zoom struct {
		Min, Max float64
		Lanes    [][2]float64
	} `json:"zoom"`
}

// browserHeat is what the page drew of a heat map, and what it said when
// the self-test moved the mouse to the middle of the longest gap and to
// each mark.
type browserHeat struct {
	Rows       int     `json:"rows"`
	Partitions []int32 `json:"partitions"`
	Gaps       int     `json:"gaps"`
	Ticks      int     `json:"ticks"`
	Marks      int     `json:"marks"`
	Columns    int     `json:"columns"`
	Canvas     int     `json:"canvas"`
	Inked      int     `json:"inked"`
	Hover      struct {
		Partition int32      `json:"partition"`
		Gap       [2]float64 `json:"gap"`
		Cell      string     `json:"cell"`
		Marks     []string   `json:"marks"`
	} `json:"hover"`
}

// browser runs headless Chromium on pages with the network cut off: in a
// network namespace of its own where one can be made (root), and always
// with every host name unresolvable and a proxy that does not answer.
type browser struct {
	bin    string
	unnet  bool
	prefix []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	var bin string
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium on PATH: .ci/run installs Debian's chromium package")
		}
		t.Skip("no chromium on PATH (apt-get install chromium)")
	}
	b := &browser{bin: bin}
	if p, err := exec.LookPath("unshare"); err == nil && exec.Command(p, "--net", "true").Run() == nil {
		b.unnet = true
		b.prefix = []string{p, "--net"}
	}
	t.Logf("browser %s, own network namespace: %v", bin, b.unnet)
	return b
}

// run runs the browser on the page at url with args, and returns its
// standard output.
func (b *browser) run(t *testing.T, url string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := append([]string{}, b.prefix...)
	argv = append(argv, b.bin, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
		"--disable-background-networking", "--disable-extensions", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
		"--window-size=1400,2400", "--virtual-time-budget=10000")
	argv = append(argv, args...)
	argv = append(argv, url)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", b.bin, err, errOut.Bytes())
	}
	return out.Bytes()
}

var (
	resultRE = regexp.MustCompile(`(?s)<pre id="kbf-result"[^>]*>(.*?)</pre>`)
	figureRE = regexp.MustCompile(`<td ([^>]*class="fig"[^>]*)>([^<]*)</td>`)
	attrRE   = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)
	laneRE   = regexp.MustCompile(`<div class="lane" data-trial="(\d+)" data-partition="(\d+)"`)
)

// open loads page, checks that its script ran without an error, saves a
// screenshot among the test's artifacts, and returns the DOM the script
// left and what it reported.
func (b *browser) open(t *testing.T, page, shot string) (string, browserResult) {
	t.Helper()
	start := time.Now()
	dom := string(b.run(t, "file://"+page+"#selftest", "--dump-dom"))
	wall := time.Since(start)
	m := resultRE.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the page's script left no #kbf-result: it did not run to the end\n%.2000s", dom)
	}
	var res browserResult
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &res); err != nil {
		t.Fatalf("#kbf-result: %v", err)
	}
	if len(res.Errors) > 0 {
		t.Errorf("script errors: %q", res.Errors)
	}
	if !strings.Contains(dom, `data-kbf-rendered="ok"`) {
		t.Error(`the page did not mark itself rendered ok (body data-kbf-rendered)`)
	}
	dst := filepath.Join(t.ArtifactDir(), shot)
	b.run(t, "file://"+page, "--screenshot="+dst)
	if st, err := os.Stat(dst); err != nil || st.Size() == 0 {
		t.Errorf("no screenshot at %s: %v", dst, err)
	}
	size := 0
	if st, err := os.Stat(page); err == nil {
		size = int(st.Size())
	}
	t.Logf("%s: %d bytes, drawn in %d ms by the script (browser run %v); screenshot %s", filepath.Base(page), size, res.RenderMs, wall.Round(time.Millisecond), dst)
	return dom, res
}

// figureCells returns the figure cells of the DOM: key, trial, the exact
// value when the cell is a number, and the text shown.
func figureCells(dom string) []map[string]string {
	var cells []map[string]string
	for _, m := range figureRE.FindAllStringSubmatch(dom, -1) {
		c := map[string]string{"text": html.UnescapeString(m[2])}
		for _, a := range attrRE.FindAllStringSubmatch(m[1], -1) {
			c[a[1]] = html.UnescapeString(a[2])
		}
		cells = append(cells, c)
	}
	return cells
}

// checkFigures checks that every figure cell of table ti (a trial's index,
// or "summary") shows the value the report document holds at its key, and
// that there are as many as the model has.
func checkFigures(t *testing.T, cells []map[string]string, ti string, doc any, want int) {
	t.Helper()
	n := 0
	for _, c := range cells {
		if c["data-trial"] != ti {
			continue
		}
		n++
		v, isNumber := c["data-value"]
		if !isNumber {
			v = c["text"]
		}
		if err := sameFigure(doc, c["data-key"], v); err != nil {
			t.Errorf("table %s: %v", ti, err)
			continue
		}
		if isNumber {
			// The text is the value rounded for reading.
			exact, _ := strconv.ParseFloat(v, 64)
			shown, err := strconv.ParseFloat(strings.TrimSuffix(c["text"], " s"), 64)
			if err != nil || math.Abs(shown-exact) > 0.005+1e-9 {
				t.Errorf("table %s %s: shows %q for %v", ti, c["data-key"], c["text"], exact)
			}
		}
	}
	if n != want {
		t.Errorf("table %s: %d figure cells on the page, the model has %d", ti, n, want)
	}
}

var hoverRE = regexp.MustCompile(`^p(\d+) seq (\d+) offset (\d+); sent (\d\d:\d\d:\d\d\.\d{3}) `)

// checkHover checks what the self-test's hovering showed in each lane: a
// message of the lane's, with its offset, and a timeline event with its log
// line and where it was read.
func checkHover(t *testing.T, res browserResult, tm *trialModel) {
	t.Helper()
	if len(res.Hover) != len(tm.Lanes) {
		t.Fatalf("the self-test hovered %d lanes, want %d", len(res.Hover), len(tm.Lanes))
	}
	origin := tm.Origin
	for i, h := range res.Hover {
		l := tm.Lanes[i]
		m := hoverRE.FindStringSubmatch(h.Point)
		if m == nil {
			t.Errorf("p%d: hovering a point showed %q, not a message", l.Partition, h.Point)
		} else {
			seq, _ := strconv.ParseInt(m[2], 10, 64)
			off, _ := strconv.ParseInt(m[3], 10, 64)
			j := slices.Index(l.Points.Seq, seq)
			switch {
			case m[1] != strconv.Itoa(int(l.Partition)):
				t.Errorf("lane p%d showed a message of p%s", l.Partition, m[1])
			case j < 0:
				t.Errorf("p%d: showed seq %d, not a point of the lane", l.Partition, seq)
			case l.Points.Offset[j] != off:
				t.Errorf("p%d seq %d: showed offset %d, the probe CSV says %d", l.Partition, seq, off, l.Points.Offset[j])
			default:
				sent := origin.Add(time.Duration(l.Points.X[j] * float64(time.Second)))
				if want := sent.UTC().Format("15:04:05.000"); m[4] != want && sent.Add(-time.Millisecond).UTC().Format("15:04:05.000") != m[4] {
					t.Errorf("p%d seq %d: showed sent %s, want %s", l.Partition, seq, m[4], want)
				}
			}
		}
		if z := res.Zoom; i >= len(z.Lanes) || z.Lanes[i] != [2]float64{z.Min, z.Max} {
			t.Errorf("p%d: lane 0 zoomed to [%v, %v], this lane's axis did not follow: %v", l.Partition, z.Min, z.Max, z.Lanes)
		}
		found := false
		for _, e := range tm.Events {
			if (e.Partition < 0 || e.Partition == l.Partition) && strings.Contains(h.Marker, e.Text) && strings.HasSuffix(h.Marker, "["+e.Source+"]") {
				found = true
			}
		}
		if !found {
			t.Errorf("p%d: hovering a marker showed %q, not an event's log line and source", l.Partition, h.Marker)
		}
	}
}

// writeTrialFiles writes report.json and report.html into the trial's
// directory, as kbf run and kbf report --html do, and returns the page's
// absolute path and the report decoded.
func writeTrialFiles(t *testing.T, trial results.Trial, tr *analysis.Trial) (string, any) {
	t.Helper()
	var js bytes.Buffer
	if err := render.WriteJSON(&js, tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trial.Path(results.ReportJSON), js.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := decodeJSON(js.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	dst := Dest(trial.Dir, []results.Trial{trial})
	if err := WriteFile(context.Background(), dst, []results.Trial{trial}, []*analysis.Trial{tr}); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(dst)
	if err != nil {
		t.Fatal(err)
	}
	return abs, doc
}

func TestIntegrationBrowser(t *testing.T) {
	b := newBrowser(t)
	for _, name := range []string{"sigkill", "sigterm", "txn-coordinator-1", "group-coordinator-classic"} {
		t.Run(name, func(t *testing.T) {
			trial, tr := unpackTrial(t, name)
			page, doc := writeTrialFiles(t, trial, tr)
			tm, err := buildTrial(trialPage(t, trial, tr))
			if err != nil {
				t.Fatal(err)
			}
			dom, res := b.open(t, page, name+".png")

			// A lane per partition of report.json, each drawn.
			parts, err := lookup(doc, "gaps.partitions")
			if err != nil {
				t.Fatal(err)
			}
			lanes := laneRE.FindAllStringSubmatch(dom, -1)
			if len(lanes) != len(parts.([]any)) || len(res.Lanes) != len(lanes) {
				t.Fatalf("%d lanes in the DOM, %d reported, report.json has %d partitions", len(lanes), len(res.Lanes), len(parts.([]any)))
			}
			for i, p := range parts.([]any) {
				want := fmt.Sprint(p.(map[string]any)["partition"])
				if lanes[i][2] != want {
					t.Errorf("lane %d is p%s, report.json's partition %d is p%s", i, lanes[i][2], i, want)
				}
				if l := res.Lanes[i]; l.Canvas == 0 || l.Inked == 0 || l.Points != len(tm.Lanes[i].Points.X) {
					t.Errorf("lane p%s: canvas %d px wide, %d pixels drawn, %d points of %d", want, l.Canvas, l.Inked, l.Points, len(tm.Lanes[i].Points.X))
				}
			}
			checkFigures(t, figureCells(dom), "0", doc, len(tm.Figures))
			checkHover(t, res, tm)
			if res.Heat != nil {
				t.Errorf("%d partitions drawn as a heat map, want a lane each", len(tm.Lanes))
			}
			switch x := res.Txn; {
			case tm.Txn == nil && x != nil:
				t.Errorf("a transactions' lane %+v drawn for a trial without transactions", x)
			case tm.Txn != nil && (x == nil || x.Commits != len(tm.Txn.Commits.T) || x.Phases != len(tm.Txn.Phases) || x.Canvas == 0 || x.Inked == 0):
				t.Errorf("transactions' lane %+v: want its %d transactions and %d markers drawn", x, len(tm.Txn.Commits.T), len(tm.Txn.Phases))
			}
			switch x := res.Group; {
			case tm.Group == nil && x != nil:
				t.Errorf("a group's lane %+v drawn for a trial without a group reader", x)
			case tm.Group != nil && (x == nil || x.Commits != len(tm.Group.Commits.T) || x.Changes != len(tm.Group.Changes) || x.Canvas == 0 || x.Inked == 0):
				t.Errorf("group's lane %+v: want its %d commits and %d markers drawn", x, len(tm.Group.Commits.T), len(tm.Group.Changes))
			}
		})
	}

	t.Run("probe-1000", func(t *testing.T) {
		// 20 partitions, past analysis.Condense: one heat map, no lanes.
		trial, tr := unpackTrial(t, "probe-1000")
		page, doc := writeTrialFiles(t, trial, tr)
		tm, err := buildTrial(trialPage(t, trial, tr))
		if err != nil {
			t.Fatal(err)
		}
		dom, res := b.open(t, page, "probe-1000.png")
		if n := len(laneRE.FindAllString(dom, -1)); n != 0 || len(res.Lanes) != 0 || res.Charts != 1 {
			t.Errorf("%d lanes in the DOM, %d reported, %d charts: want the heat map alone", n, len(res.Lanes), res.Charts)
		}
		checkHeat(t, res.Heat, tm)
		checkFigures(t, figureCells(dom), "0", doc, len(tm.Figures))
	})

	t.Run("1000 partitions", func(t *testing.T) {
		// A made-up fault that stalls every third of 1,000 partitions
		// for 2 s and more: rows a pixel high, and the fault's mark
		// without logs to bound its phases.
		faultAt := t0.Add(6 * time.Second)
		var msgs []results.Message
		for p := range 1000 {
			ends := faultAt.Add(2*time.Second + time.Duration(p%50)*50*time.Millisecond)
			for i := range 60 {
				sent := t0.Add(time.Duration(i)*200*time.Millisecond + time.Duration(p)*100*time.Microsecond)
				acked := sent.Add(5 * time.Millisecond)
				if p%3 == 0 && !sent.Before(faultAt.Add(-100*time.Millisecond)) && sent.Before(ends) {
					acked = ends
				}
				msgs = append(msgs, results.Message{Partition: int32(p), Seq: int64(i), Offset: int64(i), Sent: sent, Acked: acked, Received: acked.Add(time.Millisecond)})
			}
		}
		path := writeCSV(t, msgs)
		tr, tm := analyseCSV(t, path, faultAt)
		page := filepath.Join(filepath.Dir(path), FileName)
		if err := WriteFile(context.Background(), page, []results.Trial{{Probe: path}}, []*analysis.Trial{tr}); err != nil {
			t.Fatal(err)
		}
		_, res := b.open(t, page, "1000-partitions.png")
		checkHeat(t, res.Heat, tm)
		if res.Heat != nil && (res.Heat.Rows != 1000 || res.Heat.Marks != 1) {
			t.Errorf("%d rows and %d marks, want 1000 and the fault's", res.Heat.Rows, res.Heat.Marks)
		}
	})

	t.Run("sigkill as a heat map", func(t *testing.T) {
		// The recorded SIGKILL's three partitions drawn as a heat map,
		// for its fault and phases: the map's marks and ticks.
		trial, tr := unpackTrial(t, "sigkill")
		tm, err := buildTrialAs(trialPage(t, trial, tr), true)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), FileName)
		var buf bytes.Buffer
		if err := writePage(&buf, &page{Kind: "trial", Title: "kbf: " + tm.Name, Trials: []trialModel{*tm}}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		_, res := b.open(t, path, "sigkill-heat.png")
		checkHeat(t, res.Heat, tm)
	})

	t.Run("run", func(t *testing.T) {
		// The two recorded trials as one run of two, overlaid.
		dir := t.TempDir()
		var trials []results.Trial
		var analysed []*analysis.Trial
		var docs []any
		for i, name := range []string{"sigkill", "sigterm"} {
			trial, tr := unpackTrial(t, name)
			dst := filepath.Join(dir, results.TrialDir(i+1))
			if err := os.Rename(trial.Dir, dst); err != nil {
				t.Fatal(err)
			}
			t.Chdir(dir)
			found, err := results.Find(results.TrialDir(i + 1))
			if err != nil {
				t.Fatal(err)
			}
			tr, err = analysis.Analyze(found[0], analysis.Options{})
			if err != nil {
				t.Fatal(err)
			}
			trials, analysed = append(trials, found[0]), append(analysed, tr)
			docs = append(docs, reportJSON(t, tr))
		}
		page := filepath.Join(dir, FileName)
		if err := WriteFile(context.Background(), page, trials, analysed); err != nil {
			t.Fatal(err)
		}
		dom, res := b.open(t, page, "run.png")
		if want := 2*3 + 3; res.Charts != want {
			t.Errorf("%d charts, want %d: three overlays and each trial's three lanes", res.Charts, want)
		}
		if n := strings.Count(dom, `<div class="overlay"`); n != 3 {
			t.Errorf("%d overlay lanes, want one per partition, 3", n)
		}
		cells := figureCells(dom)
		checkFigures(t, cells, "summary", summaryJSON(t, analysed), len(summaryFigures(analysed)))
		for i, tr := range analysed {
			a, err := fromReport(tr, "")
			if err != nil {
				t.Fatal(err)
			}
			checkFigures(t, cells, strconv.Itoa(i), docs[i], len(a.model.Figures))
		}
	})

	t.Run("bench", func(t *testing.T) {
		page := filepath.Join(t.TempDir(), FileName)
		f, err := os.Create(page)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteBench(f, syntheticBench(4, 3)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		dom, res := b.open(t, page, "bench.png")
		if res.Kind != "bench" || res.Charts != 3 {
			t.Errorf("kind %q with %d charts, want bench with 3: two metrics and a sweep", res.Kind, res.Charts)
		}
		if n := len(figureCells(dom)); n != 2*4 {
			t.Errorf("%d median cells, want 8", n)
		}
	})

	t.Run("tune", func(t *testing.T) {
		page := filepath.Join(t.TempDir(), "tune.html")
		f, err := os.Create(page)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteTune(f, syntheticTune()); err != nil {
			t.Fatal(err)
		}
		f.Close()
		dom, res := b.open(t, page, "tune.png")
		x := res.Tune
		if res.Kind != "tune" || res.Charts != 1 || x == nil {
			t.Fatalf("kind %q with %d charts (%+v), want a tune's chart", res.Kind, res.Charts, x)
		}
		want := []string{"session-6000", "session-4000", "session-3000", "session-2000"}
		if !slices.Equal(x.Points, want) || !slices.Equal(x.Front, []string{"session-4000", "session-3000"}) || x.Pick != "session-4000" {
			t.Errorf("drew %v, front %v, pick %q; want %v, [session-4000 session-3000], session-4000", x.Points, x.Front, x.Pick, want)
		}
		for i, h := range x.Hover {
			if !strings.HasPrefix(h, want[i]+" ") {
				t.Errorf("hovering %s said %q", want[i], h)
			}
		}
		if len(x.Hover) != len(want) || !strings.Contains(x.Hover[1], "the recommendation") || !strings.Contains(x.Hover[3], "too few trials") {
			t.Errorf("hover %q: want each point said, the pick and the unplaced one so", x.Hover)
		}
		if n := len(figureCells(dom)); n != 4 {
			t.Errorf("%d stall cells, want 4 (the setting without a valid sigkill has none)", n)
		}
		if !strings.Contains(dom, "not drawn, no valid sigkill trial: session-1500") {
			t.Error("the page does not say which setting it could not draw")
		}
	})
}

var heatHoverRE = regexp.MustCompile(`^p(\d+) .*: no ack for ([\d.]+) s, (\d\d:\d\d:\d\d\.\d{3})–(\d\d:\d\d:\d\d\.\d{3}) `)

// checkHeat checks the heat map the page drew against the model: its rows
// in order, every gap and mark, pixels inked, and what hovering the
// longest gap and each mark said.
func checkHeat(t *testing.T, h *browserHeat, tm *trialModel) {
	t.Helper()
	hm := tm.Heat
	if h == nil {
		t.Fatal("no heat map drawn")
	}
	var rows []int32
	gaps, ticks := 0, 0
	for _, r := range hm.Rows {
		rows = append(rows, r.Partition)
		gaps += len(r.Gaps)
		ticks += len(r.Ticks)
	}
	if !slices.Equal(h.Partitions, rows) || h.Rows != len(rows) {
		t.Errorf("rows %v drawn, the model's are %v", h.Partitions, rows)
	}
	if h.Gaps != gaps || h.Ticks != ticks || h.Marks != len(hm.Marks) {
		t.Errorf("drew %d gaps, %d ticks, %d marks; the model has %d, %d, %d", h.Gaps, h.Ticks, h.Marks, gaps, ticks, len(hm.Marks))
	}
	if h.Canvas == 0 || h.Inked == 0 || h.Columns < 600 {
		t.Errorf("canvas %d px wide, %d pixels inked, %d columns", h.Canvas, h.Inked, h.Columns)
	}
	// The longest gap, hovered in its middle: its partition, and the gap
	// as the model has it, to the millisecond.
	var want [2]float64
	var p int32
	for _, r := range hm.Rows {
		for _, g := range r.Gaps {
			if g[1]-g[0] > want[1]-want[0] {
				want, p = g, r.Partition
			}
		}
	}
	m := heatHoverRE.FindStringSubmatch(h.Hover.Cell)
	if m == nil || m[1] != strconv.Itoa(int(p)) || m[2] != fmt.Sprintf("%.3f", want[1]-want[0]) {
		t.Errorf("hovering p%d's gap %v said %q, not its partition and length", p, want, h.Hover.Cell)
	} else {
		// The page's clock is the origin to the millisecond, plus the
		// time: a millisecond early at most.
		for i, c := range m[3:5] {
			at := tm.Origin.Add(time.Duration(want[i] * float64(time.Second))).UTC()
			if c != at.Format("15:04:05.000") && c != at.Add(-time.Millisecond).Format("15:04:05.000") {
				t.Errorf("hovering p%d's gap %v said %q: %s, want %s", p, want, h.Hover.Cell, c, at.Format("15:04:05.000"))
			}
		}
	}
	if h.Hover.Partition != p || h.Hover.Gap != want {
		t.Errorf("the self-test hovered p%d's %v, the longest gap is p%d's %v", h.Hover.Partition, h.Hover.Gap, p, want)
	}
	if len(h.Hover.Marks) != len(hm.Marks) {
		t.Fatalf("hovered %d marks, the map has %d", len(h.Hover.Marks), len(hm.Marks))
	}
	for i, m := range hm.Marks {
		w := fmt.Sprintf("%s at %.3f s", m.Kind, m.T)
		if m.Source != "" {
			w = "[" + m.Source + "]"
		}
		if !strings.Contains(h.Hover.Marks[i], w) {
			t.Errorf("hovering the %s mark said %q, not %q", m.Kind, h.Hover.Marks[i], w)
		}
	}
}
