package htmlreport

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

// wide is n partitions of steady messages, 500 each, one every 20 ms and
// acked after 5 ms: no gap near the stall bound.
func wide(n int) []results.Message {
	var msgs []results.Message
	for p := range n {
		msgs = append(msgs, steady(int32(p), 500, 20*time.Millisecond, 5*time.Millisecond, nil)...)
	}
	return msgs
}

func TestHeatMapThreshold(t *testing.T) {
	for _, n := range []int{analysis.Condense, analysis.Condense + 1} {
		t.Run(fmt.Sprint(n, " partitions"), func(t *testing.T) {
			_, tm := analyseCSV(t, writeCSV(t, wide(n)), time.Time{})
			if heat := tm.Heat != nil; heat != (n > analysis.Condense) {
				t.Fatalf("heat map %v for %d partitions, want one past analysis.Condense (%d)", heat, n, analysis.Condense)
			}
			for _, l := range tm.Lanes {
				if l.Messages != 500 {
					t.Errorf("p%d counts %d messages, the CSV has 500", l.Partition, l.Messages)
				}
				if drawn := len(l.Points.X) > 0; drawn == (tm.Heat != nil) {
					t.Errorf("p%d: %d points with a heat map %v: the lanes' points are the heat map's to replace", l.Partition, len(l.Points.X), tm.Heat != nil)
				}
			}
			b, err := json.Marshal(tm.Lanes[0])
			if err != nil {
				t.Fatal(err)
			}
			if has := containsKey(t, b, "points"); has == (tm.Heat != nil) {
				t.Errorf("lane JSON %s: points written %v with a heat map %v", b, has, tm.Heat != nil)
			}
		})
	}
}

func containsKey(t *testing.T, b []byte, key string) bool {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	_, ok := m[key]
	return ok
}

// TestHeatMapGaps: each partition's gaps over the bound, exactly, in its
// own row: a stall between two acks, a partition never acked, and one
// whose acks began late.
func TestHeatMapGaps(t *testing.T) {
	const interval = 20 * time.Millisecond
	msgs := wide(20)
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.Partition == 7 && m.Seq >= 200 && m.Seq < 300:
			// Acked together when message 300 was.
			m.Acked = t0.Add(300*interval + 5*time.Millisecond)
			m.Received = m.Acked.Add(time.Millisecond)
		case m.Partition == 19:
			m.Acked, m.Received, m.Offset = time.Time{}, time.Time{}, -1
		case m.Partition == 3 && m.Seq < 50:
			m.Acked = t0.Add(50*interval + 5*time.Millisecond)
			m.Received = m.Acked.Add(time.Millisecond)
		}
	}
	// The CSV is in completion order, not partition by partition.
	slices.SortStableFunc(msgs, func(a, b results.Message) int { return a.Acked.Compare(b.Acked) })
	tr, tm := analyseCSV(t, writeCSV(t, msgs), time.Time{})
	hm := tm.Heat
	if hm == nil {
		t.Fatal("no heat map for 20 partitions")
	}
	if hm.Bound != 0.2 {
		t.Errorf("bound %v s, want the probe's 200 ms without metadata", hm.Bound)
	}
	end := round(tr.Gaps.End.Sub(tm.Origin).Seconds(), 1e6)
	if hm.From != 0 || hm.To != end {
		t.Errorf("span [%v, %v], want [0, %v]", hm.From, hm.To, end)
	}
	sec := func(d time.Duration) float64 { return round(d.Seconds(), 1e6) }
	want := map[int32][][2]float64{
		3:  {{0, sec(50*interval + 5*time.Millisecond)}},
		7:  {{sec(199*interval + 5*time.Millisecond), sec(300*interval + 5*time.Millisecond)}},
		19: {{0, end}},
	}
	if len(hm.Rows) != 20 {
		t.Fatalf("%d rows, want 20", len(hm.Rows))
	}
	for i, r := range hm.Rows {
		if r.Partition != int32(i) {
			t.Errorf("row %d is p%d: without a fault the rows are in partition order", i, r.Partition)
		}
		if !slices.Equal(r.Gaps, want[r.Partition]) {
			t.Errorf("p%d: gaps %v, want %v", r.Partition, r.Gaps, want[r.Partition])
		}
		if r.Open != (r.Partition == 19) {
			t.Errorf("p%d: open %v; only the never-acked partition's gap outlasted the trial", r.Partition, r.Open)
		}
		if wantFirst := round(msgs[slices.IndexFunc(msgs, func(m results.Message) bool { return m.Partition == r.Partition && m.Seq == 0 })].Sent.Sub(tm.Origin).Seconds(), 1e6); r.First != wantFirst {
			t.Errorf("p%d: first send %v, want %v", r.Partition, r.First, wantFirst)
		}
	}
}

