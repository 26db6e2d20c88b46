package results

import (
	"fmt"
	"io"
)

// The read-back CSV (log.csv) lists what the partitions' logs held after a
// trial, read from the trial's first offset to the end, one row per record
// the probe wrote, in offset order per partition:
//
//	partition,offset,seq
//	0,1042,0
//	0,1043,1
//
// Records of other writers (or of earlier runs) are not listed.
var logFormat = rowFormat[LogRecord, LogDecoder]{cols: []column[LogRecord, LogDecoder]{
	partitionColumn(func(r *LogRecord) *int32 { return &r.Partition }, func(*LogDecoder) Scope { return Scope{} }),
	countColumn[LogRecord, LogDecoder]("offset", func(r *LogRecord) *int64 { return &r.Offset }),
	countColumn[LogRecord, LogDecoder]("seq", func(r *LogRecord) *int64 { return &r.Seq }),
}}

// LogRecord is one probe record found in a partition's log.
type LogRecord struct {
	Partition int32
	Offset    int64
	Seq       int64
}

// LogEncoder writes the read-back CSV.
type LogEncoder = RowEncoder[LogRecord]

// NewLogEncoder returns a LogEncoder writing to w.
func NewLogEncoder(w io.Writer) *LogEncoder { return logFormat.encoder(w) }

// LogDecoder reads the read-back CSV.
type LogDecoder struct {
	lr   *lineReader
	seen runsByPartition // offsets, to refuse a row listed twice
	openFile
}

// NewLogDecoder returns a LogDecoder reading r; file names r in errors.
func NewLogDecoder(r io.Reader, file string) *LogDecoder {
	return &LogDecoder{lr: logFormat.reader(r, file)}
}

// Decode reads the next row; io.EOF after the last.
func (d *LogDecoder) Decode(r *LogRecord) error {
	if err := logFormat.decode(d.lr, d, r); err != nil {
		return err
	}
	// One offset holds one record: a second row for it is a broken file,
	// and would pass for a duplicate in the log.
	if !d.seen.of(r.Partition).add(r.Offset) {
		return d.lr.fieldError(1, fmt.Errorf("%w: an earlier row has partition %d offset %d too", errDuplicateRow, r.Partition, r.Offset))
	}
	return nil
}
