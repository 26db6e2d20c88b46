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

func TestGroupRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 30, 3, 26, 9, 86500000, time.UTC)
	recs := []GroupRecord{{Partition: 0, Offset: 1042, Seq: 0, Processed: at}, {Partition: 2, Offset: 7, Seq: 1, Processed: at.Add(time.Millisecond)}}
	var buf bytes.Buffer
	e := NewGroupEncoder(&buf)
	for _, r := range recs {
		e.Encode(&r)
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "partition,offset,seq,processed\n0,1042,0,2026-11-30T03:26:09.086500000Z\n"; !strings.HasPrefix(buf.String(), want) {
		t.Errorf("group.csv:\n%s\nwant it to begin\n%s", buf.String(), want)
	}
	d := NewGroupDecoder(&buf, GroupFile)
	var got []GroupRecord
	for {
		var r GroupRecord
		err := d.Decode(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Errorf("decoded %+v, want %+v", got, recs)
	}
}

func TestGroupEventsRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 30, 3, 26, 9, 0, time.UTC)
	evs := []GroupEvent{
		{Time: at, Kind: GroupAssigned, Generation: 1, Partitions: []int32{0, 1, 2}},
		{Time: at.Add(time.Second), Start: at.Add(900 * time.Millisecond), Kind: GroupCommit, Generation: 1,
			Offsets: []PartitionOffset{{0, 1043}, {1, 1040}}},
		{Time: at.Add(9 * time.Second), Start: at.Add(2 * time.Second), Kind: GroupCommit, Generation: 1,
			Offsets: []PartitionOffset{{0, 1050}}, Err: "NOT_COORDINATOR: not\nthe coordinator"},
		{Time: at.Add(10 * time.Second), Kind: GroupCommit, Generation: -1, Offsets: []PartitionOffset{{2, 5}}},
		{Time: at.Add(11 * time.Second), Kind: GroupRevoked, Generation: 2, Partitions: []int32{1}},
		{Time: at.Add(12 * time.Second), Kind: GroupLost, Generation: 2, Partitions: []int32{0, 2}},
	}
	var buf bytes.Buffer
	e := NewGroupEventEncoder(&buf)
	for i := range evs {
		e.Encode(&evs[i])
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	d := NewGroupEventDecoder(&buf, GroupEventsFile)
	var got []GroupEvent
	for {
		var ev GroupEvent
		err := d.Decode(&ev)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	evs[2].Err = "NOT_COORDINATOR: not the coordinator" // one line, as written
	if !reflect.DeepEqual(got, evs) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, evs)
	}
	if !got[2].Failed() || got[1].Failed() {
		t.Errorf("failed: %v %v, want the commit with an error only", got[1].Failed(), got[2].Failed())
	}
}

func TestGroupEventsRefused(t *testing.T) {
	const head = "time,kind,start,generation,partitions,offsets,error\n"
	const at = "2026-11-30T03:26:09.000000000Z"
	for _, tc := range []struct{ name, row, want string }{
		{"kind unknown", at + ",joined,,1,,,\n", "column 32: kind"},
		{"no time", ",commit,,1,,0:1,\n", "column 1: time"},
		{"start after end", at + ",commit,2026-11-30T03:26:10Z,1,,0:1,\n", "start"},
		{"start of an assignment", at + ",assigned," + at + ",1,0,,\n", "start"},
		{"generation below -1", at + ",commit,,-2,,0:1,\n", "generation"},
		{"offsets unordered", at + ",commit,,1,,1:5 0:4,\n", "partition 0 after 1"},
		{"offsets not pairs", at + ",commit,,1,,0-5,\n", "partition:offset"},
		{"offsets of an assignment", at + ",assigned,,1,0,0:5,\n", "offsets only a commit has"},
		{"partitions of a commit", at + ",commit,,1,0,0:5,\n", "a commit lists its partitions in offsets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ev GroupEvent
			err := NewGroupEventDecoder(strings.NewReader(head+tc.row), GroupEventsFile).Decode(&ev)
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want a ParseError with %q", err, tc.want)
			}
		})
	}
	var r GroupRecord
	err := NewGroupDecoder(strings.NewReader("partition,offset,seq,processed\n0,1,2,\n"), GroupFile).Decode(&r)
	if err == nil || !strings.Contains(err.Error(), "processed") {
		t.Errorf("a row without its time: %v, want refused", err)
	}
}
