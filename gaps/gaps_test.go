package gaps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/internal/testsupport/golden"

	"github.com/kbf-project/kbf/results"
)

// at is a time of the day the test files were made, 2026-11-30, in UTC.
func at(clock string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05.000", "2026-11-30 "+clock)
	if err != nil {
		panic(err)
	}
	return t
}

// readReport builds a Report from a probe CSV in testdata.
func readReport(t testing.TB, name string, opts Options) *Report {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReport(opts)
	d := results.NewDecoder(f, name)
	for {
		var m results.Message
		err := d.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		r.Add(&m)
	}
	r.Close()
	return r
}

// facts renders what a Report found as short strings, keyed by what they
// describe, so a test can state the values it expects independently of the
// text and JSON writers.
func facts(r *Report) map[string]string {
	f := map[string]string{}
	gap := func(g *Gap) string {
		if g == nil {
			return "none"
		}
		s := g.Start.Format("15:04:05.000") + " ~ " + g.End.Format("15:04:05.000")
		if g.FromFault {
			s += " from-fault"
		}
		if g.Open {
			s += " open"
		}
		return s
	}
	for _, p := range r.Partitions {
		k := fmt.Sprintf("p%d ", p.Partition)
		f[k+"ack fault"] = gap(p.Ack.Fault)
		f[k+"ack longest"] = gap(p.Ack.Longest)
		f[k+"receive fault"] = gap(p.Receive.Fault)
		f[k+"receive longest"] = gap(p.Receive.Longest)
		f[k+"counts"] = fmt.Sprintf("sent %d acked %d received %d failed %d never-acked %d not-received %d",
			p.Sent, p.Acked, p.Received, p.Failed, p.NeverAcked, p.NotReceived)
	}
	f["failed"] = fmt.Sprint(r.Failed, " ", r.OtherErrors, " ", r.Errors)
	if !r.FirstFailure.IsZero() {
		f["first failure"] = r.FirstFailure.Format("15:04:05.000")
	}
	f["span"] = r.Start.Format(time.RFC3339Nano) + " ~ " + r.End.Format(time.RFC3339Nano)
	return f
}

