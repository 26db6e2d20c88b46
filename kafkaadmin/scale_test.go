package kafkaadmin

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestStatesBounded: a wait on thousands of partitions names a few of
// those not ready and counts the rest, so its timeout is one short line.
func TestStatesBounded(t *testing.T) {
	md := kmsg.NewPtrMetadataResponse()
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic = kmsg.StringPtr("wide")
	for p := range int32(4000) {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition, mp.Leader = p, 2
		mp.Replicas, mp.ISR = []int32{1, 2, 3}, []int32{2, 3}
		mt.Partitions = append(mt.Partitions, mp)
	}
	md.Topics = append(md.Topics, mt)
	for name, got := range map[string]string{"isr": isrState(md), "preferred": notPreferred(md)} {
		if !strings.HasSuffix(got, "and 3995 more") || len(got) > 400 {
			t.Errorf("%s: %q, want five partitions named and 3995 counted", name, got)
		}
	}
	if got := isrState(md); !strings.HasPrefix(got, "wide-0 leader 2 ISR [2,3] of [1,2,3], wide-1 ") {
		t.Errorf("isr state %q does not name the first partitions", got)
	}
}

func TestTopicBounds(t *testing.T) {
	brokers := []int32{1, 2, 3}
	for _, tt := range []struct {
		n    int32
		want string
	}{
		{4000, ""},
		{MaxPartitions, ""},
		{MaxPartitions + 1, "topic wide: 10001 partitions: want at most 10000"},
		{0, "topic wide: 0 partitions: want at least 1"},
	} {
		err := Topic{Name: "wide", Partitions: tt.n, ReplicationFactor: 3}.validate(brokers)
		if (err == nil) != (tt.want == "") || err != nil && err.Error() != tt.want {
			t.Errorf("%d partitions: %v, want %q", tt.n, err, tt.want)
		}
	}
}
