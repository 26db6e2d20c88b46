package kafkaadmin

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// GroupCoordinator is the node id of the broker coordinating consumer
// group group now, as FindCoordinator answers: the leader of the
// __consumer_offsets partition the group's id hashes to. The group need
// not exist. A retriable answer (the internal topic still being made, its
// leader moving) is asked again until ctx ends.
func (c *Admin) GroupCoordinator(ctx context.Context, group string) (int32, error) {
	return c.coordinator(ctx, "group "+group, func(ctx context.Context, adm *kadm.Client) kadm.FindCoordinatorResponses {
		return adm.FindGroupCoordinators(ctx, group)
	}, group)
}

// TxnCoordinator is the node id of the broker coordinating transactional
// id id now, as FindCoordinator answers, asked again as GroupCoordinator
// is.
func (c *Admin) TxnCoordinator(ctx context.Context, id string) (int32, error) {
	return c.coordinator(ctx, "transactional id "+id, func(ctx context.Context, adm *kadm.Client) kadm.FindCoordinatorResponses {
		return adm.FindTxnCoordinators(ctx, id)
	}, id)
}

func (c *Admin) coordinator(ctx context.Context, what string, find func(context.Context, *kadm.Client) kadm.FindCoordinatorResponses, key string) (int32, error) {
	if key == "" {
		return -1, fmt.Errorf("the coordinator of %s: no key", what)
	}
	cl, err := c.client()
	if err != nil {
		return -1, err
	}
	adm := kadm.NewClient(cl)
	id := int32(-1)
	err = poll(ctx, "the coordinator of "+what, func(ctx context.Context) (bool, string, error) {
		r, ok := find(ctx, adm)[key]
		switch {
		case !ok:
			return false, "no answer for " + key, nil
		case r.Err == nil:
			id = r.NodeID
			return true, "", nil
		}
		// Kafka's own refusals that asking again will not change (no
		// authorization, a bad request) end the wait; a retriable one or a
		// lost connection is asked again.
		var ke *kerr.Error
		if errors.As(r.Err, &ke) && !ke.Retriable {
			return false, "", finalError{fmt.Errorf("the coordinator of %s: %w", what, r.Err)}
		}
		return false, r.Err.Error(), nil
	})
	if err != nil {
		return -1, err
	}
	return id, nil
}