// TestHeatMapBounded: however many gaps the partitions had, the map keeps
// at most HeatGaps (HeatRowGaps a row at least), each row its longest,
// and counts the rest.
func TestHeatMapBounded(t *testing.T) {
	for _, tc := range []struct{ partitions, messages, share int }{
		{100, 400, HeatGaps / 100},
		{1500, 30, HeatRowGaps},
	} {
		t.Run(fmt.Sprint(tc.partitions, " partitions"), func(t *testing.T) {
			// A send every 250 ms and up to 20 ms more, acked after 5 ms:
			// every gap between two acks is over the 200 ms bound, and
			// they are not all as long.
			var msgs []results.Message
			for p := range tc.partitions {
				for i := range tc.messages {
					sent := t0.Add(time.Duration(i)*250*time.Millisecond + time.Duration(i%5*5)*time.Millisecond)
					msgs = append(msgs, results.Message{Partition: int32(p), Seq: int64(i), Offset: int64(i), Sent: sent,
						Acked: sent.Add(5 * time.Millisecond), Received: sent.Add(6 * time.Millisecond)})
				}
			}
			_, tm := analyseCSV(t, writeCSV(t, msgs), time.Time{})
			hm := tm.Heat
			total := 0
			for _, r := range hm.Rows {
				total += len(r.Gaps)
				if len(r.Gaps) != tc.share || r.Left != tc.messages-1-tc.share {
					t.Fatalf("p%d keeps %d gaps and leaves %d, want its share %d of %d", r.Partition, len(r.Gaps), r.Left, tc.share, tc.messages-1)
				}
				for j, g := range r.Gaps {
					if g[1]-g[0] < r.LeftMax-1e-6 { // both rounded to the µs
						t.Fatalf("p%d kept %v (%.3f s), shorter than one left out (%.3f s)", r.Partition, g, g[1]-g[0], r.LeftMax)
					}
					if j > 0 && g[0] < r.Gaps[j-1][1] {
						t.Fatalf("p%d: gaps out of time order: %v", r.Partition, r.Gaps)
					}
				}
			}
			if limit := max(HeatGaps, HeatRowGaps*tc.partitions); total > limit {
				t.Errorf("%d gaps kept, the bound is %d", total, limit)
			}
			b, err := json.Marshal(hm)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d partitions: %d gaps kept, %d bytes of JSON", tc.partitions, total, len(b))
		})
	}
}

