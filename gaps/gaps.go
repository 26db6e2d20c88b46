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
// whose start is at or before F+Window. A fault whose consequence comes
// late (a broker cut from the controller leads on until it is fenced, a
// session timeout later) is measured at the consequence: with
// Options.From set, the window is [From, From+Window] instead, and a gap
// over before From is no part of the fault. Two gaps stand in at the edges:
//
//   - from the partition's last ack to the run's end (Options.End, or the
//     last time seen anywhere in the file; F if the run ended before it),
//     marked Open: the stall lasted at least until the end. With no ack
//     after F at all this is "no ack after the fault". A partition that
//     acked for a while after F and then stopped, leaving messages never
//     acked (a broker that leads on without knowing it was replaced), has
//     it too when that last ack is at or before F+Window;
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
// # Memory
//
// A Report streams: it keeps, per partition and kind, the MaxTracked
// longest gaps between the times seen so far, and the times within the
// fault's window, never every time. A time that comes later than a larger
// one (probe.csv is in completion order, so acks and receives come nearly
// sorted, but not quite) can only split a gap in two: a tracked gap is
// split exactly, and an untracked one was already shorter than the
// shortest tracked, and so are its pieces. The longest gap is therefore
// exact as long as it is among the tracked ones; when out-of-order times
// have split them all below one forgotten, Close sets Err rather than
// report a wrong number.
//
// Times must lie in the years 1678–2262 (those time.Time.UnixNano can
// hold); results.Decoder keeps them well inside.
package gaps

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"slices"
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
	// Window is how long after FaultAt (or From) a gap may begin and
	// still be the fault's; zero or less means DefaultWindow.
	Window time.Duration
	// From, when after FaultAt, is where the fault's window opens: the
	// fault's consequence, when it comes late. Zero means FaultAt.
	From time.Time
	// End is when the run stopped watching; zero means the last time seen
	// in the messages. It closes the gap of a partition that never acked
	// again.
	End time.Time
	// Ready ends the probe's start-up (results.Probe.Ready, every
	// partition's first ack): in a run without a fault, acks and receives
	// before it are counted but make no gap, so the longest gap is the
	// probe's steady state, not its first seconds of loading metadata.
	// Ignored with a fault, whose baseline comes after the start-up.
	Ready time.Time
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
	// FaultAt, From and Window are the Options'; FaultAt is zero without
	// a fault, From is zero unless the window opened after FaultAt.
	FaultAt time.Time
	From    time.Time
	Window  time.Duration
	// Ready is Options.Ready where it applied: the gaps begin there.
	Ready time.Time
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

	// Lag is how the acks kept up with the sends, second by second of
	// sending, over all partitions, in time order: what says whether the
	// probe's records were acknowledged in step with sending.
	Lag []LagSecond

	// Err is set by Close when the times came too far out of order for
	// the gaps to be known exactly (see the package comment); the other
	// results are then not to be used.
	Err error

	opts   Options
	series map[int32]*series
	lag    map[int64]*LagSecond // by the Unix second of sending
	// lastLag is the second of the previous Add's send, a likely repeat.
	lastLag *LagSecond
	last    *series // the series of the previous Add, a likely repeat
	errs    map[string]int
	// min and max are the earliest and latest times seen, in Unix ns.
	min, max int64
	zone     *zone // the fault's window; nil without a fault
	// ready is Options.Ready where it applies: earlier times make no gap.
	// The least time there is otherwise.
	ready  int64
	closed bool
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

// LagSecond is what became of the records sent in one second: how many,
// how many the producer never heard of again (neither acked nor failed
// when the probe stopped), and the longest an acked one waited for its
// ack. Memory is one per second of the run, whatever the partitions.
type LagSecond struct {
	From       time.Time     // the second's start
	Sent       int           // records sent in it
	Pending    int           // neither acked nor failed by the end
	MaxLatency time.Duration // the longest from send to ack of those acked
}

// series is what a Report keeps of one partition while messages arrive.
type series struct {
	p           Partition
	acks, recvs tracker
}

// NewReport returns an empty Report reading messages as opts says.
func NewReport(opts Options) *Report {
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	r := &Report{opts: opts, series: map[int32]*series{}, errs: map[string]int{}, lag: map[int64]*LagSecond{},
		min: 1<<63 - 1, max: -1 << 63, ready: -1 << 63}
	if !opts.From.After(opts.FaultAt) {
		opts.From = time.Time{}
	}
	r.opts = opts
	if !opts.FaultAt.IsZero() {
		at := opts.FaultAt.UnixNano()
		if !opts.From.IsZero() {
			at = opts.From.UnixNano()
		}
		r.zone = &zone{from: at, to: at + int64(opts.Window)}
	} else if !opts.Ready.IsZero() {
		r.ready = opts.Ready.UnixNano()
	}
	return r
}

