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

func replicaRows() []ReplicaSample {
	t0 := time.Date(2026, 11, 30, 3, 26, 9, 100_000_000, time.UTC)
	return []ReplicaSample{
		{Time: t0, Partition: 0, Broker: 1, LEO: 1042, HW: 1040, Leader: -1},
		{Time: t0.Add(time.Millisecond), Partition: 0, Broker: 2, LEO: 1041, HW: -1, Leader: -1},
		{Time: t0.Add(2 * time.Millisecond), Partition: 0, Broker: -1, LEO: -1, HW: -1, Leader: 1, LeaderEpoch: 3,
			ISR: []int32{1, 2, 3}, ELR: []int32{2}, LastKnownELR: []int32{3}},
		{Time: t0.Add(3 * time.Millisecond), Partition: 0, Broker: 3, LEO: -1, HW: -1, Leader: -1, Err: "timed out"},
		{Time: t0.Add(4 * time.Millisecond), Partition: 2, Broker: -1, LEO: -1, HW: -1, Leader: -1, LeaderEpoch: 4, Err: "LEADER_NOT_AVAILABLE"},
	}
}

func TestReplicasRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	enc := NewReplicaEncoder(&buf)
	want := replicaRows()
	for i := range want {
		enc.Encode(&want[i])
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	got := decodeReplicas(t, buf.String())
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\ngot  %+v\nwant %+v", got, want)
	}
}

func decodeReplicas(t *testing.T, s string) []ReplicaSample {
	t.Helper()
	d := NewReplicaDecoder(strings.NewReader(s), ReplicasFile)
	var out []ReplicaSample
	for {
		var r ReplicaSample
		err := d.Decode(&r)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

func TestReplicasDecodeErrors(t *testing.T) {
	const h = "time,partition,broker,leo,hw,leader,leader_epoch,isr,elr,last_known_elr,error\n"
	const ts = "2026-11-30T03:26:09.100000000Z"
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "empty file"},
		{"wrong header", "time,partition\n", "wrong header"},
		{"bad time", h + "yesterday,0,1,5,,,,,,,\n", "line 2, column 1: time"},
		{"negative partition", h + ts + ",-1,1,5,,,,,,,\n", "line 2, column 32: partition"},
		{"bad offset", h + ts + ",0,1,x,,,,,,,\n", "line 2, column 36: leo"},
		{"bad isr", h + ts + ",0,,,,1,0,1 a,,,\n", "line 2, column 41: isr"},
		{"state without epoch", h + ts + ",0,,,,1,,1,,,\n", "line 2, column 39: leader_epoch"},
		{"cut short", h + ts + ",0,1,5", "cut short"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewReplicaDecoder(strings.NewReader(tt.in), ReplicasFile)
			var r ReplicaSample
			err := d.Decode(&r)
			if err == nil || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func FuzzReplicasRoundTrip(f *testing.F) {
	var buf bytes.Buffer
	enc := NewReplicaEncoder(&buf)
	rows := replicaRows()
	for i := range rows {
		enc.Encode(&rows[i])
	}
	enc.Flush()
	f.Add(buf.String())
	f.Fuzz(func(t *testing.T, in string) {
		d := NewReplicaDecoder(strings.NewReader(in), ReplicasFile)
		var got []ReplicaSample
		for {
			var r ReplicaSample
			err := d.Decode(&r)
			if err != nil {
				break
			}
			got = append(got, r)
		}
		// What decodes must encode and decode to the same rows.
		var out bytes.Buffer
		e := NewReplicaEncoder(&out)
		for i := range got {
			e.Encode(&got[i])
		}
		e.Flush()
		again := NewReplicaDecoder(&out, ReplicasFile)
		for i := range got {
			var r ReplicaSample
			if err := again.Decode(&r); err != nil {
				t.Fatalf("row %d: %v", i, err)
			}
			if !r.Time.Equal(got[i].Time) {
				t.Fatalf("row %d time: %v != %v", i, r.Time, got[i].Time)
			}
			r.Time = got[i].Time
			if !reflect.DeepEqual(r, got[i]) {
				t.Fatalf("row %d:\ngot  %+v\nwant %+v", i, r, got[i])
			}
		}
	})
}
