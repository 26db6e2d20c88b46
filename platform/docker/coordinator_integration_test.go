//go:build integration

// This test needs the Docker engine and the image ($KBF_IMAGE, e.g.
// kbf/kafka:4.3.1, built by make image). It brings kbf's own cluster up
// (project kbf, its fixed ports), or reuses the one that runs, and takes
// down only a cluster it made:
//
//	KBF_IMAGE=kbf/kafka:4.3.1 go test -tags integration ./platform/docker/ -run Integration -v -timeout 15m

package docker

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/internal/testsupport/testkafka"
	"github.com/kbf-project/kbf/results"
)

// TestCoordinatorIntegration: the target names, for a group and for a
// transactional id, the broker kadm's FindCoordinator names, one of the
// cluster's brokers; a group's is the leader of the __consumer_offsets
// partition its id hashes to, as Kafka places it.
func TestCoordinatorIntegration(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tg, err := New(compose.Options{Image: testkafka.Image(compose.DefaultImage)})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	uctx, ucancel := context.WithTimeout(ctx, 4*time.Minute)
	up, err := tg.Cluster.Up(uctx)
	ucancel()
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	if !up.Reused {
		t.Cleanup(func() {
			dctx, dcancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer dcancel()
			if _, err := tg.Down(dctx); err != nil {
				t.Errorf("Down: %v", err)
			}
		})
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(tg.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	brokers := map[int32]string{}
	for svc, id := range tg.Brokers() {
		brokers[id] = svc
	}

	group := fmt.Sprintf("kbf-coordinator-%d", time.Now().UnixNano())
	for _, c := range []struct {
		kind results.CoordinatorKind
		key  string
		kadm func(context.Context, ...string) kadm.FindCoordinatorResponses
	}{
		{results.CoordinatorGroup, group, adm.FindGroupCoordinators},
		{results.CoordinatorTransaction, group + "-tx", adm.FindTxnCoordinators},
	} {
		qctx, qcancel := context.WithTimeout(ctx, time.Minute)
		id, err := tg.Coordinator(qctx, c.kind, c.key)
		qcancel()
		if err != nil {
			t.Fatalf("Coordinator(%s %s): %v", c.kind, c.key, err)
		}
		if _, ok := brokers[id]; !ok {
			t.Errorf("%s %s: coordinator node %d, not one of the brokers %v", c.kind, c.key, id, brokers)
		}
		r := c.kadm(ctx, c.key)[c.key]
		if r.Err != nil || r.NodeID != id {
			t.Errorf("%s %s: the target says node %d, kadm node %d (%v)", c.kind, c.key, id, r.NodeID, r.Err)
		}
		t.Logf("%s %s: node %d (%s)", c.kind, c.key, id, brokers[id])
	}

	// Kafka places a group on __consumer_offsets partition
	// Utils.abs(hashCode(group)) % partitions; its leader coordinates it.
	td, err := adm.ListTopics(ctx, "__consumer_offsets")
	if err != nil || td["__consumer_offsets"].Err != nil {
		t.Fatalf("describe __consumer_offsets: %v %v", err, td["__consumer_offsets"].Err)
	}
	parts := td["__consumer_offsets"].Partitions
	p := javaAbs(javaHash(group)) % int32(len(parts))
	id, err := tg.Coordinator(ctx, results.CoordinatorGroup, group)
	if err != nil || parts[p].Leader != id {
		t.Errorf("group %s: coordinator %d (%v), want __consumer_offsets-%d's leader %d", group, id, err, p, parts[p].Leader)
	}
}

// javaHash is Java's String.hashCode of an ASCII s.
func javaHash(s string) int32 {
	var h int32
	for i := range len(s) {
		h = 31*h + int32(s[i])
	}
	return h
}

// javaAbs is Kafka's Utils.abs: the absolute value, 0 for the least int.
func javaAbs(n int32) int32 {
	switch {
	case n == math.MinInt32:
		return 0
	case n < 0:
		return -n
	}
	return n
}
