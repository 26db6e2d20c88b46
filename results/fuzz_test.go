package results

import (
	"bytes"
	"errors"
	"io"
	"math"
	"reflect"
	"testing"
	"time"
)

// FuzzDecode feeds arbitrary bytes to both decoders. They must not panic,
// must report every failure as a located *ParseError, and whatever they
// accept must encode and decode back to the same values.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(probeHead + goodRow))
	f.Add([]byte(probeHead + goodRow + "1,0,,2026-11-30T03:26:09.080130001Z,,,\"NOT_ENOUGH_REPLICAS: a, \"\"b\"\"\r\nc\"\n"))
	f.Add([]byte(probeHead + "2,5,99,2026-11-30T05:26:09.5+02:00,2026-11-30T03:26:10Z,,\n"))
	f.Add([]byte(probeHead + goodRow[:20]))
	f.Add([]byte("partition,offset,seq\n0,1042,0\n0,1043,1\n"))
	f.Add([]byte("partition,offset,seq\n0,1042"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := decodeAll(NewDecoder(bytes.NewReader(data), "probe.csv"))
		checkFuzzError(t, err)
		if err == nil {
			var buf bytes.Buffer
			e := NewEncoder(&buf)
			for i := range ms {
				e.Encode(&ms[i])
				ms[i].Err = oneLine(ms[i].Err)
			}
			if err := e.Flush(); err != nil {
				t.Fatal(err)
			}
			again, err := decodeAll(NewDecoder(&buf, "probe.csv"))
			if err != nil {
				t.Fatalf("re-encoded rows do not decode: %v\n%q", err, buf.String())
			}
			if len(ms) != 0 && !reflect.DeepEqual(again, ms) {
				t.Fatalf("decoded\n%+v\nre-encoded and decoded\n%+v", ms, again)
			}
		}

		rs, err := decodeAllLog(NewLogDecoder(bytes.NewReader(data), "log.csv"))
		checkFuzzError(t, err)
		if err == nil {
			var buf bytes.Buffer
			e := NewLogEncoder(&buf)
			for _, r := range rs {
				e.Encode(&r)
			}
			if err := e.Flush(); err != nil {
				t.Fatal(err)
			}
			again, err := decodeAllLog(NewLogDecoder(&buf, "log.csv"))
			if err != nil {
				t.Fatalf("re-encoded rows do not decode: %v", err)
			}
			if len(rs) != 0 && !reflect.DeepEqual(again, rs) {
				t.Fatalf("decoded %v, re-encoded and decoded %v", rs, again)
			}
		}
	})
}

func checkFuzzError(t *testing.T, err error) {
	t.Helper()
	var pe *ParseError
	if err != nil && (!errors.As(err, &pe) || pe.Line < 1 || pe.Column < 0) {
		t.Fatalf("error %v (%T) is not a located *ParseError", err, err)
	}
}

// FuzzRoundTrip encodes a message built from the fuzzer's values, and one
// fixed message after it, and checks both decode as they were.
func FuzzRoundTrip(f *testing.F) {
	f.Add(int32(0), int64(0), int64(1042), int64(1796009169), uint32(80123456), int64(4001200), int64(6311000), "")
	f.Add(int32(2), int64(17), int64(-1), int64(1796009169), uint32(0), int64(-1), int64(-1), "NOT_ENOUGH_REPLICAS: \"x\", y\r\n")
	f.Add(int32(-5), int64(math.MinInt64), int64(math.MinInt64), int64(math.MinInt64), uint32(math.MaxUint32), int64(math.MaxInt64), int64(0), "\xff,\"")
	f.Fuzz(func(t *testing.T, part int32, seq, offset, sentSec int64, sentNsec uint32, ackAfter, recvAfter int64, msg string) {
		// Shape the values into what the format can hold: non-negative
		// numbers, an offset or none, times in years 0000–9999.
		m := Message{
			Partition: part & math.MaxInt32,
			Seq:       seq & math.MaxInt64,
			Offset:    max(offset, -1),
			Sent:      fuzzTime(sentSec, sentNsec),
			Err:       msg,
		}
		if m.Sent.IsZero() {
			m.Sent = m.Sent.Add(time.Nanosecond)
		}
		if ackAfter >= 0 {
			m.Acked = m.Sent.Add(time.Duration(ackAfter % int64(24*time.Hour)))
		}
		if recvAfter >= 0 {
			m.Received = m.Sent.Add(time.Duration(recvAfter % int64(24*time.Hour)))
		}
		if m.Acked.Year() > 9999 || m.Received.Year() > 9999 {
			t.Skip("beyond the year 9999")
		}
		fixed := Message{Partition: 1, Seq: 2, Offset: 3, Sent: time.Date(2026, 11, 30, 3, 26, 9, 0, time.UTC)}
		if m.Partition == fixed.Partition && m.Seq == fixed.Seq {
			fixed.Seq++ // a second row of one message is refused
		}

		var buf bytes.Buffer
		e := NewEncoder(&buf)
		e.Encode(&m)
		e.Encode(&fixed)
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
		d := allYears(NewDecoder(&buf, "probe.csv"))
		want := m
		want.Err = oneLine(m.Err)
		for _, w := range []Message{want, fixed} {
			var got Message
			if err := d.Decode(&got); err != nil {
				t.Fatalf("decode %+v: %v", w, err)
			}
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("decoded\n%+v\nwant\n%+v", got, w)
			}
		}
		if err := d.Decode(new(Message)); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last row: %v, want io.EOF", err)
		}
	})
}

// fuzzTime maps any sec, nsec to a UTC time in years 0000–9999.
func fuzzTime(sec int64, nsec uint32) time.Time {
	lo := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	span := uint64(hi - lo + 1)
	return time.Unix(lo+int64(uint64(sec)%span), int64(nsec%1e9)).UTC()
}

// FuzzParseTime checks the fast path against time.Parse, and that what
// ParseTime accepts is written back and read again unchanged.
func FuzzParseTime(f *testing.F) {
	f.Add(ts1)
	f.Add("2026-02-29T00:00:00.000000000Z")
	f.Add("0000-01-01T00:00:00+01:00")
	f.Add("2026-11-30T03:26:09,5Z")
	f.Fuzz(func(t *testing.T, s string) {
		if fast, ok := parseFixed(s); ok {
			slow, err := time.Parse(time.RFC3339Nano, s)
			if err != nil || !slow.Equal(fast) {
				t.Fatalf("parseFixed(%q) = %v, time.Parse = %v, %v", s, fast, slow, err)
			}
		}
		v, err := ParseTime(s)
		if err != nil || v.IsZero() {
			return
		}
		again, err := ParseTime(formatTime(v))
		if err != nil || !again.Equal(v) {
			t.Fatalf("ParseTime(%q) = %v, written %q, read back %v, %v", s, v, formatTime(v), again, err)
		}
	})
}
