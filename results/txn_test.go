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

// TestTxnRoundTrip: a transaction written is read back the same, its
// records in partition order.
func TestTxnRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 3, 26, 9, 0, time.UTC)
	in := []TxnEvent{
		{Txn: 0, Begin: t0, CommitStart: t0.Add(660 * time.Millisecond), End: t0.Add(672 * time.Millisecond), Outcome: TxnCommitted,
			Records: []SeqRange{{Partition: 1, First: 0, Last: 32}, {Partition: 0, First: 0, Last: 33}}},
		{Txn: 1, Begin: t0.Add(time.Second), End: t0.Add(31 * time.Second), Outcome: TxnTimedOut, Err: "context deadline\nexceeded"},
	}
	var b bytes.Buffer
	enc := NewTxnEncoder(&b)
	for i := range in {
		enc.Encode(&in[i])
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	dec := NewTxnDecoder(&b, TxnFile)
	var out []TxnEvent
	for {
		var ev TxnEvent
		err := dec.Decode(&ev)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	in[0].Records = []SeqRange{{Partition: 0, First: 0, Last: 33}, {Partition: 1, First: 0, Last: 32}}
	in[1].Err = "context deadline exceeded"
	if !reflect.DeepEqual(in, out) {
		t.Errorf("read back\n%+v\nwant\n%+v", out, in)
	}
	if !out[0].Holds(1, 32) || out[0].Holds(1, 33) || out[0].Count() != 67 {
		t.Errorf("Holds and Count of %+v", out[0])
	}
}

// TestTxnDecodeRefuses: rows the probe cannot have written are refused at
// their column.
func TestTxnDecodeRefuses(t *testing.T) {
	const head = "txn,begin,commit_start,end,outcome,records,error\n"
	const b, e = "2026-11-30T03:26:09.000000000Z", "2026-11-30T03:26:10.000000000Z"
	for name, row := range map[string]string{
		"negative txn":      "-1," + b + ",," + e + ",aborted,,",
		"unknown outcome":   "0," + b + ",," + e + ",maybe,,",
		"end before begin":  "0," + e + ",," + b + ",aborted,,",
		"committed unasked": "0," + b + ",," + e + ",committed,,",
		"bad range":         "0," + b + ",," + e + ",aborted,0:5-3,",
		"partitions twice":  "0," + b + ",," + e + ",aborted,0:1-2 0:3-4,",
		"no end":            "0," + b + ",,,aborted,,",
	} {
		t.Run(name, func(t *testing.T) {
			var ev TxnEvent
			err := NewTxnDecoder(strings.NewReader(head+row+"\n"), TxnFile).Decode(&ev)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("Decode(%q) = %v, want a ParseError", row, err)
			}
		})
	}
}

// FuzzTxnDecode: any input decodes without a panic, and a row the decoder
// accepts is written and read back the same.
func FuzzTxnDecode(f *testing.F) {
	const head = "txn,begin,commit_start,end,outcome,records,error\n"
	f.Add(head + "0,2026-11-30T03:26:09.000000000Z,2026-11-30T03:26:09.660000000Z,2026-11-30T03:26:09.672000000Z,committed,0:0-33 1:0-32,\n")
	f.Add(head + "7,2026-11-30T03:26:14.000000000Z,,2026-11-30T03:26:24.100000000Z,aborted,0:230-263,NOT_COORDINATOR\n")
	f.Fuzz(func(t *testing.T, in string) {
		dec := NewTxnDecoder(strings.NewReader(in), TxnFile)
		for {
			var ev TxnEvent
			if err := dec.Decode(&ev); err != nil {
				return
			}
			var b bytes.Buffer
			enc := NewTxnEncoder(&b)
			enc.Encode(&ev)
			if err := enc.Flush(); err != nil {
				t.Fatal(err)
			}
			var back TxnEvent
			if err := NewTxnDecoder(&b, TxnFile).Decode(&back); err != nil {
				t.Fatalf("%+v written, read back: %v", ev, err)
			}
			if !reflect.DeepEqual(ev, back) {
				t.Fatalf("read %+v, written and read back %+v", ev, back)
			}
		}
	})
}