var cases = []struct {
	name   string // also names the golden files
	input  string
	opts   Options
	golden string // when another case's golden files apply; "" for name
	facts  map[string]string
}{
	{
		name:  "fault",
		input: "fault.csv",
		opts:  Options{FaultAt: at("03:26:09.115")},
		facts: map[string]string{
			"p0 ack fault":       "03:26:09.100 ~ 03:26:18.497",
			"p0 ack longest":     "03:26:08.300 ~ 03:26:08.530",
			"p0 receive fault":   "03:26:09.102 ~ 03:26:18.499",
			"p0 receive longest": "03:26:08.302 ~ 03:26:08.532",
			"p1 ack fault":       "03:26:09.094 ~ 03:26:17.460",
			"p1 ack longest":     "03:26:08.094 ~ 03:26:08.294",
			"p2 ack fault":       "03:26:09.095 ~ 03:26:17.461",
			"p2 receive fault":   "03:26:09.097 ~ 03:26:17.900",
			"p2 receive longest": "03:26:08.097 ~ 03:26:08.297",
			"p0 counts":          "sent 30 acked 30 received 30 failed 0 never-acked 0 not-received 0",
			"failed":             "0 0 []",
			"span":               "2026-11-30T03:26:08Z ~ 2026-11-30T03:26:18.522Z",
		},
	},
	{
		// The rows of fault.csv shuffled: order must not matter.
		name:   "unordered",
		input:  "unordered.csv",
		opts:   Options{FaultAt: at("03:26:09.115")},
		golden: "fault",
		facts: map[string]string{
			"p0 ack fault":     "03:26:09.100 ~ 03:26:18.497",
			"p2 receive fault": "03:26:09.097 ~ 03:26:17.900",
		},
	},
	{
		// p0 never acks again; the run ends at the last time seen.
		name:  "open",
		input: "open.csv",
		opts:  Options{FaultAt: at("03:26:09.115")},
		facts: map[string]string{
			"p0 ack fault":       "03:26:09.100 ~ 03:26:17.485 open",
			"p0 ack longest":     "03:26:08.100 ~ 03:26:08.300",
			"p0 receive fault":   "03:26:09.102 ~ 03:26:17.485 open",
			"p0 counts":          "sent 30 acked 6 received 6 failed 0 never-acked 24 not-received 0",
			"p1 ack fault":       "03:26:09.094 ~ 03:26:17.460",
			"p1 receive longest": "03:26:08.096 ~ 03:26:08.296",
		},
	},
	{
		// The same, with the run's end given.
		name:  "open-end",
		input: "open.csv",
		opts:  Options{FaultAt: at("03:26:09.115"), End: at("03:26:30.000")},
		facts: map[string]string{
			"p0 ack fault": "03:26:09.100 ~ 03:26:30.000 open",
			"p1 ack fault": "03:26:09.094 ~ 03:26:17.460",
			"span":         "2026-11-30T03:26:08Z ~ 2026-11-30T03:26:30Z",
		},
	},
	{
		// The fault precedes every record: p0's gap starts at the fault,
		// p1's longer gap within the window wins over its own, and p2,
		// which never acks, stalls from the fault to the end.
		name:  "before",
		input: "before.csv",
		opts:  Options{FaultAt: at("03:26:07.500")},
		facts: map[string]string{
			"p0 ack fault":     "03:26:07.500 ~ 03:26:08.100 from-fault",
			"p0 ack longest":   "03:26:08.100 ~ 03:26:08.300",
			"p1 ack fault":     "03:26:08.294 ~ 03:26:09.400",
			"p1 ack longest":   "03:26:08.094 ~ 03:26:08.294",
			"p2 ack fault":     "03:26:07.500 ~ 03:26:10.802 from-fault open",
			"p2 ack longest":   "none",
			"p2 receive fault": "03:26:07.500 ~ 03:26:10.802 from-fault open",
			"p2 counts":        "sent 10 acked 0 received 0 failed 0 never-acked 10 not-received 0",
		},
	},
	{
		name:  "failed",
		input: "failed.csv",
		opts:  Options{FaultAt: at("03:26:09.115")},
		facts: map[string]string{
			"p0 ack fault":       "03:26:09.095 ~ 03:26:12.090",
			"p0 counts":          "sent 12 acked 9 received 9 failed 3 never-acked 0 not-received 0",
			"p1 counts":          "sent 12 acked 12 received 11 failed 0 never-acked 0 not-received 1",
			"p1 receive fault":   "03:26:09.098 ~ 03:26:12.064",
			"p1 receive longest": "03:26:08.498 ~ 03:26:08.898",
			"failed":             `3 0 [{NOT_ENOUGH_REPLICAS: the ISR, 1 of 2, is too small 2} {REQUEST_TIMED_OUT: "orders-0" 1}]`,
			"first failure":      "03:26:09.200",
		},
	},
	{
		name:  "nofault",
		input: "nofault.csv",
		facts: map[string]string{
			"p0 ack fault":       "none",
			"p0 ack longest":     "03:26:08.900 ~ 03:26:09.400",
			"p0 receive longest": "03:26:08.902 ~ 03:26:09.402",
			"p1 ack longest":     "03:26:08.051 ~ 03:26:08.251",
			"p2 ack longest":     "none",
			"p2 receive longest": "none",
			"p2 counts":          "sent 1 acked 1 received 0 failed 0 never-acked 0 not-received 1",
		},
	},
	{
		name:  "midnight",
		input: "midnight.csv",
		opts:  Options{FaultAt: time.Date(2026, 11, 30, 23, 59, 59, 500e6, time.UTC)},
		facts: map[string]string{
			"p0 ack fault":   "23:59:59.400 ~ 00:00:05.000",
			"p0 ack longest": "23:59:59.000 ~ 23:59:59.200",
		},
	},
	{
		name:  "midnight-nofault",
		input: "midnight.csv",
		facts: map[string]string{
			"p0 ack longest": "23:59:59.400 ~ 00:00:05.000",
		},
	},
}

