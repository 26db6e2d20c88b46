package results

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Decoder reads the probe CSV one row at a time, so a file of any length is
// read in constant memory.
type Decoder struct {
	lr *lineReader
	// Partitions, when set, is the set of partitions the file may name; a
	// row naming another is an error.
	Partitions map[int32]bool
}

// NewDecoder returns a Decoder reading r. file names r in errors.
func NewDecoder(r io.Reader, file string) *Decoder {
	return &Decoder{lr: newLineReader(r, file, probeHeader)}
}

// ErrUnknownPartition is reported for a row whose partition the run did not
// probe.
var ErrUnknownPartition = errors.New("partition not probed in this run")

// Decode reads the next row into m. It returns io.EOF after the last row and
// a *ParseError for a malformed one.
func (d *Decoder) Decode(m *Message) error {
	row, err := d.lr.next()
	if err != nil {
		return err
	}
	p, err := strconv.ParseInt(row[0], 10, 32)
	if err != nil || p < 0 {
		return d.lr.fieldError(0, fmt.Errorf("not a partition number: %q", row[0]))
	}
	m.Partition = int32(p)
	if d.Partitions != nil && !d.Partitions[m.Partition] {
		return d.lr.fieldError(0, fmt.Errorf("%w: %d", ErrUnknownPartition, p))
	}
	if m.Seq, err = strconv.ParseInt(row[1], 10, 64); err != nil || m.Seq < 0 {
		return d.lr.fieldError(1, fmt.Errorf("not a sequence number: %q", row[1]))
	}
	m.Offset = -1
	if row[2] != "" {
		if m.Offset, err = strconv.ParseInt(row[2], 10, 64); err != nil || m.Offset < 0 {
			return d.lr.fieldError(2, fmt.Errorf("not an offset: %q", row[2]))
		}
	}
	for i, t := range []*time.Time{&m.Sent, &m.Acked, &m.Received} {
		if *t, err = ParseTime(row[3+i]); err != nil {
			return d.lr.fieldError(3+i, err)
		}
	}
	if m.Sent.IsZero() {
		return d.lr.fieldError(3, errors.New("empty: every message has a send time"))
	}
	m.Err = row[6]
	return nil
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
		return time.Time{}, fmt.Errorf("not an RFC 3339 time: %q", s)
	}
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return time.Time{}, fmt.Errorf("not an RFC 3339 time: %q is in year %d in UTC", s, y)
	}
	return t, nil
}

// parseFixed parses exactly 2006-01-02T15:04:05.000000000Z.
func parseFixed(s string) (time.Time, bool) {
	if len(s) != 30 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
		s[16] != ':' || s[19] != '.' || s[29] != 'Z' {
		return time.Time{}, false
	}
	num := func(a, b int) (int, bool) {
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
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 7)
	day, ok3 := num(8, 10)
	hour, ok4 := num(11, 13)
	min, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	nsec, ok7 := num(20, 29)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) ||
		month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, min, sec, nsec, time.UTC)
	if t.Day() != day { // 31 February and the like: let time.Parse refuse it
		return time.Time{}, false
	}
	return t, true
}
