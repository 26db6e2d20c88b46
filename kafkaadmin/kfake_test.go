package kafkaadmin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// These tests run the Admin against kfake, a Kafka in memory. kfake has no
// ISR, high watermark semantics or fencing of its own: they check what the
// Admin asks and how it reads the answers, never a timing.

// fake starts a kfake cluster of three brokers (node ids 0, 1, 2) and an
// Admin on it with the topics.
func fake(t *testing.T, topics []Topic, opts ...kfake.Opt) (*kfake.Cluster, *Admin) {
	t.Helper()
	kc, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kc.Close)
	var brokers []Broker
	for i, addr := range kc.ListenAddrs() {
		brokers = append(brokers, Broker{ID: int32(i), Addr: addr})
	}
	a, err := New(Config{Brokers: brokers, Topics: topics})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return kc, a
}

// bounded is a context for a wait that must end by itself; the bound only
// keeps a broken wait from hanging the test.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// short is a context for a wait that must not end by itself.
func short(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	t.Cleanup(cancel)
	return ctx
}

var orders = Topic{Name: "orders", Partitions: 3, ReplicationFactor: 3, MinInsync: 2}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"no broker", Config{}, "no broker"},
		{"rf above brokers", Config{Brokers: []Broker{{ID: 1}}, Topics: []Topic{orders}},
			"topic orders: replication factor 3 needs 3 brokers, there are 1"},
		{"sorted by id", Config{Brokers: []Broker{{ID: 3, Addr: "c"}, {ID: 1, Addr: "a"}, {ID: 2, Addr: "b"}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := New(tt.cfg)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("New: %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a.Bootstrap(), []string{"a", "b", "c"}) || !slices.Equal(a.BrokerIDs(), []int32{1, 2, 3}) {
				t.Errorf("bootstrap %v ids %v, want in node id order", a.Bootstrap(), a.BrokerIDs())
			}
		})
	}
}

func TestWaitBrokers(t *testing.T) {
	t.Run("all registered", func(t *testing.T) {
		_, a := fake(t, nil)
		if err := a.WaitBrokers(bounded(t)); err != nil {
			t.Fatalf("WaitBrokers: %v", err)
		}
	})
	t.Run("a node stopped ends the wait", func(t *testing.T) {
		kc, err := kfake.NewCluster(kfake.NumBrokers(1))
		if err != nil {
			t.Fatal(err)
		}
		defer kc.Close()
		stopped := errors.New("container kbf-k1 stopped")
		a, err := New(Config{Brokers: []Broker{{ID: 0, Addr: kc.ListenAddrs()[0]}},
			Alive: func(context.Context) error { return stopped }})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		// bounded, not short: the error must come from Alive, not the deadline.
		if err := a.WaitBrokers(bounded(t)); !errors.Is(err, stopped) {
			t.Fatalf("WaitBrokers: %v, want %v", err, stopped)
		}
	})
	t.Run("fenced broker is waited for", func(t *testing.T) {
		kc, a := fake(t, nil)
		kc.ControlKey(kmsg.DescribeCluster.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
			kc.KeepControl()
			resp := kreq.(*kmsg.DescribeClusterRequest).ResponseKind().(*kmsg.DescribeClusterResponse)
			for id := range int32(3) {
				b := kmsg.NewDescribeClusterResponseBroker()
				b.NodeID, b.IsFenced = id, id == 1
				resp.Brokers = append(resp.Brokers, b)
			}
			return resp, nil, true
		})
		err := a.WaitBrokers(short(t))
		if err == nil || !strings.Contains(err.Error(), "fenced: 1") || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitBrokers: %v, want a timeout naming fenced broker 1", err)
		}
	})
	t.Run("unknown broker", func(t *testing.T) {
		kc, err := kfake.NewCluster(kfake.NumBrokers(1))
		if err != nil {
			t.Fatal(err)
		}
		defer kc.Close()
		a, err := New(Config{Brokers: []Broker{{ID: 7, Addr: kc.ListenAddrs()[0]}}})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		err = a.WaitBrokers(short(t))
		if err == nil || !strings.Contains(err.Error(), "not registered: 7") {
			t.Fatalf("WaitBrokers: %v, want it to name broker 7 not registered", err)
		}
	})
}

