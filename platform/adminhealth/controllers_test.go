package adminhealth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/kafkaadmin"
)

var (
	errUnreached = errors.New("dial tcp: i/o timeout")
	noLeader     = fmt.Errorf("2 of 3 controllers refused: %w", kafkaadmin.ErrNoQuorumLeader)
)

// TestControllersLeader runs a sequence of questions against controllers
// whose addresses and answers the case scripts, one per question.
func TestControllersLeader(t *testing.T) {
	type turn struct {
		addrs   []string // what a look-up finds; nil: no look-up expected
		answer  error    // the controllers' answer; nil: leader 101
		reached bool
		err     string // "" none
		asked   []string
	}
	c12 := []string{"10.0.0.1:9093", "10.0.0.2:9093"}
	for _, tc := range []struct {
		name  string
		turns []turn
	}{
		{name: "the leader answers; the addresses are kept", turns: []turn{
			{addrs: c12, reached: true, asked: c12},
			{reached: true, asked: c12},
		}},
		{name: "an election: looked up again, without the dead one", turns: []turn{
			{addrs: c12, reached: true, asked: c12},
			{answer: noLeader, reached: true, err: "no controller asked leads", asked: c12},
			{addrs: c12[1:], reached: true, asked: c12[1:]},
		}},
		{name: "never reached: the brokers from then on", turns: []turn{
			{addrs: c12, answer: errUnreached, err: "i/o timeout", asked: c12},
			{},
		}},
		{name: "unreached after it worked: still the controllers", turns: []turn{
			{addrs: c12, reached: true, asked: c12},
			{answer: errUnreached, reached: true, err: "i/o timeout", asked: c12},
			{addrs: c12, reached: true, asked: c12},
		}},
		{name: "no controller running at first: the brokers", turns: []turn{
			{addrs: []string{}, err: "no running controller"},
			{},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var i int
			var looked bool
			var asked []string
			c := &Controllers{
				addrs: func(context.Context) (map[int32]string, error) {
					looked = true
					m := map[int32]string{}
					for j, a := range tc.turns[i].addrs {
						m[int32(100+j)] = a
					}
					return m, nil
				},
				ask: func(_ context.Context, addrs []string) (kafkaadmin.Quorum, error) {
					asked = addrs
					if err := tc.turns[i].answer; err != nil {
						return kafkaadmin.Quorum{}, err
					}
					return kafkaadmin.Quorum{Leader: 101, Epoch: 4}, nil
				},
			}
			for i = range tc.turns {
				tn := tc.turns[i]
				looked, asked = false, nil
				q, reached, err := c.Leader(context.Background())
				if looked != (tn.addrs != nil) {
					t.Errorf("turn %d: looked the addresses up %v, want %v", i, looked, tn.addrs != nil)
				}
				if !slices.Equal(asked, tn.asked) {
					t.Errorf("turn %d: asked %v, want %v", i, asked, tn.asked)
				}
				if reached != tn.reached {
					t.Errorf("turn %d: reached %v, want %v", i, reached, tn.reached)
				}
				switch {
				case tn.err == "" && err != nil:
					t.Errorf("turn %d: %v", i, err)
				case tn.err != "" && (err == nil || !strings.Contains(err.Error(), tn.err)):
					t.Errorf("turn %d: error %v, want one saying %q", i, err, tn.err)
				case tn.err == "" && reached && q.Leader != 101:
					t.Errorf("turn %d: leader %d, want 101", i, q.Leader)
				}
			}
		})
	}
}

// fakeDirect answers as Controllers.Leader would.
type fakeDirect struct {
	q       kafkaadmin.Quorum
	reached bool
	err     error
}

func (f fakeDirect) Leader(context.Context) (kafkaadmin.Quorum, bool, error) {
	return f.q, f.reached, f.err
}

func TestActiveController(t *testing.T) {
	brokers := kafkaadmin.Quorum{Leader: 100, Epoch: 3} // the dead leader, as a broker still believes
	for _, tc := range []struct {
		name   string
		direct leaderAsker
		svc    string
		id     int32
		epoch  int32
		err    string
	}{
		{name: "brokers only", svc: "c1", id: 100, epoch: 3},
		{name: "the controllers name the new leader", direct: fakeDirect{q: kafkaadmin.Quorum{Leader: 101, Epoch: 4}, reached: true}, svc: "c2", id: 101, epoch: 4},
		{name: "an election under way: not the brokers' stale leader", direct: fakeDirect{reached: true, err: noLeader}, id: -1, epoch: -1, err: "no controller asked leads"},
		{name: "controllers not reached: the brokers", direct: fakeDirect{err: errUnreached}, svc: "c1", id: 100, epoch: 3},
		{name: "a leader kbf does not know", direct: fakeDirect{q: kafkaadmin.Quorum{Leader: 7, Epoch: 4}, reached: true}, id: 7, epoch: 4, err: "node 7, is no service"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := quorum{
				viaBrokers: func(context.Context) (kafkaadmin.Quorum, error) { return brokers, nil },
				direct:     tc.direct,
				node: func(id int32) (string, bool) {
					s, ok := map[int32]string{100: "c1", 101: "c2", 102: "c3"}[id]
					return s, ok
				},
				none: "no service of the cluster",
			}
			svc, id, epoch, err := q.ActiveController(context.Background())
			if svc != tc.svc || id != tc.id || epoch != tc.epoch {
				t.Errorf("ActiveController = %q %d %d, want %q %d %d", svc, id, epoch, tc.svc, tc.id, tc.epoch)
			}
			if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}
