package htmlreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/internal/testsupport/golden"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// testdata is testdata/ made absolute before any test changes directory.
var testdata = func() string {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		panic(err)
	}
	return dir
}()

// goldenModel is the trial's page model as JSON, with each lane's points
// summed up (how many, the first and last send, the largest latencies):
// the points themselves are the downsampling tests' concern.
func goldenModel(t *testing.T, tm *trialModel) []byte {
	t.Helper()
	type summary struct {
		N          int     `json:"n"`
		FirstX     float64 `json:"first_x"`
		LastX      float64 `json:"last_x"`
		MaxAckMs   float64 `json:"max_ack_ms"`
		MaxRecvMs  float64 `json:"max_recv_ms"`
		FirstSeq   int64   `json:"first_seq"`
		LastOffset int64   `json:"last_offset"`
	}
	type laneView struct {
		lane
		Points summary `json:"points"`
	}
	maxOf := func(c column) float64 {
		m := 0.0
		for _, v := range c {
			if !math.IsNaN(v) {
				m = max(m, v)
			}
		}
		return m
	}
	var lanes []laneView
	for _, l := range tm.Lanes {
		p := l.Points
		s := summary{N: len(p.X)}
		if s.N > 0 {
			s.FirstX, s.LastX = p.X[0], p.X[s.N-1]
			s.MaxAckMs, s.MaxRecvMs = maxOf(p.Ack), maxOf(p.Recv)
			s.FirstSeq, s.LastOffset = p.Seq[0], p.Offset[s.N-1]
		}
		lanes = append(lanes, laneView{lane: l, Points: s})
	}
	view := struct {
		*trialModel
		Lanes []laneView `json:"lanes"`
	}{tm, lanes}
	b, err := json.MarshalIndent(view, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestRecordedTrials(t *testing.T) {
	for _, name := range []string{"sigkill", "sigterm"} {
		t.Run(name, func(t *testing.T) {
			trial, tr := unpackTrial(t, name)
			tm, err := buildTrial(trialPage(t, trial, tr))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join(testdata, name+".model.json.golden"), goldenModel(t, tm))

			// Every figure is the number report.json holds at its key.
			doc := reportJSON(t, tr)
			for _, f := range tm.Figures {
				got := f.Text
				if got == "" {
					got = strconv.FormatFloat(f.Value, 'g', -1, 64)
				}
				if err := sameFigure(doc, f.Key, got); err != nil {
					t.Error(err)
				}
			}
			// A lane per partition the report counted, each with the
			// messages the report counted.
			if len(tm.Lanes) != len(tr.Gaps.Partitions) {
				t.Fatalf("%d lanes, report has %d partitions", len(tm.Lanes), len(tr.Gaps.Partitions))
			}
			for i, l := range tm.Lanes {
				gp := tr.Gaps.Partitions[i]
				if l.Partition != gp.Partition || l.Messages != gp.Sent {
					t.Errorf("lane %d: p%d with %d messages, report p%d sent %d", i, l.Partition, l.Messages, gp.Partition, gp.Sent)
				}
				if len(l.Points.X) == 0 || len(l.Points.X) > l.Messages {
					t.Errorf("p%d: %d points of %d messages", l.Partition, len(l.Points.X), l.Messages)
				}
				if f := gp.Ack.Fault; f != nil && (l.Stall == nil || l.Stall.End-l.Stall.Start != round(f.End.Sub(tm.Origin).Seconds(), 1e6)-round(f.Start.Sub(tm.Origin).Seconds(), 1e6)) {
					t.Errorf("p%d: stall %+v, report's fault gap %v–%v", l.Partition, l.Stall, f.Start, f.End)
				}
			}
			if len(tm.Events) != len(tr.Timeline.Events) {
				t.Errorf("%d markers, the timeline has %d events", len(tm.Events), len(tr.Timeline.Events))
			}
		})
	}
}

// writeCSV writes msgs as a probe CSV in a new directory and returns its
// path.
func writeCSV(t *testing.T, msgs []results.Message) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), results.ProbeFile)
	var b bytes.Buffer
	enc := results.NewEncoder(&b)
	for i := range msgs {
		enc.Encode(&msgs[i])
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var t0 = time.Date(2026, 11, 30, 3, 26, 0, 0, time.UTC)

// steady is n messages of partition p, one every interval from t0, each
// acked after lat and received 1 ms later; stall(i) may replace a
// message's ack latency.
func steady(p int32, n int, interval, lat time.Duration, stall func(i int) time.Duration) []results.Message {
	msgs := make([]results.Message, n)
	for i := range msgs {
		sent := t0.Add(time.Duration(i) * interval)
		l := lat
		if stall != nil {
			if s := stall(i); s > 0 {
				l = s
			}
		}
		msgs[i] = results.Message{Partition: p, Seq: int64(i), Offset: int64(i), Sent: sent, Acked: sent.Add(l), Received: sent.Add(l + time.Millisecond)}
	}
	return msgs
}

// analyseCSV analyses the probe CSV at path as a bare CSV, with the fault
// at faultAt, and builds its page model.
func analyseCSV(t *testing.T, path string, faultAt time.Time) (*analysis.Trial, *trialModel) {
	t.Helper()
	tr, err := analysis.Analyze(results.Trial{Probe: path}, analysis.Options{FaultAt: faultAt})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tm, err := buildTrial(TrialPage{Report: tr, Probe: f, ProbeName: path})
	if err != nil {
		t.Fatal(err)
	}
	return tr, tm
}

func TestDownsampling(t *testing.T) {
	const interval = 20 * time.Millisecond
	// A stall of messages 30000–30499 (10 s), each acked when it ends.
	stallAt := func(i int) time.Duration {
		if i >= 30000 && i < 30500 {
			return time.Duration(30500-i) * interval
		}
		return 0
	}
	spike := func(i int) time.Duration {
		if i == 777 {
			return 3 * time.Second
		}
		return 0
	}
	tests := []struct {
		name    string
		msgs    []results.Message
		faultAt time.Time
		// every lists seqs that must all be kept; bound is the most
		// points the lane may keep.
		every []int64
		bound int
	}{
		{
			name:  "a short trial keeps every message",
			msgs:  steady(0, 500, interval, 5*time.Millisecond, nil),
			every: seqs(0, 500),
			bound: 500,
		},
		{
			name:  "a long trial keeps the envelope and no more than four per bucket",
			msgs:  steady(0, 60000, interval, 5*time.Millisecond, spike),
			every: []int64{0, 777, 59999},
			bound: 4 * Buckets,
		},
		{
			name:    "every message of the stall is kept",
			msgs:    steady(0, 60000, interval, 5*time.Millisecond, stallAt),
			faultAt: t0.Add(30000 * interval),
			every:   seqs(30000, 30500),
			bound:   4*Buckets + 4*StallBuckets,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, tm := analyseCSV(t, writeCSV(t, tc.msgs), tc.faultAt)
			if len(tm.Lanes) != 1 {
				t.Fatalf("%d lanes, want 1", len(tm.Lanes))
			}
			p := tm.Lanes[0].Points
			if n := len(p.X); n > tc.bound {
				t.Errorf("%d points kept, want at most %d", n, tc.bound)
			}
			if tm.Lanes[0].Messages != len(tc.msgs) {
				t.Errorf("lane counts %d messages, the CSV holds %d", tm.Lanes[0].Messages, len(tc.msgs))
			}
			for _, s := range tc.every {
				if !slices.Contains(p.Seq, s) {
					t.Errorf("seq %d was not kept", s)
				}
			}
			if !slices.IsSorted(p.X) {
				t.Error("points are not in send order")
			}
			// Each kept point is its message, as the CSV has it.
			for i, s := range p.Seq {
				m := tc.msgs[s]
				if want := round(m.Acked.Sub(m.Sent).Seconds()*1e3, 1e3); p.Ack[i] != want {
					t.Fatalf("seq %d: ack %v ms, the CSV says %v", s, p.Ack[i], want)
				}
				if p.Offset[i] != m.Offset {
					t.Fatalf("seq %d: offset %d, the CSV says %d", s, p.Offset[i], m.Offset)
				}
			}
		})
	}
}