// seedOrders makes orders in kfake as EnsureTopics would: partition p led
// by node p, so its replicas (kfake lists them from the leader on) are
// p, p+1, p+2, the assignment on brokers 0, 1, 2.
func seedOrders(t *testing.T, kc *kfake.Cluster) {
	t.Helper()
	if err := kc.CreateTopic("orders", 3, map[string]string{"min.insync.replicas": "2"}); err != nil {
		t.Fatal(err)
	}
	for p := range int32(3) {
		if err := kc.MoveTopicPartition("orders", p, p); err != nil {
			t.Fatal(err)
		}
	}
}

func TestEnsureTopicsCreates(t *testing.T) {
	single := Topic{Name: "single", Partitions: 1, ReplicationFactor: 1, Brokers: []int32{2}}
	kc, a := fake(t, []Topic{orders, single})
	// kfake places leaders at random; the test answers CreateTopics and
	// Metadata itself and records what was asked.
	var mu sync.Mutex
	var asked []string
	made := map[string]bool{}
	kc.ControlKey(kmsg.CreateTopics.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		kc.KeepControl()
		req := kreq.(*kmsg.CreateTopicsRequest)
		resp := req.ResponseKind().(*kmsg.CreateTopicsResponse)
		mu.Lock()
		defer mu.Unlock()
		for _, rt := range req.Topics {
			line := fmt.Sprintf("%s partitions %d rf %d", rt.Topic, rt.NumPartitions, rt.ReplicationFactor)
			for _, ra := range rt.ReplicaAssignment {
				line += fmt.Sprintf(" %d:%s", ra.Partition, JoinIDs(ra.Replicas))
			}
			cfgs := map[string]string{}
			for _, c := range rt.Configs {
				line += fmt.Sprintf(" %s=%s", c.Name, *c.Value)
				cfgs[c.Name] = *c.Value
			}
			asked = append(asked, line)
			made[rt.Topic] = true
			st := kmsg.NewCreateTopicsResponseTopic()
			st.Topic = rt.Topic
			resp.Topics = append(resp.Topics, st)
			// For DescribeConfigs, which kfake answers itself.
			go kc.CreateTopic(rt.Topic, int32(len(rt.ReplicaAssignment)), cfgs)
		}
		return resp, nil, true
	})
	kc.ControlKey(kmsg.Metadata.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		kc.KeepControl()
		req := kreq.(*kmsg.MetadataRequest)
		mu.Lock()
		defer mu.Unlock()
		resp := metadataAnswer(kc, req, "orders", true)
		resp.Topics = nil
		for _, rt := range req.Topics {
			name := *rt.Topic
			mt := kmsg.NewMetadataResponseTopic()
			mt.Topic = rt.Topic
			switch {
			case !made[name]:
				mt.ErrorCode = kerr.UnknownTopicOrPartition.Code
			case name == "orders":
				mt = metadataAnswer(kc, req, "orders", true).Topics[0]
			case name == "single":
				mp := kmsg.NewMetadataResponseTopicPartition()
				mp.Leader, mp.Replicas, mp.ISR = 2, []int32{2}, []int32{2}
				mt.Partitions = []kmsg.MetadataResponseTopicPartition{mp}
			}
			resp.Topics = append(resp.Topics, mt)
		}
		return resp, nil, true
	})
	created, err := a.EnsureTopics(bounded(t))
	if err != nil {
		t.Fatalf("EnsureTopics: %v", err)
	}
	if !slices.Equal(created, []string{"orders", "single"}) {
		t.Errorf("created %v, want orders and single", created)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		"orders partitions -1 rf -1 0:0,1,2 1:1,2,0 2:2,0,1 min.insync.replicas=2",
		"single partitions -1 rf -1 0:2",
	}
	if !slices.Equal(asked, want) {
		t.Errorf("CreateTopics asked\n %q\nwant\n %q", asked, want)
	}
}

