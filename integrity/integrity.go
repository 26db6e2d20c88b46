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
// Memory: an Audit keeps 32 bytes per sequence number in pages of 1,024,
// and 16 bytes per log record until Close, so a million messages and their
// records take about 50 MB.
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
	seqs table
	log  chunks
	// unsorted is set when log came out of offset order.
	unsorted bool
}

type logRecord struct{ offset, seq int64 }

func (a *Audit) partition(n int32) *partition {
	if a.last != nil && a.last.n == n {
		return a.last
	}
	p := a.parts[n]
	if p == nil {
		p = &partition{n: n, seqs: table{pages: map[int64]*page{}}}
		a.parts[n] = p
	}
	a.last = p
	return p
}

// AddMessage records one probe message. A sequence number listed twice
// keeps its last row.
func (a *Audit) AddMessage(m *results.Message) {
	p := a.partition(m.Partition)
	p.c.Messages++
	e := p.seqs.at(m.Seq)
	e.flags = e.flags&^(acked|failed) | seen
	switch {
	case m.Failed():
		e.flags |= failed
		e.err = a.errorRef(m.Err)
	case !m.Acked.IsZero():
		e.flags |= acked
		e.ackOffset = m.Offset
		e.ackAt = m.Acked.UnixNano()
	}
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
	rec := logRecord{r.Offset, r.Seq}
	if last, ok := p.log.last(); ok && cmpLog(last, rec) > 0 {
		p.unsorted = true
	}
	p.log.append(rec)
}

// chunks holds log records in fixed-size blocks, so a growing log is never
// copied and takes 16 bytes a record.
type chunks struct {
	blocks []*[chunkSize]logRecord
	n      int
}

const chunkSize = 4096

func (c *chunks) append(r logRecord) {
	if c.n%chunkSize == 0 {
		c.blocks = append(c.blocks, new([chunkSize]logRecord))
	}
	c.blocks[c.n/chunkSize][c.n%chunkSize] = r
	c.n++
}

func (c *chunks) last() (logRecord, bool) {
	if c.n == 0 {
		return logRecord{}, false
	}
	return c.blocks[(c.n-1)/chunkSize][(c.n-1)%chunkSize], true
}

// each calls f for every record, in the order appended.
func (c *chunks) each(f func(logRecord)) {
	for i, b := range c.blocks {
		for _, r := range b[:min(chunkSize, c.n-i*chunkSize)] {
			f(r)
		}
	}
}

// sort puts the records in (offset, seq) order.
func (c *chunks) sort() {
	all := make([]logRecord, 0, c.n)
	c.each(func(r logRecord) { all = append(all, r) })
	slices.SortFunc(all, cmpLog)
	for i, r := range all {
		c.blocks[i/chunkSize][i%chunkSize] = r
	}
}

func cmpLog(a, b logRecord) int {
	if c := cmp.Compare(a.offset, b.offset); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
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
	if p.unsorted {
		p.log.sort()
	}
	// Walk the log in offset order.
	maxSeq, maxOff := int64(-1), int64(-1)
	dupIx := map[int64]int{} // seq → index in out.First.Duplicated
	p.log.each(func(rec logRecord) {
		e := p.seqs.at(rec.seq)
		if e.flags&acked != 0 && e.ackOffset == rec.offset {
			e.flags |= matched
		}
		if e.flags&inLog != 0 { // a later copy
			if e.flags&dup == 0 {
				e.flags |= dup
				p.c.Duplicated++
				if len(out.First.Duplicated) < MaxOffenders {
					dupIx[rec.seq] = len(out.First.Duplicated)
					out.First.Duplicated = append(out.First.Duplicated,
						Duplicate{Seq: rec.seq, Offsets: []int64{e.logOffset}})
				}
			}
			if i, ok := dupIx[rec.seq]; ok {
				d := &out.First.Duplicated[i]
				d.Offsets = append(d.Offsets, rec.offset)
			}
			return
		}
		e.flags |= inLog
		e.logOffset = rec.offset
		if rec.seq < maxSeq {
			p.c.Reordered++
			if len(out.First.Reordered) < MaxOffenders {
				out.First.Reordered = append(out.First.Reordered,
					Reorder{Seq: rec.seq, Offset: rec.offset, After: maxSeq, AfterOffset: maxOff})
			}
		} else {
			maxSeq, maxOff = rec.seq, rec.offset
		}
	})
	p.log = chunks{}

	// Walk the messages in sequence order.
	p.seqs.each(func(seq int64, e *entry) {
		switch {
		case e.flags&seen == 0:
			if e.flags&inLog != 0 {
				p.c.Unrecorded++
			}
		case e.flags&failed != 0:
			p.c.Failed++
			if e.flags&inLog == 0 {
				break
			}
			p.c.FailedPresent++
			if len(out.First.FailedPresent) < MaxOffenders {
				msg := otherError
				if e.err > 0 {
					msg = errs[e.err-1]
				}
				out.First.FailedPresent = append(out.First.FailedPresent,
					FailedPresent{Seq: seq, Offset: e.logOffset, Err: msg})
			}
		case e.flags&acked != 0:
			p.c.Acknowledged++
			switch {
			case e.flags&inLog == 0:
				p.c.Lost++
				if len(out.First.Lost) < MaxOffenders {
					out.First.Lost = append(out.First.Lost,
						Lost{Seq: seq, AckedOffset: e.ackOffset, AckedAt: time.Unix(0, e.ackAt).UTC()})
				}
			case e.ackOffset >= 0 && e.flags&matched == 0:
				p.c.OffsetMismatch++
				if len(out.First.OffsetMismatch) < MaxOffenders {
					out.First.OffsetMismatch = append(out.First.OffsetMismatch,
						Mismatch{Seq: seq, AckedOffset: e.ackOffset, LogOffset: e.logOffset})
				}
			}
		}
	})
	p.seqs = table{}
	out.Counts = p.c
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

// entry is what an Audit knows of one sequence number.
type entry struct {
	ackOffset int64 // valid with acked
	ackAt     int64 // Unix ns, valid with acked
	logOffset int64 // first offset in the log, valid with inLog
	err       int32 // Audit.errs index + 1, valid with failed; 0: not kept
	flags     uint8
}

const (
	seen    uint8 = 1 << iota // probe.csv lists it
	acked                     // acknowledged without error
	failed                    // the probe saw an error
	inLog                     // log.csv holds it
	dup                       // log.csv holds it more than once
	matched                   // log.csv holds it at its acked offset
)

// A table maps sequence numbers to entries in pages, so dense numbers cost
// 32 bytes each and a stray huge one costs one page, not a huge slice.
type table struct {
	pages map[int64]*page
	lastN int64
	last  *page
}

const pageBits = 10

type page [1 << pageBits]entry

func (t *table) at(seq int64) *entry {
	n := seq >> pageBits
	if t.last == nil || t.lastN != n {
		pg := t.pages[n]
		if pg == nil {
			pg = new(page)
			t.pages[n] = pg
		}
		t.last, t.lastN = pg, n
	}
	return &t.last[seq&(1<<pageBits-1)]
}

// each calls f for every entry used, in sequence order.
func (t *table) each(f func(seq int64, e *entry)) {
	for _, n := range slices.Sorted(maps.Keys(t.pages)) {
		pg := t.pages[n]
		for i := range pg {
			if pg[i].flags != 0 {
				f(n<<pageBits|int64(i), &pg[i])
			}
		}
	}
}
