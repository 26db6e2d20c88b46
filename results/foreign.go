package results

// Another program's probe CSV. kbf's own format (csv.go) is the canonical
// one; a Decoder reads the other kind when the header is not kbf's but
// names the columns it needs, by any of their usual spellings:
//
//	partition,seq,sent_at,acked_at,received_at
//	0,0,1764520929.503112,1764520929.507456,1764520929.511901
//	0,1,1764520929.523201,,
//
// Columns, found by header name, case and surrounding spaces ignored:
//
//	partition  partition, part, partition_id                 required
//	seq        seq, sequence, seq_no, seqno, seq_num          required
//	offset     offset                                          optional
//	sent       sent, sent_at, send_time, sent_time, send_ts    required
//	acked      acked, acked_at, ack_time, acked_time, ack_ts   optional
//	received   received, received_at, recv_time, receive_time, optional
//	           recv_at, recv_ts
//	error      error, err, error_message                       optional
//
// Other columns (a pandas index, a payload) are ignored. Times are RFC 3339
// (a space for the T, as pandas writes them, is accepted) or numbers since
// the Unix epoch: seconds, milliseconds, microseconds or nanoseconds,
// integers or decimals. The unit is decided from the first time's
// magnitude — only one unit puts a number between EarliestTime and
// LatestTime — and every later time must be in the same one. An empty
// time, "nan" or "null" is none: a message never acked, or never read.

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/internal/spell"
)

// Errors a Decoder reports for another program's CSV.
var (
	// errNoHeader is reported for a CSV whose first line is data.
	errNoHeader = fmt.Errorf("%w: no header", ErrHeader)
	// errColumns is reported, with ErrHeader, for a header that lacks a
	// column kbf needs, names one twice or misspells one.
	errColumns = errors.New("columns not understood")
	// errTimeUnit is reported for a time that is neither RFC 3339 nor a
	// number in a unit that puts it in the plausible range, or in another
	// unit than the file's first time.
	errTimeUnit = errors.New("time unit not understood")
)

// The columns, by the names kbf's own header gives them.
const (
	colPartition = iota
	colSeq
	colOffset
	colSent
	colAcked
	colReceived
	colError
	numCols
)

// spellings are each column's accepted header names.
var spellings = [numCols][]string{
	colPartition: {"partition", "part", "partition_id"},
	colSeq:       {"seq", "sequence", "seq_no", "seqno", "seq_num"},
	colOffset:    {"offset"},
	colSent:      {"sent", "sent_at", "send_time", "sent_time", "send_ts"},
	colAcked:     {"acked", "acked_at", "ack_time", "acked_time", "ack_ts"},
	colReceived:  {"received", "received_at", "recv_time", "receive_time", "recv_at", "recv_ts"},
	colError:     {"error", "err", "error_message"},
}

var required = []int{colPartition, colSeq, colSent}

// TimeUnit is how another program's CSV writes its times.
type TimeUnit string

// Time units.
const (
	UnitRFC3339 TimeUnit = "RFC 3339"
	UnitSeconds TimeUnit = "epoch seconds"
	UnitMillis  TimeUnit = "epoch milliseconds"
	UnitMicros  TimeUnit = "epoch microseconds"
	UnitNanos   TimeUnit = "epoch nanoseconds"
)

// epochUnits are the numeric units, each with its nanoseconds.
var epochUnits = []struct {
	unit TimeUnit
	ns   int64
}{{UnitSeconds, 1e9}, {UnitMillis, 1e6}, {UnitMicros, 1e3}, {UnitNanos, 1}}

// foreignFormat is the mapping a foreign header made, and the unit its
// first time decided.
type foreignFormat struct {
	col    [numCols]int // index in the row; -1 when absent
	header []string
	unit   TimeUnit
}

// Foreign describes how the decoder read another program's CSV: its
// columns, its time unit and what it lacks; "" for kbf's own format or
// before the first Decode.
func (d *Decoder) Foreign() string {
	f := d.foreign
	if f == nil {
		return ""
	}
	var cols []string
	for c := range numCols {
		if i := f.col[c]; i >= 0 {
			cols = append(cols, probeHeader[c]+"="+strings.TrimSpace(f.header[i]))
		}
	}
	s := fmt.Sprintf("%s is not kbf's probe format: read by header as %s", d.lr.file, strings.Join(cols, ", "))
	if f.unit != "" {
		s += "; times in " + string(f.unit)
	}
	if f.col[colOffset] < 0 {
		s += "; no offset column, so no integrity audit"
	}
	if f.col[colAcked] < 0 {
		s += "; no ack column, so no ack gaps"
	}
	if f.col[colReceived] < 0 {
		s += "; no receive column, so no receive gaps"
	}
	return s
}