func TestEnsureTopicsPresent(t *testing.T) {
	kc, a := fake(t, []Topic{orders})
	seedOrders(t, kc)
	created, err := a.EnsureTopics(bounded(t))
	if err != nil || len(created) != 0 {
		t.Errorf("EnsureTopics: created %v, %v; want nothing, no error", created, err)
	}
}

func TestEnsureTopicsOtherShape(t *testing.T) {
	kc, a := fake(t, []Topic{orders})
	if err := kc.CreateTopic("orders", 1, map[string]string{"min.insync.replicas": "2"}); err != nil {
		t.Fatal(err)
	}
	_, err := a.EnsureTopics(bounded(t))
	if err == nil || !strings.Contains(err.Error(), "topic orders exists with another shape (1 partitions, want 3)") {
		t.Fatalf("EnsureTopics: %v, want the other shape named", err)
	}
}

func TestWaitISRFull(t *testing.T) {
	kc, a := fake(t, []Topic{orders})
	seedOrders(t, kc)
	if err := a.WaitISRFull(bounded(t)); err != nil {
		t.Errorf("WaitISRFull: %v", err)
	}
	err := a.WaitISRFull(short(t), "absent")
	if err == nil || !strings.Contains(err.Error(), "absent: ") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitISRFull(absent): %v, want a timeout naming the topic", err)
	}
}

