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
				open := strings.Contains(b.String(), "still stalled when probing stopped, 9.00 s after it began, not yet past")
				if len(x.Unended) != 0 || open != (tc.openFor > 0) || !strings.Contains(line, "every phase within") {
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

// pauseSession4000Archive is a live pause of k1 at
// broker.session.timeout.ms=4000 (2026-12-06): fenced 2.58 s after the
// freeze, its partitions led anew, and the producer of p0 still waiting
// on it when probing stopped.
const pauseSession4000Archive = "pause-session-4000.tar.gz"

// TestExpectedRecordedUnended reads that trial: every bounded phase is
// within its bound (the detection in (2.00 s, 4.50 s]), and p0's stall,
// open when probing stopped 31.9 s after the freeze, is not past what its
// phases allow: the client's discovery was in progress, bounded by the
// producer's request timeouts (produce_request_timeout 10 s and
// request_timeout_overhead 10 s, twice, and the refresh after).
func TestExpectedRecordedUnended(t *testing.T) {
	tr := analyze(t, unpack(t, pauseSession4000Archive))
	x := tr.Expected()
	if len(x.Overruns) != 0 || len(x.Unended) != 0 {
		t.Errorf("overruns %+v, unended %+v: want every bounded phase within, and the open stall not past", x.Overruns, x.Unended)
	}
	p0 := tr.Stalls[0]
	b := p0.Expected()
	if p0.Partition != 0 || b.Open < 31*time.Second || b.Pending.Name != PhaseClient || !b.Pending.Bound.Stated || b.Pending.Bound.High < 28*time.Second || b.Past != 0 {
		t.Fatalf("p%d: open %v, pending %+v, past %v: want p0 open 31.9 s with the client phase in progress, allowed 28 s or more", p0.Partition, b.Open, b.Pending, b.Past)
	}
	for _, st := range tr.Stalls {
		for _, ph := range st.Phases {
			if ph.Name == PhaseDetect && (!ph.Bound.Stated || ph.Bound.Low != 2*time.Second || ph.Bound.High != 4500*time.Millisecond) {
				t.Errorf("p%d detect bound %+v, want (2.00 s, 4.50 s]", st.Partition, ph.Bound)
			}
		}
	}
}
