package adminhealth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kbf-project/kbf/kafkaadmin"
	"github.com/kbf-project/kbf/results"
)

// TestCoordinator: a group's and a transactional id's coordinator are
// asked of the brokers (kfake, a Kafka in memory, of one broker, node 0);
// a kind kbf does not know is refused.
func TestCoordinator(t *testing.T) {
	kc, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	admin, err := kafkaadmin.New(kafkaadmin.Config{Brokers: []kafkaadmin.Broker{{ID: 0, Addr: kc.ListenAddrs()[0]}}})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h := New(admin)
	for _, kind := range []results.CoordinatorKind{results.CoordinatorGroup, results.CoordinatorTransaction} {
		if id, err := h.Coordinator(ctx, kind, "kbf-g"); err != nil || id != 0 {
			t.Errorf("Coordinator(%s) = %d, %v; want node 0", kind, id, err)
		}
	}
	if _, err := h.Coordinator(ctx, "share", "kbf-g"); err == nil || !strings.Contains(err.Error(), `coordinator of "share"`) {
		t.Errorf("Coordinator(share): %v, want a refusal", err)
	}
}
