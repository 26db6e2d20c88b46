package adminhealth

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kbf-project/kbf/kafkaadmin"
	"github.com/kbf-project/kbf/kafkasec"
)

// How long a question to the controllers themselves may take: the first,
// which decides whether they are reached at all, and the others, which
// run every 100 ms while a controller fault is watched. A controller that
// was just killed answers nothing; its address is left out once the
// addresses are looked up again, after the first question it spoiled.
const (
	firstAskTimeout = 2 * time.Second
	askTimeout      = 500 * time.Millisecond
)

// Controllers asks a cluster's controllers themselves which of them leads
// the metadata quorum (kafkaadmin.Controllers), at the addresses addrs
// gives by node id: the running controllers, as the target finds them.
// The addresses are kept until a question finds no leader among them,
// then looked up again (a controller killed drops out, one restarted may
// come back elsewhere). When the first question reaches no controller at
// all (their addresses are not routed from where kbf runs), it gives up
// for good and Quorum asks the brokers.
type Controllers struct {
	ask   func(ctx context.Context, addrs []string) (kafkaadmin.Quorum, error)
	addrs func(ctx context.Context) (map[int32]string, error)
	close func()

	mu      sync.Mutex
	known   []string // the addresses last looked up; nil: look again
	reached bool     // a controller has answered: the path works
	off     bool     // the first question reached none: ask the brokers
}

// NewControllers asks, secured as sec says, the controllers addrs finds.
func NewControllers(sec *kafkasec.Config, addrs func(ctx context.Context) (map[int32]string, error)) *Controllers {
	ask := kafkaadmin.NewControllers(sec)
	return &Controllers{ask: ask.Leader, addrs: addrs, close: ask.Close}
}

// Leader asks the controllers for the quorum as its leader describes it.
// reached is false when no controller was reached, now or at the first
// question: the caller then asks the brokers. A quorum without a leader,
// as the controllers reached say, is an error wrapping
// kafkaadmin.ErrNoQuorumLeader, with reached true.
func (c *Controllers) Leader(ctx context.Context) (q kafkaadmin.Quorum, reached bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off {
		return kafkaadmin.Quorum{}, false, nil
	}
	if c.known == nil {
		m, err := c.addrs(ctx)
		if err != nil && len(m) == 0 {
			return kafkaadmin.Quorum{}, c.reached, err
		}
		c.known = slices.Sorted(maps.Values(m))
	}
	if len(c.known) == 0 {
		c.known = nil
		c.off = !c.reached
		return kafkaadmin.Quorum{}, c.reached, errors.New("no running controller found")
	}
	limit := askTimeout
	if !c.reached {
		limit = firstAskTimeout
	}
	actx, cancel := context.WithTimeout(ctx, limit)
	q, err = c.ask(actx, c.known)
	cancel()
	switch {
	case err == nil:
		c.reached = true
		return q, true, nil
	case errors.Is(err, kafkaadmin.ErrNoQuorumLeader):
		c.reached = true
	case ctx.Err() == nil && !c.reached:
		c.off = true
	}
	c.known = nil
	return kafkaadmin.Quorum{}, c.reached, err
}

// Close closes the clients.
func (c *Controllers) Close() {
	if c.close != nil {
		c.close()
	}
}
