package results

import "io"

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

// writer returns a lineWriter of the format writing to w.
func (f *rowFormat[T, D]) writer(w io.Writer) *lineWriter { return newLineWriter(w, f.header()) }

// reader returns a lineReader of the format reading r; file names r in
// errors.
func (f *rowFormat[T, D]) reader(r io.Reader, file string) *lineReader {
	return newLineReader(r, file, f.header())
}

// encode buffers v as a row of lw.
func (f *rowFormat[T, D]) encode(lw *lineWriter, v *T) {
	for i := range f.cols {
		lw.row[i] = f.cols[i].put(v)
	}
	lw.write()
}

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
