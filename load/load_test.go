package load

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kbf-project/kbf/results"
)

// TestLoadBookkeeping runs a load against franz-go's fake cluster (no
// timing claimed of it): its topic made like the probe's, and what it
// sent, had acknowledged and read counted into load.csv, one row per
// second, the totals the rows' sums.
func TestLoadBookkeeping(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg := Config{Bootstrap: c.ListenAddrs(), Topic: "orders-load", Like: "orders", Rate: 200, Size: 100, Offered: "200/s"}
	var out bytes.Buffer
	l, err := New(context.Background(), cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	if s := l.Settings(); s.Topic != "orders-load" || s.Partitions != 3 || s.Rate != 200 || s.Size != 100 {
		t.Errorf("settings %+v: want orders-load with orders' 3 partitions", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	tot, err := l.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dec := results.NewLoadDecoder(strings.NewReader(out.String()), results.LoadFile)
	var sum Totals
	rows := 0
	for {
		var s results.LoadSecond
		err := dec.Decode(&s)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows++
		sum.Sent += s.Sent
		sum.Acked += s.Acked
		sum.Failed += s.Failed
		sum.Received += s.Received
	}
	sum.FirstErr = tot.FirstErr
	if rows < 2 || sum != tot {
		t.Errorf("%d rows summing to %+v; totals %+v", rows, sum, tot)
	}
	if tot.Sent == 0 || tot.Acked == 0 || tot.Received == 0 || tot.Acked+tot.Failed > tot.Sent {
		t.Errorf("totals %+v: want records sent, acknowledged and read", tot)
	}
	// A second load finds the topic made.
	l2, err := New(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	l2.Close()
}

// TestLoadNeedsTheProbeTopic: a load cannot be made like a topic that is
// not there.
func TestLoadNeedsTheProbeTopic(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = New(context.Background(), Config{Bootstrap: c.ListenAddrs(), Topic: "x-load", Like: "x", Rate: 1, Size: 1}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not there") {
		t.Errorf("got %v, want the probe's topic missing", err)
	}
}
