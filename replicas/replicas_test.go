package replicas

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbf-project/kbf/results"
)

// produce writes n records to partition p of orders.
func produce(t *testing.T, ctx context.Context, c *kfake.Cluster, p int32, n int) {
	t.Helper()
	prod, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	for i := 0; i < n; i++ {
		if err := prod.ProduceSync(ctx, &kgo.Record{Topic: "orders", Partition: p, Value: []byte("x")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// sampled runs a sampler of orders against c until every broker and the
// state have answered at least twice, and returns its rows read back.
func sampled(t *testing.T, ctx context.Context, c *kfake.Cluster) []results.ReplicaSample {
	t.Helper()
	var buf syncBuffer
	s, err := New(ctx, Config{Bootstrap: c.ListenAddrs(), Topic: "orders", Interval: 10 * time.Millisecond}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan results.ReplicaStats)
	go func() {
		st, err := s.Run(runCtx)
		if err != nil {
			t.Error(err)
		}
		done <- st
	}()
	for {
		s.mu.Lock()
		enough := s.stats.StateLongestGap > 0 && len(s.stats.LongestGap) == len(s.brokers)
		s.mu.Unlock()
		if enough {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the sampler never answered")
		case <-time.After(10 * time.Millisecond):
		}
	}
	stop()
	if st := <-done; st.Rows == 0 {
		t.Fatal("no samples counted")
	}
	var rows []results.ReplicaSample
	d := results.NewReplicaDecoder(bytes.NewReader(buf.Bytes()), results.ReplicasFile)
	for {
		var r results.ReplicaSample
		err := d.Decode(&r)
		if errors.Is(err, io.EOF) {
			return rows
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
}

func newCluster(t *testing.T, brokers int) (*kfake.Cluster, context.Context) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(brokers), kfake.SeedTopics(2, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c, ctx
}

// TestSamplerReadsBack runs the sampler against kfake (which has leaders and
// offsets but no ISR semantics) and reads its rows back: every broker's
// replica LEO equals what was produced, the leader's rows carry the HW, and
// the state rows name the leader.
func TestSamplerReadsBack(t *testing.T) {
	c, ctx := newCluster(t, 3)
	const n = 7
	produce(t, ctx, c, 1, n)
	leader1 := int32(-1)
	leos := map[int32]int64{}
	hw := int64(-1)
	for _, r := range sampled(t, ctx, c) {
		if r.Err != "" {
			t.Fatalf("unexpected error row: %+v", r)
		}
		if r.Partition != 1 {
			continue
		}
		if r.IsState() {
			leader1 = r.Leader
			continue
		}
		leos[r.Broker] = r.LEO
		if r.HW >= 0 {
			hw = r.HW
		}
	}
	if leader1 < 0 {
		t.Fatal("no state row for partition 1")
	}
	if leos[leader1] != n {
		t.Errorf("leader %d LEO: got %d, want %d (all: %v)", leader1, leos[leader1], n, leos)
	}
	if hw != n {
		t.Errorf("HW: got %d, want %d", hw, n)
	}
}

// A topic of more partitions than one DescribeTopicPartitions answer holds
// is asked on from the answer's cursor: every partition has its state rows
// (at 4,000 partitions only the first 2,000 had).
func TestSamplerStatePages(t *testing.T) {
	defer func(l int32) { describeLimit = l }(describeLimit)
	describeLimit = 2
	c, ctx := newCluster(t, 1)
	adm, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	req := kmsg.NewPtrCreatePartitionsRequest()
	rt := kmsg.NewCreatePartitionsRequestTopic()
	rt.Topic, rt.Count = "orders", 5
	req.Topics = append(req.Topics, rt)
	if _, err := req.RequestWith(ctx, adm); err != nil {
		t.Fatal(err)
	}
	states := map[int32]bool{}
	for _, r := range sampled(t, ctx, c) {
		if r.IsState() && r.Err == "" {
			states[r.Partition] = true
		}
	}
	if got := slices.Sorted(maps.Keys(states)); !slices.Equal(got, []int32{0, 1, 2, 3, 4}) {
		t.Errorf("state rows for partitions %v, want 0 to 4", got)
	}
}

// A partition without a leader (the last replica of its ISR dead) is still
// sampled: every replica answers with its LEO, no row carries a HW, and
// the state rows say leader -1 with the replicas kfake lists. kfake cannot
// lose a leader, so the cluster's answers are made so: DescribeTopicPartitions
// names none, and no broker answers ListOffsets as a consumer.
func TestSamplerLeaderless(t *testing.T) {
	c, ctx := newCluster(t, 3)
	const n = 5
	produce(t, ctx, c, 1, n)
	c.ControlKey(int16(kmsg.DescribeTopicPartitions), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.DescribeTopicPartitionsRequest)
		resp := req.ResponseKind().(*kmsg.DescribeTopicPartitionsResponse)
		rt := kmsg.NewDescribeTopicPartitionsResponseTopic()
		rt.Topic = kmsg.StringPtr("orders")
		for p := int32(0); p < 2; p++ {
			rp := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
			rp.Partition, rp.LeaderID, rp.LeaderEpoch = p, -1, 4
			rp.Replicas, rp.ISR, rp.EligibleLeaderReplicas = []int32{0, 1, 2}, []int32{}, []int32{1, 2}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.ListOffsets), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.ListOffsetsRequest)
		if req.ReplicaID != -1 {
			return nil, nil, false // the debugging replica: every replica answers
		}
		return listOffsetsError(req, kerr.NotLeaderForPartition.Code), nil, true
	})

	leos := map[int32]int64{}
	states := 0
	for _, r := range sampled(t, ctx, c) {
		switch {
		case r.Err != "":
			t.Errorf("error row: %+v", r)
		case r.IsState():
			states++
			if r.Leader != -1 || !slices.Equal(r.ELR, []int32{1, 2}) {
				t.Errorf("state row %+v: want leader -1, ELR [1 2]", r)
			}
		case r.HW >= 0:
			t.Errorf("row %+v: a HW with no leader", r)
		case r.Partition == 1:
			leos[r.Broker] = r.LEO
		}
	}
	if want := map[int32]int64{0: n, 1: n, 2: n}; !maps.Equal(leos, want) {
		t.Errorf("p1 LEOs by broker %v, want %v: every replica sampled without a leader", leos, want)
	}
	if states == 0 {
		t.Error("no state row")
	}
}

// A replica that answers with an error for a partition gets a row saying
// so; a broker that is no replica of it gets none. kfake answers the
// debugging replica id from any broker, so one broker is made to refuse.
func TestSamplerReplicaErrors(t *testing.T) {
	c, ctx := newCluster(t, 4) // three replicas of four brokers
	// Leaders 0 and 1 make the replicas 0 1 2 and 1 2 3: broker 3 is a
	// replica of p1 only.
	for p := int32(0); p < 2; p++ {
		if err := c.MoveTopicPartition("orders", p, p); err != nil {
			t.Fatal(err)
		}
	}
	const refuser int32 = 3
	c.ControlKey(int16(kmsg.ListOffsets), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.ListOffsetsRequest)
		if c.CurrentNode() != refuser || req.ReplicaID != -2 {
			return nil, nil, false
		}
		return listOffsetsError(req, kerr.NotLeaderForPartition.Code), nil, true
	})
	replicas := assignment(t, ctx, c)
	if slices.Contains(replicas[0], refuser) || !slices.Contains(replicas[1], refuser) {
		t.Fatalf("replicas %v: want broker %d a replica of p1 only", replicas, refuser)
	}
	refused := map[int32]string{}
	for _, r := range sampled(t, ctx, c) {
		if r.Broker == refuser {
			refused[r.Partition] = r.Err
		}
	}
	for p, rs := range replicas {
		err, row := refused[p]
		switch {
		case slices.Contains(rs, refuser) && err != kerr.NotLeaderForPartition.Message:
			t.Errorf("p%d, replicas %v: broker %d's row says %q (row %v), want its error", p, rs, refuser, err, row)
		case !slices.Contains(rs, refuser) && row:
			t.Errorf("p%d, replicas %v: a row for broker %d, no replica of it", p, rs, refuser)
		}
	}
}

// assignment is each partition of orders' replicas, as c's metadata lists
// them.
func assignment(t *testing.T, ctx context.Context, c *kfake.Cluster) map[int32][]int32 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr("orders")
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32][]int32{}
	for _, p := range resp.Topics[0].Partitions {
		out[p.Partition] = p.Replicas
	}
	return out
}

// listOffsetsError answers every partition of req with the error code.
func listOffsetsError(req *kmsg.ListOffsetsRequest, code int16) *kmsg.ListOffsetsResponse {
	resp := req.ResponseKind().(*kmsg.ListOffsetsResponse)
	for _, t := range req.Topics {
		rt := kmsg.NewListOffsetsResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewListOffsetsResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

func TestNewUnknownTopic(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := New(ctx, Config{Bootstrap: c.ListenAddrs(), Topic: "missing"}, io.Discard)
	if err == nil {
		s.Close()
		t.Fatal("want an error for a missing topic")
	}
}

// syncBuffer is a bytes.Buffer the sampler's flushes and the test may share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}
