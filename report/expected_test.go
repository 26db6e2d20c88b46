package report

import (
	"strings"
	"testing"
	"time"
)

// TestExpectedOpenStall checks a stall no ack ended: the time it had lasted
// when probing stopped, past everything its phases allow, is said in its
// line, in the trial's bounds line, and counted in beyond_bound; a stall
// that ended, or one still within what its phases allow, has none.
func TestExpectedOpenStall(t *testing.T) {
	phases := []Phase{
		{Name: PhaseDetect, Duration: 8 * time.Second, Bound: Bound{Stated: true, Low: 7 * time.Second, High: 10125 * time.Millisecond}},
		{Name: PhaseElect, Duration: 100 * time.Millisecond, Bound: noBound("no setting")},
	}
	for _, tc := range []struct {
		name     string
		openFor  time.Duration
		total    time.Duration
		wantPast time.Duration
	}{
		{name: "open past its phases", openFor: 30 * time.Second, wantPast: 30*time.Second - 10125*time.Millisecond - 100*time.Millisecond},
		{name: "open within its phases", openFor: 9 * time.Second},
		{name: "ended", total: 8100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := Stall{Partition: 0, Phases: phases, OpenFor: tc.openFor, Total: tc.total}
			b := st.Expected()
			if b.Past != tc.wantPast {
				t.Fatalf("past %v, want %v", b.Past, tc.wantPast)
			}
			tr := &Trial{Stalls: []Stall{st}}
			x := tr.Expected()
			line := x.Line()
			if got := beyondOf(&st); got != tc.wantPast {
				t.Errorf("beyond_bound %v, want %v", got, tc.wantPast)
			}
			if tc.wantPast == 0 {
				if len(x.Unended) != 0 || strings.Contains(b.String(), "still stalled") || !strings.Contains(line, "every phase within") {
					t.Errorf("unended %+v; stall %q; line %q: want nothing past", x.Unended, b, line)
				}
				return
			}
			want := "at least " + secs(tc.wantPast) + " past"
			if !strings.Contains(b.String(), want) || !strings.Contains(line, "1 stall(s) still open") || !strings.Contains(line, "p0: still stalled when probing stopped, 30.00 s after it began: "+want) {
				t.Errorf("stall %q; line %q: want %q", b, line, want)
			}
		})
	}
}
