package results

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

const (
	probeHead = "partition,seq,offset,sent,acked,received,error\n"
	ts1       = "2026-11-30T03:26:09.080123456Z"
	ts2       = "2026-11-30T03:26:09.084001200Z"
	ts3       = "2026-11-30T03:26:09.086311000Z"
	goodRow   = "0,0,1042," + ts1 + "," + ts2 + "," + ts3 + ",\n"
)

// decodeAll decodes rows until the first error, returning the rows read and
// that error (nil at a clean io.EOF).
func decodeAll(d *Decoder) ([]Message, error) {
	var ms []Message
	for {
		var m Message
		err := d.Decode(&m)
		if errors.Is(err, io.EOF) {
			return ms, nil
		}
		if err != nil {
			return ms, err
		}
		ms = append(ms, m)
	}
}

func decodeAllLog(d *LogDecoder) ([]LogRecord, error) {
	var rs []LogRecord
	for {
		var r LogRecord
		err := d.Decode(&r)
		if errors.Is(err, io.EOF) {
			return rs, nil
		}
		if err != nil {
			return rs, err
		}
		rs = append(rs, r)
	}
}

// allYears widens d's window to every time the format can write, so a
// round trip can test the format's edges.
func allYears(d *Decoder) *Decoder {
	d.From = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	d.To = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
	return d
}

// checkParseError fails t unless err is a *ParseError at line:col naming
// file, wrapping want (when set) and mentioning text (when set).
func checkParseError(t *testing.T, err error, file string, line, col int, want error, text string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want a *ParseError", err, err)
	}
	if pe.File != file || pe.Line != line || pe.Column != col {
		t.Errorf("error at %s:%d:%d, want %s:%d:%d (%v)", pe.File, pe.Line, pe.Column, file, line, col, err)
	}
	if want != nil && !errors.Is(err, want) {
		t.Errorf("error %v does not wrap %v", err, want)
	}
	if !strings.Contains(err.Error(), text) {
		t.Errorf("error %q does not mention %q", err, text)
	}
}