// sniff maps a header that is not kbf's to the columns, or says what is
// wrong with it in one line.
func (d *Decoder) sniff(header []string) error {
	f := &foreignFormat{header: slices.Clone(header)}
	for c := range f.col {
		f.col[c] = -1
	}
	data := len(header) > 0
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if _, err := strconv.ParseFloat(name, 64); err != nil && name != "" {
			if _, terr := time.Parse(time.RFC3339Nano, strings.TrimSpace(h)); terr != nil {
				data = false
			}
		}
		for c, names := range spellings {
			for _, n := range names {
				if name != n {
					continue
				}
				if j := f.col[c]; j >= 0 {
					return fmt.Errorf("%w: %w: columns %d (%s) and %d (%s) both name the %s", ErrHeader, errColumns,
						j+1, Excerpt(header[j]), i+1, Excerpt(h), probeHeader[c])
				}
				f.col[c] = i
			}
		}
	}
	// A name a letter or two from a missing column's is a typo, not a
	// column to ignore: reading on would drop the column silently.
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		if slices.Contains(f.col[:], i) {
			continue
		}
		for c, names := range spellings {
			if f.col[c] >= 0 {
				continue
			}
			for _, n := range names {
				if d := spell.Distance(name, n); d > 0 && d <= 2 && len(n) > 3 {
					return fmt.Errorf("%w: got %s: %w: column %d, %s, is not a column kbf knows; is it %s?", ErrHeader,
						Excerpt(joinComma(header)), errColumns, i+1, Excerpt(h), n)
				}
			}
		}
	}
	if data {
		return fmt.Errorf("%w: the first line is data (%s); add a header line naming the columns, as %s",
			errNoHeader, Excerpt(joinComma(header)), joinComma(probeHeader))
	}
	for _, c := range required {
		if f.col[c] < 0 {
			return fmt.Errorf("%w: got %s: %w: no %s column; name it %s", ErrHeader,
				Excerpt(joinComma(header)), errColumns, probeHeader[c], strings.Join(spellings[c], " or "))
		}
	}
	d.foreign = f
	return nil
}

// decodeForeign reads a row of another program's CSV into m, with the
// checks kbf's own rows get.
func (d *Decoder) decodeForeign(row []string, m *Message) error {
	f := d.foreign
	field := func(c int) string {
		if i := f.col[c]; i >= 0 {
			return strings.TrimSpace(row[i])
		}
		return ""
	}
	fail := func(c int, err error) error { return d.lr.fieldError(f.col[c], err) }
	p, err := strconv.ParseInt(field(colPartition), 10, 32)
	if err != nil || p < 0 {
		return fail(colPartition, fmt.Errorf("not a partition number: %s", Excerpt(field(colPartition))))
	}
	m.Partition = int32(p)
	if d.Partitions != nil && !d.Partitions[m.Partition] {
		return fail(colPartition, fmt.Errorf("%w: %d", ErrUnknownPartition, p))
	}
	if m.Seq, err = strconv.ParseInt(field(colSeq), 10, 64); err != nil || m.Seq < 0 {
		return fail(colSeq, fmt.Errorf("not a sequence number: %s", Excerpt(field(colSeq))))
	}
	m.Offset = -1
	// pandas writes an integer column with a gap in it as floats: 400.0.
	if s := field(colOffset); s != "" && !isNone(s) {
		if m.Offset, err = strconv.ParseInt(strings.TrimSuffix(s, ".0"), 10, 64); err != nil || m.Offset < 0 {
			return fail(colOffset, fmt.Errorf("not an offset: %s", Excerpt(s)))
		}
	}
	m.Sent, m.Acked, m.Received = time.Time{}, time.Time{}, time.Time{}
	for c, t := range [...]*time.Time{colSent: &m.Sent, colAcked: &m.Acked, colReceived: &m.Received} {
		if t == nil {
			continue
		}
		if f.col[c] < 0 {
			continue
		}
		if *t, err = d.foreignTime(field(c)); err != nil {
			return fail(c, err)
		}
		if err := d.inWindow(*t); err != nil {
			return fail(c, err)
		}
	}
	if m.Sent.IsZero() {
		return fail(colSent, errors.New("empty: every message has a send time"))
	}
	if !m.Acked.IsZero() && m.Acked.Before(m.Sent) {
		return fail(colAcked, fmt.Errorf("%s is %w at %s", clockOf(m.Acked), errBeforeSent, clockOf(m.Sent)))
	}
	if !m.Received.IsZero() && m.Received.Before(m.Sent) {
		return fail(colReceived, fmt.Errorf("%s is %w at %s", clockOf(m.Received), errBeforeSent, clockOf(m.Sent)))
	}
	if !d.seen.of(m.Partition).add(m.Seq) {
		return fail(colSeq, fmt.Errorf("%w: an earlier row has partition %d seq %d too; a probe writes each message once",
			errDuplicateRow, m.Partition, m.Seq))
	}
	m.Err = oneLine(field(colError))
	return nil
}

