package probe

import (
	"cmp"
	"slices"
	"time"

	"github.com/kbf-project/kbf/results"
)

// inflight is one partition's records not yet written — sent and not yet
// both acknowledged and read, or failed — by sequence number. A probe of
// thousands of partitions holds hundreds of thousands of them through a
// stall, so each is kept in a flat slot of 40 bytes, its error by number
// (a map of *results.Message cost 136 bytes a record, and gave the garbage
// collector a pointer to follow for each): the slots run from the oldest record still held to the
// newest sent, and the front is dropped as the oldest complete. A failed
// record is kept to the end (it may yet be read), but moved aside once it
// is the oldest, so that it does not hold every slot sent after it.
type inflight struct {
	base  int64           // the sequence number of slots[0]
	slots []slot          // slots[i] is record base+i
	held  int             // slots still held
	aside map[int64]*slot // failed records moved out of the slots' front
	// errs are the errors records failed with, each once: a slot holds
	// its error's number in errs plus one.
	errs  []string
	errNo map[string]int32
}

// slot is one record in flight; times are Unix nanoseconds, 0 for none.
type slot struct {
	sent, acked, received int64
	offset                int64 // -1 until acknowledged
	err                   int32 // 0: none; else errs[err-1]
	held                  bool
}

// add holds record seq, sent at sent: the next sequence number.
func (f *inflight) add(_ int64, sent time.Time) {
	// seq is base+len(slots): the probe sends each partition's records in
	// order, from 0.
	f.slots = append(f.slots, slot{sent: sent.UnixNano(), offset: -1, held: true})
	f.held++
}

// get returns record seq while it is held, nil once written or unknown.
func (f *inflight) get(seq int64) *slot {
	if i := seq - f.base; i >= 0 && i < int64(len(f.slots)) {
		if s := &f.slots[i]; s.held {
			return s
		}
		return nil
	}
	return f.aside[seq]
}

// drop stops holding record seq (written), and drops the front of the
// slots that no longer holds anything, moving failed records aside.
func (f *inflight) drop(seq int64) {
	if s, ok := f.aside[seq]; ok {
		s.held = false
		delete(f.aside, seq)
		return
	}
	i := seq - f.base
	if i < 0 || i >= int64(len(f.slots)) || !f.slots[i].held {
		return
	}
	f.slots[i].held = false
	f.held--
	f.trim()
}

// fail marks record s failed with err; it is kept, aside once it is the
// oldest.
func (f *inflight) fail(s *slot, err string) {
	n, ok := f.errNo[err]
	if !ok {
		if f.errNo == nil {
			f.errNo = map[string]int32{}
		}
		f.errs = append(f.errs, err)
		n = int32(len(f.errs))
		f.errNo[err] = n
	}
	s.err = n
	f.trim()
}

// failed reports whether record s failed.
func (s *slot) failed() bool { return s.err != 0 }

// trim drops the slots' front up to the oldest record held that has not
// failed; failed ones on the way are moved aside.
func (f *inflight) trim() {
	n := 0
	for n < len(f.slots) {
		s := &f.slots[n]
		if s.held && !s.failed() {
			break
		}
		if s.held { // failed: kept, aside
			if f.aside == nil {
				f.aside = map[int64]*slot{}
			}
			c := *s
			f.aside[f.base+int64(n)] = &c
			f.held--
		}
		n++
	}
	if n == 0 {
		return
	}
	f.base += int64(n)
	f.slots = f.slots[n:]
	if len(f.slots) == 0 {
		f.slots = nil // let the array go
	}
}

// each calls fn with every record held, until fn returns false.
func (f *inflight) each(fn func(s *slot) bool) {
	for i := range f.slots {
		if f.slots[i].held && !fn(&f.slots[i]) {
			return
		}
	}
	for _, s := range f.aside {
		if !fn(s) {
			return
		}
	}
}

// message is record seq of partition part, held in s, as the probe CSV
// writes it.
func (f *inflight) message(s *slot, part int32, seq int64) results.Message {
	m := results.Message{Partition: part, Seq: seq, Offset: s.offset,
		Sent: fromNanos(s.sent), Acked: fromNanos(s.acked), Received: fromNanos(s.received)}
	if s.failed() {
		m.Err = f.errs[s.err-1]
	}
	return m
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// remaining returns every record still held as messages of partition
// part, in sequence order, and holds none from then on.
func (f *inflight) remaining(part int32) []results.Message {
	out := make([]results.Message, 0, f.held+len(f.aside))
	for seq, s := range f.aside {
		out = append(out, f.message(s, part, seq))
	}
	for i := range f.slots {
		if f.slots[i].held {
			out = append(out, f.message(&f.slots[i], part, f.base+int64(i)))
		}
	}
	slices.SortFunc(out, func(a, b results.Message) int { return cmp.Compare(a.Seq, b.Seq) })
	f.base += int64(len(f.slots))
	f.slots, f.aside, f.held = nil, nil, 0
	return out
}
