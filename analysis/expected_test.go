package analysis

import (
	"strings"
	"testing"
	"time"
)

// TestExpectedOpenStall checks a stall no ack ended: the time it had lasted
// when probing stopped is held against its phases and the phase in
// progress (the client's discovery of the new leader, with its bound); past
// all of that, it is said in its line and the trial's bounds line, and
// counted in beyond_bound. A stall with no phase in progress kbf can bound
// (a leader alone in its ISR while a cut lasts) is past nothing.
func TestExpectedOpenStall(t *testing.T) {
	phases := []Phase{
		{Name: PhaseDetect, Duration: 8 * time.Second, Bound: Bound{Stated: true, Low: 7 * time.Second, High: 10125 * time.Millisecond}},
		{Name: PhaseElect, Duration: 100 * time.Millisecond, Bound: noBound("no setting")},
	}
	client := Phase{Name: PhaseClient, Start: t0, Bound: Bound{Stated: true, High: 5 * time.Second}}
	for _, tc := range []struct {
		name     string
		openFor  time.Duration
		pending  Phase
		total    time.Duration
		wantPast time.Duration
		wantText string
	}{
		{name: "open past its phases and the one in progress", openFor: 30 * time.Second, pending: client,
			wantPast: 30*time.Second - 10125*time.Millisecond - 100*time.Millisecond - 5*time.Second, wantText: "at least 14.78 s past all of that (the client phase in progress"},
		{name: "open within them", openFor: 12 * time.Second, pending: client, wantText: "12.00 s after it began, not yet past what its phases allow (the client phase in progress"},
		{name: "open with no phase in progress", openFor: 30 * time.Second, wantText: "30.00 s after it began, in no phase kbf can bound"},
		{name: "ended", total: 8100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := Stall{Partition: 0, Phases: phases, OpenFor: tc.openFor, Pending: tc.pending, Total: tc.total}
			b := st.Expected()
			if b.Past != tc.wantPast {
				t.Fatalf("past %v, want %v", b.Past, tc.wantPast)
			}
			if got := beyondOf(&st); got != tc.wantPast {
				t.Errorf("beyond_bound %v, want %v", got, tc.wantPast)
			}
			if s := b.String(); tc.wantText != "" && !strings.Contains(s, tc.wantText) || tc.wantText == "" && strings.Contains(s, "still stalled") {
				t.Errorf("stall %q, want %q", s, tc.wantText)
			}
			x := (&Trial{Stalls: []Stall{st}}).Expected()
			line := x.Line()
			if tc.wantPast == 0 {
				if len(x.Unended) != 0 || !strings.Contains(line, "every phase within") {
					t.Errorf("unended %+v; line %q: want nothing past", x.Unended, line)
				}
				return
			}
			if !strings.Contains(line, "1 stall(s) still open") || !strings.Contains(line, "p0: still stalled when probing stopped, 30.00 s after it began: at least 14.78 s past") {
				t.Errorf("line %q: want p0 past", line)
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