func isNone(s string) bool {
	switch strings.ToLower(s) {
	case "nan", "null", "none", "nat":
		return true
	}
	return false
}

// foreignTime parses one time of another program's CSV in the file's unit,
// deciding the unit on the first.
func (d *Decoder) foreignTime(s string) (time.Time, error) {
	if s == "" || isNone(s) {
		return time.Time{}, nil
	}
	f := d.foreign
	if strings.ContainsAny(s, ":T") {
		if f.unit != "" && f.unit != UnitRFC3339 {
			return time.Time{}, fmt.Errorf("%w: %s is RFC 3339, but the file's first time was in %s", errTimeUnit, Excerpt(s), f.unit)
		}
		// pandas writes "2026-11-30 16:42:09.503+00:00".
		if len(s) > 10 && s[10] == ' ' {
			s = s[:10] + "T" + s[11:]
		}
		t, err := ParseTime(s)
		if err != nil {
			return time.Time{}, err
		}
		f.unit = UnitRFC3339
		return t, nil
	}
	ns, err := epochNanos(s)
	if err != nil {
		return time.Time{}, err
	}
	if f.unit == "" {
		f.unit = unitOf(ns)
		if f.unit == "" {
			return time.Time{}, fmt.Errorf("%w: %s is not RFC 3339, and as epoch seconds, milliseconds, microseconds or nanoseconds it falls outside %d–%d",
				errTimeUnit, Excerpt(s), EarliestTime.Year(), LatestTime.Year())
		}
	}
	for _, u := range epochUnits {
		if u.unit != f.unit {
			continue
		}
		if got := unitOf(ns); got != "" && got != f.unit {
			return time.Time{}, fmt.Errorf("%w: %s reads as %s, but the file's first time was in %s", errTimeUnit, Excerpt(s), got, f.unit)
		}
		t, ok := scale(ns, u.ns)
		if !ok {
			return time.Time{}, fmt.Errorf("%w: %s in %s is no plausible time", errTimeUnit, Excerpt(s), f.unit)
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%w: %s", errTimeUnit, f.unit)
}

// epochNanos parses a decimal number exactly, so that a time in seconds
// with nine decimals keeps its nanoseconds, as float64 would not.
func epochNanos(s string) (*big.Rat, error) {
	bad := fmt.Errorf("%w: %s is neither RFC 3339 nor a number since the epoch", errTimeUnit, Excerpt(s))
	// A number that long, a fraction or a huge exponent is no time, and
	// an exact rational of 1e999999 would cost what it says.
	if len(s) > 40 || strings.ContainsAny(s, "/xXpP_") {
		return nil, bad
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if e, err := strconv.Atoi(s[i+1:]); err != nil || e < -30 || e > 30 {
			return nil, bad
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() < 0 {
		return nil, bad
	}
	return r, nil
}

// unitOf is the one unit that puts n in the plausible range, or "".
func unitOf(n *big.Rat) TimeUnit {
	lo, hi := EarliestTime.UnixNano(), LatestTime.UnixNano()
	for _, u := range epochUnits {
		t := new(big.Rat).Mul(n, new(big.Rat).SetInt64(u.ns))
		if t.Cmp(new(big.Rat).SetInt64(lo)) >= 0 && t.Cmp(new(big.Rat).SetInt64(hi)) <= 0 {
			return u.unit
		}
	}
	return ""
}

// scale is n units of unitNs nanoseconds as a time, to the nanosecond
// (rounded); false outside what a time.Time of int64 nanoseconds holds.
func scale(n *big.Rat, unitNs int64) (time.Time, bool) {
	t := new(big.Rat).Mul(n, new(big.Rat).SetInt64(unitNs))
	f, _ := t.Float64()
	if f > math.MaxInt64 || f < 0 {
		return time.Time{}, false
	}
	q := new(big.Int).Quo(t.Num(), t.Denom())
	rem := new(big.Int).Sub(t.Num(), new(big.Int).Mul(q, t.Denom()))
	if new(big.Int).Mul(rem, big.NewInt(2)).Cmp(t.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return time.Time{}, false
	}
	return time.Unix(0, q.Int64()).UTC(), true
}
