package results

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A CSV format of a trial directory is a list of columns, each mapping one
// field of a row to and from its struct: rowFormat. One writer and one
// reader serve every format; a format's rules across columns and rows (a
// time before another, a row listed twice) stay with its decoder, which
// locates them with its lineReader's fieldError.
//
// The mapping is written by hand rather than by struct tags and
// reflection: the probe's rows are read by the million, a field at a time
// from the reader's bytes, with no allocation (docs/design.md, "one
// mapping of a row to a struct").

// column is one column of a format whose rows are T, read by decoder D.
type column[T, D any] struct {
	name string
	// put is the field as the row holds it.
	put func(v *T) string
	// get reads the field f into v, checking it against what the
	// decoder knows; its error is located at this column of the row.
	// f is valid only during the call.
	get func(d *D, v *T, f []byte) error
}

// rowFormat is a format's columns, in order: its header is their names.
type rowFormat[T, D any] struct {
	cols []column[T, D]
	// blank, when set, readies v before a row's fields are read into it,
	// with the values a row's empty or unread columns stand for.
	blank func(v *T)
}

// header is the format's header row.
func (f *rowFormat[T, D]) header() []string {
	h := make([]string, len(f.cols))
	for i, c := range f.cols {
		h[i] = c.name
	}
	return h
}

// reader returns a lineReader of the format reading r; file names r in
// errors.
func (f *rowFormat[T, D]) reader(r io.Reader, file string) *lineReader {
	return newLineReader(r, file, f.header())
}

// openFile is the file a decoder of a trial's file reads (Trial.OpenProbe,
// Trial.OpenLog), closed by the decoder's Close.
type openFile struct{ closer io.Closer }

// Close closes the file Trial.OpenProbe or Trial.OpenLog opened; for a
// decoder made from a reader (NewDecoder, NewLogDecoder) it does nothing.
func (o *openFile) Close() error {
	if o.closer == nil {
		return nil
	}
	return o.closer.Close()
}

// RowEncoder writes the rows of one format of a trial directory, each a
// T, after its header; rows are held in memory until Flush, so a crash
// between flushes never leaves half a row on disk. Each format's encoder
// is one, named for the format (Encoder, LogEncoder, GroupEncoder…).
type RowEncoder[T any] struct {
	lw  *lineWriter
	put []func(v *T) string
}

// encoder returns a RowEncoder of the format writing to w.
func (f *rowFormat[T, D]) encoder(w io.Writer) *RowEncoder[T] {
	e := &RowEncoder[T]{lw: newLineWriter(w, f.header()), put: make([]func(*T) string, len(f.cols))}
	for i, c := range f.cols {
		e.put[i] = c.put
	}
	return e
}

// Encode buffers one row.
func (e *RowEncoder[T]) Encode(v *T) {
	for i, put := range e.put {
		e.lw.row[i] = put(v)
	}
	e.lw.write()
}

// Flush writes the buffered rows.
func (e *RowEncoder[T]) Flush() error { return e.lw.flush() }

// decode reads lr's next row into v; io.EOF after the last.
func (f *rowFormat[T, D]) decode(lr *lineReader, d *D, v *T) error {
	rec, err := lr.nextRecord()
	if err != nil {
		return err
	}
	return f.fields(lr, d, v, rec)
}

// fields reads the fields of rec, lr's current row, into v, in column
// order, and stops at the first a column refuses.
func (f *rowFormat[T, D]) fields(lr *lineReader, d *D, v *T, rec *record) error {
	if f.blank != nil {
		f.blank(v)
	}
	for i := range f.cols {
		if err := f.cols[i].get(d, v, rec.field(i)); err != nil {
			return lr.fieldError(i, err)
		}
	}
	return nil
}

// countColumn is a column of a non-negative integer.
func countColumn[T, D any](name string, field func(*T) *int64) column[T, D] {
	return column[T, D]{name,
		func(v *T) string { return strconv.FormatInt(*field(v), 10) },
		func(_ *D, v *T, f []byte) (err error) {
			*field(v), err = nonNegative(f, 64)
			return err
		}}
}

// partitionColumn is a column of a partition number, one of the scope's.
func partitionColumn[T, D any](field func(*T) *int32, scope func(*D) Scope) column[T, D] {
	return column[T, D]{"partition",
		func(v *T) string { return strconv.FormatInt(int64(*field(v)), 10) },
		func(d *D, v *T, f []byte) error {
			p, err := nonNegative(f, 32)
			if err != nil {
				return err
			}
			*field(v) = int32(p)
			return scope(d).partition(int32(p))
		}}
}

// timeColumn is a column of a time within the plausible range and the
// scope; required refuses an empty one.
func timeColumn[T, D any](name string, field func(*T) *time.Time, scope func(*D) Scope, required bool) column[T, D] {
	return column[T, D]{name,
		func(v *T) string { return formatTime(*field(v)) },
		func(d *D, v *T, f []byte) (err error) {
			*field(v), err = scope(d).time(f, required)
			return err
		}}
}

// errorColumn is the column of why something failed, written on one line.
func errorColumn[T, D any](field func(*T) *string) column[T, D] {
	return column[T, D]{"error",
		func(v *T) string { return oneLine(*field(v)) },
		func(_ *D, v *T, f []byte) error {
			*field(v) = string(f)
			return nil
		}}
}

// nonNegative reads a field that holds a non-negative integer of bits
// bits.
func nonNegative(f []byte, bits int) (int64, error) {
	v, err := parseInt(f, bits)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("not a non-negative integer: %s", Excerpt(string(f)))
	}
	return v, nil
}

// joinByPartition writes items in partition order, separated by spaces,
// each as write writes it.
func joinByPartition[E any](items []E, partition func(E) int32, write func(*strings.Builder, E)) string {
	sorted := slices.Clone(items)
	slices.SortFunc(sorted, func(a, b E) int { return int(partition(a)) - int(partition(b)) })
	var b strings.Builder
	for i, e := range sorted {
		if i > 0 {
			b.WriteByte(' ')
		}
		write(&b, e)
	}
	return b.String()
}

// splitByPartition reads what joinByPartition writes: items separated by
// spaces, each read by parse, their partitions in increasing order.
func splitByPartition[E any](s string, partition func(E) int32, parse func(string) (E, error)) ([]E, error) {
	var out []E
	for _, f := range strings.Fields(s) {
		e, err := parse(f)
		if err != nil {
			return nil, err
		}
		if n := len(out); n > 0 && partition(e) <= partition(out[n-1]) {
			return nil, fmt.Errorf("partition %d after %d: want each once, in order", partition(e), partition(out[n-1]))
		}
		out = append(out, e)
	}
	return out, nil
}
