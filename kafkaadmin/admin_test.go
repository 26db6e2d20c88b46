package kafkaadmin

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestBrokersState(t *testing.T) {
	want := []int32{1, 2, 3}
	tests := []struct {
		name   string
		fenced map[int32]bool
		state  string
	}{
		{"all unfenced", map[int32]bool{1: false, 2: false, 3: false}, ""},
		{"none yet", map[int32]bool{}, "not registered: 1,2,3"},
		{"one fenced, one missing", map[int32]bool{1: false, 2: true}, "not registered: 3; fenced: 2"},
		{"an extra broker does not count", map[int32]bool{1: false, 2: false, 4: false}, "not registered: 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := brokersState(want, tt.fenced); got != tt.state {
				t.Errorf("brokersState = %q, want %q", got, tt.state)
			}
		})
	}
}

func TestShapeDiff(t *testing.T) {
	orders := DefaultTopics()[0]
	want := orders.Assignment([]int32{1, 2, 3})
	tests := []struct {
		name      string
		topic     Topic
		got       map[int32][]int32
		minInsync string
		diff      string
	}{
		{"same", orders, map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}}, "2", ""},
		{"fewer partitions", orders, map[int32][]int32{0: {1, 2, 3}}, "2", "1 partitions, want 3"},
		{"other order", orders, map[int32][]int32{0: {2, 1, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}}, "2",
			"partition 0 has replicas 2,1,3, want 1,2,3"},
		{"gap in partitions", orders, map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}, 5: {3, 1, 2}}, "2", "no partition 2"},
		{"min insync", orders, map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}}, "1", "min.insync.replicas 1, want 2"},
		{"min insync unset", orders, map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}}, "", "min.insync.replicas unset, want 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shapeDiff(tt.topic, want, tt.got, tt.minInsync); got != tt.diff {
				t.Errorf("shapeDiff = %q, want %q", got, tt.diff)
			}
		})
	}
	single := DefaultTopics()[1]
	if d := shapeDiff(single, single.Assignment(nil), map[int32][]int32{0: {1}}, ""); d != "" {
		t.Errorf("single: %q; its min.insync.replicas is not checked", d)
	}
}

// md builds a metadata response: each partition as leader, replicas, ISR.
func md(topic string, errCode int16, parts ...[3][]int32) *kmsg.MetadataResponse {
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic = kmsg.StringPtr(topic)
	mt.ErrorCode = errCode
	for i, p := range parts {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition = int32(i)
		mp.Leader = p[0][0]
		mp.Replicas = p[1]
		mp.ISR = p[2]
		mt.Partitions = append(mt.Partitions, mp)
	}
	r := kmsg.NewMetadataResponse()
	r.Topics = []kmsg.MetadataResponseTopic{mt}
	return &r
}

func TestISRState(t *testing.T) {
	tests := []struct {
		name  string
		md    *kmsg.MetadataResponse
		state string
	}{
		{"full", md("orders", 0,
			[3][]int32{{1}, {1, 2, 3}, {1, 2, 3}},
			[3][]int32{{2}, {2, 3, 1}, {3, 1, 2}}), ""},
		{"one short", md("orders", 0,
			[3][]int32{{1}, {1, 2, 3}, {1, 3}},
			[3][]int32{{2}, {2, 3, 1}, {2, 3, 1}}), "orders-0 leader 1 ISR [1,3] of [1,2,3]"},
		{"no leader", md("single", 0, [3][]int32{{-1}, {1}, {1}}), "single-0 leader -1 ISR [1] of [1]"},
		{"same size, other members", md("t", 0, [3][]int32{{1}, {1, 2}, {1, 3}}), "t-0 leader 1 ISR [1,3] of [1,2]"},
		{"unknown topic", md("t", kerr.UnknownTopicOrPartition.Code),
			"t: " + kerr.UnknownTopicOrPartition.Error()},
		{"no partitions yet", md("t", 0), "t: no partitions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isrState(tt.md); got != tt.state {
				t.Errorf("isrState = %q, want %q", got, tt.state)
			}
		})
	}
}

func TestNotPreferred(t *testing.T) {
	tests := []struct {
		name string
		md   *kmsg.MetadataResponse
		off  string
	}{
		{"preferred", md("orders", 0,
			[3][]int32{{1}, {1, 2, 3}, {1, 2, 3}},
			[3][]int32{{2}, {2, 3, 1}, {2, 3, 1}},
			[3][]int32{{3}, {3, 1, 2}, {3, 1, 2}}), ""},
		{"moved", md("orders", 0,
			[3][]int32{{2}, {1, 2, 3}, {1, 2, 3}},
			[3][]int32{{2}, {2, 3, 1}, {2, 3, 1}},
			[3][]int32{{1}, {3, 1, 2}, {1, 2}}), "orders-0 led by 2, orders-2 led by 1"},
		{"leaderless", md("single", 0, [3][]int32{{-1}, {1}, {}}), "single-0 led by -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := notPreferred(tt.md); got != tt.off {
				t.Errorf("notPreferred = %q, want %q", got, tt.off)
			}
		})
	}
}
