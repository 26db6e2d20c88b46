package grouprec

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func event(k results.GroupEventKind) *results.GroupEvent {
	return &results.GroupEvent{Time: t0, Kind: k, Generation: 3, Partitions: []int32{0}}
}

func decodeEvents(t *testing.T, b []byte) []results.GroupEvent {
	t.Helper()
	d := results.NewGroupEventDecoder(bytes.NewReader(b), results.GroupEventsFile)
	var out []results.GroupEvent
	for {
		var ev results.GroupEvent
		err := d.Decode(&ev)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decode events: %v", err)
		}
		out = append(out, ev)
	}
}

func decodeRecords(t *testing.T, b []byte) []results.GroupRecord {
	t.Helper()
	d := results.NewGroupDecoder(bytes.NewReader(b), results.GroupFile)
	var out []results.GroupRecord
	for {
		var r results.GroupRecord
		err := d.Decode(&r)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decode records: %v", err)
		}
		out = append(out, r)
	}
}

// TestHaltStopsEventsNotRecords: after Halt the leave's revoke is not
// written, but a record processed before the reader stopped still is.
func TestHaltStopsEventsNotRecords(t *testing.T) {
	var recs, evs bytes.Buffer
	r := New(&recs, &evs)
	r.Event(event(results.GroupAssigned))
	r.Record(&results.GroupRecord{Partition: 0, Offset: 7, Seq: 1, Processed: t0})
	r.Halt()
	r.Event(event(results.GroupRevoked))
	r.Record(&results.GroupRecord{Partition: 0, Offset: 8, Seq: 2, Processed: t0})
	if err := r.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	gotEv := decodeEvents(t, evs.Bytes())
	if len(gotEv) != 1 || gotEv[0].Kind != results.GroupAssigned {
		t.Fatalf("events %+v, want the assignment alone", gotEv)
	}
	gotRec := decodeRecords(t, recs.Bytes())
	if len(gotRec) != 2 || gotRec[0].Offset != 7 || gotRec[1].Offset != 8 {
		t.Fatalf("records %+v, want offsets 7 and 8", gotRec)
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// TestFlushKeepsFirstError: a failed file does not keep the other from
// being written, and the first failure is what every later Flush returns.
func TestFlushKeepsFirstError(t *testing.T) {
	full := errors.New("disk full")
	var evs bytes.Buffer
	r := New(failWriter{full}, &evs)
	r.Record(&results.GroupRecord{Partition: 0, Offset: 7, Seq: 1, Processed: t0})
	r.Event(event(results.GroupAssigned))
	err := r.Flush()
	if !errors.Is(err, full) || !strings.Contains(err.Error(), "group reader's files") {
		t.Fatalf("Flush = %v, want the records' %v", err, full)
	}
	if len(decodeEvents(t, evs.Bytes())) != 1 {
		t.Fatalf("events not written after the records failed: %q", evs.String())
	}
	if err := r.Flush(); !errors.Is(err, full) {
		t.Fatalf("second Flush = %v, want the first error kept", err)
	}
}
