// Package results is the on-disk format of a kbf run: the probe's per-message
// CSV, the read-back CSV of the log, and the metadata file beside them. The run
// (probe, chaos) writes these files and the analysis (gaps, timeline, report)
// reads them back; the two meet only here, so a run can be re-analysed years
// later without Docker or Kafka.
//
// The probe CSV (probe.csv) has a header row and one row per message, in the
// order the messages completed, which is not the order they were sent:
//
//	partition,seq,offset,sent,acked,received,error
//	0,0,1042,2026-11-30T03:26:09.080123456Z,2026-11-30T03:26:09.084001200Z,2026-11-30T03:26:09.086311000Z,
//	1,0,,2026-11-30T03:26:09.080130001Z,,,NOT_ENOUGH_REPLICAS: ...
//
//	partition  Kafka partition number
//	seq        the probe's sequence number within the partition, from 0
//	offset     offset the broker assigned in its ack; empty if never acked
//	sent       when the record was handed to the producer
//	acked      when the producer's ack arrived; empty if never acked
//	received   when the probe's consumer read it; empty if never read
//	error      why the send failed, as the client reported it; empty on success;
//	           its line breaks are written as spaces, so a row is one line
//
// Times are RFC 3339 in UTC with nine fractional digits. An empty cell means
// the value is absent. The format's version is FormatVersion, kept in the
// metadata file.
//
// The decoders refuse, as a ParseError at the line and column, anything the
// probe cannot have written, so that no analysis of a broken file prints a
// number: a time outside the trial's own window (or, without one, outside
// 2000–2100), an ack or a read before its send, a second row for one
// message (probe.csv: partition and seq; log.csv: partition and offset),
// and a line longer than MaxLine. Errors quote at most an Excerpt of the
// input. Find and Open refuse pipes, devices and other files that are not
// regular before reading a byte.
package results

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FormatVersion is the version of every file this package writes. A reader
// refuses a run whose metadata names a newer version.
const FormatVersion = 2

// Message is one probe record's fate.
type Message struct {
	Partition int32
	Seq       int64
	Offset    int64 // -1 when never acked
	Sent      time.Time
	Acked     time.Time // zero when never acked
	Received  time.Time // zero when never read
	Err       string    // empty when the send succeeded
}

// Failed reports whether the producer gave up on the message.
func (m *Message) Failed() bool { return m.Err != "" }

// probeFormat maps a probe row to a Message; the Decoder's methods read
// the fields.
var probeFormat = rowFormat[Message, Decoder]{cols: []column[Message, Decoder]{
	{"partition", func(m *Message) string { return strconv.FormatInt(int64(m.Partition), 10) }, (*Decoder).partition},
	{"seq", func(m *Message) string { return strconv.FormatInt(m.Seq, 10) }, (*Decoder).seq},
	{"offset", func(m *Message) string { return formatOffset(m.Offset) }, (*Decoder).offset},
	{"sent", func(m *Message) string { return formatTime(m.Sent) },
		func(d *Decoder, m *Message, f []byte) error { return d.time(&m.Sent, f) }},
	{"acked", func(m *Message) string { return formatTime(m.Acked) },
		func(d *Decoder, m *Message, f []byte) error { return d.time(&m.Acked, f) }},
	{"received", func(m *Message) string { return formatTime(m.Received) },
		func(d *Decoder, m *Message, f []byte) error { return d.time(&m.Received, f) }},
	errorColumn[Message, Decoder](func(m *Message) *string { return &m.Err }),
}}

var probeHeader = probeFormat.header()

// timeLayout writes nine fractional digits always, so every time has one width.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// Encoder writes the probe CSV: a RowEncoder, which writes what a probe
// still holds at its end too (EncodePending).
type Encoder struct{ *RowEncoder[Message] }

// NewEncoder returns an Encoder that writes the header and then rows to w.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{probeFormat.encoder(w)} }

// formatOffset writes an offset, empty when negative: never assigned.
func formatOffset(o int64) string {
	if o < 0 {
		return ""
	}
	return strconv.FormatInt(o, 10)
}

// oneLine replaces the line breaks in s by spaces. A CSV reader folds a
// quoted CR LF into LF, so a multi-line error would not read back as
// written; and a row per line keeps the file greppable.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return lineBreaks.Replace(s)
}

var lineBreaks = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ")

// EncodePending buffers the messages a probe still holds for a partition —
// failed, never acknowledged or never read — in sequence order, and empties
// pending: what every probe writes at its end.
func (e *Encoder) EncodePending(pending map[int64]*Message) {
	seqs := make([]int64, 0, len(pending))
	for s := range pending {
		seqs = append(seqs, s)
	}
	slices.Sort(seqs)
	for _, s := range seqs {
		e.Encode(pending[s])
	}
	clear(pending)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}
