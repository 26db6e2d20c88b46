package timeline

import (
	"strings"
	"testing"
)

func TestParseOtherClients(t *testing.T) {
	type brief struct {
		kind         Kind
		node         string
		partition    int32
		leader, prev int32
		epoch        int64
	}
	for _, tc := range []struct {
		name string
		line string
		want []brief // nil: no event
	}{
		{name: "librdkafka leader change",
			line: "2026-12-01T12:03:37.300000000Z DEBUG producer BROKER [thrd:main]: orders [0]: leader 1 epoch 3 -> leader 2 epoch 4",
			want: []brief{{KindClientLeader, "producer", 0, 2, 1, 4}}},
		{name: "librdkafka same leader is a fact",
			line: "2026-12-01T12:03:37.300000000Z DEBUG consumer BROKER [thrd:main]: orders [2]: leader 3 epoch 4 -> leader 3 epoch 4",
			want: []brief{{KindClientMetadataSame, "consumer", 2, 3, 3, 4}}},
		{name: "librdkafka leader lost",
			line: "2026-12-01T12:03:37.300000000Z DEBUG producer BROKER [thrd:main]: orders [0]: leader 1 epoch 3 -> leader -1 epoch 4"},
		{name: "librdkafka kip-951 hint",
			line: "2026-12-01T12:03:37.300000000Z DEBUG producer TOPIC [thrd:127.0.0.1:19093/2]: Partition orders(AAAAAAAAAAAAAAAAAAAAAA)[1]: updated with leader 2 and epoch 5",
			want: []brief{{KindClientRedirect, "producer", 1, 2, None, 5}}},
		{name: "java probe's cached leader",
			line: "2026-12-01T12:03:37.300000000Z INFO consumer kbf cached leader changed topic=orders partition=0 new_leader=2 old_leader=1",
			want: []brief{{KindClientLeader, "consumer", 0, 2, 1, None}}},
		{name: "java client's own line with clientId=",
			line: "2026-12-01T12:03:37.300000000Z DEBUG producer Metadata [Producer clientId=kbf-java-producer] Updating last seen epoch for partition orders-0 from 3 to epoch 4 from new metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []brief
			unparsed, err := parseClientLog(strings.NewReader(tc.line+"\n"), "client.log", func(e Event) {
				got = append(got, brief{e.Kind, e.Node, e.Partition, e.Leader, e.PrevLeader, e.Epoch})
				if e.Topic != "orders" {
					t.Errorf("topic %q, want orders", e.Topic)
				}
			})
			if err != nil || unparsed != 0 {
				t.Fatalf("unparsed %d, err %v: want every line read", unparsed, err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("events %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("event %+v, want %+v", got[i], tc.want[i])
				}
			}
		})
	}
}
