package results

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
)

// Decoder reads the probe CSV one row at a time. It keeps, per partition,
// the runs of sequence numbers seen, to refuse a row listed twice: for the
// file the probe writes, nearly in sequence order, that is a few runs, and
// never more than one per row.
type Decoder struct {
	lr *lineReader
	// Partitions, when set, is the set of partitions the file may name; a
	// row naming another is an error.
	Partitions map[int32]bool
	// From and To bound the times a row may hold: a trial's own start and
	// end (Meta.Started, Meta.Ended). Where zero, the plausible range
	// EarliestTime–LatestTime bounds them instead, so no time can make a
	// gap of centuries.
	From, To time.Time

	seen runsByPartition
	day  sameDay
	openFile
	// foreign is the column mapping of another program's probe CSV, once
	// the header has shown one (foreign.go); nil for kbf's own.
	foreign *foreignFormat
}

// The plausible range of a time in a file with no trial window to judge it
// by.
var (
	EarliestTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	LatestTime   = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

// NewDecoder returns a Decoder reading r. file names r in errors.
func NewDecoder(r io.Reader, file string) *Decoder {
	d := &Decoder{lr: probeFormat.reader(r, file)}
	d.lr.sniff = d.sniff
	return d
}

// Errors a Decoder reports inside a ParseError.
var (
	// ErrUnknownPartition is reported for a row whose partition the run
	// did not probe.
	ErrUnknownPartition = errors.New("partition not probed in this run")
	// errOutsideTrial is reported for a time outside the trial's window,
	// or outside the plausible range.
	errOutsideTrial = errors.New("outside the trial")
	// errBeforeSent is reported for an ack or a receive before the send.
	errBeforeSent = errors.New("before the message was sent")
	// errDuplicateRow is reported for a second row of one partition and
	// sequence number.
	errDuplicateRow = errors.New("duplicate row")
)

// Decode reads the next row into m. It returns io.EOF after the last row and
// a *ParseError for a malformed one.
func (d *Decoder) Decode(m *Message) error {
	rec, err := d.lr.nextRecord()
	if err != nil {
		return err
	}
	if d.foreign != nil {
		d.lr.strs = rec.strings(d.lr.strs)
		return d.decodeForeign(d.lr.strs, m)
	}
	if err := probeFormat.fields(d.lr, d, m, rec); err != nil {
		return err
	}
	if m.Sent.IsZero() {
		return d.lr.fieldError(3, errors.New("empty: every message has a send time"))
	}
	// One clock times all three, so an ack or a read before the send is a
	// broken file, and would make a negative latency.
	if !m.Acked.IsZero() && m.Acked.Before(m.Sent) {
		return d.lr.fieldError(4, fmt.Errorf("%s is %w at %s", clockOf(m.Acked), errBeforeSent, clockOf(m.Sent)))
	}
	if !m.Received.IsZero() && m.Received.Before(m.Sent) {
		return d.lr.fieldError(5, fmt.Errorf("%s is %w at %s", clockOf(m.Received), errBeforeSent, clockOf(m.Sent)))
	}
	if !d.seen.of(m.Partition).add(m.Seq) {
		return d.lr.fieldError(1, fmt.Errorf("%w: an earlier row has partition %d seq %d too; the probe writes each message once",
			errDuplicateRow, m.Partition, m.Seq))
	}
	return nil
}

// partition reads a row's partition, one the run probed.
func (d *Decoder) partition(m *Message, f []byte) error {
	p, err := parseInt(f, 32)
	if err != nil || p < 0 {
		return fmt.Errorf("not a partition number: %s", Excerpt(string(f)))
	}
	m.Partition = int32(p)
	if d.Partitions != nil && !d.Partitions[m.Partition] {
		return fmt.Errorf("%w: %d", ErrUnknownPartition, p)
	}
	return nil
}

// seq reads a row's sequence number.
func (d *Decoder) seq(m *Message, f []byte) error {
	var err error
	if m.Seq, err = parseInt(f, 64); err != nil || m.Seq < 0 {
		return fmt.Errorf("not a sequence number: %s", Excerpt(string(f)))
	}
	return nil
}

// offset reads a row's offset; -1 when empty.
func (d *Decoder) offset(m *Message, f []byte) error {
	m.Offset = -1
	if len(f) == 0 {
		return nil
	}
	var err error
	if m.Offset, err = parseInt(f, 64); err != nil || m.Offset < 0 {
		return fmt.Errorf("not an offset: %s", Excerpt(string(f)))
	}
	return nil
}

// time reads one of a row's times, within the decoder's window.
func (d *Decoder) time(dst *time.Time, f []byte) error {
	t, ok := d.day.parse(f)
	if !ok {
		if t, ok = parseFixed(f); ok {
			d.day.remember(f, t)
		} else {
			var err error
			if t, err = ParseTime(string(f)); err != nil {
				return err
			}
		}
	}
	*dst = t
	return d.inWindow(t)
}

// sameDay parses, as parseFixed does, a time of the day it last
// remembered, counting only the time of day: a probe row has three times,
// and a probe CSV's are nearly all of one day.
type sameDay struct {
	date     [10]byte
	midnight int64 // the date's start, in Unix seconds
	set      bool
}

// remember makes t's day, which s (parseFixed's form) spells, the day.
func (c *sameDay) remember(s []byte, t time.Time) {
	h, m, sec := t.Clock()
	copy(c.date[:], s[:10])
	c.midnight, c.set = t.Unix()-int64(h*3600+m*60+sec), true
}

// parse is parseFixed of s when s is of the day remembered; false
// otherwise.
func (c *sameDay) parse(s []byte) (time.Time, bool) {
	if !c.set || len(s) != 30 || string(s[:10]) != string(c.date[:]) ||
		s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[29] != 'Z' {
		return time.Time{}, false
	}
	hour, ok1 := Digits(s, 11, 13)
	min, ok2 := Digits(s, 14, 16)
	sec, ok3 := Digits(s, 17, 19)
	nsec, ok4 := Digits(s, 20, 29)
	if !(ok1 && ok2 && ok3 && ok4) || hour > 23 || min > 59 || sec > 59 {
		return time.Time{}, false
	}
	return time.Unix(c.midnight+int64(hour*3600+min*60+sec), int64(nsec)).UTC(), true
}

// parseInt is strconv.ParseInt(string(b), 10, bits), without making the
// string for the plain decimal digits a file holds.
func parseInt(b []byte, bits int) (int64, error) {
	if v, ok := digitsOf(b); ok && (bits == 64 || v < 1<<(bits-1)) {
		return v, nil
	}
	return strconv.ParseInt(string(b), 10, bits)
}

// digitsOf is the number b spells in 1 to 18 decimal digits, which no
// int64 overflows.
func digitsOf(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// inWindow refuses a non-zero t outside the decoder's window.
func (d *Decoder) inWindow(t time.Time) error {
	if t.IsZero() {
		return nil
	}
	from, to, what := d.From, d.To, "the trial's"
	if from.IsZero() {
		from, what = EarliestTime, "a plausible"
	}
	if to.IsZero() {
		to = LatestTime
		if !d.From.IsZero() {
			what = "the trial's" // started then, and never recorded its end
		}
	}
	if t.Before(from) || t.After(to) {
		return fmt.Errorf("%s is %w: %s window is %s ~ %s",
			t.UTC().Format(time.RFC3339Nano), errOutsideTrial, what,
			from.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

func clockOf(t time.Time) string { return t.UTC().Format("15:04:05.000000000") }

// runsByPartition are a runs per partition: in a slice for the partition
// numbers a topic has, in a map past them.
type runsByPartition struct {
	dense  []*runs
	sparse map[int32]*runs
}

// maxDense bounds the partition numbers runsByPartition keeps in its slice.
const maxDense = 1 << 16

// of is partition p's runs, made empty the first time.
func (rp *runsByPartition) of(p int32) *runs {
	if p >= 0 && p < maxDense {
		if int(p) >= len(rp.dense) {
			rp.dense = append(rp.dense, make([]*runs, int(p)+1-len(rp.dense))...)
		}
		if rp.dense[p] == nil {
			rp.dense[p] = &runs{}
		}
		return rp.dense[p]
	}
	if rp.sparse == nil {
		rp.sparse = map[int32]*runs{}
	}
	r := rp.sparse[p]
	if r == nil {
		r = &runs{}
		rp.sparse[p] = r
	}
	return r
}

// runs is a set of sequence numbers kept as sorted, disjoint, non-adjacent
// closed ranges, so numbers that come nearly in order cost almost nothing
// and any numbers cost at most one range each.
type runs struct{ r [][2]int64 }

// add adds n and reports whether it was new.
func (s *runs) add(n int64) bool {
	k := len(s.r)
	if k > 0 && s.r[k-1][1] < n { // the usual case: past the end
		if s.r[k-1][1] == n-1 {
			s.r[k-1][1] = n
		} else {
			s.r = append(s.r, [2]int64{n, n})
		}
		return true
	}
	// i is the first range that ends at or after n.
	i, _ := slices.BinarySearchFunc(s.r, n, func(r [2]int64, n int64) int {
		switch {
		case r[1] < n:
			return -1
		case r[1] > n:
			return 1
		}
		return 0
	})
	if i < k && s.r[i][0] <= n {
		return false
	}
	joinLeft := i > 0 && s.r[i-1][1] == n-1
	joinRight := i < k && s.r[i][0] == n+1
	switch {
	case joinLeft && joinRight:
		s.r[i-1][1] = s.r[i][1]
		s.r = slices.Delete(s.r, i, i+1)
	case joinLeft:
		s.r[i-1][1] = n
	case joinRight:
		s.r[i][0] = n
	default:
		s.r = slices.Insert(s.r, i, [2]int64{n, n})
	}
	return true
}

// ParseTime parses an RFC 3339 time as the files hold it; "" is the zero
// time. The fixed-width UTC form kbf writes takes a fast path. A time whose
// UTC year falls outside 0000–9999 is refused, because RFC 3339 cannot
// write it back.
func ParseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, ok := parseFixed(s); ok {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("not an RFC 3339 time: %s", Excerpt(s))
	}
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return time.Time{}, fmt.Errorf("not an RFC 3339 time: %s is in year %d in UTC", Excerpt(s), y)
	}
	return t, nil
}

// parseTimeBytes is ParseTime of b, without making the string for the
// fixed form kbf writes.
func parseTimeBytes(b []byte) (time.Time, error) {
	if t, ok := parseFixed(b); ok {
		return t, nil
	}
	return ParseTime(string(b))
}

// parseFixed parses exactly 2006-01-02T15:04:05.000000000Z, counting the
// seconds itself rather than through time.Date: it is the one form kbf
// writes, three times a probe row.
func parseFixed[S string | []byte](s S) (time.Time, bool) {
	if len(s) != 30 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
		s[16] != ':' || s[19] != '.' || s[29] != 'Z' {
		return time.Time{}, false
	}
	year, ok1 := Digits(s, 0, 4)
	month, ok2 := Digits(s, 5, 7)
	day, ok3 := Digits(s, 8, 10)
	hour, ok4 := Digits(s, 11, 13)
	min, ok5 := Digits(s, 14, 16)
	sec, ok6 := Digits(s, 17, 19)
	nsec, ok7 := Digits(s, 20, 29)
	// 31 February and the like: let time.Parse refuse it.
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) ||
		month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || min > 59 || sec > 59 {
		return time.Time{}, false
	}
	unix := daysSinceEpoch(year, month, day)*86400 + int64(hour*3600+min*60+sec)
	return time.Unix(unix, int64(nsec)).UTC(), true
}

// Digits is the number s[a:b] spells in decimal digits; false when a byte
// of it is not a digit. The times of fixed width the files hold are read
// with it, and so are those of the nodes' log lines (package timeline).
func Digits[S string | []byte](s S, a, b int) (int, bool) {
	n := 0
	for i := a; i < b; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// daysIn is the number of days of month in year, of the proleptic
// Gregorian calendar.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysSinceEpoch is the number of days from 1970-01-01 to the date, for
// years 0000–9999 (the days_from_civil algorithm of H. Hinnant).
func daysSinceEpoch(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := (y+400)/400 - 1 // floor(y / 400) for y >= -1
	yoe := y - era*400
	m := int64(month)
	if m > 2 {
		m -= 3
	} else {
		m += 9
	}
	doy := (153*m+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
