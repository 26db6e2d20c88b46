package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
)

// recordReader reads CSV records exactly as an encoding/csv Reader with
// ReuseRecord set and FieldsPerRecord fields does: the same records, the
// same field positions, the same errors at the same places. A line with
// no quote, which is nearly every line kbf writes, it splits itself, at a
// fraction of the cost; a record with a quote anywhere it hands to an
// encoding/csv Reader fed one line at a time, so that reader holds nothing
// past the record and the next line is read here again.
type recordReader struct {
	br *bufio.Reader
	// fields is how many fields a record has; a record of another
	// number comes with csv.ErrFieldCount, as from encoding/csv.
	fields int
	// line is the number of the last line read, from 1.
	line int
	// long gathers a line longer than br's buffer.
	long []byte

	quote *csv.Reader // records with a quote, fed by feed
	feed  lineFeeder
}

// readerBuffer is the size of a recordReader's buffer: a probe row is
// about a hundred bytes.
const readerBuffer = 64 << 10

func newRecordReader(r io.Reader, fields int) *recordReader {
	rr := &recordReader{br: bufio.NewReaderSize(r, readerBuffer), fields: fields}
	rr.feed.rr = rr
	return rr
}

// rawLine reads the next line as it is, with its line break if it has
// one; it is valid until the next call. err is io.EOF only when no byte
// was read, as with encoding/csv.
func (rr *recordReader) rawLine() ([]byte, error) {
	line, err := rr.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		rr.long = append(rr.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = rr.br.ReadSlice('\n')
			rr.long = append(rr.long, line...)
		}
		line = rr.long
	}
	if len(line) > 0 && errors.Is(err, io.EOF) {
		err = nil
	}
	return line, err
}

// content is line without its line break, as encoding/csv reads it: a
// CR LF is a line break, and so is a CR ending the input.
func content(line []byte) []byte {
	n := len(line)
	switch {
	case n >= 2 && line[n-2] == '\r' && line[n-1] == '\n':
		return line[:n-2]
	case n >= 1 && (line[n-1] == '\n' || line[n-1] == '\r'):
		// A CR alone ends a line only at the end of the input, where
		// no LF can follow it: ReadSlice stops at LF or the end.
		return line[:n-1]
	}
	return line
}

// record is one CSV record: its fields one after another in buf, field i
// ending at ends[i], and where each began in the file (line, column).
// Decoders read the fields as bytes, so a row costs no allocation.
type record struct {
	buf  []byte
	ends []int
	pos  [][2]int
}

func (r *record) reset() { r.buf, r.ends, r.pos = r.buf[:0], r.ends[:0], r.pos[:0] }

func (r *record) add(field []byte, line, col int) {
	r.buf = append(r.buf, field...)
	r.ends = append(r.ends, len(r.buf))
	r.pos = append(r.pos, [2]int{line, col})
}

// len is the number of fields.
func (r *record) len() int { return len(r.ends) }

// field is field i, valid until the record is read into again.
func (r *record) field(i int) []byte {
	from := 0
	if i > 0 {
		from = r.ends[i-1]
	}
	return r.buf[from:r.ends[i]]
}

// strings are the fields as strings, in dst's room; one allocation for
// them all, as encoding/csv makes.
func (r *record) strings(dst []string) []string {
	str := string(r.buf)
	dst = dst[:0]
	from := 0
	for _, end := range r.ends {
		dst = append(dst, str[from:end])
		from = end
	}
	return dst
}

// Read reads the next record into dst. Like encoding/csv's Read, it
// returns io.EOF at the end, a record of the wrong number of fields with
// csv.ErrFieldCount, and a partial record with a *csv.ParseError.
func (rr *recordReader) Read(dst *record) error {
	dst.reset()
	var line []byte
	for {
		var err error
		line, err = rr.rawLine()
		if len(line) == 0 {
			return err
		}
		rr.line++
		if err != nil || bytes.IndexByte(line, '"') >= 0 {
			return rr.readQuoted(line, dst)
		}
		if len(content(line)) > 0 {
			break
		}
		// An empty line: encoding/csv skips it.
	}
	c := content(line)
	col := 1
	for {
		i := bytes.IndexByte(c, ',')
		if i < 0 {
			dst.add(c, rr.line, col)
			break
		}
		dst.add(c[:i], rr.line, col)
		c = c[i+1:]
		col += i + 1
	}
	if dst.len() != rr.fields {
		return &csv.ParseError{StartLine: rr.line, Line: rr.line, Column: 1, Err: csv.ErrFieldCount}
	}
	return nil
}

// readQuoted reads the record that begins with line, already read, by
// encoding/csv, and renumbers its lines as the file's.
func (rr *recordReader) readQuoted(line []byte, dst *record) error {
	if rr.quote == nil {
		rr.quote = csv.NewReader(&rr.feed)
		rr.quote.ReuseRecord = true
	}
	rr.quote.FieldsPerRecord = rr.fields
	start := rr.line
	rr.feed.pending, rr.feed.served = line, 1
	rec, err := rr.quote.Read()
	rr.line = start - 1 + rr.feed.served
	// The csv reader numbers its own lines; its record began at start.
	var from int
	var pe *csv.ParseError
	switch {
	case len(rec) > 0:
		from, _ = rr.quote.FieldPos(0)
	case errors.As(err, &pe):
		from = pe.StartLine
	}
	shift := start - from
	for i, f := range rec {
		l, c := rr.quote.FieldPos(i)
		dst.buf = append(dst.buf, f...)
		dst.ends = append(dst.ends, len(dst.buf))
		dst.pos = append(dst.pos, [2]int{l + shift, c})
	}
	if errors.As(err, &pe) {
		err = &csv.ParseError{StartLine: pe.StartLine + shift, Line: pe.Line + shift, Column: pe.Column, Err: pe.Err}
	}
	return err
}

// lineFeeder is what recordReader's encoding/csv Reader reads: the line
// it was handed, then further lines one at a time, one line at most a
// Read, so that its buffer never holds a byte past the line it asked for.
type lineFeeder struct {
	rr      *recordReader
	pending []byte
	served  int // lines begun
}

func (f *lineFeeder) Read(p []byte) (int, error) {
	if len(f.pending) == 0 {
		line, err := f.rr.rawLine()
		if len(line) == 0 {
			return 0, err
		}
		f.pending = line
		f.served++
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}