// notPreferredUntilElected makes every metadata answer show partition 0 of
// topic led by its second replica until an ElectLeaders request arrives,
// and records the partitions each election asked for.
func notPreferredUntilElected(kc *kfake.Cluster, topic string) (elections func() [][]int32) {
	var mu sync.Mutex
	var asked [][]int32
	elected := false
	kc.ControlKey(kmsg.ElectLeaders.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		kc.KeepControl()
		req := kreq.(*kmsg.ElectLeadersRequest)
		mu.Lock()
		defer mu.Unlock()
		elected = true
		resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
		for _, rt := range req.Topics {
			asked = append(asked, slices.Sorted(slices.Values(rt.Partitions)))
			st := kmsg.NewElectLeadersResponseTopic()
			st.Topic = rt.Topic
			for _, p := range rt.Partitions {
				sp := kmsg.NewElectLeadersResponseTopicPartition()
				sp.Partition = p
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	kc.ControlKey(kmsg.Metadata.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		kc.KeepControl()
		mu.Lock()
		done := elected
		mu.Unlock()
		return metadataAnswer(kc, kreq.(*kmsg.MetadataRequest), topic, done), nil, true
	})
	return func() [][]int32 { mu.Lock(); defer mu.Unlock(); return slices.Clone(asked) }
}

// metadataAnswer answers a metadata request as a three-broker cluster
// whose topic has three partitions, replicas p, p+1, p+2 (mod 3), every ISR
// full, led by the preferred replica when preferred, else partition 0 led
// by its second replica.
func metadataAnswer(kc *kfake.Cluster, req *kmsg.MetadataRequest, topic string, preferred bool) *kmsg.MetadataResponse {
	resp := req.ResponseKind().(*kmsg.MetadataResponse)
	for i, addr := range kc.ListenAddrs() {
		host, port, _ := strings.Cut(addr, ":")
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host = int32(i), host
		p, _ := strconv.Atoi(port)
		b.Port = int32(p)
		resp.Brokers = append(resp.Brokers, b)
	}
	resp.ControllerID = 0
	resp.ClusterID = kmsg.StringPtr("kfake")
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic = kmsg.StringPtr(topic)
	for p := range int32(3) {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition = p
		mp.Replicas = []int32{p, (p + 1) % 3, (p + 2) % 3}
		mp.ISR = mp.Replicas
		mp.Leader = mp.Replicas[0]
		if p == 0 && !preferred {
			mp.Leader = mp.Replicas[1]
		}
		mt.Partitions = append(mt.Partitions, mp)
	}
	resp.Topics = append(resp.Topics, mt)
	return resp
}

func TestEnsurePreferred(t *testing.T) {
	t.Run("already preferred", func(t *testing.T) {
		kc, a := fake(t, []Topic{orders})
		seedOrders(t, kc)
		elected, err := a.EnsurePreferred(bounded(t))
		if err != nil || elected {
			t.Errorf("EnsurePreferred = %v, %v; want no election needed", elected, err)
		}
		if ok, err := a.LeadersPreferred(bounded(t)); err != nil || !ok {
			t.Errorf("LeadersPreferred = %v, %v; want true", ok, err)
		}
	})
	t.Run("moved leader is elected back", func(t *testing.T) {
		kc, a := fake(t, []Topic{orders})
		elections := notPreferredUntilElected(kc, "orders")
		if ok, err := a.LeadersPreferred(bounded(t)); err != nil || ok {
			t.Fatalf("LeadersPreferred before = %v, %v; want false", ok, err)
		}
		elected, err := a.EnsurePreferred(bounded(t))
		if err != nil || !elected {
			t.Fatalf("EnsurePreferred = %v, %v; want an election", elected, err)
		}
		// One election, for every partition of the topic: the controller
		// skips those already led by their preferred replica.
		if got := elections(); len(got) != 1 || !slices.Equal(got[0], []int32{0, 1, 2}) {
			t.Errorf("elections asked for %v, want one of partitions [0 1 2]", got)
		}
		if ok, err := a.LeadersPreferred(bounded(t)); err != nil || !ok {
			t.Errorf("LeadersPreferred after = %v, %v; want true", ok, err)
		}
	})
}

func TestDescribe(t *testing.T) {
	kc, a := fake(t, []Topic{orders})
	ctx := bounded(t)
	seedOrders(t, kc)
	cl, err := kgo.NewClient(kgo.SeedBrokers(a.Bootstrap()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for range 5 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "orders", Partition: 2, Value: []byte("x")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	parts, err := a.Describe(ctx)
	if err != nil {
		t.Fatalf("Describe: %v", err)
	}
	var got []string
	for _, p := range parts {
		got = append(got, fmt.Sprintf("%s-%d leader %d replicas %s hw %d", p.Topic, p.Partition, p.Leader, JoinIDs(p.Replicas), p.HighWatermark))
	}
	want := []string{
		"orders-0 leader 0 replicas 0,1,2 hw 0",
		"orders-1 leader 1 replicas 1,2,0 hw 0",
		"orders-2 leader 2 replicas 2,0,1 hw 5",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Describe\n got %q\nwant %q", got, want)
	}
}

func TestClusterID(t *testing.T) {
	_, a := fake(t, nil, kfake.ClusterID("a2JmLWNsdXN0ZXItMDAwMQ"))
	id, err := a.ClusterID(bounded(t))
	if err != nil || id != "a2JmLWNsdXN0ZXItMDAwMQ" {
		t.Errorf("ClusterID = %q, %v; want the one kfake was made with", id, err)
	}
}

func TestBrokerConfigs(t *testing.T) {
	_, a := fake(t, nil, kfake.BrokerConfigs(map[string]string{"broker.session.timeout.ms": "4000"}))
	cfgs, err := a.BrokerConfigs(bounded(t))
	if err != nil {
		t.Fatalf("BrokerConfigs: %v", err)
	}
	if len(cfgs) != 3 {
		t.Errorf("configs of %d brokers, want 3", len(cfgs))
	}
	for id := range int32(3) {
		if v := cfgs[id]["broker.session.timeout.ms"]; v != "4000" {
			t.Errorf("broker %d: broker.session.timeout.ms = %q, want 4000", id, v)
		}
	}
}

func TestWaitLeadersAnswer(t *testing.T) {
	kc, a := fake(t, []Topic{orders})
	seedOrders(t, kc)
	// The first two answers say partition 1's leader has not taken over,
	// as a leader that has not applied its election yet does.
	refusals := 0
	kc.ControlKey(kmsg.ListOffsets.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		kc.KeepControl()
		if refusals >= 2 {
			return nil, nil, false
		}
		refusals++
		req := kreq.(*kmsg.ListOffsetsRequest)
		resp := req.ResponseKind().(*kmsg.ListOffsetsResponse)
		for _, rt := range req.Topics {
			st := kmsg.NewListOffsetsResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewListOffsetsResponseTopicPartition()
				sp.Partition = rp.Partition
				if rp.Partition == 1 {
					sp.ErrorCode = kerr.NotLeaderForPartition.Code
				}
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	if err := a.WaitLeadersAnswer(bounded(t)); err != nil {
		t.Errorf("WaitLeadersAnswer: %v", err)
	}
	if refusals < 2 {
		t.Errorf("the leaders were asked %d times before they answered, want at least 2 refusals", refusals)
	}
	err := a.WaitLeadersAnswer(short(t), "absent")
	if err == nil || !strings.Contains(err.Error(), "absent") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitLeadersAnswer(absent): %v, want a timeout naming the topic", err)
	}
}

// TestDescribeBy checks that DescribeBy asks the broker it names and no
// other: broker 0 here answers as one cut from the controller would, its
// own metadata still naming itself in every ISR, while brokers 1 and 2
// show it gone.
func TestDescribeBy(t *testing.T) {
	kc, a := fake(t, []Topic{orders})
	seedOrders(t, kc)
	kc.ControlKey(kmsg.DescribeTopicPartitions.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		kc.KeepControl()
		req := kreq.(*kmsg.DescribeTopicPartitionsRequest)
		resp := req.ResponseKind().(*kmsg.DescribeTopicPartitionsResponse)
		stale := kc.CurrentNode() == 0
		for _, rt := range req.Topics {
			st := kmsg.NewDescribeTopicPartitionsResponseTopic()
			st.Topic = kmsg.StringPtr(rt.Topic)
			for p := range int32(3) {
				sp := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
				sp.Partition = p
				sp.Replicas = []int32{p, (p + 1) % 3, (p + 2) % 3}
				sp.ISR, sp.LeaderID = sp.Replicas, p
				if !stale {
					sp.ISR = slices.DeleteFunc(slices.Clone(sp.Replicas), func(id int32) bool { return id == 0 })
					sp.LeaderID = sp.ISR[0]
				}
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	tests := []struct {
		name string
		by   int32
		want []string
	}{
		{"the broker cut from the controller", 0, []string{"0 leader 0 isr 0,1,2 hw -1", "1 leader 1 isr 1,2,0 hw -1", "2 leader 2 isr 2,0,1 hw -1"}},
		{"a broker that follows it", 1, []string{"0 leader 1 isr 1,2 hw -1", "1 leader 1 isr 1,2 hw -1", "2 leader 2 isr 2,1 hw -1"}},
		{"the other", 2, []string{"0 leader 1 isr 1,2 hw -1", "1 leader 1 isr 1,2 hw -1", "2 leader 2 isr 2,1 hw -1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Asked several times: an answer from any broker but the one
			// named would show within a few tries.
			for range 6 {
				parts, err := a.DescribeBy(bounded(t), tt.by, "orders")
				if err != nil {
					t.Fatalf("DescribeBy(%d): %v", tt.by, err)
				}
				var got []string
				for _, p := range parts {
					got = append(got, fmt.Sprintf("%d leader %d isr %s hw %d", p.Partition, p.Leader, JoinIDs(p.ISR), p.HighWatermark))
				}
				if !slices.Equal(got, tt.want) {
					t.Fatalf("DescribeBy(%d)\n got %q\nwant %q", tt.by, got, tt.want)
				}
			}
		})
	}
	if _, err := a.DescribeBy(bounded(t), 0); err == nil {
		t.Error("DescribeBy with no topic: no error")
	}
}
