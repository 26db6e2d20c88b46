package gaps

import (
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// A fault whose consequence comes late is measured at it: with From set,
// a longer gap that was over before it is not the fault's.
func TestFaultWindowFrom(t *testing.T) {
	F := time.Date(2026, 12, 1, 12, 33, 19, 0, time.UTC)
	ms := func(d int) time.Time { return F.Add(time.Duration(d) * time.Millisecond) }
	// Acks every 100 ms from -1 s to +12 s, but for a 1.4 s gap at +2 s
	// (noise, long before the fence) and a 0.8 s gap at +9.2 s (after the
	// fence at +9 s).
	var acks []time.Time
	for d := -1000; d <= 12000; d += 100 {
		if d > 2000 && d < 3400 || d > 9200 && d < 10000 {
			continue
		}
		acks = append(acks, ms(d))
	}
	for _, tc := range []struct {
		name       string
		from       time.Time
		start, end time.Time
	}{
		{"from the fault", time.Time{}, ms(2000), ms(3400)},
		{"from the fence", ms(9000), ms(9200), ms(10000)},
		{"from before the fault is the fault", F.Add(-time.Second), ms(2000), ms(3400)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReport(Options{FaultAt: F, From: tc.from, Window: 3 * time.Second, End: ms(12000)})
			for i, at := range acks {
				r.Add(&results.Message{Partition: 0, Seq: int64(i), Sent: at.Add(-time.Millisecond), Acked: at})
			}
			r.Close()
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			g := r.Partitions[0].Ack.Fault
			if g == nil || !g.Start.Equal(tc.start) || !g.End.Equal(tc.end) {
				t.Fatalf("fault gap %+v, want %v ~ %v", g, tc.start, tc.end)
			}
			if tc.from.After(F) != !r.From.IsZero() {
				t.Errorf("From %v, want it kept only when after the fault", r.From)
			}
		})
	}
}
