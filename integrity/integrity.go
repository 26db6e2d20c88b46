// Package integrity compares what the probe saw acknowledged (probe.csv)
// with what the partitions' logs held afterwards (log.csv), and reports,
// per partition, every acknowledged message not accounted for.
//
// An Audit is built from both files, in any order, and closed into a Report:
//
//	a := integrity.New()
//	for each message m of probe.csv { a.AddMessage(&m) }
//	for each record r of log.csv { a.AddLog(r) }
//	report := a.Close()
//	integrity.WriteText(os.Stdout, report)
//
// Messages are matched to records by partition and sequence number. The
// findings, per partition:
//
//   - lost: a message acknowledged (an ack time and no error) whose
//     sequence number the log does not hold at any offset;
//   - duplicated: a sequence number the log holds at two or more offsets,
//     counted once per sequence number;
//   - reordered: in offset order, a record whose sequence number is lower
//     than that of some record at an earlier offset. Only the first copy of
//     a sequence number is judged; later copies are duplicates, not
//     reorders. So seqs 0 1 3 2 4 count one reorder (2), and 0 3 1 2 count
//     two (1 and 2): the count is of records out of place relative to
//     what came before, not of the moves that would repair the order;
//   - failed but present: a message the probe saw fail (an error) whose
//     sequence number the log holds anyway: a send the client gave up on
//     that the broker had written;
//   - acked offset mismatch: an acknowledged message the log holds, but
//     not at the offset its ack named (with duplicates: at none of its
//     copies);
//   - unrecorded: a sequence number the log holds that probe.csv does not
//     list at all (the probe stopped before writing its row).
//
// Lost, duplicated and reordered make a Report not OK: those are the
// guarantees acks=all with idempotence promises. The others are counted
// and shown, for they explain what happened, but break no promise.
//
// Memory: the log is kept as runs of records whose offsets and sequence
// numbers both rise by one, which is what a read-back is, so a partition's
// log costs a few dozen bytes whatever its length; a log in any other
// order costs a few dozen bytes a record. Messages added before the log is done
// are kept, 32 bytes each, until Close. Once LogDone has been called,
// AddMessage weighs each message against the log as it comes and keeps
// only the counts and the first offenders, so a probe file of any length
// is audited in the memory its partitions take:
//
//	for each record r of log.csv { a.AddLog(r) }
//	a.LogDone()
//	for each message m of probe.csv { a.AddMessage(&m) }
//	report := a.Close()
package integrity

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/kbf-project/kbf/results"
)

// MaxOffenders is how many offenders of each kind a Partition lists.
const MaxOffenders = 5

// maxErrors bounds the distinct error strings an Audit keeps for its
// offenders; later ones are shown as otherError.
const maxErrors = 1024

const otherError = "(an error not kept)"

// Audit gathers probe messages and log records; Close compares them.
type Audit struct {
	parts map[int32]*partition
	last  *partition
	errs  []string
	errIx map[string]int32
	// logDone is set by LogDone: messages are weighed as they come.
	logDone bool
}

// New returns an empty Audit.
func New() *Audit {
	return &Audit{parts: map[int32]*partition{}, errIx: map[string]int32{}}
}

// partition is what an Audit keeps of one partition until Close.
type partition struct {
	n int32
	c Counts
	// msgs are the messages added before the log was done, weighed at
	// Close.
	msgs []message
	// runs are the log's records as they were added; index turns them
	// into segs, the log by sequence number, once they are all in.
	runs []logRun
	segs []segment
	// deltas are every segment's offsets less its sequence numbers.
	deltas []int64
	// cursor is the segment the last message fell in: the probe writes
	// a partition's messages nearly in sequence order.
	cursor int
	// inLog counts the messages whose sequence number the log holds, for
	// Unrecorded.
	inLog int
	first Offenders
}

// message is what an Audit keeps of one probe message.
type message struct {
	seq       int64
	ackOffset int64 // valid with acked
	ackAt     int64 // Unix ns, valid with acked
	err       int32 // Audit.errs index + 1, valid with failed; 0: not kept
	flags     uint8
}

const (
	acked  uint8 = 1 << iota // acknowledged without error
	failed                   // the probe saw an error
)

