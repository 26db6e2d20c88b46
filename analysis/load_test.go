package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// loadRows are n seconds from t0 with acked[i] acknowledged in second i,
// 100 sent in each.
func loadRows(t0 time.Time, acked ...int64) []results.LoadSecond {
	out := make([]results.LoadSecond, len(acked))
	for i, a := range acked {
		out[i] = results.LoadSecond{Second: t0.Add(time.Duration(i) * time.Second), Sent: 100, Acked: a, Received: a}
	}
	return out
}

func TestLoadView(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	s := results.LoadSettings{Topic: "orders-load", Rate: 5000, Size: 1024, Offered: "5000/s", Acks: "all"}
	F := t0.Add(4*time.Second + 400*time.Millisecond)
	for _, tc := range []struct {
		name  string
		rows  []results.LoadSecond
		F     time.Time
		acked float64
		low   int64
		lowAt time.Duration // after t0
		back  time.Duration // after t0; 0: never
		line  string
	}{
		{
			name: "fell and came back", F: F,
			// the first and last rows are partial; 4 is the fault's second
			rows:  loadRows(t0, 30, 100, 98, 102, 60, 0, 0, 40, 95, 100, 20),
			acked: 100, low: 0, lowAt: 5 * time.Second, back: 8 * time.Second,
			line: "load: 5,000 rec/s offered (5000/s, 1024-byte records on orders-load), 100 acked/s before the fault; 0 errors; throughput fell to 0/s at T+0.6 s, back at T+3.6 s",
		},
		{
			name: "never back", F: F,
			rows:  loadRows(t0, 30, 100, 100, 100, 60, 0, 10, 50, 5),
			acked: 100, low: 0, lowAt: 5 * time.Second,
			line: "throughput fell to 0/s at T+0.6 s, not back to 90 % by its end",
		},
		{
			name:  "no fault",
			rows:  loadRows(t0, 30, 100, 90, 110, 5),
			acked: 100,
			line:  "100 acked/s; 0 errors",
		},
		{
			name: "too short",
			rows: loadRows(t0, 30, 5),
			line: "no whole second recorded",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := loadView(s, tc.rows, tc.F)
			if v.Acked != tc.acked || v.Low != tc.low {
				t.Errorf("acked %v, low %d; want %v, %d", v.Acked, v.Low, tc.acked, tc.low)
			}
			if tc.lowAt > 0 && !v.LowAt.Equal(t0.Add(tc.lowAt)) {
				t.Errorf("low at %v, want %v", v.LowAt, t0.Add(tc.lowAt))
			}
			switch {
			case tc.back == 0 && !v.BackAt.IsZero():
				t.Errorf("back at %v, want never", v.BackAt)
			case tc.back > 0 && !v.BackAt.Equal(t0.Add(tc.back)):
				t.Errorf("back at %v, want %v", v.BackAt, t0.Add(tc.back))
			}
			tr := &Trial{FaultAt: tc.F, Load: v}
			if l := tr.LoadLine(); !strings.Contains(l, tc.line) {
				t.Errorf("line\n%s\nwant it to hold\n%s", l, tc.line)
			}
		})
	}
}

func TestLoadLineErrors(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	rows := loadRows(t0, 30, 100, 100, 100, 100)
	rows[2].Failed, rows[2].Err = 1200, "NOT_ENOUGH_REPLICAS: Messages are rejected since there are fewer in-sync replicas than required."
	rows[3].Failed = 3
	tr := &Trial{Load: loadView(results.LoadSettings{Rate: 5000, Size: 1024, Topic: "t", Offered: "5MB/s"}, rows, time.Time{})}
	want := "; 1,203 errors (first: NOT_ENOUGH_REPLICAS: Messages are rejected since there are fewer in-sync replica…)"
	if l := tr.LoadLine(); !strings.Contains(l, want) {
		t.Errorf("line\n%s\nwant it to hold\n%s", l, want)
	}
	if g := grouped(1234567); g != "1,234,567" {
		t.Errorf("grouped: %s", g)
	}
}
