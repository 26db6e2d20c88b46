package results

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// TestLoadRoundTrip: seconds written are read back the same, an error's
// line breaks as spaces.
func TestLoadRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 3, 26, 9, 0, time.UTC)
	in := []LoadSecond{
		{Second: t0, Sent: 5000, Acked: 4993, Received: 4990},
		{Second: t0.Add(time.Second), Sent: 5000, Failed: 312, Err: "NOT_ENOUGH_REPLICAS:\nmore"},
		{Second: t0.Add(2 * time.Second)},
	}
	var b bytes.Buffer
	enc := NewLoadEncoder(&b)
	for i := range in {
		enc.Encode(&in[i])
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	dec := NewLoadDecoder(&b, LoadFile)
	var out []LoadSecond
	for {
		var s LoadSecond
		err := dec.Decode(&s)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	in[1].Err = "NOT_ENOUGH_REPLICAS: more"
	if len(out) != len(in) {
		t.Fatalf("read %d rows, wrote %d", len(out), len(in))
	}
	for i := range in {
		if out[i] != in[i] {
			t.Errorf("row %d: read %+v, wrote %+v", i, out[i], in[i])
		}
	}
}

// TestLoadDecodeRefuses: what the load cannot have written is a located
// error.
func TestLoadDecodeRefuses(t *testing.T) {
	const head = "second,sent,acked,failed,received,error\n"
	for _, tc := range []struct{ name, body, want string }{
		{"not a time", "yesterday,1,1,0,1,\n", "line 2"},
		{"negative", "2026-11-30T03:26:09Z,-1,1,0,1,\n", "non-negative"},
		{"out of order", "2026-11-30T03:26:09Z,1,1,0,1,\n2026-11-30T03:26:09Z,1,1,0,1,\n", "not after"},
		{"too few fields", "2026-11-30T03:26:09Z,1,1\n", "line 2"},
		{"before 2000", "1999-11-30T03:26:09Z,1,1,0,1,\n", "outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dec := NewLoadDecoder(strings.NewReader(head+tc.body), LoadFile)
			var err error
			for err == nil {
				var s LoadSecond
				err = dec.Decode(&s)
			}
			if errors.Is(err, io.EOF) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
