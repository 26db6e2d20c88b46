package remote

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/kafkaadmin"
	"github.com/kbf-project/kbf/results"
)

func TestSupports(t *testing.T) {
	for _, k := range results.FaultKinds() {
		t.Run(string(k), func(t *testing.T) {
			err := (&Target{}).Supports(k, "")
			if k == results.FaultExternal {
				if err != nil {
					t.Errorf("external refused: %v", err)
				}
				return
			}
			if !errors.Is(err, experiment.ErrUnsupported) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v, want one line wrapping ErrUnsupported", k, err)
			}
		})
	}
}

// TestReachable: one line per broker kbf cannot dial, naming it and the
// address it advertises; none for one that listens.
func TestReachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := closed.Addr().String()
	closed.Close()
	tests := []struct {
		name    string
		brokers []kafkaadmin.Broker
		lines   []string
	}{
		{"all reachable", []kafkaadmin.Broker{{ID: 1, Addr: ln.Addr().String()}}, nil},
		{"one unreachable", []kafkaadmin.Broker{{ID: 1, Addr: ln.Addr().String()}, {ID: 2, Addr: gone}}, []string{"broker 2 is unreachable at " + gone}},
		{"two unreachable", []kafkaadmin.Broker{{ID: 2, Addr: gone}, {ID: 3, Addr: gone}}, []string{"broker 2 is unreachable", "broker 3 is unreachable"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Reachable(context.Background(), tc.brokers, time.Second)
			if len(tc.lines) == 0 {
				if err != nil {
					t.Errorf("error %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(tc.lines) {
				t.Fatalf("%d lines, want %d: %q", len(got), len(tc.lines), got)
			}
			for i, want := range tc.lines {
				if !strings.HasPrefix(got[i], want) {
					t.Errorf("line %d %q, want it to begin %q", i, got[i], want)
				}
			}
		})
	}
}

// TestViewOf: a fenced broker is kept, as fenced; one the metadata no
// longer lists and DescribeCluster says is not fenced is gone.
func TestViewOf(t *testing.T) {
	dc := &kmsg.DescribeClusterResponse{Brokers: []kmsg.DescribeClusterResponseBroker{{NodeID: 1, IsFenced: true}, {NodeID: 2}, {NodeID: 3}}}
	md := &kmsg.MetadataResponse{Brokers: []kmsg.MetadataResponseBroker{{NodeID: 2}}, Topics: []kmsg.MetadataResponseTopic{{Partitions: []kmsg.MetadataResponseTopicPartition{
		{Partition: 1, Leader: 2, Replicas: []int32{2, 3, 1}, ISR: []int32{2}},
		{Partition: 0, Leader: 2, Replicas: []int32{1, 2, 3}, ISR: []int32{2}},
	}}}}
	v := viewOf(time.Unix(0, 0), dc, md)
	if fenced, ok := v.Brokers[1]; !ok || !fenced {
		t.Errorf("broker 1: %v %v, want fenced", fenced, ok)
	}
	if _, ok := v.Brokers[3]; ok {
		t.Error("broker 3 kept; the metadata no longer lists it")
	}
	if len(v.Partitions) != 2 || v.Partitions[0].Partition != 0 {
		t.Errorf("partitions %+v, want 0 and 1 in order", v.Partitions)
	}
}
