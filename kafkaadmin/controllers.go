package kafkaadmin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbf-project/kbf/kafkasec"
)

// ErrNoQuorumLeader says that controllers answered and none of them leads
// the metadata quorum: it is electing one, or the leader was not asked.
var ErrNoQuorumLeader = errors.New("no controller asked leads the quorum")

// Controllers asks the controllers themselves about the metadata quorum,
// on their own listener, as kafka-metadata-quorum --bootstrap-controller
// does (KIP-919, Kafka 3.7 and later). A broker forwards DescribeQuorum to
// the controller it believes leads, which after that controller died is
// the dead one until the broker's own view moves on, seconds later; the
// controllers know at once, since the new leader answers as soon as it is
// elected and the others refuse the question. It keeps one client per
// address, made on first use; Close closes them.
type Controllers struct {
	sec *kafkasec.Config

	mu      sync.Mutex // guards clients
	clients map[string]*kgo.Client
}

// NewControllers asks controllers secured as sec says (nil: PLAINTEXT).
func NewControllers(sec *kafkasec.Config) *Controllers {
	return &Controllers{sec: sec, clients: map[string]*kgo.Client{}}
}

// Leader asks the controllers at addrs, all at once, and returns the
// quorum as the first one that leads it describes it, without waiting for
// the others (a killed controller's address may answer nothing until ctx
// ends). Raft has at most one leader per epoch, so a caller that wants a
// leader newer than one it knew compares epochs. When every controller
// answered and none leads, the error wraps ErrNoQuorumLeader; when none
// answered at all, it holds each one's error.
func (c *Controllers) Leader(ctx context.Context, addrs []string) (Quorum, error) {
	if len(addrs) == 0 {
		return Quorum{}, errors.New("no controller address to ask")
	}
	c.forget(addrs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // the others' questions, once one has answered
	answers := make(chan answer, len(addrs))
	for _, addr := range addrs {
		go func() {
			q, err := c.ask(ctx, addr)
			answers <- answer{addr: addr, q: q, err: err}
		}()
	}
	return firstLeader(len(addrs), answers)
}

// answer is one controller's answer to DescribeQuorum.
type answer struct {
	addr string
	q    Quorum
	err  error
}

// firstLeader reads n answers and returns the first that describes the
// quorum: only its leader does. Refusals (the controller does not lead)
// make ErrNoQuorumLeader; any other failure is the controller's error,
// reported only when no controller answered at all, since the controller a
// fault killed is among those asked.
func firstLeader(n int, answers <-chan answer) (Quorum, error) {
	var errs []error
	refused := 0
	for range n {
		a := <-answers
		switch {
		case a.err == nil:
			return a.q, nil
		case refusal(a.err):
			refused++
		default:
			errs = append(errs, fmt.Errorf("controller at %s: %w", a.addr, a.err))
		}
	}
	if refused > 0 {
		return Quorum{}, fmt.Errorf("%d of %d controllers refused, %d did not answer: %w", refused, n, n-refused, ErrNoQuorumLeader)
	}
	return Quorum{}, fmt.Errorf("describe quorum: %w", errors.Join(errs...))
}

// refusal reports whether err is how a controller that does not lead the
// quorum answers DescribeQuorum: NOT_LEADER_OR_FOLLOWER since Kafka 3.8,
// INVALID_REQUEST before.
func refusal(err error) bool {
	return errors.Is(err, kerr.NotLeaderForPartition) || errors.Is(err, kerr.InvalidRequest)
}

// ask sends DescribeQuorum to the controller at addr itself: to the
// client's seed, which needs no metadata (a controller answers none).
func (c *Controllers) ask(ctx context.Context, addr string) (Quorum, error) {
	cl, err := c.client(addr)
	if err != nil {
		return Quorum{}, err
	}
	seeds := cl.SeedBrokers()
	if len(seeds) != 1 {
		return Quorum{}, fmt.Errorf("controller at %s: %d seed brokers, want 1", addr, len(seeds))
	}
	resp, err := seeds[0].Request(ctx, describeQuorumRequest())
	if err != nil {
		return Quorum{}, err
	}
	dq, ok := resp.(*kmsg.DescribeQuorumResponse)
	if !ok {
		return Quorum{}, fmt.Errorf("controller at %s answered DescribeQuorum with %T", addr, resp)
	}
	return quorumOf(dq)
}

func (c *Controllers) client(addr string) (*kgo.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.clients[addr]; ok {
		return cl, nil
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(addr),
		kgo.ClientID("kbf-quorum"),
	}, c.sec.KgoOpts()...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka client for controller at %s: %w", addr, err)
	}
	c.clients[addr] = cl
	return cl, nil
}

// forget closes the clients of addresses not in addrs: a controller
// restarted may come back at another address, and a benchmark's trials
// would otherwise keep a client for each one it had.
func (c *Controllers) forget(addrs []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for addr, cl := range c.clients {
		if !slices.Contains(addrs, addr) {
			cl.Close()
			delete(c.clients, addr)
		}
	}
}

// Close closes the clients; the next question makes them anew.
func (c *Controllers) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for addr, cl := range c.clients {
		cl.Close()
		delete(c.clients, addr)
	}
}

// ControllerPort is the port of a node's controller listener, from its
// listeners and controller.listener.names settings as they are written
// (CONTROLLER://:9093 and CONTROLLER): the first name's listener. A
// broker-only node has the name but not the listener, and says false.
func ControllerPort(listeners, names string) (int, bool) {
	name, _, _ := strings.Cut(names, ",")
	name = strings.TrimSpace(name)
	if name == "" {
		return 0, false
	}
	for _, l := range strings.Split(listeners, ",") {
		proto, hostport, ok := strings.Cut(strings.TrimSpace(l), "://")
		if !ok || !strings.EqualFold(proto, name) {
			continue
		}
		_, p, err := net.SplitHostPort(hostport)
		if err != nil {
			return 0, false
		}
		port, err := strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return 0, false
		}
		return port, true
	}
	return 0, false
}
