package results

// The line writer and reader every CSV format of a trial directory is
// written and read through (rows.go maps their rows to structs): whole
// rows handed to the file only on a flush, a header checked, errors
// located at a line and a column, a last line cut short told apart from
// a malformed one, and no line longer than MaxLine read.

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// ParseError is a decoding error located in its file. Line and Column count
// from 1; Column is 0 when the error concerns the whole line.
type ParseError struct {
	File   string
	Line   int
	Column int
	Err    error
}

func (e *ParseError) Error() string {
	where := e.File
	if where == "" {
		where = "line"
	} else {
		where += ": line"
	}
	if e.Column > 0 {
		return fmt.Sprintf("%s %d, column %d: %v", where, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("%s %d: %v", where, e.Line, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Errors a decoder reports inside a ParseError.
var (
	ErrHeader    = errors.New("wrong header")
	ErrTruncated = errors.New("last line is cut short (no newline): the writer stopped mid-line")
	ErrEmpty     = errors.New("empty file: no header")
)

// lineWriter buffers whole rows and hands them to w only on Flush, so a crash
// between flushes never leaves half a row on disk.
type lineWriter struct {
	w   io.Writer
	buf bytes.Buffer
	csv *csv.Writer
	row []string
}

func newLineWriter(w io.Writer, header []string) *lineWriter {
	lw := &lineWriter{w: w, row: make([]string, len(header))}
	lw.csv = csv.NewWriter(&lw.buf)
	lw.csv.Write(header) // a bytes.Buffer does not fail
	return lw
}

func (lw *lineWriter) write() {
	lw.csv.Write(lw.row)
}

func (lw *lineWriter) flush() error {
	lw.csv.Flush()
	if lw.buf.Len() == 0 {
		return nil
	}
	_, err := lw.w.Write(lw.buf.Bytes())
	lw.buf.Reset()
	return err
}

// FlushEvery calls flush every d until stop is closed, then closes done:
// a writer that holds its rows until Flush (the encoders here) is flushed
// so while it records, and a probe killed outright loses at most the last
// d of its complete rows. flush keeps its own errors.
func FlushEvery(d time.Duration, stop <-chan struct{}, done chan<- struct{}, flush func()) {
	defer close(done)
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		flush()
	}
}

// lineReader wraps a recordReader (encoding/csv's rules, read faster) with
// header checking, located errors and the detection of a last line without
// its newline. It reads one row ahead, so it knows a row is the last before
// handing it out.
type lineReader struct {
	file   string
	csv    *recordReader
	tail   *tailReader
	names  []string
	header bool // the header has been read
	// sniff, when set, is asked about a header that is not names: nil
	// adopts it, and its columns name the fields in errors from then on.
	sniff func(header []string) error

	// The row read ahead and its error.
	ahead    record
	aheadErr error

	row  record
	strs []string // row as strings, for a foreign format
}

func newLineReader(r io.Reader, file string, header []string) *lineReader {
	t := &tailReader{r: r}
	return &lineReader{file: file, csv: newRecordReader(t, len(header)), tail: t, names: header}
}

// read reads the next row into the look-ahead slot.
func (lr *lineReader) read() {
	err := lr.csv.Read(&lr.ahead)
	lr.aheadErr = err
	if err != nil {
		if lr.tail.long != nil { // the cause; the csv reader saw only a cut line
			lr.aheadErr = lr.tail.long
			return
		}
		lr.aheadErr = lr.truncated(err, lr.ahead.len())
	}
}

// truncated returns ErrTruncated in place of err when the row that failed
// is the last and has no newline: a writer that stopped mid-line leaves a
// row with too few fields or an open quote, and the cut is the cause to
// report. An error stops the reader, so reading past the row costs nothing.
// n is the number of fields the failed row had.
func (lr *lineReader) truncated(err error, n int) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return err
	}
	var rest record
	if next := lr.csv.Read(&rest); errors.Is(next, io.EOF) && !lr.tail.newline {
		return &ParseError{File: lr.file, Line: pe.StartLine, Err: ErrTruncated}
	}
	if errors.Is(pe.Err, csv.ErrFieldCount) {
		return lr.fieldCountError(pe.Line, n)
	}
	return err
}

func (lr *lineReader) fieldCountError(line, n int) error {
	return &ParseError{File: lr.file, Line: line,
		Err: fmt.Errorf("%w: %d, want %d (%s)", csv.ErrFieldCount, n, len(lr.names), joinComma(lr.names))}
}

// nextRecord returns the next data row, valid until the following call;
// io.EOF at the end.
func (lr *lineReader) nextRecord() (*record, error) {
	if !lr.header {
		lr.header = true
		if err := lr.readHeader(); err != nil {
			return nil, err
		}
	}
	if errors.Is(lr.aheadErr, io.EOF) {
		return nil, io.EOF
	}
	if lr.aheadErr != nil {
		return nil, lr.csvError(lr.aheadErr)
	}
	lr.row, lr.ahead = lr.ahead, lr.row
	lr.read()
	if errors.Is(lr.aheadErr, io.EOF) && !lr.tail.newline {
		return nil, &ParseError{File: lr.file, Line: lr.row.pos[0][0], Err: ErrTruncated}
	}
	return &lr.row, nil
}

// readHeader reads the header and the first row after it.
func (lr *lineReader) readHeader() error {
	var hdr record
	err := lr.csv.Read(&hdr)
	if errors.Is(err, io.EOF) {
		return &ParseError{File: lr.file, Line: 1, Err: ErrEmpty}
	}
	if err != nil && !errors.Is(err, csv.ErrFieldCount) {
		return lr.csvError(err)
	}
	rec := hdr.strings(nil)
	want := lr.names
	adopted := false
	if !equal(rec, lr.names) && lr.sniff != nil {
		if err := lr.sniff(rec); err != nil {
			return &ParseError{File: lr.file, Line: 1, Column: 1, Err: err}
		}
		lr.adopt(rec)
		adopted = true
	} else if !equal(rec, lr.names) {
		return &ParseError{File: lr.file, Line: 1, Column: 1,
			Err: fmt.Errorf("%w: got %s, want %q", ErrHeader, Excerpt(joinComma(rec)), joinComma(lr.names))}
	}
	lr.read()
	// kbf's own header cut short, above rows of kbf's width, is a
	// damaged header, not another program's.
	if adopted && errors.Is(lr.aheadErr, csv.ErrFieldCount) && len(lr.names) < len(want) && equal(lr.names, want[:len(lr.names)]) {
		return &ParseError{File: lr.file, Line: 1, Column: 1,
			Err: fmt.Errorf("%w: got %s, want %q", ErrHeader, Excerpt(joinComma(lr.names)), joinComma(want))}
	}
	if errors.Is(lr.aheadErr, io.EOF) && !lr.tail.newline {
		return &ParseError{File: lr.file, Line: 1, Err: ErrTruncated}
	}
	return nil
}

// adopt makes header the reader's columns.
func (lr *lineReader) adopt(header []string) {
	lr.names = slices.Clone(header)
	lr.csv.fields = len(header)
}

// fieldError locates err at field i of the current row.
func (lr *lineReader) fieldError(i int, err error) error {
	return &ParseError{File: lr.file, Line: lr.row.pos[i][0], Column: lr.row.pos[i][1],
		Err: fmt.Errorf("%s: %w", lr.names[i], err)}
}

func (lr *lineReader) csvError(err error) error {
	var located *ParseError
	if errors.As(err, &located) {
		if located.File == "" {
			located.File = lr.file
		}
		return err
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: lr.file, Line: pe.Line, Column: pe.Column, Err: pe.Err}
	}
	return fmt.Errorf("%s: %w", lr.file, err)
}

