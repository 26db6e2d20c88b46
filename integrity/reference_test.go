package integrity

// The audit as it was before it weighed messages as they came (every
// message and record kept until Close, then both sorted and walked side by
// side), kept as the reference the streaming audit must agree with.

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/kbf-project/kbf/results"
)

// refAudit gathers probe messages and log records; Close compares them.
type refAudit struct {
	parts map[int32]*refPartition
	last  *refPartition
	errs  []string
	errIx map[string]int32
}

// New returns an empty refAudit.
func newRef() *refAudit {
	return &refAudit{parts: map[int32]*refPartition{}, errIx: map[string]int32{}}
}

// refPartition is what an refAudit keeps of one refPartition until Close.
type refPartition struct {
	n    int32
	c    Counts
	msgs []message
	log  []refRecord
}

type refRecord struct{ offset, seq int64 }

func (a *refAudit) part(n int32) *refPartition {
	if a.last != nil && a.last.n == n {
		return a.last
	}
	p := a.parts[n]
	if p == nil {
		p = &refPartition{n: n}
		a.parts[n] = p
	}
	a.last = p
	return p
}

// AddMessage records one probe message. A sequence number listed twice
// counts once, and keeps its last row.
func (a *refAudit) AddMessage(m *results.Message) {
	p := a.part(m.Partition)
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

func (a *refAudit) errorRef(s string) int32 {
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
func (a *refAudit) AddLog(r results.LogRecord) {
	p := a.part(r.Partition)
	p.c.Logged++
	p.log = appendDoubling(p.log, refRecord{r.Offset, r.Seq})
}

// Close compares the messages with the records and returns the findings.
// The refAudit must not be used afterwards.
func (a *refAudit) Close() *Report {
	r := &Report{Partitions: []Partition{}}
	for _, n := range slices.Sorted(maps.Keys(a.parts)) {
		pr := a.parts[n].close(a.errs)
		r.Partitions = append(r.Partitions, pr)
		r.Counts.add(&pr.Counts)
	}
	a.parts, a.last, a.errs, a.errIx = nil, nil, nil, nil
	return r
}

func (p *refPartition) close(errs []string) Partition {
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
	bySeqOffset := func(a, b refRecord) int {
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
			matched := slices.ContainsFunc(copies, func(r refRecord) bool { return r.offset == m.ackOffset })
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
	byOffset := func(a, b refRecord) int { return cmp.Compare(a.offset, b.offset) }
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
