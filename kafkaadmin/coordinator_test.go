package kafkaadmin

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// answerCoordinator answers every FindCoordinator with errs in turn, then
// with node: what a cluster says while __consumer_offsets is being made.
func answerCoordinator(kc *kfake.Cluster, node int32, errs ...*kerr.Error) *atomic.Int32 {
	var asked atomic.Int32
	kc.ControlKey(kmsg.FindCoordinator.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		kc.KeepControl()
		req := kreq.(*kmsg.FindCoordinatorRequest)
		n := int(asked.Add(1)) - 1
		resp := req.ResponseKind().(*kmsg.FindCoordinatorResponse)
		for _, k := range req.CoordinatorKeys {
			c := kmsg.NewFindCoordinatorResponseCoordinator()
			c.Key, c.NodeID, c.Host, c.Port = k, node, "127.0.0.1", 1
			if n < len(errs) {
				c.NodeID, c.ErrorCode = -1, errs[n].Code
			}
			resp.Coordinators = append(resp.Coordinators, c)
		}
		return resp, nil, true
	})
	return &asked
}

func TestGroupCoordinator(t *testing.T) {
	kc, a := fake(t, nil)
	asked := answerCoordinator(kc, 2, kerr.CoordinatorNotAvailable)
	id, err := a.GroupCoordinator(bounded(t), "kbf-g")
	if err != nil || id != 2 {
		t.Errorf("GroupCoordinator = %d, %v; want 2 once the coordinator is available", id, err)
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("asked %d times, want 2: once refused as not available yet, once answered", n)
	}
}

func TestTxnCoordinator(t *testing.T) {
	kc, a := fake(t, nil)
	answerCoordinator(kc, 1)
	if id, err := a.TxnCoordinator(bounded(t), "kbf-tx"); err != nil || id != 1 {
		t.Errorf("TxnCoordinator = %d, %v; want 1", id, err)
	}
}

// TestCoordinatorRefused: a refusal asking again will not change ends the
// wait at once, naming the group.
func TestCoordinatorRefused(t *testing.T) {
	kc, a := fake(t, nil)
	answerCoordinator(kc, 2, kerr.GroupAuthorizationFailed, kerr.GroupAuthorizationFailed)
	_, err := a.GroupCoordinator(bounded(t), "kbf-g")
	if err == nil || !strings.Contains(err.Error(), "the coordinator of group kbf-g") || !errors.Is(err, kerr.GroupAuthorizationFailed) {
		t.Errorf("GroupCoordinator: %v, want the authorization refusal naming the group", err)
	}
}

// TestCoordinatorKfake: kfake's own answer is one of its brokers.
func TestCoordinatorKfake(t *testing.T) {
	_, a := fake(t, nil)
	id, err := a.GroupCoordinator(bounded(t), "kbf-g")
	if err != nil || id < 0 || id > 2 {
		t.Errorf("GroupCoordinator = %d, %v; want one of nodes 0 to 2", id, err)
	}
}