func TestGolden(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := readReport(t, tc.input, tc.opts)
			got := facts(r)
			for k, want := range tc.facts {
				if got[k] != want {
					t.Errorf("%s: %s, want %s", k, got[k], want)
				}
			}
			file := tc.golden
			if file == "" {
				file = tc.name
			}
			var text, js bytes.Buffer
			if err := WriteText(&text, r); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&js, r); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, file+".golden", text.Bytes(), tc.golden == "")
			checkGolden(t, file+".json", js.Bytes(), tc.golden == "")
		})
	}
}

// ms builds sorted Unix ns times from milliseconds.
func ms(v ...int64) []int64 {
	for i := range v {
		v[i] *= 1e6
	}
	return v
}

// TestRule checks the fault-gap rule at its edges, in milliseconds.
func TestRule(t *testing.T) {
	type g = [2]int64 // start, end in ms
	for _, tc := range []struct {
		name            string
		ts              []int64
		fault, window   int64 // ms; fault < 0: no fault
		end             int64
		wantFault       *g
		fromFault, open bool
		wantLongest     *g
		pending         bool // messages left waiting at the end
	}{
		{name: "no fault", ts: ms(0, 100, 400, 450), fault: -1, wantLongest: &g{100, 400}},
		{name: "no fault, ties go to the earliest", ts: ms(0, 100, 200), fault: -1, wantLongest: &g{0, 100}},
		{name: "no fault, one time", ts: ms(5), fault: -1},
		{name: "no fault, no time", fault: -1},
		{name: "gap across the fault", ts: ms(0, 100, 900, 1000), fault: 150, window: 10, end: 1000,
			wantFault: &g{100, 900}, wantLongest: &g{0, 100}},
		{name: "gap ending at the fault is not in progress", ts: ms(0, 500, 600), fault: 500, window: 10, end: 600,
			wantFault: &g{500, 600}, wantLongest: &g{0, 500}},
		{name: "gap starting at fault+window is", ts: ms(0, 100, 110, 500), fault: 95, window: 15, end: 500,
			wantFault: &g{110, 500}, wantLongest: &g{0, 100}},
		{name: "gap starting after fault+window is not", ts: ms(0, 100, 111, 500), fault: 95, window: 15, end: 500,
			wantFault: &g{0, 100}, wantLongest: &g{111, 500}},
		{name: "longest of several in the window", ts: ms(0, 100, 130, 400, 410), fault: 105, window: 100, end: 410,
			wantFault: &g{130, 400}, wantLongest: &g{0, 100}},
		{name: "no time after the fault", ts: ms(0, 100, 200), fault: 300, window: 10, end: 700,
			wantFault: &g{200, 700}, open: true, wantLongest: &g{0, 100}},
		{name: "last time exactly at the fault", ts: ms(0, 100), fault: 100, window: 10, end: 900,
			wantFault: &g{100, 900}, open: true, wantLongest: &g{0, 100}},
		{name: "run ends before the fault", ts: ms(0, 100), fault: 300, window: 10, end: 200,
			wantFault: &g{100, 300}, open: true, wantLongest: &g{0, 100}},
		{name: "fault before the first time", ts: ms(500, 600, 700), fault: 0, window: 10, end: 700,
			wantFault: &g{0, 500}, fromFault: true, wantLongest: &g{500, 600}},
		{name: "fault before the first time, longer gap in the window", ts: ms(50, 60, 500), fault: 0, window: 100, end: 500,
			wantFault: &g{60, 500}, wantLongest: &g{50, 60}},
		{name: "no time at all", fault: 100, window: 10, end: 400,
			wantFault: &g{100, 400}, fromFault: true, open: true},
		{name: "a single time after the fault", ts: ms(300), fault: 100, window: 10, end: 400,
			wantFault: &g{100, 300}, fromFault: true},
		{name: "acks after the fault, then none to the end", ts: ms(0, 100, 200, 300, 320), fault: 150, window: 1000, end: 2000,
			pending: true, wantFault: &g{320, 2000}, open: true, wantLongest: &g{0, 100}},
		{name: "nothing left waiting: the end is no stall", ts: ms(0, 100, 200, 300, 320), fault: 150, window: 1000, end: 2000,
			wantFault: &g{100, 200}, wantLongest: &g{0, 100}},
		{name: "a longer gap in the window beats the trailing one", ts: ms(0, 100, 600, 620), fault: 150, window: 1000, end: 630,
			pending: true, wantFault: &g{100, 600}, wantLongest: &g{0, 100}},
		{name: "last ack after the window leaves no trailing gap", ts: ms(0, 100, 150, 200, 900), fault: 120, window: 100, end: 5000,
			pending: true, wantFault: &g{200, 900}, wantLongest: &g{0, 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f *fault
			if tc.fault >= 0 {
				f = &fault{at: tc.fault * 1e6, window: tc.window * 1e6, end: max(tc.end, tc.fault) * 1e6}
			}
			st := stalls(tc.ts, f, tc.pending)
			check := func(what string, got *Gap, want *g) {
				t.Helper()
				switch {
				case want == nil && got != nil:
					t.Errorf("%s gap %v ~ %v, want none", what, got.Start, got.End)
				case want != nil && got == nil:
					t.Errorf("%s gap none, want %v", what, *want)
				case want != nil && (got.Start.UnixNano() != want[0]*1e6 || got.End.UnixNano() != want[1]*1e6):
					t.Errorf("%s gap %d ~ %d ms, want %v", what, got.Start.UnixMilli(), got.End.UnixMilli(), *want)
				}
			}
			check("fault", st.Fault, tc.wantFault)
			check("longest", st.Longest, tc.wantLongest)
			if st.Fault != nil && (st.Fault.FromFault != tc.fromFault || st.Fault.Open != tc.open) {
				t.Errorf("fault gap from-fault %v open %v, want %v %v", st.Fault.FromFault, st.Fault.Open, tc.fromFault, tc.open)
			}
			if st.Longest != nil && (st.Longest.FromFault || st.Longest.Open) {
				t.Errorf("longest gap is a stand-in: %+v", st.Longest)
			}
		})
	}
}