// TestHeatMapRecorded: the recorded SIGKILL drawn as a heat map holds each
// partition's fault gap as the report measured it, in rows led first,
// the fault and the fencing across them, and each partition's own phase
// ends on its row; the recorded 20 partitions are drawn as one.
func TestHeatMapRecorded(t *testing.T) {
	trial, tr := unpackTrial(t, "sigkill")
	tm, err := buildTrialAs(trialPage(t, trial, tr), true)
	if err != nil {
		t.Fatal(err)
	}
	hm := tm.Heat
	since := func(t time.Time) float64 { return round(t.Sub(tm.Origin).Seconds(), 1e6) }
	roles := map[int32]string{}
	for _, st := range tr.Stalls {
		roles[st.Partition] = string(st.Role)
	}
	var order []string
	for _, r := range hm.Rows {
		order = append(order, fmt.Sprintf("p%d %s", r.Partition, r.Role))
		if r.Role != roles[r.Partition] {
			t.Errorf("p%d: role %q, the report says %q", r.Partition, r.Role, roles[r.Partition])
		}
	}
	if !slices.Equal(order, []string{"p0 leader", "p1 follower", "p2 follower"}) {
		t.Errorf("rows %q, want the led partition first", order)
	}
	for _, gp := range tr.Gaps.Partitions {
		f := gp.Ack.Fault
		r := hm.Rows[slices.IndexFunc(hm.Rows, func(r heatRow) bool { return r.Partition == gp.Partition })]
		if !slices.Contains(r.Gaps, [2]float64{since(f.Start), since(f.End)}) {
			t.Errorf("p%d: gaps %v, want the report's fault gap %v–%v among them", gp.Partition, r.Gaps, since(f.Start), since(f.End))
		}
	}
	var marks []string
	for _, m := range hm.Marks {
		marks = append(marks, fmt.Sprintf("%s %s %v", m.Kind, m.Phase, m.T))
	}
	var bounds []string
	ticks := 0
	for _, b := range tr.Boundaries {
		if b.Partition < 0 {
			bounds = append(bounds, fmt.Sprintf("%s %s %v", b.Kind, b.Phase, since(b.Time)))
		} else {
			ticks++
		}
	}
	if !slices.Equal(marks, bounds) || len(marks) == 0 || hm.Marks[0].Kind != string(analysis.BoundaryFault) || hm.Marks[0].T != 0 {
		t.Errorf("marks %q, want the report's shared boundaries %q, the fault first at 0", marks, bounds)
	}
	got := 0
	for _, r := range hm.Rows {
		for _, tk := range r.Ticks {
			got++
			if i := int(tk[1]); i < 0 || i >= len(hm.Phases) {
				t.Errorf("p%d: tick %v names no phase of %q", r.Partition, tk, hm.Phases)
			}
		}
	}
	if got != ticks || ticks == 0 {
		t.Errorf("%d ticks on the rows, the report has %d partitions' own boundaries", got, ticks)
	}

	// The recorded 1,000-partition probe, kept to 20, is condensed: a
	// heat map, and the report's longest gap of each partition in it.
	trial, tr = unpackTrial(t, "probe-1000")
	tm, err = buildTrial(trialPage(t, trial, tr))
	if err != nil {
		t.Fatal(err)
	}
	if tm.Heat == nil || len(tm.Heat.Rows) != 20 {
		t.Fatalf("probe-1000: heat map %v, want 20 rows", tm.Heat)
	}
	for i, gp := range tr.Gaps.Partitions {
		r := tm.Heat.Rows[i]
		if g := gp.Ack.Longest; g != nil && !slices.Contains(r.Gaps, [2]float64{since(g.Start), since(g.End)}) {
			t.Errorf("p%d: gaps %v, want the report's longest %v–%v among them", gp.Partition, r.Gaps, since(g.Start), since(g.End))
		}
	}
}

// TestRunOfHeatMaps: a run of trials drawn as heat maps has no lanes to
// overlay.
func TestRunOfHeatMaps(t *testing.T) {
	var in RunPage
	for range 2 {
		path := writeCSV(t, wide(analysis.Condense+1))
		tr, err := analysis.Analyze(results.Trial{Probe: path}, analysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		in.Trials = append(in.Trials, TrialPage{Report: tr, Probe: f})
	}
	pg, err := buildRun(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Overlay) != 0 || pg.Trials[0].Heat == nil || pg.Trials[1].Heat == nil {
		t.Errorf("%d overlay lanes, heat maps %v and %v; want none and two", len(pg.Overlay), pg.Trials[0].Heat != nil, pg.Trials[1].Heat != nil)
	}
}
