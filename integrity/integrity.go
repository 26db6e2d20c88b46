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
// Memory: an Audit keeps 32 bytes per message and 16 bytes per log record
// until Close, whatever the sequence numbers are, so a million messages
// and their records take about 50 MB. Close sorts both by sequence number
// and walks them side by side, then walks the log in offset order.
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
}

// New returns an empty Audit.
func New() *Audit {
	return &Audit{parts: map[int32]*partition{}, errIx: map[string]int32{}}
}

// partition is what an Audit keeps of one partition until Close.
type partition struct {
	n    int32
	c    Counts
	msgs []message
	log  []logRecord
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

type logRecord struct{ offset, seq int64 }

func (a *Audit) partition(n int32) *partition {
	if a.last != nil && a.last.n == n {
		return a.last
	}
	p := a.parts[n]
	if p == nil {
		p = &partition{n: n}
		a.parts[n] = p
	}
	a.last = p
	return p
}

// AddMessage records one probe message. A sequence number listed twice
// counts once, and keeps its last row.
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

// AddLog records one record the log held. Records may come in any order.
func (a *Audit) AddLog(r results.LogRecord) {
	p := a.partition(r.Partition)
	p.c.Logged++
	p.log = appendDoubling(p.log, logRecord{r.Offset, r.Seq})
}

// Close compares the messages with the records and returns the findings.
// The Audit must not be used afterwards.
func (a *Audit) Close() *Report {
	r := &Report{Partitions: []Partition{}}
	for _, n := range slices.Sorted(maps.Keys(a.parts)) {
		pr := a.parts[n].close(a.errs)
		r.Partitions = append(r.Partitions, pr)
		r.Counts.add(&pr.Counts)
	}
	a.parts, a.last, a.errs, a.errIx = nil, nil, nil, nil
	return r
}

func (p *partition) close(errs []string) Partition {
	out := Partition{Partition: p.n}
	// Messages by sequence number, the last row of a number kept; the
	// stable sort keeps rows of one number in the order they came.
	// The probe writes them nearly in order, often exactly.
	bySeq := func(a, b message) int { return cmp.Compare(a.seq, b.seq) }
	if !slices.IsSortedFunc(p.msgs, bySeq) {
		slices.SortStableFunc(p.msgs, bySeq)
	}
	msgs := p.msgs[:0]
	for i, m := range p.msgs {
		if i+1 < len(p.msgs) && p.msgs[i+1].seq == m.seq {
			continue
		}
		msgs = append(msgs, m)
	}
	p.c.Messages = len(msgs)
	// Records by sequence number, and each number's copies by offset.
	bySeqOffset := func(a, b logRecord) int {
		if c := cmp.Compare(a.seq, b.seq); c != 0 {
			return c
		}
		return cmp.Compare(a.offset, b.offset)
	}
	if !slices.IsSortedFunc(p.log, bySeqOffset) {
		slices.SortFunc(p.log, bySeqOffset)
	}

	// Walk both in sequence order. Duplicates are listed by the offset of
	// their second copy, as a reader of the log in offset order meets them.
	var dups []Duplicate
	log := p.log
	firsts := p.log[:0] // each number's first copy, in place of log
	for len(msgs) > 0 || len(log) > 0 {
		var seq int64
		switch {
		case len(log) == 0:
			seq = msgs[0].seq
		case len(msgs) == 0:
			seq = log[0].seq
		default:
			seq = min(msgs[0].seq, log[0].seq)
		}
		var m *message
		if len(msgs) > 0 && msgs[0].seq == seq {
			m, msgs = &msgs[0], msgs[1:]
		}
		n := 0
		for n < len(log) && log[n].seq == seq {
			n++
		}
		copies := log[:n]
		log = log[n:]
		inLog := n > 0
		var logOffset int64
		if inLog {
			logOffset = copies[0].offset
			firsts = append(firsts, copies[0])
		}
		if n > 1 {
			p.c.Duplicated++
			d := Duplicate{Seq: seq, Offsets: make([]int64, n)}
			for i, r := range copies {
				d.Offsets[i] = r.offset
			}
			dups = keepFirstDuplicates(dups, d)
		}
		switch {
		case m == nil:
			if inLog {
				p.c.Unrecorded++
			}
		case m.flags&failed != 0:
			p.c.Failed++
			if !inLog {
				break
			}
			p.c.FailedPresent++
			if len(out.First.FailedPresent) < MaxOffenders {
				msg := otherError
				if m.err > 0 {
					msg = errs[m.err-1]
				}
				out.First.FailedPresent = append(out.First.FailedPresent,
					FailedPresent{Seq: seq, Offset: logOffset, Err: msg})
			}
		case m.flags&acked != 0:
			p.c.Acknowledged++
			matched := slices.ContainsFunc(copies, func(r logRecord) bool { return r.offset == m.ackOffset })
			switch {
			case !inLog:
				p.c.Lost++
				if len(out.First.Lost) < MaxOffenders {
					out.First.Lost = append(out.First.Lost,
						Lost{Seq: seq, AckedOffset: m.ackOffset, AckedAt: time.Unix(0, m.ackAt).UTC()})
				}
			case m.ackOffset >= 0 && !matched:
				p.c.OffsetMismatch++
				if len(out.First.OffsetMismatch) < MaxOffenders {
					out.First.OffsetMismatch = append(out.First.OffsetMismatch,
						Mismatch{Seq: seq, AckedOffset: m.ackOffset, LogOffset: logOffset})
				}
			}
		}
	}
	if len(dups) > 0 {
		out.First.Duplicated = dups
	}
	p.msgs = nil

	// Walk the first copies in offset order; later copies are duplicates,
	// not reorders.
	byOffset := func(a, b logRecord) int { return cmp.Compare(a.offset, b.offset) }
	if !slices.IsSortedFunc(firsts, byOffset) {
		slices.SortFunc(firsts, byOffset)
	}
	maxSeq, maxOff := int64(-1), int64(-1)
	for _, rec := range firsts {
		if rec.seq < maxSeq {
			p.c.Reordered++
			if len(out.First.Reordered) < MaxOffenders {
				out.First.Reordered = append(out.First.Reordered,
					Reorder{Seq: rec.seq, Offset: rec.offset, After: maxSeq, AfterOffset: maxOff})
			}
		} else {
			maxSeq, maxOff = rec.seq, rec.offset
		}
	}
	p.log = nil
	out.Counts = p.c
	return out
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