func TestOptionsAndClose(t *testing.T) {
	r := NewReport(Options{})
	if r.Window != 0 {
		t.Fatalf("Window set before Close: %v", r.Window)
	}
	base := at("03:26:09.000")
	r.Add(&results.Message{Partition: 3, Sent: base, Acked: base.Add(time.Second)})
	r.Close()
	r.Close()
	if r.Window != DefaultWindow || len(r.Partitions) != 1 || r.Partitions[0].Acked != 1 {
		t.Errorf("after two Closes: window %v, partitions %+v", r.Window, r.Partitions)
	}
	if !r.Start.Equal(base) || !r.End.Equal(base.Add(time.Second)) {
		t.Errorf("span %v ~ %v", r.Start, r.End)
	}
}

func TestEmpty(t *testing.T) {
	for _, opts := range []Options{{}, {FaultAt: at("03:26:09.000")}} {
		r := NewReport(opts)
		r.Close()
		var b bytes.Buffer
		if err := WriteText(&b, r); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), "failed sends 0\nno messages\n") {
			t.Errorf("empty report:\n%s", b.String())
		}
		b.Reset()
		if err := WriteJSON(&b, r); err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(b.Bytes(), &v); err != nil || v["partitions"] == nil {
			t.Errorf("empty report's JSON %s: %v", b.String(), err)
		}
	}
}

