package timeline

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

func TestClientFacts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "client.log")
	const log = "" +
		"2026-11-30T03:26:17.000000000Z DEBUG producer wrote Metadata v13 broker=2 bytes_written=46 err=<nil>\n" +
		"not a line of ours\n" +
		"2026-11-30T03:26:18.133256930Z DEBUG producer retrying request request=Metadata tries=1 backoff=100ms request_error=\"unable to dial: connection refused\"\n" +
		"2026-11-30T03:26:18.200000000Z DEBUG consumer wrote Fetch v18 broker=2 bytes_written=46 err=<nil>\n" +
		"2026-11-30T03:26:18.300000000Z DEBUG producer read Produce v13 broker=seed_0 bytes_read=0 time_to_read=10.5s err=\"read tcp: i/o timeout\"\n" +
		"2026-11-30T03:26:18.400000000Z DEBUG producer metadata refresh has identical topic partition data topic=orders partition=0 leader=1 leader_epoch=0\n" +
		"2026-11-30T03:26:18.500000000Z INFO consumer metadata update triggered why=\"load during source backoff\"\n" +
		"2026-11-30T03:26:18.600000000Z DEBUG producer metadata refresh topic partition data changed topic=orders partition=0 new_leader=2 new_leader_epoch=1 old_leader=1\n" +
		"2026-11-30T03:26:30.000000000Z DEBUG producer wrote Produce v13 broker=2 err=<nil>\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 11, 30, 3, 26, 18, 0, time.UTC)
	tl, err := Build(Sources{ClientLog: path}, Options{ClientFrom: from, ClientTo: from.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if tl.Unparsed != 1 {
		t.Errorf("unparsed %d, want 1", tl.Unparsed)
	}
	type brief struct {
		node    string
		kind    Kind
		request string
		broker  int32
		leader  int32
		wait    time.Duration
		err     string
		reason  string
	}
	var got []brief
	for _, e := range tl.Client {
		got = append(got, brief{e.Node, e.Kind, e.Request, e.Broker, e.Leader, e.Wait, e.Err, e.Reason})
	}
	want := []brief{
		{"producer", KindClientRetry, "Metadata", None, None, 100 * time.Millisecond, "unable to dial: connection refused", ""},
		// A seed broker has no node id: the fact keeps the rest.
		{"producer", KindClientRead, "Produce", None, None, 10500 * time.Millisecond, "read tcp: i/o timeout", ""},
		{"producer", KindClientMetadataSame, "", None, 1, 0, "", ""},
		{"consumer", KindClientMetadataTriggered, "", None, None, 0, "", "load during source backoff"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("client facts in the window:\n%+v\nwant\n%+v", got, want)
	}
	if len(tl.Events) != 1 || tl.Events[0].Kind != KindClientLeader {
		t.Errorf("events %+v, want only the leader change: facts are kept apart", tl.Events)
	}
	if n := len(tl.ClientFacts(results.ClientProducer, from, from.Add(time.Second), ForRequest("Produce"))); n != 1 {
		t.Errorf("%d producer facts about Produce, want 1", n)
	}
}
