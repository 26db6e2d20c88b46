package replicas

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/results"
)

// TestSamplerReadsBack runs the sampler against kfake (which has leaders and
// offsets but no ISR semantics) and reads its rows back: every broker's
// replica LEO equals what was produced, the leader's rows carry the HW, and
// the state rows name the leader.
func TestSamplerReadsBack(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(2, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	prod, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	const n = 7
	for i := 0; i < n; i++ {
		if err := prod.ProduceSync(ctx, &kgo.Record{Topic: "orders", Partition: 1, Value: []byte("x")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	prod.Close()

	var buf syncBuffer
	s, err := New(ctx, Config{Bootstrap: c.ListenAddrs(), Topic: "orders", Interval: 10 * time.Millisecond}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := len(s.Brokers()); got != 3 {
		t.Fatalf("brokers: got %d, want 3", got)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan results.ReplicaStats)
	go func() {
		st, err := s.Run(runCtx)
		if err != nil {
			t.Error(err)
		}
		done <- st
	}()
	// Stop once every broker and the state have answered at least twice.
	for {
		s.mu.Lock()
		enough := s.stats.StateLongestGap > 0 && len(s.stats.LongestGap) == 3
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
	st := <-done
	if st.Rows == 0 {
		t.Fatal("no samples counted")
	}

	leader1 := int32(-1)
	leos := map[int32]int64{}
	hw := int64(-1)
	d := results.NewReplicaDecoder(bytes.NewReader(buf.Bytes()), results.ReplicasFile)
	for {
		var r results.ReplicaSample
		err := d.Decode(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
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