// TestErrorsBounded checks that the most common errors come first, that
// strings already counted keep counting once the bound is reached, and that
// strings beyond it are counted, not kept.
func TestErrorsBounded(t *testing.T) {
	r := NewReport(Options{})
	base := at("03:26:09.000")
	add := func(e string) { r.Add(&results.Message{Partition: 0, Sent: base, Offset: -1, Err: e}) }
	add("NOT_ENOUGH_REPLICAS")
	add("NOT_LEADER")
	for i := 0; i < 3*maxErrors; i++ {
		add(fmt.Sprintf("TIMEOUT after %d ms", i))
	}
	for i := 0; i < 3; i++ {
		add("NOT_ENOUGH_REPLICAS")
		add("NOT_LEADER")
	}
	add("NOT_LEADER")
	r.Close()
	if len(r.Errors) != topErrors || r.Errors[0] != (ErrorCount{"NOT_LEADER", 5}) ||
		r.Errors[1] != (ErrorCount{"NOT_ENOUGH_REPLICAS", 4}) || r.Errors[2] != (ErrorCount{"TIMEOUT after 0 ms", 1}) {
		t.Errorf("errors %v", r.Errors)
	}
	listed := 0
	for _, e := range r.Errors {
		listed += e.Count
	}
	if listed+r.OtherErrors != r.Failed || r.Failed != 3*maxErrors+9 {
		t.Errorf("listed %d + other %d != failed %d", listed, r.OtherErrors, r.Failed)
	}
}

// TestFaultAfterRun checks a fault later than anything in the file: the
// open gap runs to the fault, not backwards to the run's end.
func TestFaultAfterRun(t *testing.T) {
	r := NewReport(Options{FaultAt: at("03:26:10.000")})
	for i, ack := range []string{"03:26:09.000", "03:26:09.200"} {
		r.Add(&results.Message{Partition: 0, Seq: int64(i), Sent: at(ack).Add(-time.Millisecond), Acked: at(ack)})
	}
	r.Close()
	if got := facts(r)["p0 ack fault"]; got != "03:26:09.200 ~ 03:26:10.000 open" {
		t.Errorf("fault gap %s", got)
	}
}

// checkGolden compares got with testdata/name; under -update it rewrites the
// file only when mine is set (a case that borrows another's file leaves it).
func checkGolden(t *testing.T, name string, got []byte, mine bool) {
	t.Helper()
	if golden.Updating() && !mine {
		return
	}
	golden.Check(t, filepath.Join("testdata", name), got)
}

// referenceStalls is the rule applied the plain way, to every time sorted:
// what the streaming tracker must agree with.
func referenceStalls(ts []int64, f *fault, pending bool) Stalls {
	ts = slices.Sorted(slices.Values(ts))
	longest := func(skip *span) (span, bool) {
		var best span
		found := false
		for i := 1; i < len(ts); i++ {
			s := span{start: ts[i-1], end: ts[i]}
			if skip != nil && s.start < skip.end && s.end > skip.start {
				continue
			}
			if !found || s.len() > best.len() {
				best, found = s, true
			}
		}
		return best, found
	}
	var st Stalls
	if f == nil {
		if g, ok := longest(nil); ok {
			st.Longest = g.gap()
		}
		return st
	}
	k := 0
	for k < len(ts) && ts[k] <= f.at {
		k++
	}
	// faultGap wants the latest time at or before the fault and those after.
	from := max(k-1, 0)
	fg := faultGap(ts[from:], k-from, f, pending)
	st.Fault = fg.gap()
	if g, ok := longest(&fg); ok {
		st.Longest = g.gap()
	}
	return st
}

// TestTrackerAgrees checks the streaming tracker against the plain rule
// on times in order, nearly in order, in reverse, and shuffled, with ties
// and repeats; only a shuffle may be too disordered, and then it says so.
func TestTrackerAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, order := range []string{"sorted", "nearly", "reversed", "shuffled"} {
		for trial := range 300 {
			n := 1 + rng.IntN(600)
			ts := make([]int64, n)
			var at int64
			for i := range ts {
				switch rng.IntN(10) {
				case 0: // a repeat: a batch read at one instant
				case 1:
					at += int64(rng.IntN(5000)) // a stall
				default:
					at += int64(15 + rng.IntN(10))
				}
				ts[i] = at
			}
			switch order {
			case "nearly":
				for i := range ts {
					if j := i + rng.IntN(8); j < n && rng.IntN(3) == 0 {
						ts[i], ts[j] = ts[j], ts[i]
					}
				}
				// and a few stragglers written at the end
				for range rng.IntN(5) {
					i := rng.IntN(n)
					ts = append(slices.Delete(ts, i, i+1), ts[i])
				}
			case "reversed":
				slices.Reverse(ts)
			case "shuffled":
				rng.Shuffle(n, func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
			}
			var f *fault
			if trial%3 != 0 {
				fat := ts[rng.IntN(n)] + int64(rng.IntN(50)) - 25
				f = &fault{at: fat, window: int64(rng.IntN(200)), end: max(at+int64(rng.IntN(100)), fat)}
			}
			var tr tracker
			if f != nil {
				tr.zone.window(&zone{from: f.at, to: f.at + f.window})
			}
			for _, v := range ts {
				tr.add(v)
			}
			pending := rng.IntN(2) == 0
			got, err := tr.stalls(f, pending)
			if err != nil {
				if order != "shuffled" {
					t.Fatalf("%s, trial %d: %v", order, trial, err)
				}
				continue
			}
			if want := referenceStalls(ts, f, pending); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, trial %d, fault %+v: got %+v, want %+v", order, trial, f, show(got), show(want))
			}
		}
	}
}