// Add counts one message. Messages may come in any order. Add must not be
// called after Close.
func (r *Report) Add(m *results.Message) {
	s := r.last
	if s == nil || s.p.Partition != m.Partition {
		s = r.series[m.Partition]
		if s == nil {
			s = &series{p: Partition{Partition: m.Partition}}
			s.acks.zone.window(r.zone)
			s.recvs.zone.window(r.zone)
			r.series[m.Partition] = s
		}
		r.last = s
	}
	p := &s.p
	p.Sent++
	sent := m.Sent.UnixNano()
	r.see(sent)
	ls := r.lagAt(m.Sent)
	ls.Sent++
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
		ls.MaxLatency = max(ls.MaxLatency, m.Acked.Sub(m.Sent))
		t := m.Acked.UnixNano()
		r.see(t)
		if t >= r.ready {
			s.acks.add(t)
		}
	} else if !m.Failed() {
		p.NeverAcked++
		ls.Pending++
	}
	if !m.Received.IsZero() {
		p.Received++
		t := m.Received.UnixNano()
		r.see(t)
		if t >= r.ready {
			s.recvs.add(t)
		}
	} else if acked {
		p.NotReceived++
	}
}

// lagAt is the second the record sent at t counts in.
func (r *Report) lagAt(t time.Time) *LagSecond {
	sec := t.Unix()
	if ls := r.lastLag; ls != nil && ls.From.Unix() == sec {
		return ls
	}
	ls := r.lag[sec]
	if ls == nil {
		ls = &LagSecond{From: time.Unix(sec, 0).UTC()}
		r.lag[sec] = ls
	}
	r.lastLag = ls
	return ls
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
	r.FaultAt, r.From, r.Window = r.opts.FaultAt, r.opts.From, r.opts.Window
	if r.ready != -1<<63 {
		r.Ready = r.opts.Ready
	}
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
		f = &fault{at: at, from: at, window: int64(r.Window), end: max(end, at)}
		if !r.From.IsZero() {
			f.from = r.From.UnixNano()
			f.end = max(f.end, f.from)
		}
	}
	r.Partitions = make([]Partition, 0, len(r.series))
	for _, s := range r.series {
		var errA, errR error
		s.p.Ack, errA = s.acks.stalls(f, s.p.NeverAcked > 0)
		s.p.Receive, errR = s.recvs.stalls(f, s.p.NotReceived > 0)
		for _, e := range []struct {
			kind string
			err  error
		}{{"ack", errA}, {"receive", errR}} {
			if e.err != nil && r.Err == nil {
				r.Err = fmt.Errorf("p%d %s times: %w", s.p.Partition, e.kind, e.err)
			}
		}
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
	r.Lag = make([]LagSecond, 0, len(r.lag))
	for _, ls := range r.lag {
		r.Lag = append(r.Lag, *ls)
	}
	slices.SortFunc(r.Lag, func(a, b LagSecond) int { return a.From.Compare(b.From) })
	r.series, r.last, r.errs, r.lag, r.lastLag = nil, nil, nil, nil, nil
}

