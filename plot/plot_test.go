package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/internal/testsupport/golden"
	"github.com/kbf-project/kbf/results"
)

// handMade is a trial written by hand: three partitions probed every 100 ms
// for 20 s; SIGKILL of k1 (node 1, the leader of orders-0) at 03:26:08; the
// controller fences it at +8.90 s, k2 takes orders-0 at +8.94 s and the
// producer learns it at +9.05 s; every partition's acks stop from 7.86 s
// to 17.0 s (p0 17.1 s), one send fails and one is never acked.
const handMade = "testdata/sigkill"

// analyze reads the trial at path as kbf plot does.
func analyze(t *testing.T, path string) (*analysis.Trial, results.Trial) {
	t.Helper()
	trials, err := results.Find(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 1 {
		t.Fatalf("Find(%s) = %d trials, want 1", path, len(trials))
	}
	tr, err := analysis.Analyze(trials[0], analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	return tr, trials[0]
}

// draw analyzes the trial at path and draws it.
func draw(t *testing.T, path string, opt Options) []byte {
	t.Helper()
	tr, trial := analyze(t, path)
	f, err := os.Open(trial.Probe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	if err := WriteSVG(&b, tr, f, opt); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		want       []string // what the picture must say, whatever the golden file holds
	}{
		{"sigkill.svg.golden", handMade, []string{
			"<title id=\"plot-title\">sigkill · SIGKILL k1 at 2026-11-30 03:26:08.000 UTC · Kafka 4.3.1 · topic orders</title>",
			">SIGKILL k1</text>", ">k1 fenced +8.90 s</text>", ">p0 new leader 2 +8.94 s</text>",
			">p1 ISR without k1 +8.95 s</text>", ">p0 producer learns leader 2 +9.05 s</text>",
			">p0 gap 9.24 s</text>", ">failed send (1)</text>", ">never acked (1)</text>",
			">1 ms</text>", ">10 ms</text>", ">100 ms</text>", ">1 s</text>", ">10 s</text>",
			"every 100ms, acks=all",
		}},
		// The bare CSV: no metadata, so no fault; x from the first send.
		{"bare.svg.golden", handMade + "/" + results.ProbeFile, []string{
			"<title id=\"plot-title\">probe · no fault</title>",
			"seconds since the first send", "longest ack gap 9.24 s (p0)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := draw(t, tc.path, Options{})
			golden.Check(t, filepath.Join("testdata", tc.name), got)
			for _, w := range tc.want {
				if !bytes.Contains(got, []byte(w)) {
					t.Errorf("the picture does not hold %q", w)
				}
			}
			if bytes.Contains(got, []byte(string(filepath.Separator)+"tmp")) || bytes.Contains(got, []byte("testdata")) {
				t.Error("the picture names a path, not the trial's own name")
			}
		})
	}
}

// checkXML decodes the whole document and checks that it is an SVG whose
// first two elements are its title and description, and that every label
// placed in a row keeps clear of the others.
func checkXML(t *testing.T, doc []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	var names []string
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if depth == 0 && (el.Name.Local != "svg" || el.Name.Space != "http://www.w3.org/2000/svg") {
				t.Fatalf("root element %v, want svg in the SVG namespace", el.Name)
			}
			if depth == 1 {
				names = append(names, el.Name.Local)
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if depth != 0 || len(names) < 2 || names[0] != "title" || names[1] != "desc" {
		t.Errorf("depth %d at the end, children %.3v; want title and desc first", depth, names)
	}
}

func TestWellFormed(t *testing.T) {
	for _, size := range []Options{{}, {Width: MinWidth, Height: MinHeight}, {Width: 3000, Height: 1500}} {
		t.Run(fmt.Sprintf("%dx%d", size.Width, size.Height), func(t *testing.T) {
			checkXML(t, draw(t, handMade, size))
		})
	}
	// Text that needs escaping, in the trial's name and a label.
	dir := filepath.Join(t.TempDir(), `a<b>&"c'`)
	copyDir(t, handMade, dir)
	doc := draw(t, dir, Options{})
	checkXML(t, doc)
	if !bytes.Contains(doc, []byte("a&lt;b&gt;&amp;&quot;c&apos;")) {
		t.Error("the trial's name is not escaped")
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// generated is a probe of n rows over parts partitions, every 20 ms, with a
// 9 s stall of every partition 10 s in.
func generated(parts, n int) func(yield func(*results.Message)) {
	start := time.Date(2026, 11, 30, 3, 26, 0, 0, time.UTC)
	return func(yield func(*results.Message)) {
		var m results.Message
		for i := range n {
			seq := i / parts
			m = results.Message{Partition: int32(i % parts), Seq: int64(seq), Offset: int64(seq),
				Sent: start.Add(time.Duration(seq) * 20 * time.Millisecond)}
			lat := time.Duration(2+seq%11) * time.Millisecond
			since := m.Sent.Sub(start)
			if since >= 10*time.Second && since < 19*time.Second {
				lat = start.Add(19 * time.Second).Sub(m.Sent)
			}
			m.Acked = m.Sent.Add(lat)
			m.Received = m.Acked.Add(time.Millisecond)
			yield(&m)
		}
	}
}

// generatedTrial analyses the generated rows as analysis.Analyze would, and
// returns them as a probe CSV.
func generatedTrial(t *testing.T, parts, n int) (*analysis.Trial, *bytes.Buffer) {
	t.Helper()
	fault := time.Date(2026, 11, 30, 3, 26, 10, 0, time.UTC)
	g := gaps.NewReport(gaps.Options{FaultAt: fault})
	var csv bytes.Buffer
	enc := results.NewEncoder(&csv)
	generated(parts, n)(func(m *results.Message) {
		g.Add(m)
		enc.Encode(m)
	})
	g.Close()
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	return &analysis.Trial{FaultAt: fault, Gaps: g}, &csv
}

// TestBoundedMemory feeds 200,000 rows and checks that what the picture
// keeps, and what it writes, is bounded by its width, not the rows or the
// partitions (past MaxColours the collector keeps one series): adding
// a row allocates nothing, the buckets in use are at most one per pixel
// column and series, and the document is hardly larger than for a tenth
// of the rows.
func TestBoundedMemory(t *testing.T) {
	const rows = 200_000
	for _, parts := range []int{3, 12, 2000} {
		t.Run(fmt.Sprintf("%d partitions", parts), func(t *testing.T) {
			tr, _ := generatedTrial(t, parts, rows)
			col := NewCollector()
			generated(parts, rows)(col.Add)
			c := newCanvas(tr, DefaultWidth, DefaultHeight)
			if err := c.fill(col); err != nil {
				t.Fatal(err)
			}
			if c.sent != rows {
				t.Fatalf("%d rows taken, want %d", c.sent, rows)
			}
			if limit := len(c.series) * c.l.cols; c.points() > limit || c.l.cols > DefaultWidth {
				t.Errorf("%d buckets in use over %d columns, more than %d", c.points(), c.l.cols, limit)
			}
			if wantSeries := min(parts, MaxColours); parts > MaxColours && len(c.series) != 1 || parts <= MaxColours && len(c.series) != wantSeries {
				t.Errorf("%d series for %d partitions", len(c.series), parts)
			}
			if wantSlots := map[bool]int{true: 1, false: parts}[parts > MaxColours]; len(col.series()) != wantSlots || len(col.seen) != parts {
				t.Errorf("the collector keeps %d series' slots and has seen %d partitions, want %d and %d", len(col.series()), len(col.seen), wantSlots, parts)
			}
			var m results.Message
			generated(parts, rows)(func(g *results.Message) { m = *g }) // the last: within the span
			if allocs := testing.AllocsPerRun(1000, func() { col.Add(&m) }); allocs != 0 {
				t.Errorf("Add allocates %v times a row", allocs)
			}

			sizes := map[int]int{}
			for _, n := range []int{rows / 10, rows} {
				tr, csv := generatedTrial(t, parts, n)
				var out bytes.Buffer
				if err := WriteSVG(&out, tr, csv, Options{}); err != nil {
					t.Fatal(err)
				}
				checkXML(t, out.Bytes())
				sizes[n] = out.Len()
			}
			if sizes[rows] > sizes[rows/10]*5/4 || sizes[rows] > 256<<10 {
				t.Errorf("document of %d bytes for %d rows, %d for %d", sizes[rows], rows, sizes[rows/10], rows/10)
			}
		})
	}
}

func TestManyPartitions(t *testing.T) {
	tr, csv := generatedTrial(t, 12, 24_000)
	var out bytes.Buffer
	if err := WriteSVG(&out, tr, csv, Options{}); err != nil {
		t.Fatal(err)
	}
	doc := out.String()
	for _, want := range []string{"all 12 partitions, in one colour (more than 6)", "ack gaps 9.01 s (12 partitions)", "ack gaps at the fault: 9.01 s across 12 partitions"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the picture does not say %q", want)
		}
	}
	for _, c := range palette[1:] {
		if strings.Contains(doc, c) {
			t.Errorf("colour %s used with more than %d partitions", c, MaxColours)
		}
	}
}

func TestBadInput(t *testing.T) {
	tr, _ := analyze(t, handMade)
	for _, tc := range []struct {
		name, csv string
		line      int
		is        error
	}{
		{"wrong header", "partition,seq,offset,sent,acked,received\n0,0,0,2026-11-30T03:26:00.050000000Z,,,\n", 1, results.ErrHeader},
		{"bad time", "partition,seq,offset,sent,acked,received,error\n0,0,0,yesterday,,,\n", 2, nil},
		{"unprobed partition", "partition,seq,offset,sent,acked,received,error\n7,0,0,2026-11-30T03:26:00.050000000Z,,,\n", 2, results.ErrUnknownPartition},
		{"cut short", "partition,seq,offset,sent,acked,received,error\n0,0,0,2026-11-30T03:26:00.05", 2, results.ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := WriteSVG(&out, tr, strings.NewReader(tc.csv), Options{Source: "trial-01/probe.csv"})
			var pe *results.ParseError
			if !errors.As(err, &pe) || pe.Line != tc.line || pe.File != "trial-01/probe.csv" {
				t.Fatalf("error %v, want a *results.ParseError at trial-01/probe.csv line %d", err, tc.line)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v, want %v", err, tc.is)
			}
			if out.Len() != 0 {
				t.Errorf("%d bytes written before the error", out.Len())
			}
		})
	}

	t.Run("size", func(t *testing.T) {
		for _, opt := range []Options{{Width: MinWidth - 1}, {Width: MaxWidth + 1}, {Height: MinHeight - 1}, {Height: MaxHeight + 1}, {Width: -1}} {
			if err := WriteSVG(io.Discard, tr, strings.NewReader(""), opt); !errors.Is(err, ErrSize) {
				t.Errorf("%+v: error %v, want ErrSize", opt, err)
			}
		}
	})
	t.Run("no messages", func(t *testing.T) {
		g := gaps.NewReport(gaps.Options{})
		g.Close()
		if err := WriteSVG(io.Discard, &analysis.Trial{Gaps: g}, strings.NewReader(""), Options{}); !errors.Is(err, analysis.ErrNoMessages) {
			t.Errorf("error %v, want analysis.ErrNoMessages", err)
		}
	})
}

// TestEventsFromBoundaries checks that the lines are the report's
// boundaries and nothing else: without the timeline, the phases or the
// evidence texts the picture is the same, and a boundary taken away takes
// its line with it.
func TestEventsFromBoundaries(t *testing.T) {
	tr, _ := analyze(t, handMade)
	colour := func(int32) string { return "" }
	want := eventLines(tr, false, colour)
	if len(want) != 6 {
		t.Fatalf("%d lines, want 6 (fault, fence, p0 leader, p1 and p2 ISR, p0 producer): %+v", len(want), want)
	}
	tr.Timeline = nil
	for i := range tr.Stalls {
		tr.Stalls[i].Phases = nil
	}
	for i := range tr.Boundaries {
		tr.Boundaries[i].Evidence = ""
	}
	got := eventLines(tr, false, colour)
	if len(got) != len(want) {
		t.Fatalf("%d lines from the boundaries alone, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].text != want[i].text || !got[i].at.Equal(want[i].at) {
			t.Errorf("line %d: %q at %v, want %q at %v", i, got[i].text, got[i].at, want[i].text, want[i].at)
		}
	}
	tr.Boundaries = slices.DeleteFunc(tr.Boundaries, func(b analysis.Boundary) bool { return b.Kind == analysis.BoundaryFenced })
	if got := eventLines(tr, false, colour); len(got) != len(want)-1 || slices.ContainsFunc(got, func(e eventLine) bool { return strings.Contains(e.text, "fenced") }) {
		t.Errorf("without the fence boundary: %+v", got)
	}
}

// TestEventsMerged checks the lines of a picture with more than MaxColours
// partitions: one label for each kind of boundary, over all partitions.
func TestEventsMerged(t *testing.T) {
	tr, _ := analyze(t, handMade)
	var got []string
	for _, e := range eventLines(tr, true, func(int32) string { return palette[0] }) {
		got = append(got, e.text)
	}
	want := []string{"SIGKILL k1", "k1 fenced +8.90 s", "new leaders +8.94 s (1 partition)",
		"ISRs without k1 +8.95 s to +8.96 s (2 partitions)", "", "producer learns new leaders +9.05 s (1 partition)"}
	if !slices.Equal(got, want) {
		t.Errorf("labels\n%q, want\n%q", got, want)
	}
}

// TestLabels checks the label layout: a cluster of lines a pixel apart
// (a SIGTERM's detection, elections and the producer within 0.2 s) gets
// a row per label, and no label in a row overlaps another or is crossed by
// a line from above.
func TestLabels(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
	}{
		{"cluster at the left", []float64{300, 301, 302, 303, 304, 305}},
		{"cluster at the right", []float64{1150, 1151, 1152, 1160, 1161}},
		{"spread", []float64{100, 400, 700, 1000}},
		{"fault and a far cluster", []float64{300, 900, 901, 903, 905}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := layout{width: 1200}
			for i, x := range tc.xs {
				l.lines = append(l.lines, eventLine{x: x, text: fmt.Sprintf("p%d new leader 2 +0.%02d s", i, i)})
			}
			l.placeLabels(10)
			if l.unlabelled != 0 {
				t.Fatalf("%d labels left out", l.unlabelled)
			}
			ext := func(e eventLine) (float64, float64) {
				w := textWidth(e.text, labelSize)
				if e.anchor == "end" {
					return e.tx - w, e.tx
				}
				return e.tx, e.tx + w
			}
			for i, a := range l.lines {
				alo, ahi := ext(a)
				if alo < 0 || ahi > float64(l.width) {
					t.Errorf("label %d runs off the picture: %.0f–%.0f", i, alo, ahi)
				}
				for j, b := range l.lines {
					if i == j {
						continue
					}
					if a.row == b.row && alo < func() float64 { _, hi := ext(b); return hi }() && ahi > func() float64 { lo, _ := ext(b); return lo }() {
						t.Errorf("labels %d and %d overlap in row %d", i, j, a.row)
					}
					if b.row < a.row && b.x >= alo && b.x <= ahi {
						t.Errorf("line %d crosses label %d", j, i)
					}
				}
			}
		})
	}
}

func TestNiceTop(t *testing.T) {
	for _, tc := range []struct{ in, want time.Duration }{
		{0, 10 * time.Millisecond},
		{3 * time.Millisecond, 10 * time.Millisecond},
		{11 * time.Millisecond, 20 * time.Millisecond},
		{1120 * time.Millisecond, 2 * time.Second},
		{8726 * time.Millisecond, 10 * time.Second},
		{10 * time.Second, 10 * time.Second},
		{31 * time.Second, 50 * time.Second},
	} {
		if got := niceTop(tc.in); got != tc.want {
			t.Errorf("niceTop(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