// logRun is n log records at consecutive offsets holding consecutive
// sequence numbers: offset off+k holds seq+k, for k < n.
type logRun struct{ seq, off, n int64 }

// segment is the sequence numbers seq to last of a partition's log, each
// held at every offset seq+d for d in the partition's deltas[lo:hi], which
// ascend: one delta for a number held once, more for a duplicate.
type segment struct {
	seq, last int64
	lo, hi    int32
}

func (a *Audit) partition(n int32) *partition {
	if a.last != nil && a.last.n == n {
		return a.last
	}
	p := a.parts[n]
	if p == nil {
		p = &partition{n: n}
		if a.logDone {
			p.index()
		}
		a.parts[n] = p
	}
	a.last = p
	return p
}

// AddMessage records one probe message. Before LogDone a sequence number
// listed twice counts once, and keeps its last row; after it, each message
// is weighed as it comes, so each must come once, as results.Decoder
// ensures (it refuses a second row of one message).
func (a *Audit) AddMessage(m *results.Message) {
	p := a.partition(m.Partition)
	e := message{seq: m.Seq}
	switch {
	case m.Failed():
		e.flags = failed
		e.err = a.errorRef(m.Err)
	case !m.Acked.IsZero():
		e.flags = acked
		e.ackOffset = m.Offset
		e.ackAt = m.Acked.UnixNano()
	}
	if a.logDone {
		p.weigh(&e, a.errs)
		return
	}
	p.msgs = appendDoubling(p.msgs, e)
}

// appendDoubling is append that doubles a full slice: append grows large
// slices by a quarter, so the copies would allocate five times the final
// size in all; doubling keeps that to twice.
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(len(s), 64))
	}
	return append(s, v)
}

func (a *Audit) errorRef(s string) int32 {
	if i, ok := a.errIx[s]; ok {
		return i
	}
	if len(a.errs) >= maxErrors {
		return 0
	}
	a.errs = append(a.errs, s)
	a.errIx[s] = int32(len(a.errs))
	return int32(len(a.errs))
}

// AddLog records one record the log held. Records may come in any order,
// and must all come before LogDone.
func (a *Audit) AddLog(r results.LogRecord) {
	p := a.partition(r.Partition)
	p.c.Logged++
	if k := len(p.runs); k > 0 {
		run := &p.runs[k-1]
		switch {
		case r.Offset-run.off == run.n && r.Seq-run.seq == run.n: // the next record
			run.n++
			return
		case run.off-r.Offset == 1 && run.seq-r.Seq == 1: // the one before
			run.off, run.seq = r.Offset, r.Seq
			run.n++
			return
		}
	}
	p.runs = appendDoubling(p.runs, logRun{seq: r.Seq, off: r.Offset, n: 1})
}

// LogDone says every log record has been added. From then on AddMessage
// weighs each message against the log at once, keeping only counts and
// first offenders, and the messages added before are weighed at Close.
func (a *Audit) LogDone() {
	if a.logDone {
		return
	}
	a.logDone = true
	for _, p := range a.parts {
		p.index()
	}
}

// Close compares the messages with the records and returns the findings.
// The Audit must not be used afterwards.
func (a *Audit) Close() *Report {
	a.LogDone()
	r := &Report{Partitions: []Partition{}}
	for _, n := range slices.Sorted(maps.Keys(a.parts)) {
		pr := a.parts[n].close(a.errs)
		r.Partitions = append(r.Partitions, pr)
		r.Counts.add(&pr.Counts)
	}
	a.parts, a.last, a.errs, a.errIx = nil, nil, nil, nil
	return r
}

