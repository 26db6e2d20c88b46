package results

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestClientLogDecode(t *testing.T) {
	at := time.Date(2026, 11, 30, 3, 26, 18, 133256930, time.UTC)
	for _, tc := range []struct {
		name string
		line string
		want ClientLine
		err  string // a substring of the error; "" for none
	}{
		{name: "pairs", line: `2026-11-30T03:26:18.133256930Z DEBUG producer retrying request request=Metadata backoff=100ms request_error="unable to dial: connection refused"`,
			want: ClientLine{Time: at, Level: "DEBUG", Client: ClientProducer, Msg: "retrying request",
				KV: []KeyValue{{"request", "Metadata"}, {"backoff", "100ms"}, {"request_error", "unable to dial: connection refused"}}}},
		{name: "no pairs", line: "2026-11-30T03:26:18.133256930Z INFO consumer assigning partitions",
			want: ClientLine{Time: at, Level: "INFO", Client: ClientConsumer, Msg: "assigning partitions"}},
		{name: "only pairs", line: "2026-11-30T03:26:18.133256930Z INFO admin a=b",
			want: ClientLine{Time: at, Level: "INFO", Client: ClientAdmin, KV: []KeyValue{{"a", "b"}}}},
		{name: "quoted message", line: `2026-11-30T03:26:18.133256930Z INFO admin "x=y\nz" a=""`,
			want: ClientLine{Time: at, Level: "INFO", Client: ClientAdmin, Msg: "x=y\nz", KV: []KeyValue{{"a", ""}}}},
		{name: "an offset time", line: "2026-11-30T05:26:18.13325693+02:00 INFO admin hello",
			want: ClientLine{Time: at, Level: "INFO", Client: ClientAdmin, Msg: "hello"}},
		{name: "java text with a pair inside", line: "2026-11-30T03:26:18.133256930Z DEBUG producer NetworkClient [Producer clientId=kbf-java-producer] Node 1 disconnected.",
			want: ClientLine{Time: at, Level: "DEBUG", Client: ClientProducer, Msg: "NetworkClient [Producer clientId=kbf-java-producer] Node 1 disconnected."}},
		{name: "java probe's own pairs", line: "2026-11-30T03:26:18.133256930Z INFO producer kbf cached leader changed topic=orders partition=0 new_leader=2 old_leader=1",
			want: ClientLine{Time: at, Level: "INFO", Client: ClientProducer, Msg: "kbf cached leader changed",
				KV: []KeyValue{{"topic", "orders"}, {"partition", "0"}, {"new_leader", "2"}, {"old_leader", "1"}}}},
		{name: "no time", line: "yesterday DEBUG producer hello", err: "line 1, column 1: not an RFC 3339 time"},
		{name: "no client", line: "2026-11-30T03:26:18.133256930Z DEBUG", err: "column 38: client"},
		{name: "open quote", line: `2026-11-30T03:26:18.133256930Z DEBUG producer m topic="orders`, err: "value of topic"},
		{name: "unquoted quote", line: `2026-11-30T03:26:18.133256930Z DEBUG producer m topic=a"b`, err: "should be quoted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dec := NewClientLogDecoder(strings.NewReader(tc.line+"\n"), "client.log")
			var got ClientLine
			err := dec.Decode(&got)
			if tc.err != "" {
				var pe *ParseError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want a *ParseError with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("decoded\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

// TestClientLogSkip: after a bad line the decoder reads on, so a reader can
// count the line and skip it.
func TestClientLogSkip(t *testing.T) {
	in := "bad\n\n2026-11-30T03:26:18.133256930Z INFO admin ok\n" + strings.Repeat("x", MaxClientLine+10) + "\n2026-11-30T03:26:18.133256930Z INFO admin last"
	dec := NewClientLogDecoder(strings.NewReader(in), "client.log")
	var l ClientLine
	var got []string
	for {
		err := dec.Decode(&l)
		if errors.Is(err, io.EOF) {
			break
		}
		var pe *ParseError
		switch {
		case errors.As(err, &pe):
			got = append(got, "error")
		case err != nil:
			t.Fatal(err)
		default:
			got = append(got, l.Msg)
		}
	}
	if want := []string{"error", "ok", "error", "last"}; !reflect.DeepEqual(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}
	if dec.Line() != 5 {
		t.Errorf("line %d, want 5", dec.Line())
	}
}

func TestClientLogEncodeRefuses(t *testing.T) {
	at := time.Date(2026, 11, 30, 3, 26, 18, 0, time.UTC)
	for _, tc := range []struct {
		name string
		l    ClientLine
	}{
		{"no time", ClientLine{Level: "INFO", Client: ClientAdmin}},
		{"year 10000", ClientLine{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), Level: "INFO", Client: ClientAdmin}},
		{"two-word level", ClientLine{Time: at, Level: "VERY LOW", Client: ClientAdmin}},
		{"no client", ClientLine{Time: at, Level: "INFO"}},
		{"key with =", ClientLine{Time: at, Level: "INFO", Client: ClientAdmin, KV: []KeyValue{{"a=b", "c"}}}},
		{"too long", ClientLine{Time: at, Level: "INFO", Client: ClientAdmin, Msg: strings.Repeat("m", MaxClientLine)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			e := NewClientLogEncoder(&buf)
			if err := e.Encode(&tc.l); err == nil {
				t.Errorf("encoded %+v", tc.l)
			}
			if err := e.Flush(); err != nil || buf.Len() != 0 {
				t.Errorf("a refused line left %q (%v)", buf.String(), err)
			}
		})
	}
}

// FuzzClientLog: the decoder never panics and reports every bad line as a
// *ParseError; whatever it accepts encodes and decodes back to the same.
// And whatever the encoder accepts decodes back to what it was given.
func FuzzClientLog(f *testing.F) {
	f.Add([]byte("2026-11-30T03:26:18.133256930Z DEBUG producer retrying request request=Metadata backoff=100ms request_error=\"unable to dial\"\n"),
		int64(1764473178133256930), "DEBUG", "producer", "read Produce v13", "err", "i/o timeout")
	f.Add([]byte("2026-11-30T03:26:18Z INFO admin \"a=b\" k=\"\\x00\"\r\nbad\n"), int64(0), "INFO", "admin", " x=y ", "k", "")
	f.Fuzz(func(t *testing.T, data []byte, ns int64, level, client, msg, key, value string) {
		var lines []ClientLine
		dec := NewClientLogDecoder(bytes.NewReader(data), "client.log")
		for {
			var l ClientLine
			err := dec.Decode(&l)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Line < 1 {
					t.Fatalf("error %v is not a located *ParseError", err)
				}
				if len(err.Error()) > 300 {
					t.Fatalf("error of %d bytes quotes too much of the input", len(err.Error()))
				}
				continue
			}
			lines = append(lines, l)
		}
		roundTrip(t, lines)

		l := ClientLine{Time: time.Unix(0, ns).UTC(), Level: level, Client: Client(client), Msg: msg,
			KV: []KeyValue{{key, value}}}
		var buf bytes.Buffer
		if err := NewClientLogEncoder(&buf).Encode(&l); err == nil {
			roundTrip(t, []ClientLine{l})
		}
	})
}

func roundTrip(t *testing.T, lines []ClientLine) {
	t.Helper()
	var buf bytes.Buffer
	e := NewClientLogEncoder(&buf)
	for i := range lines {
		if err := e.Encode(&lines[i]); err != nil {
			t.Fatalf("encode %+v: %v", lines[i], err)
		}
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	dec := NewClientLogDecoder(&buf, "client.log")
	for i := range lines {
		var l ClientLine
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("line %d %+v encoded as %q does not decode: %v", i+1, lines[i], buf.String(), err)
		}
		if !reflect.DeepEqual(l, lines[i]) {
			t.Fatalf("line %d:\n%+v\nencoded and decoded\n%+v", i+1, lines[i], l)
		}
	}
	var extra ClientLine
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Fatalf("more lines than were encoded: %+v", extra)
	}
}