// fault is the fault as stalls needs it, in Unix ns.
type fault struct {
	at, window int64
	from       int64 // where the window opens: at, or the consequence after it
	end        int64 // the run's end, never before from
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

// errTooDisordered is reported when times came so far out of order that
// the longest gap is no longer known exactly.
var errTooDisordered = errors.New("too far out of order to find the longest gap in one pass (probe.csv lists messages nearly in the order they completed; sort the file by partition and seq)")

// MaxTracked is how many of the longest gaps a Report tracks per
// partition and kind.
const MaxTracked = 64

// tracker follows the gaps between times added in any order, in constant
// memory but for the fault's window.
type tracker struct {
	n        int
	min, max int64
	// top holds the longest gaps between the times so far, exactly, as a
	// heap with the least of them first (worse, below, orders gaps).
	top []span
	// lost is the best gap ever dropped from top; every gap not in top is
	// no better than it. hasLost is false while top holds every gap.
	lost    span
	hasLost bool
	// zero is the earliest time seen twice, a gap of length zero, which
	// is the longest only when every time is the same.
	zero    int64
	hasZero bool
	zone    zone
}

// zone keeps the times that decide the fault gap: every time in
// (from, to], the latest at or before from and the earliest after to.
type zone struct {
	on         bool
	from, to   int64
	in         []int64
	pred, succ int64
	hasPred    bool
	hasSucc    bool
}

func (z *zone) window(w *zone) {
	if w != nil {
		z.on, z.from, z.to = true, w.from, w.to
	}
}

func (z *zone) add(t int64) {
	switch {
	case !z.on:
	case t <= z.from:
		if !z.hasPred || t > z.pred {
			z.pred, z.hasPred = t, true
		}
	case t > z.to:
		if !z.hasSucc || t < z.succ {
			z.succ, z.hasSucc = t, true
		}
	default:
		z.in = append(z.in, t)
	}
}

// sorted returns the times that decide the fault gap, in order, and how
// many of them are at or before the fault (0 or 1).
func (z *zone) sorted() ([]int64, int) {
	slices.Sort(z.in)
	ts := make([]int64, 0, len(z.in)+2)
	k := 0
	if z.hasPred {
		ts, k = append(ts, z.pred), 1
	}
	ts = append(ts, z.in...)
	if z.hasSucc {
		ts = append(ts, z.succ)
	}
	return ts, k
}

// better reports whether gap a ranks before gap b: longer, or as long and
// earlier.
func better(a, b span) bool {
	if a.len() != b.len() {
		return a.len() > b.len()
	}
	return a.start < b.start
}

func (tr *tracker) add(t int64) {
	tr.zone.add(t)
	tr.n++
	switch {
	case tr.n == 1:
		tr.min, tr.max = t, t
	case t > tr.max:
		tr.push(span{start: tr.max, end: t})
		tr.max = t
	case t < tr.min:
		tr.push(span{start: t, end: tr.min})
		tr.min = t
	case t == tr.max || t == tr.min:
		tr.sawTwice(t)
	default:
		tr.split(t)
	}
}

func (tr *tracker) sawTwice(t int64) {
	if !tr.hasZero || t < tr.zero {
		tr.zero, tr.hasZero = t, true
	}
}

// split records t, strictly between the first and last times: it splits
// the gap it falls in, if tracked. If no tracked gap holds it, it falls in
// an untracked gap, or, while every gap is tracked, repeats a time.
func (tr *tracker) split(t int64) {
	for i, g := range tr.top {
		if g.start < t && t < g.end {
			tr.top[i] = span{start: g.start, end: t}
			heap.Fix((*gapHeap)(&tr.top), i)
			tr.push(span{start: t, end: g.end})
			return
		}
		if g.start == t || g.end == t {
			tr.sawTwice(t)
			return
		}
	}
	if !tr.hasLost {
		tr.sawTwice(t)
	}
}

// push adds gap g to top, dropping the least when top is full.
func (tr *tracker) push(g span) {
	h := (*gapHeap)(&tr.top)
	if len(tr.top) < MaxTracked {
		heap.Push(h, g)
		return
	}
	if better(g, tr.top[0]) {
		g, tr.top[0] = tr.top[0], g
		heap.Fix(h, 0)
	}
	if !tr.hasLost || better(g, tr.lost) {
		tr.lost, tr.hasLost = g, true
	}
}

// gapHeap orders gaps worst first.
type gapHeap []span

func (h gapHeap) Len() int           { return len(h) }
func (h gapHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h gapHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *gapHeap) Push(x any)        { *h = append(*h, x.(span)) }
func (h *gapHeap) Pop() any          { old := *h; x := old[len(old)-1]; *h = old[:len(old)-1]; return x }

// longest returns the longest gap but skip (nil: none), false when there
// is none, and an error when it cannot be known.
func (tr *tracker) longest(skip *span) (span, bool, error) {
	var best span
	found := false
	for _, g := range tr.top {
		if skip != nil && g.start < skip.end && g.end > skip.start {
			continue
		}
		if !found || better(g, best) {
			best, found = g, true
		}
	}
	if tr.hasLost && (!found || !better(best, tr.lost)) {
		return span{}, false, errTooDisordered
	}
	if !found && tr.hasZero && (skip == nil || !(tr.zero < skip.end && tr.zero > skip.start)) {
		return span{start: tr.zero, end: tr.zero}, true, nil
	}
	return best, found, nil
}

// stalls applies the package's rule to the times added; pending says
// whether messages were left waiting (never acked, or acked and never
// received) when the run ended.
func (tr *tracker) stalls(f *fault, pending bool) (Stalls, error) {
	var st Stalls
	if f == nil {
		g, ok, err := tr.longest(nil)
		if ok {
			st.Longest = g.gap()
		}
		return st, err
	}
	ts, k := tr.zone.sorted()
	fg := faultGap(ts, k, f, pending)
	st.Fault = fg.gap()
	g, ok, err := tr.longest(&fg)
	if ok {
		st.Longest = g.gap()
	}
	return st, err
}

// stalls applies the package's rule to the times ts, in any order.
func stalls(ts []int64, f *fault, pending bool) Stalls {
	var tr tracker
	if f != nil {
		if f.from == 0 {
			f.from = f.at
		}
		tr.zone.window(&zone{from: f.from, to: f.from + f.window})
	}
	for _, t := range ts {
		tr.add(t)
	}
	st, _ := tr.stalls(f, pending)
	return st
}

// faultGap returns the longest gap in progress during [from, from+window],
// with the stand-ins at either end of ts: the sorted times that decide it,
// of which the first k are at or before the fault; pending is whether
// messages were still waiting at the end.
func faultGap(ts []int64, k int, f *fault, pending bool) span {
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
	for i := max(k, 1); i < len(ts) && ts[i-1] <= f.from+f.window; i++ {
		consider(span{start: ts[i-1], end: ts[i]})
	}
	// With messages still waiting at the end, the last ack (receive) within
	// the window leaves a gap to the run's end: a partition that acked for
	// a while after the fault and then never again stalled until the end,
	// however short its earlier gaps.
	if last := ts[len(ts)-1]; pending && last > f.from && last <= f.from+f.window && f.end > last {
		consider(span{start: last, end: f.end, open: true})
	}
	return best
}