// MaxLine is the longest line a decoder reads. The probe's rows are a few
// hundred bytes, its longest a client error message; a longer line is not
// kbf's, and reading it whole (a file of NUL bytes has no line break at
// all) could take all memory.
const MaxLine = 1 << 20

// errLongLine is reported for a line longer than MaxLine.
var errLongLine = fmt.Errorf("line longer than %d KiB: not a file kbf wrote", MaxLine>>10)

// tailReader remembers whether the stream ended with a newline, and stops
// at a line longer than MaxLine.
type tailReader struct {
	r       io.Reader
	newline bool
	lines   int // complete lines read
	run     int // bytes since the last newline
	long    error
}

func (t *tailReader) Read(p []byte) (int, error) {
	if t.long != nil {
		return 0, t.long
	}
	n, err := t.r.Read(p)
	if n > 0 {
		t.newline = p[n-1] == '\n'
		for b := p[:n]; ; {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				t.run += len(b)
				break
			}
			if t.run+i > MaxLine {
				t.run += i
				break
			}
			t.lines++
			t.run, b = 0, b[i+1:]
		}
		if t.run > MaxLine {
			t.long = &ParseError{Line: t.lines + 1, Err: errLongLine}
			return 0, t.long
		}
	}
	return n, err
}

// Excerpt quotes s as Go would write it, control bytes escaped, cut to
// about 40 characters with an ellipsis and its length when longer: an
// error message quotes the input it refuses, and the input may be anything.
func Excerpt(s string) string {
	const max = 40
	if len(s) <= max {
		if q := strconv.Quote(s); len(q) <= max+2 {
			return q
		}
	}
	cut := min(len(s), max)
	// cut may be len(s): a short string whose quoting is too long.
	for cut > 0 && ((cut < len(s) && !utf8.RuneStart(s[cut])) || len(strconv.Quote(s[:cut])) > max+2) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func joinComma(s []string) string {
	var b bytes.Buffer
	for i, f := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f)
	}
	return b.String()
}