func seqs(from, to int64) []int64 {
	var s []int64
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

func TestAbsentLatencies(t *testing.T) {
	msgs := steady(0, 10, 20*time.Millisecond, 5*time.Millisecond, nil)
	msgs[3].Received = time.Time{}                                                 // acked, never read
	msgs[4].Acked, msgs[4].Received, msgs[4].Offset = time.Time{}, time.Time{}, -1 // in flight at the end
	_, tm := analyseCSV(t, writeCSV(t, msgs), time.Time{})
	p := tm.Lanes[0].Points
	i3, i4 := slices.Index(p.Seq, 3), slices.Index(p.Seq, 4)
	if i3 < 0 || !math.IsNaN(p.Recv[i3]) || math.IsNaN(p.Ack[i3]) {
		t.Errorf("seq 3 (acked, never read): kept at %d, ack %v, recv %v", i3, at(p.Ack, i3), at(p.Recv, i3))
	}
	if i4 >= 0 {
		t.Errorf("seq 4 (never acked nor read) was kept as a point")
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "null") {
		t.Errorf("absent latency not written as null: %s", b)
	}
	if tm.OriginIs != "first send" {
		t.Errorf("origin %q without a fault, want the first send", tm.OriginIs)
	}
}

func TestMessagesOutsideTheSpan(t *testing.T) {
	msgs := steady(0, 100, 20*time.Millisecond, 5*time.Millisecond, nil)
	path := writeCSV(t, msgs)
	tr, err := analysis.Analyze(results.Trial{Probe: path}, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The run stopped watching at message 50; the probe drained the rest.
	tr.Gaps.End = msgs[50].Sent
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tm, err := buildTrial(TrialPage{Report: tr, Probe: f})
	if err != nil {
		t.Fatal(err)
	}
	if p := tm.Lanes[0].Points; !slices.Contains(p.Seq, 99) {
		t.Errorf("the last message, sent after the run's end, was not drawn: %d points, last seq %d", len(p.Seq), p.Seq[len(p.Seq)-1])
	}
}

func at(c column, i int) float64 {
	if i < 0 {
		return math.NaN()
	}
	return c[i]
}

func TestWriteTrialErrors(t *testing.T) {
	good := steady(0, 10, 20*time.Millisecond, 5*time.Millisecond, nil)
	tr, _ := analyseCSV(t, writeCSV(t, good), time.Time{})
	tests := []struct {
		name string
		csv  string
		want error
	}{
		{"another partition", "partition,seq,offset,sent,acked,received,error\n7,0,,2026-11-30T03:26:00.000000000Z,,,\n", errUnknownPartition},
		{"a malformed row", "partition,seq,offset,sent,acked,received,error\n0,x,,2026-11-30T03:26:00.000000000Z,,,\n", new(results.ParseError)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := WriteTrial(&out, TrialPage{Report: tr, Probe: strings.NewReader(tc.csv), ProbeName: "probe.csv"})
			var pe *results.ParseError
			switch {
			case err == nil:
				t.Fatal("no error")
			case errors.As(tc.want, &pe):
				if !errors.As(err, &pe) {
					t.Errorf("error %v, want a *results.ParseError", err)
				}
			case !errors.Is(err, tc.want):
				t.Errorf("error %v, want %v", err, tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("wrote %d bytes before failing", out.Len())
			}
		})
	}
	t.Run("no messages", func(t *testing.T) {
		err := WriteTrial(&bytes.Buffer{}, TrialPage{Report: &analysis.Trial{}, Probe: strings.NewReader("")})
		if !errors.Is(err, analysis.ErrNoMessages) {
			t.Errorf("error %v, want analysis.ErrNoMessages", err)
		}
	})
}

func TestPageIsSelfContained(t *testing.T) {
	msgs := steady(0, 10, 20*time.Millisecond, 5*time.Millisecond, nil)
	// A topic name the page must not take for markup.
	msgs[0].Err = ""
	path := writeCSV(t, msgs)
	tr, err := analysis.Analyze(results.Trial{Probe: path}, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr.Notes = append(tr.Notes, "</script><script>alert(1)</script>")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	if err := WriteTrial(&out, TrialPage{Report: tr, Probe: f}); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	if n := strings.Count(page, "</script>"); n != 3 {
		t.Errorf("%d </script>, want 3 (data, uPlot, the page's script): the data closed its element", n)
	}
	for _, ref := range []string{"<link", " src=", " href=", "@import", "url("} {
		if strings.Contains(page, ref) {
			t.Errorf("the page holds %q: it may load something", ref)
		}
	}
	if !strings.Contains(page, "default-src 'none'") {
		t.Error("no content security policy forbidding requests")
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		clients []string
		labels  []string
	}{
		{"one client: trials by name", []string{"", ""}, []string{"probe", "probe"}},
		{"two clients: each labelled", []string{"franz-go", "other"}, []string{"probe (franz-go)", "probe (other)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in RunPage
			for i, c := range tc.clients {
				msgs := append(steady(0, 50, 20*time.Millisecond, 5*time.Millisecond, nil),
					steady(1, 50, 20*time.Millisecond, 5*time.Millisecond, nil)...)
				if i == 1 {
					msgs = msgs[:50] // the second trial probed p0 only
				}
				path := writeCSV(t, msgs)
				tr, err := analysis.Analyze(results.Trial{Probe: path}, analysis.Options{FaultAt: t0.Add(time.Duration(i) * time.Second)})
				if err != nil {
					t.Fatal(err)
				}
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				in.Trials = append(in.Trials, TrialPage{Report: tr, Probe: f, Client: c})
			}
			pg, err := buildRun(in)
			if err != nil {
				t.Fatal(err)
			}
			if len(pg.Overlay) != 2 || pg.Overlay[0].Partition != 0 || pg.Overlay[1].Partition != 1 {
				t.Fatalf("overlay lanes %+v, want p0 and p1", pg.Overlay)
			}
			var got []string
			for _, s := range pg.Overlay[0].Series {
				got = append(got, s.Label)
			}
			if !slices.Equal(got, tc.labels) {
				t.Errorf("p0 series %q, want %q", got, tc.labels)
			}
			if n := len(pg.Overlay[1].Series); n != 1 {
				t.Errorf("p1 has %d series, only the first trial probed it", n)
			}
			// Each trial's axis is its own fault: the same message is
			// at a different x in each.
			if a, b := pg.Trials[0].Lanes[0].Points.X[0], pg.Trials[1].Lanes[0].Points.X[0]; a != b+1 {
				t.Errorf("first message at %v s and %v s from the faults, want 1 s apart", a, b)
			}
		})
	}
	if _, err := buildRun(RunPage{}); !errors.Is(err, errEmpty) {
		t.Errorf("an empty run: %v, want errEmpty", err)
	}
}

func TestBench(t *testing.T) {
	in := BenchPage{Metrics: []BenchMetric{
		{Scenario: "sigkill", Metric: "ack stall", Unit: "s", Values: []float64{8.1, 8.4, 9.0}, Median: 8.4, Low: 8.1, High: 9.0},
		{Scenario: "timeout 6000", Metric: "ack stall", Unit: "s", Values: []float64{5.5, 5.9}, Median: 5.7, Low: 5.5, High: 5.9, Sweep: "broker.session.timeout.ms", SweepValue: 6000},
		{Scenario: "timeout 3000", Metric: "ack stall", Unit: "s", Values: []float64{2.5, 2.9}, Median: 2.7, Low: 2.5, High: 2.9, Sweep: "broker.session.timeout.ms", SweepValue: 3000},
		{Scenario: "sigkill", Metric: "lost", Unit: "records", Values: []float64{0, 0, 0}},
	}}
	pg, err := buildBench(in)
	if err != nil {
		t.Fatal(err)
	}
	b := pg.Bench
	var metrics []string
	for _, d := range b.Distributions {
		metrics = append(metrics, d.Metric+":"+strconv.Itoa(len(d.Scenarios)))
	}
	if want := []string{"ack stall:3", "lost:1"}; !slices.Equal(metrics, want) {
		t.Errorf("distributions %q, want %q", metrics, want)
	}
	if len(b.Sweeps) != 1 {
		t.Fatalf("%d sweeps, want 1", len(b.Sweeps))
	}
	sw := b.Sweeps[0]
	if len(sw.Points) != 2 || sw.Points[0].X != 3000 || sw.Points[1].X != 6000 || sw.Points[0].Median != 2.7 {
		t.Errorf("sweep points %+v, want 3000 then 6000 with their medians", sw.Points)
	}
	if _, err := buildBench(BenchPage{}); !errors.Is(err, errEmpty) {
		t.Errorf("an empty bench: %v, want errEmpty", err)
	}
}

func TestReplicas(t *testing.T) {
	msgs := steady(0, 10, 20*time.Millisecond, 5*time.Millisecond, nil)
	path := writeCSV(t, msgs)
	tr, err := analysis.Analyze(results.Trial{Probe: path}, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		view   *ReplicaView
		labels []string
	}{
		{"no replica view", nil, nil},
		{"LEOs and the HW", &ReplicaView{Samples: []ReplicaSample{
			{Time: t0, Partition: 0, Broker: 1, LEO: 10, HW: 9},
			{Time: t0, Partition: 0, Broker: 2, LEO: 9, HW: -1},
			{Time: t0.Add(time.Second), Partition: 0, Broker: 1, LEO: 60, HW: 59},
			{Time: t0, Partition: 5, Broker: 1, LEO: 3, HW: 3}, // not a probed partition
		}}, []string{"HW", "LEO broker 1", "LEO broker 2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tm, err := buildTrial(TrialPage{Report: tr, Probe: f, Replicas: tc.view})
			if err != nil {
				t.Fatal(err)
			}
			var labels []string
			for _, rs := range tm.Replicas {
				for _, s := range rs.Series {
					labels = append(labels, s.Label)
				}
			}
			if !slices.Equal(labels, tc.labels) {
				t.Errorf("series %q, want %q", labels, tc.labels)
			}
			if tc.view != nil && (tm.Replicas[0].Series[1].Offset[1] != 60 || tm.Replicas[0].Series[1].T[1] != 1) {
				t.Errorf("broker 1's LEO %+v, want 60 at 1 s", tm.Replicas[0].Series[1])
			}
		})
	}
}

// While the report's replica view finds a partition without a leader, the
// HW series has a gap (null in the page's data) at every LEO sample, and
// the LEOs go on.
func TestReplicasLeaderless(t *testing.T) {
	msgs := steady(0, 10, 20*time.Millisecond, 5*time.Millisecond, nil)
	path := writeCSV(t, msgs)
	tr, err := analysis.Analyze(results.Trial{Probe: path}, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tr.Replicas = &analysis.ReplicaView{Partitions: []analysis.PartitionReplicas{
		{Partition: 0, Leaderless: []analysis.Leaderless{{From: at(100), To: at(150)}}},
	}}
	view := &ReplicaView{Samples: []ReplicaSample{
		{Time: at(50), Partition: 0, Broker: 1, LEO: 10, HW: 10},
		{Time: at(120), Partition: 0, Broker: 2, LEO: 12, HW: -1},
		{Time: at(130), Partition: 0, Broker: 3, LEO: 12, HW: -1},
		{Time: at(160), Partition: 0, Broker: 2, LEO: 20, HW: 20},
	}}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tm, err := buildTrial(TrialPage{Report: tr, Probe: f, Replicas: view})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range tm.Replicas[0].Series {
		b, err := json.Marshal(s.Offset)
		if err != nil {
			t.Fatal(err)
		}
		got[s.Label] = string(b)
	}
	want := map[string]string{"HW": "[10,null,null,20]", "LEO broker 1": "[10]", "LEO broker 2": "[12,20]", "LEO broker 3": "[12]"}
	if !maps.Equal(got, want) {
		t.Errorf("series %v, want %v", got, want)
	}
}

// syntheticBench makes a benchmark of scenarios × trials: an ack stall that
// shortens with broker.session.timeout.ms (a sweep), and a count of lost
// records.
func syntheticBench(scenarios, trials int) BenchPage {
	var in BenchPage
	for s := range scenarios {
		timeout := float64(3000 * (s + 1))
		var stall, lost []float64
		for i := range trials {
			stall = append(stall, timeout/1000*0.8+0.1*float64(i))
			lost = append(lost, 0)
		}
		name := "sigkill, session timeout " + strconv.Itoa(int(timeout)) + " ms"
		in.Metrics = append(in.Metrics,
			BenchMetric{Scenario: name, Metric: "ack stall", Unit: "s", Values: stall, Median: stall[trials/2], Low: stall[0], High: stall[trials-1],
				Sweep: "broker.session.timeout.ms", SweepValue: timeout},
			BenchMetric{Scenario: name, Metric: "lost", Unit: "records", Values: lost})
	}
	return in
}

// summaryJSON is the run's summary as `kbf report -o json` writes it, under
// "summary", decoded.
func summaryJSON(t *testing.T, trials []*analysis.Trial) any {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"summary": `)
	if err := render.WriteSummaryJSON(&b, analysis.Summarize(trials)); err != nil {
		t.Fatal(err)
	}
	b.WriteString("}")
	doc, err := decodeJSON(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestRunSummary(t *testing.T) {
	var trials []*analysis.Trial
	for _, name := range []string{"sigkill", "sigterm"} {
		_, tr := unpackTrial(t, name)
		trials = append(trials, tr)
	}
	figs := summaryFigures(trials)
	doc := summaryJSON(t, trials)
	rows := map[string]bool{}
	for _, f := range figs {
		rows[f.Row] = true
		if err := sameFigure(doc, f.Key, strconv.FormatFloat(f.Value, 'g', -1, 64)); err != nil {
			t.Error(err)
		}
	}
	for _, want := range []string{"detection (fault → fence or shutdown granted)", "ack gap, every partition", "acknowledged records lost"} {
		if !rows[want] {
			t.Errorf("no %q among the summary's rows %v", want, rows)
		}
	}
}

// TestGroupLane: a trial with a group reader gets the group's lane — its
// commits from group-events.csv with their latencies, failed ones kept,
// its assignment changes as markers, its commit stall — each partition's
// processing stall in its lane, and the group's figures, each the number
// report.json holds at its key.
func TestGroupLane(t *testing.T) {
	trial, tr := unpackTrial(t, "sigkill")
	fault := tr.FaultAt
	gap := func(p int32, d time.Duration) analysis.GroupPartition {
		return analysis.GroupPartition{Partition: p, Processed: 100,
			Stalls: gaps.Stalls{Fault: &gaps.Gap{Start: fault, End: fault.Add(d)}}}
	}
	tr.Group = &analysis.GroupView{
		Settings:    results.GroupSettings{ID: "kbf-probe-x", Protocol: results.GroupProtocolClassic, Commit: results.CommitSync},
		Partitions:  []analysis.GroupPartition{gap(0, 9*time.Second), gap(1, 8*time.Second), {Partition: 2, Processed: 100}},
		Processed:   300,
		Commits:     3,
		Failed:      1,
		CommitStall: &analysis.CommitStall{Start: fault, End: fault.Add(9 * time.Second), Failed: 1},
	}
	var evs bytes.Buffer
	enc := results.NewGroupEventEncoder(&evs)
	enc.Encode(&results.GroupEvent{Time: fault.Add(-time.Second), Kind: results.GroupAssigned, Generation: 1, Partitions: []int32{0, 1, 2}})
	enc.Encode(&results.GroupEvent{Time: fault.Add(-500 * time.Millisecond), Start: fault.Add(-510 * time.Millisecond), Kind: results.GroupCommit, Generation: 1})
	enc.Encode(&results.GroupEvent{Time: fault.Add(5 * time.Second), Start: fault, Kind: results.GroupCommit, Generation: 1, Err: "NOT_COORDINATOR"})
	enc.Encode(&results.GroupEvent{Time: fault.Add(9 * time.Second), Kind: results.GroupCommit, Generation: 1}) // an autocommit's: no start
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	page := trialPage(t, trial, tr)
	page.GroupEvents, page.GroupEventsName = &evs, results.GroupEventsFile
	tm, err := buildTrial(page)
	if err != nil {
		t.Fatal(err)
	}
	g := tm.Group
	if g == nil {
		t.Fatal("no group lane")
	}
	if g.Total != 3 || len(g.Commits.T) != 3 || len(g.Changes) != 1 {
		t.Fatalf("group lane: %d of %d commits, %d changes; want 3 of 3, 1", len(g.Commits.T), g.Total, len(g.Changes))
	}
	if ms := g.Commits.Ms[0]; ms == nil || *ms != 10 {
		t.Errorf("first commit's latency %v ms, want 10", ms)
	}
	if g.Commits.Err[1] != "NOT_COORDINATOR" || g.Commits.Ms[1] == nil || *g.Commits.Ms[1] != 5000 {
		t.Errorf("failed commit: %q after %v ms", g.Commits.Err[1], g.Commits.Ms[1])
	}
	if g.Commits.Ms[2] != nil || g.Commits.T[2] != 9 {
		t.Errorf("the autocommit at %v s with latency %v: want 9 s, none", g.Commits.T[2], g.Commits.Ms[2])
	}
	if c := g.CommitStall; c == nil || c.Start != 0 || c.End != 9 {
		t.Errorf("commit stall %+v, want 0–9 s from the fault", c)
	}
	if !strings.Contains(g.Changes[0].Text, "assigned, generation 1: p0 p1 p2") || g.Changes[0].T != -1 {
		t.Errorf("change %+v", g.Changes[0])
	}
	for _, l := range tm.Lanes {
		want := map[int32]float64{0: 9, 1: 8}[l.Partition]
		switch {
		case want == 0 && l.GroupStall != nil:
			t.Errorf("p%d: group stall %+v, the report has none", l.Partition, l.GroupStall)
		case want > 0 && (l.GroupStall == nil || l.GroupStall.End-l.GroupStall.Start != want):
			t.Errorf("p%d: group stall %+v, want %v s", l.Partition, l.GroupStall, want)
		}
	}
	doc := reportJSON(t, tr)
	keys := 0
	for _, f := range tm.Figures {
		if !strings.HasPrefix(f.Key, "group.") {
			continue
		}
		keys++
		if err := sameFigure(doc, f.Key, strconv.FormatFloat(f.Value, 'g', -1, 64)); err != nil {
			t.Error(err)
		}
	}
	if keys != 6 { // two partitions' stalls; commit stall, commits, failed, rebalances
		t.Errorf("%d group figures, want 6", keys)
	}
}

// TestGroupLaneThinned: past maxCommits, the lane keeps each slice's
// slowest commit and every failed one.
func TestGroupLaneThinned(t *testing.T) {
	var all []commit
	for i := range 5 * maxCommits {
		ms := float64(i % 7)
		c := commit{t: float64(i) / 100, ms: &ms}
		if i == 1234 {
			c.err = "REQUEST_TIMED_OUT"
		}
		all = append(all, c)
	}
	slow := 99999.0
	all[4321].ms = &slow
	out := thinCommits(all, 0, all[len(all)-1].t)
	if len(out) > maxCommits+1 || len(out) < maxCommits/2 {
		t.Fatalf("%d commits kept of %d", len(out), len(all))
	}
	failed, slowest := false, false
	for i, c := range out {
		failed = failed || c.err != ""
		slowest = slowest || (c.ms != nil && *c.ms == slow)
		if i > 0 && out[i-1].t > c.t {
			t.Fatalf("not in time order at %d", i)
		}
	}
	if !failed || !slowest {
		t.Errorf("kept the failed commit %v, the slowest %v: want both", failed, slowest)
	}
}

// TestTxnLane: a trial with a transactional producer (the recorded SIGKILL
// of its coordinator) gets the transactions' lane — every transaction of
// transactions.csv at the time it ended with its commit latency, the
// commit stall, the coordinator's recovery phases as markers — each
// partition's read_committed stall in its lane, and the figures, each the
// number report.json holds at its key.
func TestTxnLane(t *testing.T) {
	trial, tr := unpackTrial(t, "txn-coordinator-1")
	if tr.Txn == nil || tr.TxnRecovery == nil {
		t.Fatal("the recorded trial has no transactions or no recovery")
	}
	tm, err := buildTrial(trialPage(t, trial, tr))
	if err != nil {
		t.Fatal(err)
	}
	x := tm.Txn
	if x == nil {
		t.Fatal("no transactions' lane")
	}
	if x.Total != tr.Txn.Transactions || len(x.Commits.T) != x.Total || len(x.Commits.Ms) != x.Total || len(x.Commits.Err) != x.Total {
		t.Fatalf("lane: %d of %d transactions (%d latencies, %d errors); want all %d", len(x.Commits.T), x.Total, len(x.Commits.Ms), len(x.Commits.Err), tr.Txn.Transactions)
	}
	origin := func(d float64) time.Time { return tm.Origin.Add(time.Duration(d * float64(time.Second))) }
	var maxMs float64
	for i, ts := range x.Commits.T {
		if i > 0 && x.Commits.T[i-1] > ts {
			t.Errorf("transaction %d at %v s before the one before it", i, ts)
		}
		if x.Commits.Err[i] != "" {
			t.Errorf("transaction at %v s: %q; the trial committed every one", ts, x.Commits.Err[i])
		}
		if ms := x.Commits.Ms[i]; ms != nil && *ms > maxMs {
			maxMs = *ms
		}
	}
	if got, want := maxMs, float64(tr.Txn.Latency.Max)/float64(time.Millisecond); math.Abs(got-want) > 1e-3 {
		t.Errorf("slowest commit drawn %v ms, the report's %v ms", got, want)
	}
	cs := tr.Txn.CommitStall
	if c := x.CommitStall; c == nil || !origin(c.End).Round(time.Millisecond).Equal(cs.End.Round(time.Millisecond)) || math.Abs(c.End-c.Start-cs.Duration().Seconds()) > 1e-5 {
		t.Errorf("commit stall %+v, the report's %s ~ %s", c, cs.Start, cs.End)
	}
	if len(x.Phases) != len(tr.TxnRecovery.Phases) || !strings.Contains(x.Phases[2].Text, "load ended") {
		t.Errorf("markers %+v, want the recovery's %d phases", x.Phases, len(tr.TxnRecovery.Phases))
	}
	stalls := 0
	for _, l := range tm.Lanes {
		for _, s := range tr.Txn.LSO {
			if s.Partition != l.Partition {
				continue
			}
			switch {
			case s.Gap == nil && l.LSOStall != nil:
				t.Errorf("p%d: read_committed stall %+v, the report has none", l.Partition, l.LSOStall)
			case s.Gap != nil && (l.LSOStall == nil || math.Abs(l.LSOStall.End-l.LSOStall.Start-s.Gap.Duration().Seconds()) > 1e-5):
				t.Errorf("p%d: read_committed stall %+v, want %s", l.Partition, l.LSOStall, s.Gap.Duration())
			case s.Gap != nil:
				stalls++
			}
		}
	}
	if stalls == 0 {
		t.Error("no partition's read_committed stall drawn")
	}
	doc := reportJSON(t, tr)
	keys := 0
	for _, f := range tm.Figures {
		if !strings.HasPrefix(f.Key, "transactions.") {
			continue
		}
		keys++
		if err := sameFigure(doc, f.Key, strconv.FormatFloat(f.Value, 'g', -1, 64)); err != nil {
			t.Error(err)
		}
	}
	if keys != stalls+4 { // each stall; commit stall, committed, aborted, timed out
		t.Errorf("%d transaction figures, want %d", keys, stalls+4)
	}
}
