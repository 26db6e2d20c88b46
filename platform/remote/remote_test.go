package remote

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/kafkaadmin"
	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/results"
)

func TestSupports(t *testing.T) {
	for _, k := range results.FaultKinds() {
		t.Run(string(k), func(t *testing.T) {
			err := (&Cluster{}).Supports(k, "")
			if k == results.FaultExternal {
				if err != nil {
					t.Errorf("external refused: %v", err)
				}
				return
			}
			if !errors.Is(err, cluster.ErrUnsupported) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v, want one line wrapping ErrUnsupported", k, err)
			}
		})
	}
}

// TestReachable: one line per broker kbf cannot reach where it advertises
// itself, naming it, the address and why: nothing listening, or a port
// that takes connections but is no Kafka listener kbf can speak to; none
// for a Kafka broker. The brokers are asked all at once.
func TestReachable(t *testing.T) {
	kafka, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer kafka.Close()
	good := kafka.ListenAddrs()[0]
	// A listener that never accepts: the kernel completes the TCP
	// handshake, and nothing answers.
	mute, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	silent := mute.Addr().String()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := closed.Addr().String()
	closed.Close()
	tls, err := kafkasec.FromProperties("client.properties", []kafkasec.Property{{Key: "security.protocol", Value: kafkasec.SSL, Line: 1}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		brokers []kafkaadmin.Broker
		sec     *kafkasec.Config
		lines   []string
	}{
		{"a Kafka broker", []kafkaadmin.Broker{{ID: 1, Addr: good}}, nil, nil},
		{"nothing listening", []kafkaadmin.Broker{{ID: 1, Addr: good}, {ID: 2, Addr: gone}},
			nil, []string{"broker 2 is unreachable at " + gone + ", the address it advertises: dial tcp"}},
		{"a port that takes connections and says nothing", []kafkaadmin.Broker{{ID: 3, Addr: silent}},
			nil, []string{"broker 3 is unreachable at " + silent + ", the address it advertises: it takes connections but answered no Kafka request within 1s", "(PLAINTEXT)"}},
		// kfake waits for the rest of what it takes for a request; Kafka
		// closes the connection, which kafkasec.Explain names.
		{"TLS spoken to a plain listener", []kafkaadmin.Broker{{ID: 1, Addr: good}},
			tls, []string{"broker 1 is unreachable at " + good + ", the address it advertises: it takes connections but answered no Kafka request", "(SSL)"}},
		{"every broker, each on its line", []kafkaadmin.Broker{{ID: 2, Addr: gone}, {ID: 3, Addr: silent}, {ID: 4, Addr: gone}},
			nil, []string{"broker 2 is unreachable", "broker 3 is unreachable", "broker 4 is unreachable"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			err := Reachable(context.Background(), tc.brokers, time.Second, tc.sec)
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("took %v: the brokers are asked at once, a second each", took)
			}
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
			if tc.name != "every broker, each on its line" {
				if len(got) != 1 {
					t.Fatalf("%d lines, want 1: %q", len(got), got)
				}
				for _, want := range tc.lines {
					if !strings.Contains(got[0], want) {
						t.Errorf("%q, want it to say %q", got[0], want)
					}
				}
				return
			}
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

// TestNewAdvertised: the brokers are reached where they advertise
// themselves on the listener kbf bootstrapped on, as they say it, not at
// the bootstrap address kbf was given.
func TestNewAdvertised(t *testing.T) {
	kafka, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	defer kafka.Close()
	_, port, _ := net.SplitHostPort(kafka.ListenAddrs()[0])
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tg, err := New(ctx, Options{Bootstrap: []string{"localhost:" + port}, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	got, want := tg.Bootstrap(), kafka.ListenAddrs()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("bootstrap %v, want the advertised %v", got, want)
	}
	if b := tg.Brokers(); len(b) != 3 {
		t.Errorf("brokers %v, want 3", b)
	}
}

// TestViewSilentBroker: every broker is asked for the view; one that does
// not answer in time is named Silent, and the view is the others'. kfake
// stands in for the brokers' answers only: nothing here is about Kafka.
func TestViewSilentBroker(t *testing.T) {
	kafka, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(2, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer kafka.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tg, err := New(ctx, Options{Bootstrap: kafka.ListenAddrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var silent atomic.Int32
	silent.Store(-1)
	kafka.ControlKey(int16(kmsg.DescribeCluster), func(kmsg.Request) (kmsg.Response, error, bool) {
		kafka.KeepControl()
		if kafka.CurrentNode() == silent.Load() {
			// Past the view's 2 s; the other brokers answer meanwhile.
			kafka.SleepControl(func() { time.Sleep(3 * time.Second) })
		}
		return nil, nil, false
	})
	v, err := tg.View(ctx, "orders")
	if err != nil || len(v.Silent) != 0 || len(v.Partitions) != 2 {
		t.Fatalf("view %+v (%v): want both partitions, no broker silent", v, err)
	}
	silent.Store(0) // kfake numbers its brokers from 0
	v, err = tg.View(ctx, "orders")
	if err != nil || !slices.Equal(v.Silent, []int32{0}) || len(v.Partitions) != 2 {
		t.Errorf("view %+v (%v): want broker 0 silent, the partitions from the others", v, err)
	}
}