func show(st Stalls) string {
	s := func(g *Gap) string {
		if g == nil {
			return "none"
		}
		return fmt.Sprintf("%d~%d%v%v", g.Start.UnixNano(), g.End.UnixNano(), g.FromFault, g.Open)
	}
	return "fault " + s(st.Fault) + " longest " + s(st.Longest)
}

// TestReady keeps a probe run's start-up out of its gaps: the acks before
// every partition's first ack are counted but make no gap.
func TestReady(t *testing.T) {
	base := at("03:26:09.000")
	msAt := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	// p0 acks at 0, then its next only at 3500 ms (the producer loading
	// the other partitions' metadata), then every 100 ms; p1 first at 1900.
	acks := map[int32][]int{0: {0, 3500, 3600, 3700, 3900}, 1: {1900, 2000, 2100, 2400}}
	tests := []struct {
		name        string
		opts        Options
		wantP0      time.Duration
		wantP1      time.Duration
		wantReady   bool
		wantHeading string
	}{
		{name: "without Ready the start-up is the longest gap", opts: Options{}, wantP0: 3500 * time.Millisecond, wantP1: 300 * time.Millisecond},
		{name: "after the start-up", opts: Options{Ready: msAt(1900)}, wantP0: 200 * time.Millisecond, wantP1: 300 * time.Millisecond, wantReady: true,
			wantHeading: "no fault recorded; longest gaps after the probe's start-up (to 03:26:10.900, every partition's first ack; 1.91 s)"},
		{name: "ignored with a fault", opts: Options{Ready: msAt(1900), FaultAt: msAt(3000), End: msAt(3900)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReport(tt.opts)
			for part, ts := range acks {
				for _, ms := range ts {
					r.Add(&results.Message{Partition: part, Sent: msAt(ms - 5), Acked: msAt(ms), Received: msAt(ms + 1)})
				}
			}
			r.Close()
			if got := !r.Ready.IsZero(); got != tt.wantReady {
				t.Errorf("ready %v, want it set %v", r.Ready, tt.wantReady)
			}
			if r.Partitions[0].Acked != 5 {
				t.Errorf("p0 acked %d, want every ack counted", r.Partitions[0].Acked)
			}
			if tt.opts.FaultAt.IsZero() {
				if got := r.Partitions[0].Ack.Longest.Duration(); got != tt.wantP0 {
					t.Errorf("p0 longest %v, want %v", got, tt.wantP0)
				}
				if got := r.Partitions[1].Ack.Longest.Duration(); got != tt.wantP1 {
					t.Errorf("p1 longest %v, want %v", got, tt.wantP1)
				}
			} else if f := r.Partitions[0].Ack.Fault; f == nil || f.Duration() != 3500*time.Millisecond {
				t.Errorf("p0 fault gap %+v, want the start-up's 3.5 s kept", f)
			}
			var b strings.Builder
			if err := WriteText(&b, r); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tt.wantHeading) {
				t.Errorf("text does not say %q:\n%s", tt.wantHeading, b.String())
			}
		})
	}
}