// index turns the partition's runs into its segments: a sweep over the
// runs' first and last sequence numbers, the runs under way at each point
// kept by their deltas, so that at any sequence number they are in offset
// order. Neighbouring segments of the same deltas are one.
func (p *partition) index() {
	type edge struct {
		at, delta int64
		end       bool // the run's last number, taken after the starts at it
	}
	edges := make([]edge, 0, 2*len(p.runs))
	for _, r := range p.runs {
		d := r.off - r.seq
		edges = append(edges, edge{at: r.seq, delta: d}, edge{at: r.seq + (r.n - 1), delta: d, end: true})
	}
	p.runs = nil
	slices.SortFunc(edges, func(a, b edge) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		switch {
		case a.end == b.end:
			return 0
		case b.end:
			return -1
		}
		return 1
	})
	var active []int64 // the deltas of the runs under way, ascending
	var from int64     // where the segment under way began
	for _, e := range edges {
		i, _ := slices.BinarySearch(active, e.delta)
		if !e.end {
			if len(active) > 0 && from < e.at {
				p.addSegment(from, e.at-1, active)
			}
			if len(active) == 0 || from < e.at {
				from = e.at
			}
			active = slices.Insert(active, i, e.delta)
			continue
		}
		if from <= e.at { // not yet closed at this number by another end
			p.addSegment(from, e.at, active)
		}
		active = slices.Delete(active, i, i+1)
		from = e.at + 1 // past the largest number only when nothing follows
		if from < e.at {
			from = e.at
		}
	}
}

// addSegment adds the numbers seq to last, held at deltas, after the
// partition's last segment, joining it when it ends just before with the
// same deltas.
func (p *partition) addSegment(seq, last int64, deltas []int64) {
	if k := len(p.segs); k > 0 {
		prev := &p.segs[k-1]
		if prev.last+1 == seq && slices.Equal(p.deltas[prev.lo:prev.hi], deltas) {
			prev.last = last
			return
		}
	}
	lo := len(p.deltas)
	p.deltas = append(p.deltas, deltas...)
	p.segs = append(p.segs, segment{seq: seq, last: last, lo: int32(lo), hi: int32(len(p.deltas))})
}

// copies are the deltas of the offsets the log holds seq at, ascending;
// none when it does not hold it.
func (p *partition) copies(seq int64) []int64 {
	if c := p.cursor; c < len(p.segs) && p.segs[c].seq <= seq && seq <= p.segs[c].last {
		return p.deltas[p.segs[c].lo:p.segs[c].hi]
	}
	// The first segment that ends at or after seq.
	i, _ := slices.BinarySearchFunc(p.segs, seq, func(s segment, seq int64) int { return cmp.Compare(s.last, seq) })
	if i == len(p.segs) || p.segs[i].seq > seq {
		return nil
	}
	p.cursor = i
	return p.deltas[p.segs[i].lo:p.segs[i].hi]
}

// weigh counts the message m against the log, keeping it as an offender
// when it is among the first of its kind by sequence number.
func (p *partition) weigh(m *message, errs []string) {
	p.c.Messages++
	seq := m.seq
	copies := p.copies(seq)
	inLog := len(copies) > 0
	var logOffset int64
	if inLog {
		p.inLog++
		logOffset = seq + copies[0]
	}
	first := &p.first
	switch {
	case m.flags&failed != 0:
		p.c.Failed++
		if !inLog {
			break
		}
		p.c.FailedPresent++
		msg := otherError
		if m.err > 0 {
			msg = errs[m.err-1]
		}
		first.FailedPresent = keepFirst(first.FailedPresent, FailedPresent{Seq: seq, Offset: logOffset, Err: msg},
			func(o FailedPresent) int64 { return o.Seq })
	case m.flags&acked != 0:
		p.c.Acknowledged++
		switch {
		case !inLog:
			p.c.Lost++
			first.Lost = keepFirst(first.Lost, Lost{Seq: seq, AckedOffset: m.ackOffset, AckedAt: time.Unix(0, m.ackAt).UTC()},
				func(o Lost) int64 { return o.Seq })
		case m.ackOffset >= 0 && !slices.Contains(copies, m.ackOffset-seq):
			p.c.OffsetMismatch++
			first.OffsetMismatch = keepFirst(first.OffsetMismatch, Mismatch{Seq: seq, AckedOffset: m.ackOffset, LogOffset: logOffset},
				func(o Mismatch) int64 { return o.Seq })
		}
	}
}

// keepFirst adds o to os, the MaxOffenders offenders of the lowest keys,
// in that order. Keys are distinct: a message's sequence number.
func keepFirst[T any](os []T, o T, key func(T) int64) []T {
	k := key(o)
	if len(os) == MaxOffenders && k > key(os[MaxOffenders-1]) {
		return os
	}
	i, _ := slices.BinarySearchFunc(os, k, func(e T, k int64) int { return cmp.Compare(key(e), k) })
	os = slices.Insert(os, i, o)
	if len(os) > MaxOffenders {
		os = os[:MaxOffenders]
	}
	return os
}

