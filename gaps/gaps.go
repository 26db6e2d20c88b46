// Package gaps reads probe messages and finds, per partition, the stalls:
// gaps between consecutive acks and between consecutive receives.
//
// A Report is built one message at a time, in any order (probe.csv lists
// messages as they completed, not as they were sent):
//
//	r := gaps.NewReport(gaps.Options{FaultAt: meta.Fault.At()})
//	for each decoded m { r.Add(&m) }
//	r.Close()
//	gaps.WriteText(os.Stdout, r)
//
// # The rule
//
// A gap is the interval between two consecutive ack times of a partition
// (for receive gaps, two consecutive receive times). Times are the probe's
// own, as probe.csv holds them.
//
// With a fault at F, the fault gap of a partition is the longest gap in
// progress at some moment of [F, F+Window]: a gap whose end is after F and
// whose start is at or before F+Window. Two gaps stand in at the edges:
//
//   - if the partition has no ack after F, the gap runs from its last ack to
//     the run's end (Options.End, or the last time seen anywhere in the
//     file; F if the run ended before it) and is marked Open: "no ack after
//     the fault";
//   - if F precedes the partition's first ack, a gap runs from F to that
//     first ack and is marked FromFault: "no ack before the fault". A
//     partition with no ack at all has one gap, from F to the run's end,
//     marked both.
//
// The longest gap elsewhere is the longest gap between consecutive acks that
// does not overlap the fault gap (gaps that only touch it do not overlap).
// Without a fault time there is no fault gap, and Longest is simply the
// longest gap. Among equally long gaps the earliest is reported.
//
// Memory: a Report keeps two int64 times per message (ack and receive) and
// a few counters per partition, so a million messages take about 16 MB.
// Times must lie in the years 1678–2262 (those time.Time.UnixNano can hold).
package gaps

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/kbf-project/kbf/results"
)

// DefaultWindow is the Window used when Options leave it zero: gaps in
// progress within a second of the fault are the fault's.
const DefaultWindow = time.Second

// Options set how a Report reads the messages.
type Options struct {
	// FaultAt is the fault's start (results.Fault.At); zero for a run
	// without a fault.
	FaultAt time.Time
	// Window is how long after FaultAt a gap may begin and still be the
	// fault's; zero or less means DefaultWindow.
	Window time.Duration
	// End is when the run stopped watching; zero means the last time seen
	// in the messages. It closes the gap of a partition that never acked
	// again.
	End time.Time
}

// maxErrors bounds the distinct error strings a Report counts, so a client
// that puts offsets or ids in its messages cannot make the Report grow
// without bound. Strings first seen after the bound is reached are counted
// in OtherErrors, even if they turn out common.
const maxErrors = 4096

// topErrors is how many error strings a Report lists.
const topErrors = 5

// Report holds, after Close, the stalls of every partition seen. Build it
// with NewReport, Add and Close; its fields are valid only after Close.
type Report struct {
	// FaultAt and Window are the Options'; FaultAt is zero without a fault.
	FaultAt time.Time
	Window  time.Duration
	// Start is the earliest time seen; End is Options.End, or the last
	// time seen when that was zero.
	Start, End time.Time

	// Sent and Failed count messages over all partitions.
	Sent, Failed int
	// FirstFailure is the send time of the earliest failed message (the
	// file does not say when the client gave up on it); zero if none
	// failed.
	FirstFailure time.Time
	// Errors are the most common error strings, most common first.
	Errors []ErrorCount
	// OtherErrors counts the failed messages whose errors Errors leaves out.
	OtherErrors int

	// Partitions are sorted by partition number.
	Partitions []Partition

	opts   Options
	series map[int32]*series
	last   *series // the series of the previous Add, a likely repeat
	errs   map[string]int
	// min and max are the earliest and latest times seen, in Unix ns.
	min, max int64
	closed   bool
}

// ErrorCount is one error string and how many sends failed with it.
type ErrorCount struct {
	Err   string `json:"error"`
	Count int    `json:"count"`
}

// Partition is one partition's counts and stalls.
type Partition struct {
	Partition int32 `json:"partition"`
	Sent      int   `json:"sent"`
	Acked     int   `json:"acked"`
	Received  int   `json:"received"`
	// Failed counts sends the client gave up on.
	Failed int `json:"failed"`
	// NeverAcked counts messages neither acked nor failed: still in flight
	// when the probe stopped.
	NeverAcked int `json:"never_acked"`
	// NotReceived counts messages acked but never read by the consumer.
	NotReceived int `json:"acked_not_received"`
	// FirstFailure is the send time of the partition's earliest failed
	// message; zero if none failed.
	FirstFailure time.Time `json:"first_failure,omitzero"`

	Ack     Stalls `json:"ack"`
	Receive Stalls `json:"receive"`
}

// Stalls are a partition's gaps of one kind (ack or receive).
type Stalls struct {
	// Fault is the fault gap; nil without a fault time.
	Fault *Gap `json:"fault,omitempty"`
	// Longest is the longest gap that does not overlap Fault, or the
	// longest gap without a fault time; nil when there is none.
	Longest *Gap `json:"longest,omitempty"`
}

// Gap is the time between two consecutive acks (or receives), or one of the
// stand-ins the package comment describes.
type Gap struct {
	Start, End time.Time
	// FromFault is set when the partition had no ack (receive) before the
	// fault: Start is the fault, not an ack.
	FromFault bool
	// Open is set when the partition had no ack (receive) after the fault:
	// End is the run's end, and the stall may have lasted longer.
	Open bool
}

// Duration is the gap's length.
func (g Gap) Duration() time.Duration { return g.End.Sub(g.Start) }

// series is what a Report keeps of one partition while messages arrive.
type series struct {
	p     Partition
	acks  []int64 // Unix ns, in arrival order until Close sorts them
	recvs []int64
}