func TestDecoderErrors(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         string
		partitions map[int32]bool
		from, to   time.Time // the decoder's window
		rows       int       // rows decoded before the error
		line, col  int
		err        error
		text       string
	}{
		{name: "empty file", in: "", line: 1, err: ErrEmpty},
		{name: "only blank lines", in: "\n\n", line: 1, err: ErrEmpty},
		{name: "header too short", in: "partition,seq\n" + goodRow, line: 1, col: 1, err: ErrHeader,
			text: `got "partition,seq"`},
		{name: "header of the log file", in: "partition,offset,seq\n0,1,2\n", line: 1, col: 1, err: ErrHeader},
		{name: "header misspelt", in: "partition,seq,offset,sent,acked,recieved,error\n" + goodRow,
			line: 1, col: 1, err: ErrHeader},
		{name: "header without newline", in: strings.TrimSuffix(probeHead, "\n"), line: 1, err: ErrTruncated},
		{name: "last line without newline", in: probeHead + goodRow + strings.TrimSuffix(goodRow, "\n"),
			rows: 1, line: 3, err: ErrTruncated},
		{name: "last line cut in a time", in: probeHead + goodRow + "0,1,1043," + ts1[:13],
			rows: 1, line: 3, err: ErrTruncated},
		{name: "last line cut in a quoted error", in: probeHead + goodRow + "0,1,,2026-11-30T03:26:09.100000000Z,,,\"NOT_ENOUGH",
			rows: 1, line: 3, err: ErrTruncated},
		{name: "first row cut short", in: probeHead + "0,0,10", line: 2, err: ErrTruncated},
		{name: "too few fields", in: probeHead + goodRow + "0,1,2\n" + goodRow,
			rows: 1, line: 3, err: csv.ErrFieldCount, text: "3, want 7"},
		{name: "too many fields", in: probeHead + strings.TrimSuffix(goodRow, "\n") + ",extra\n",
			line: 2, err: csv.ErrFieldCount, text: "8, want 7"},
		{name: "bare quote", in: probeHead + "0,0,1042," + ts1 + ",,,a\"b\n",
			line: 2, col: 44, err: csv.ErrBareQuote},
		{name: "partition not a number", in: probeHead + "x,0,1," + ts1 + ",,,\n",
			line: 2, col: 1, text: "partition: not a partition number"},
		{name: "negative partition", in: probeHead + "-1,0,1," + ts1 + ",,,\n",
			line: 2, col: 1, text: "partition"},
		{name: "partition beyond int32", in: probeHead + "2147483648,0,1," + ts1 + ",,,\n",
			line: 2, col: 1, text: "partition"},
		{name: "unknown partition", in: probeHead + goodRow + "7,0,1," + ts1 + ",,,\n",
			partitions: map[int32]bool{0: true, 1: true}, rows: 1, line: 3, col: 1, err: ErrUnknownPartition,
			text: "partition not probed in this run: 7"},
		{name: "negative seq", in: probeHead + "0,-3,1," + ts1 + ",,,\n", line: 2, col: 3, text: "seq"},
		{name: "offset not a number", in: probeHead + "0,0,1O42," + ts1 + ",,,\n", line: 2, col: 5,
			text: `offset: not an offset: "1O42"`},
		{name: "bad sent time", in: probeHead + "0,0,1042,yesterday,,,\n", line: 2, col: 10,
			text: `sent: not an RFC 3339 time: "yesterday"`},
		{name: "31 February", in: probeHead + "0,0,1042,2026-02-31T03:26:09.080123456Z,,,\n", line: 2, col: 10,
			text: "sent: not an RFC 3339 time"},
		{name: "hour 24", in: probeHead + "0,0,1042,2026-11-30T24:00:00.000000000Z,,,\n", line: 2, col: 10,
			text: "sent"},
		{name: "leap second", in: probeHead + "0,0,1042,2026-12-31T23:59:60.000000000Z,,,\n", line: 2, col: 10,
			text: "sent"},
		{name: "year beyond 9999 in UTC", in: probeHead + "0,0,1042,9999-12-31T23:00:00-02:00,,,\n", line: 2, col: 10,
			text: "year 10000"},
		{name: "bad acked time", in: probeHead + "0,0,1042," + ts1 + ",2026-11-30 03:26:09,,\n", line: 2, col: 41,
			text: "acked: not an RFC 3339 time"},
		{name: "bad received time, second row", in: probeHead + goodRow + "1,0,7," + ts1 + "," + ts2 + ",03:26:09,\n",
			rows: 1, line: 3, col: 69, text: "received"},
		{name: "no send time", in: probeHead + "0,0,1042,," + ts2 + ",,\n", line: 2, col: 10,
			text: "every message has a send time"},
		// Year 9999 once made a gap of 6,650,877,831 s.
		{name: "bare CSV, year 9999", in: probeHead + goodRow + "0,1,1043," + ts1 + ",9999-11-30T03:26:09.084001200Z,,\n",
			rows: 1, line: 3, col: 41, err: errOutsideTrial, text: "acked: 9999-11-30T03:26:09.0840012Z is outside the trial: a plausible window is 2000-01-01"},
		{name: "bare CSV, 1999", in: probeHead + "0,0,1042,1999-12-31T23:59:59.999999999Z,,,\n",
			line: 2, col: 10, err: errOutsideTrial, text: "sent: 1999-12-31T23:59:59.999999999Z"},
		{name: "before the trial started", in: probeHead + goodRow,
			from: time.Date(2026, 11, 30, 3, 26, 9, 81e6, time.UTC), line: 2, col: 10, err: errOutsideTrial,
			text: "the trial's window is 2026-11-30T03:26:09.081Z ~ 2100-01-01T00:00:00Z"},
		{name: "after the trial ended", in: probeHead + goodRow,
			from: time.Date(2026, 11, 30, 3, 26, 9, 0, time.UTC), to: time.Date(2026, 11, 30, 3, 26, 9, 85e6, time.UTC),
			line: 2, col: 72, err: errOutsideTrial, text: "received: 2026-11-30T03:26:09.086311Z is outside the trial"},
		{name: "acked before sent", in: probeHead + "0,0,1042," + ts2 + "," + ts1 + ",,\n",
			line: 2, col: 41, err: errBeforeSent, text: "acked: 03:26:09.080123456 is before the message was sent at 03:26:09.084001200"},
		{name: "received before sent", in: probeHead + "0,0,1042," + ts2 + ",," + ts1 + ",\n",
			line: 2, col: 42, err: errBeforeSent, text: "received: 03:26:09.080123456 is before"},
		{name: "row listed twice", in: probeHead + goodRow + "1,0,1042," + ts1 + ",,,\n" + goodRow,
			rows: 2, line: 4, col: 3, err: errDuplicateRow, text: "seq: duplicate row: an earlier row has partition 0 seq 0 too"},
		{name: "row listed twice, out of order", in: probeHead + "0,5,," + ts1 + ",,,\n0,3,," + ts1 + ",,,\n0,4,," + ts1 + ",,,\n0,3,," + ts1 + ",,,\n",
			rows: 3, line: 5, col: 3, err: errDuplicateRow},
		{name: "NUL bytes and no line break", in: strings.Repeat("\x00", MaxLine+10),
			line: 1, err: errLongLine},
		{name: "a long line after good ones", in: probeHead + goodRow + goodRow[:10] + strings.Repeat("x", MaxLine) + "\n",
			rows: 1, line: 3, err: errLongLine},
		{name: "long bad field is cut", in: probeHead + "0,0," + strings.Repeat("\x01", 5000) + "," + ts1 + ",,,\n",
			line: 2, col: 5, text: `offset: not an offset: "\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"... (5000 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader(tc.in), "probe.csv")
			d.Partitions = tc.partitions
			d.From, d.To = tc.from, tc.to
			ms, err := decodeAll(d)
			if len(ms) != tc.rows {
				t.Errorf("decoded %d rows before the error, want %d", len(ms), tc.rows)
			}
			checkParseError(t, err, "probe.csv", tc.line, tc.col, tc.err, tc.text)
		})
	}
}

// A quoted excerpt stays short whatever the input, and shows control bytes
// as escapes.
func TestExcerpt(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{name: "short", in: "x1", want: `"x1"`},
		{name: "forty bytes", in: strings.Repeat("a", 40), want: `"` + strings.Repeat("a", 40) + `"`},
		{name: "long", in: strings.Repeat("a", 41), want: `"` + strings.Repeat("a", 40) + `"... (41 bytes)`},
		{name: "NUL bytes", in: strings.Repeat("\x00", 50<<20),
			want: `"` + strings.Repeat(`\x00`, 10) + `"... (52428800 bytes)`},
		{name: "a line break", in: "a\nb", want: `"a\nb"`},
		{name: "short with control bytes", in: strings.Repeat("0", 21) + "\x00\x00\x02\x00" + "0000",
			want: `"` + strings.Repeat("0", 21) + `\x00\x00\x02\x00000"... (29 bytes)`}, // 40 characters quoted
		{name: "not cut inside a rune", in: strings.Repeat("a", 39) + "é" + "b",
			want: `"` + strings.Repeat("a", 39) + `"... (42 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Excerpt(tc.in); got != tc.want {
				t.Errorf("Excerpt = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestRuns(t *testing.T) {
	for _, tc := range []struct {
		name string
		add  []int64
		dup  int64 // added last; must be refused
		runs int   // ranges kept before it
	}{
		{name: "in order", add: []int64{0, 1, 2, 3}, dup: 2, runs: 1},
		{name: "a hole filled", add: []int64{0, 1, 3, 4, 2}, dup: 4, runs: 1},
		{name: "reversed", add: []int64{5, 4, 3, 2, 1, 0}, dup: 0, runs: 1},
		{name: "sparse", add: []int64{1 << 40, 7, 1 << 20, 9}, dup: 1 << 20, runs: 4},
		{name: "joins on the left only", add: []int64{0, 10, 1}, dup: 1, runs: 2},
		{name: "joins on the right only", add: []int64{0, 10, 9}, dup: 9, runs: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s runs
			for _, n := range tc.add {
				if !s.add(n) {
					t.Fatalf("add(%d) refused, ranges %v", n, s.r)
				}
			}
			if len(s.r) != tc.runs {
				t.Errorf("ranges %v, want %d of them", s.r, tc.runs)
			}
			if s.add(tc.dup) {
				t.Errorf("add(%d) a second time accepted, ranges %v", tc.dup, s.r)
			}
		})
	}
}

func TestLogDecoderErrors(t *testing.T) {
	const head = "partition,offset,seq\n"
	for _, tc := range []struct {
		name      string
		in        string
		rows      int
		line, col int
		err       error
		text      string
	}{
		{name: "empty file", in: "", line: 1, err: ErrEmpty},
		{name: "probe header", in: probeHead + goodRow, line: 1, col: 1, err: ErrHeader},
		{name: "columns swapped", in: "partition,seq,offset\n0,1,2\n", line: 1, col: 1, err: ErrHeader},
		{name: "last line without newline", in: head + "0,1042,0\n0,1043,1", rows: 1, line: 3, err: ErrTruncated},
		{name: "last line cut short", in: head + "0,1042,0\n0,10", rows: 1, line: 3, err: ErrTruncated},
		{name: "too few fields", in: head + "0,1042\n0,1043,1\n", line: 2, err: csv.ErrFieldCount, text: "2, want 3"},
		{name: "negative offset", in: head + "0,1042,0\n0,-1,1\n", rows: 1, line: 3, col: 3,
			text: `offset: not a non-negative integer: "-1"`},
		{name: "seq not a number", in: head + "0,1042,zero\n", line: 2, col: 8, text: "seq"},
		{name: "partition beyond int32", in: head + "2147483648,1042,0\n", line: 2, col: 1, text: "partition"},
		// One offset holds one record: the same seq at two offsets is the
		// log's duplicate, for the audit; one offset twice is a broken file.
		{name: "row repeated", in: head + "0,1042,0\n1,1042,0\n0,1043,1\n0,1042,0\n", rows: 3, line: 5, col: 3,
			err: errDuplicateRow, text: "offset: duplicate row: an earlier row has partition 0 offset 1042 too"},
		{name: "long field is cut", in: head + "0," + strings.Repeat("9", 100) + ",0\n", line: 2, col: 3,
			text: `"9999999999999999999999999999999999999999"... (100 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := decodeAllLog(NewLogDecoder(strings.NewReader(tc.in), "log.csv"))
			if len(rs) != tc.rows {
				t.Errorf("decoded %d rows before the error, want %d", len(rs), tc.rows)
			}
			checkParseError(t, err, "log.csv", tc.line, tc.col, tc.err, tc.text)
		})
	}
}

// TestDecoderErrorStops checks that a broken row ends the file: a caller
// that keeps calling Decode gets the same error, not the rows after it.
func TestDecoderErrorStops(t *testing.T) {
	d := NewDecoder(strings.NewReader(probeHead+goodRow+"0,1\n"+goodRow), "probe.csv")
	var m Message
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		checkParseError(t, d.Decode(&m), "probe.csv", 3, 0, csv.ErrFieldCount, "")
	}
}

func TestParseErrorText(t *testing.T) {
	err := errors.New("boom")
	for _, tc := range []struct {
		pe   ParseError
		want string
	}{
		{ParseError{File: "probe.csv", Line: 3, Column: 10, Err: err}, "probe.csv: line 3, column 10: boom"},
		{ParseError{File: "probe.csv", Line: 3, Err: err}, "probe.csv: line 3: boom"},
		{ParseError{Line: 1, Column: 2, Err: err}, "line 1, column 2: boom"},
	} {
		if got := tc.pe.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestDecodeValues(t *testing.T) {
	in := probeHead +
		goodRow +
		"1,0,,2026-11-30T03:26:09.080130001Z,,,\"NOT_ENOUGH_REPLICAS: the ISR, too small\"\n" +
		"2,5,99,2026-11-30T05:26:09.5+02:00,2026-11-30T03:26:10Z,,\n"
	ms, err := decodeAll(NewDecoder(strings.NewReader(in), "probe.csv"))
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UTC()
	}
	want := []Message{
		{Partition: 0, Seq: 0, Offset: 1042, Sent: at(ts1), Acked: at(ts2), Received: at(ts3)},
		{Partition: 1, Seq: 0, Offset: -1, Sent: at("2026-11-30T03:26:09.080130001Z"),
			Err: "NOT_ENOUGH_REPLICAS: the ISR, too small"},
		{Partition: 2, Seq: 5, Offset: 99, Sent: at("2026-11-30T03:26:09.5Z"), Acked: at("2026-11-30T03:26:10Z")},
	}
	if !reflect.DeepEqual(ms, want) {
		t.Errorf("decoded\n%+v\nwant\n%+v", ms, want)
	}
	if !ms[1].Failed() || ms[0].Failed() {
		t.Errorf("Failed() = %v, %v; want false, true", ms[0].Failed(), ms[1].Failed())
	}
}

func TestEncodeFormat(t *testing.T) {
	var buf bytes.Buffer
	e := NewEncoder(&buf)
	e.Encode(&Message{Partition: 0, Seq: 0, Offset: 1042,
		Sent:     time.Date(2026, 11, 30, 3, 26, 9, 80123456, time.UTC),
		Acked:    time.Date(2026, 11, 30, 4, 26, 9, 84001200, time.FixedZone("CET", 3600)),
		Received: time.Date(2026, 11, 30, 3, 26, 9, 86311000, time.UTC)})
	e.Encode(&Message{Partition: 1, Seq: 0, Offset: -1,
		Sent: time.Date(2026, 11, 30, 3, 26, 9, 80130001, time.UTC),
		Err:  "NOT_ENOUGH_REPLICAS: first line\r\nsecond, \"quoted\"\n"})
	if buf.Len() != 0 {
		t.Fatalf("Encode wrote %q before Flush", buf.String())
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	want := probeHead +
		"0,0,1042,2026-11-30T03:26:09.080123456Z,2026-11-30T03:26:09.084001200Z,2026-11-30T03:26:09.086311000Z,\n" +
		"1,0,,2026-11-30T03:26:09.080130001Z,,,\"NOT_ENOUGH_REPLICAS: first line second, \"\"quoted\"\" \"\n"
	if got := buf.String(); got != want {
		t.Errorf("encoded\n%s\nwant\n%s", got, want)
	}
	if err := e.Flush(); err != nil || buf.String() != want {
		t.Errorf("a second Flush wrote again or failed: %v", err)
	}
}

func TestRoundTrip(t *testing.T) {
	base := time.Date(2026, 11, 30, 3, 26, 9, 80123456, time.UTC)
	for _, tc := range []struct {
		name string
		in   []Message
		want []Message // nil: as in
	}{
		{name: "no rows"},
		{name: "acked and received", in: []Message{
			{Partition: 0, Seq: 0, Offset: 1042, Sent: base, Acked: base.Add(4 * time.Millisecond), Received: base.Add(6 * time.Millisecond)},
			{Partition: 2, Seq: 1 << 40, Offset: 1<<63 - 1, Sent: base, Acked: base.Add(time.Nanosecond)},
		}},
		{name: "never acked", in: []Message{{Partition: 1, Seq: 3, Offset: -1, Sent: base}}},
		{name: "failed, error with commas and quotes", in: []Message{
			{Partition: 1, Seq: 3, Offset: -1, Sent: base, Err: `NOT_ENOUGH_REPLICAS: "orders", 1 of 2`}}},
		{name: "error with line breaks", in: []Message{
			{Partition: 1, Seq: 3, Offset: -1, Sent: base, Err: "a\r\nb\nc\rd"}},
			want: []Message{{Partition: 1, Seq: 3, Offset: -1, Sent: base, Err: "a b c d"}}},
		{name: "times in another zone come back in UTC", in: []Message{
			{Partition: 0, Seq: 0, Offset: 0, Sent: base.In(time.FixedZone("X", -7*3600))}},
			want: []Message{{Partition: 0, Seq: 0, Offset: 0, Sent: base}}},
		{name: "edges of the years RFC 3339 can write", in: []Message{
			{Partition: 0, Seq: 0, Offset: 0, Sent: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)},
			{Partition: 0, Seq: 1, Offset: 0, Sent: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			e := NewEncoder(&buf)
			for i := range tc.in {
				e.Encode(&tc.in[i])
			}
			if err := e.Flush(); err != nil {
				t.Fatal(err)
			}
			got, err := decodeAll(allYears(NewDecoder(&buf, "probe.csv")))
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = tc.in
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read back\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestLogRoundTrip(t *testing.T) {
	in := []LogRecord{{0, 1042, 0}, {0, 1043, 1}, {2, 0, 0}, {1<<31 - 1, 1<<63 - 1, 1<<63 - 1}}
	var buf bytes.Buffer
	e := NewLogEncoder(&buf)
	for _, r := range in {
		e.Encode(&r)
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "partition,offset,seq\n0,1042,0\n") {
		t.Errorf("encoded %q", buf.String())
	}
	got, err := decodeAllLog(NewLogDecoder(&buf, "log.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("read back %v, want %v", got, in)
	}
}

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"", time.Time{}, true},
		{ts1, time.Date(2026, 11, 30, 3, 26, 9, 80123456, time.UTC), true},
		{"2028-02-29T00:00:00.000000000Z", time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC), true},
		{"2026-02-29T00:00:00.000000000Z", time.Time{}, false},
		{"2026-04-31T00:00:00.000000000Z", time.Time{}, false},
		{"2026-11-30T03:26:09Z", time.Date(2026, 11, 30, 3, 26, 9, 0, time.UTC), true},
		{"2026-11-30T04:26:09.1+01:00", time.Date(2026, 11, 30, 3, 26, 9, 100000000, time.UTC), true},
		{"2026-11-30T03:26:09.080123456z", time.Time{}, false},
		{"0000-01-01T00:59:59+01:00", time.Time{}, false}, // year -1 in UTC
		{"2026-13-01T00:00:00.000000000Z", time.Time{}, false},
		{"2026-11-30T03:26:09.08012345aZ", time.Time{}, false},
		{"2026-11-30", time.Time{}, false},
	} {
		got, err := ParseTime(tc.in)
		if (err == nil) != tc.ok || !got.Equal(tc.want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v (%v), %v; want %v, ok %v", tc.in, got, got.Location(), err, tc.want, tc.ok)
		}
	}
}