func (p *partition) close(errs []string) Partition {
	// Messages kept before the log was done, by sequence number, the
	// last row of a number kept; the stable sort keeps rows of one
	// number in the order they came. The probe writes them nearly in
	// order, often exactly.
	bySeq := func(a, b message) int { return cmp.Compare(a.seq, b.seq) }
	if !slices.IsSortedFunc(p.msgs, bySeq) {
		slices.SortStableFunc(p.msgs, bySeq)
	}
	for i := range p.msgs {
		if i+1 < len(p.msgs) && p.msgs[i+1].seq == p.msgs[i].seq {
			continue
		}
		p.weigh(&p.msgs[i], errs)
	}
	p.msgs = nil

	out := Partition{Partition: p.n, First: p.first}
	logged := int64(0) // distinct sequence numbers
	for _, s := range p.segs {
		logged += s.last - s.seq + 1
	}
	p.c.Unrecorded = int(logged) - p.inLog
	p.duplicates(&out)
	p.reorders(&out)
	p.segs, p.deltas = nil, nil
	out.Counts = p.c
	return out
}

// duplicates counts the sequence numbers the log holds more than once and
// lists those whose second copies come first in the log.
func (p *partition) duplicates(out *Partition) {
	var dups []Duplicate
	for _, s := range p.segs {
		deltas := p.deltas[s.lo:s.hi]
		if len(deltas) < 2 {
			continue
		}
		p.c.Duplicated += int(s.last - s.seq + 1)
		// Within a segment the second copies rise with the number, so
		// only its first few can be among the first.
		for seq := s.seq; seq <= s.last && seq-s.seq < MaxOffenders; seq++ {
			d := Duplicate{Seq: seq, Offsets: make([]int64, len(deltas))}
			for i, delta := range deltas {
				d.Offsets[i] = seq + delta
			}
			dups = keepFirstDuplicates(dups, d)
		}
	}
	if len(dups) > 0 {
		out.First.Duplicated = dups
	}
}

// reorders walks each number's first copy in offset order and counts the
// records placed after a record of a higher number; later copies are
// duplicates, not reorders. A segment's first copies are a run of
// consecutive offsets and numbers, so the walk is over runs, record by
// record only where runs share offsets (records added twice).
func (p *partition) reorders(out *Partition) {
	firsts := make([]logRun, 0, len(p.segs))
	for _, s := range p.segs {
		firsts = append(firsts, logRun{seq: s.seq, off: s.seq + p.deltas[s.lo], n: s.last - s.seq + 1})
	}
	byOffset := func(a, b logRun) int { return cmp.Compare(a.off, b.off) }
	if !slices.IsSortedFunc(firsts, byOffset) {
		slices.SortFunc(firsts, byOffset)
	}
	for i := 1; i < len(firsts); i++ {
		if prev := firsts[i-1]; firsts[i].off-prev.off < prev.n {
			firsts = records(firsts)
			slices.SortFunc(firsts, byOffset)
			break
		}
	}
	maxSeq, maxOff := int64(-1), int64(-1)
	for _, r := range firsts {
		// The run's numbers below maxSeq, a prefix of it, are out of
		// place; the rest rise past it.
		behind := min(r.n, max(0, maxSeq-r.seq))
		p.c.Reordered += int(behind)
		for k := int64(0); k < behind && len(out.First.Reordered) < MaxOffenders; k++ {
			out.First.Reordered = append(out.First.Reordered,
				Reorder{Seq: r.seq + k, Offset: r.off + k, After: maxSeq, AfterOffset: maxOff})
		}
		if behind < r.n {
			maxSeq, maxOff = r.seq+r.n-1, r.off+r.n-1
		}
	}
}

// keepFirstDuplicates adds d to ds, the MaxOffenders duplicates whose
// second copies come first in the log, in that order.
func keepFirstDuplicates(ds []Duplicate, d Duplicate) []Duplicate {
	i, _ := slices.BinarySearchFunc(ds, d.Offsets[1], func(e Duplicate, off int64) int { return cmp.Compare(e.Offsets[1], off) })
	if i >= MaxOffenders {
		return ds
	}
	ds = slices.Insert(ds, i, d)
	if len(ds) > MaxOffenders {
		ds = ds[:MaxOffenders]
	}
	return ds
}