// NewReport returns an empty Report reading messages as opts says.
func NewReport(opts Options) *Report {
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	return &Report{opts: opts, series: map[int32]*series{}, errs: map[string]int{},
		min: 1<<63 - 1, max: -1 << 63}
}

// Add counts one message. Messages may come in any order. Add must not be
// called after Close.
func (r *Report) Add(m *results.Message) {
	s := r.last
	if s == nil || s.p.Partition != m.Partition {
		s = r.series[m.Partition]
		if s == nil {
			s = &series{p: Partition{Partition: m.Partition}}
			r.series[m.Partition] = s
		}
		r.last = s
	}
	p := &s.p
	p.Sent++
	sent := m.Sent.UnixNano()
	r.see(sent)
	if m.Failed() {
		p.Failed++
		if p.FirstFailure.IsZero() || m.Sent.Before(p.FirstFailure) {
			p.FirstFailure = m.Sent.UTC()
		}
		r.countError(m.Err)
	}
	acked := !m.Acked.IsZero()
	if acked {
		p.Acked++
		t := m.Acked.UnixNano()
		r.see(t)
		s.acks = append(s.acks, t)
	} else if !m.Failed() {
		p.NeverAcked++
	}
	if !m.Received.IsZero() {
		p.Received++
		t := m.Received.UnixNano()
		r.see(t)
		s.recvs = append(s.recvs, t)
	} else if acked {
		p.NotReceived++
	}
}

func (r *Report) see(t int64) {
	r.min = min(r.min, t)
	r.max = max(r.max, t)
}

func (r *Report) countError(e string) {
	if _, ok := r.errs[e]; ok || len(r.errs) < maxErrors {
		r.errs[e]++
		return
	}
	r.OtherErrors++
}

// Close computes the stalls and frees what Add kept. It may be called more
// than once.
func (r *Report) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.FaultAt, r.Window = r.opts.FaultAt, r.opts.Window
	if r.min <= r.max {
		r.Start = time.Unix(0, r.min).UTC()
	}
	end := r.max
	switch {
	case !r.opts.End.IsZero():
		r.End = r.opts.End
		end = r.opts.End.UnixNano()
	case r.min <= r.max:
		r.End = time.Unix(0, r.max).UTC()
	}

	var f *fault
	if !r.FaultAt.IsZero() {
		at := r.FaultAt.UnixNano()
		f = &fault{at: at, window: int64(r.Window), end: max(end, at)}
	}
	r.Partitions = make([]Partition, 0, len(r.series))
	for _, s := range r.series {
		slices.Sort(s.acks)
		slices.Sort(s.recvs)
		s.p.Ack = stalls(s.acks, f)
		s.p.Receive = stalls(s.recvs, f)
		r.Partitions = append(r.Partitions, s.p)
		r.Sent += s.p.Sent
		r.Failed += s.p.Failed
		if !s.p.FirstFailure.IsZero() && (r.FirstFailure.IsZero() || s.p.FirstFailure.Before(r.FirstFailure)) {
			r.FirstFailure = s.p.FirstFailure
		}
	}
	slices.SortFunc(r.Partitions, func(a, b Partition) int { return cmp.Compare(a.Partition, b.Partition) })

	for e, n := range r.errs {
		r.Errors = append(r.Errors, ErrorCount{Err: e, Count: n})
	}
	slices.SortFunc(r.Errors, func(a, b ErrorCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Err, b.Err)
	})
	if len(r.Errors) > topErrors {
		for _, e := range r.Errors[topErrors:] {
			r.OtherErrors += e.Count
		}
		r.Errors = r.Errors[:topErrors:topErrors]
	}
	r.series, r.last, r.errs = nil, nil, nil
}

// fault is the fault as stalls needs it, in Unix ns.
type fault struct {
	at, window int64
	end        int64 // the run's end, never before at
}

// span is a gap in Unix ns.
type span struct {
	start, end      int64
	fromFault, open bool
}

func (s span) len() int64 { return s.end - s.start }

func (s span) gap() *Gap {
	return &Gap{Start: time.Unix(0, s.start).UTC(), End: time.Unix(0, s.end).UTC(),
		FromFault: s.fromFault, Open: s.open}
}

// stalls applies the package's rule to the sorted times ts.
func stalls(ts []int64, f *fault) Stalls {
	var st Stalls
	if f == nil {
		if g, ok := longest(ts, nil); ok {
			st.Longest = g.gap()
		}
		return st
	}
	fg := faultGap(ts, f)
	st.Fault = fg.gap()
	if g, ok := longest(ts, &fg); ok {
		st.Longest = g.gap()
	}
	return st
}

// faultGap returns the longest gap in progress during [at, at+window],
// with the stand-ins at either end of ts.
func faultGap(ts []int64, f *fault) span {
	// k is the first time after the fault.
	k := sort.Search(len(ts), func(i int) bool { return ts[i] > f.at })
	var best span
	found := false
	consider := func(s span) {
		if !found || s.len() > best.len() {
			best, found = s, true
		}
	}
	switch {
	case len(ts) == 0:
		return span{start: f.at, end: f.end, fromFault: true, open: true}
	case k == 0:
		consider(span{start: f.at, end: ts[0], fromFault: true})
	case k == len(ts):
		return span{start: ts[len(ts)-1], end: f.end, open: true}
	}
	for i := max(k, 1); i < len(ts) && ts[i-1] <= f.at+f.window; i++ {
		consider(span{start: ts[i-1], end: ts[i]})
	}
	return best
}

// longest returns the longest gap between consecutive times of ts that
// does not overlap skip; false when there is none.
func longest(ts []int64, skip *span) (span, bool) {
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