// records splits runs into runs of one record each.
func records(runs []logRun) []logRun {
	var out []logRun
	for _, r := range runs {
		for k := int64(0); k < r.n; k++ {
			out = append(out, logRun{seq: r.seq + k, off: r.off + k, n: 1})
		}
	}
	return out
}

// Report is what Close found, per partition and in total.
type Report struct {
	// Counts are the totals over all partitions.
	Counts
	// Partitions are every partition either file names, by number.
	Partitions []Partition
}

// OK reports whether every acknowledged message is in the log, once, and in
// order: nothing lost, duplicated or reordered.
func (r *Report) OK() bool {
	return r.Lost == 0 && r.Duplicated == 0 && r.Reordered == 0
}

// Counts are the sizes of the two files and the findings, for one
// partition or in total. Duplicated counts sequence numbers, Reordered and
// Logged count log records, the others count messages.
type Counts struct {
	Messages       int `json:"messages"`     // rows in probe.csv
	Acknowledged   int `json:"acknowledged"` // acked, no error
	Failed         int `json:"failed"`       // the probe saw an error
	Logged         int `json:"logged"`       // rows in log.csv
	Lost           int `json:"lost"`
	Duplicated     int `json:"duplicated"`
	Reordered      int `json:"reordered"`
	FailedPresent  int `json:"failed_but_present"`
	OffsetMismatch int `json:"acked_offset_mismatch"`
	Unrecorded     int `json:"unrecorded"`
}

func (c *Counts) add(o *Counts) {
	c.Messages += o.Messages
	c.Acknowledged += o.Acknowledged
	c.Failed += o.Failed
	c.Logged += o.Logged
	c.Lost += o.Lost
	c.Duplicated += o.Duplicated
	c.Reordered += o.Reordered
	c.FailedPresent += o.FailedPresent
	c.OffsetMismatch += o.OffsetMismatch
	c.Unrecorded += o.Unrecorded
}

// findings reports whether c holds anything to show.
func (c *Counts) findings() bool {
	return c.Lost+c.Duplicated+c.Reordered+c.FailedPresent+c.OffsetMismatch+c.Unrecorded > 0
}

// Partition is one partition's counts and its first offenders.
type Partition struct {
	Partition int32 `json:"partition"`
	Counts
	First Offenders `json:"first"`
}

// Offenders are the first MaxOffenders of each finding: lost, failed but
// present and mismatched by sequence number, duplicated and reordered by
// offset.
type Offenders struct {
	Lost           []Lost          `json:"lost,omitempty"`
	Duplicated     []Duplicate     `json:"duplicated,omitempty"`
	Reordered      []Reorder       `json:"reordered,omitempty"`
	FailedPresent  []FailedPresent `json:"failed_but_present,omitempty"`
	OffsetMismatch []Mismatch      `json:"acked_offset_mismatch,omitempty"`
}

// Lost is an acknowledged message missing from the log.
type Lost struct {
	Seq         int64     `json:"seq"`
	AckedOffset int64     `json:"acked_offset"` // -1 when the ack named none
	AckedAt     time.Time `json:"acked_at"`
}

// Duplicate is a sequence number the log holds more than once.
type Duplicate struct {
	Seq     int64   `json:"seq"`
	Offsets []int64 `json:"offsets"`
}

// Reorder is a record placed after a record of a higher sequence number.
type Reorder struct {
	Seq    int64 `json:"seq"`
	Offset int64 `json:"offset"`
	// After is the highest sequence number at an earlier offset, and
	// AfterOffset where it is.
	After       int64 `json:"after_seq"`
	AfterOffset int64 `json:"after_offset"`
}

// FailedPresent is a message the probe saw fail that the log holds.
type FailedPresent struct {
	Seq    int64  `json:"seq"`
	Offset int64  `json:"offset"` // the first offset the log holds it at
	Err    string `json:"error"`
}

// Mismatch is an acknowledged message the log holds, but not at the offset
// its ack named.
type Mismatch struct {
	Seq         int64 `json:"seq"`
	AckedOffset int64 `json:"acked_offset"`
	LogOffset   int64 `json:"log_offset"` // the first offset the log holds it at
}
