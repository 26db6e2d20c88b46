package kafkaadmin

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// describeQuorumAnswer is a DescribeQuorum answer: the leader's (code 0)
// or a refusal at the top or the partition level.
func describeQuorumAnswer(top, part int16, leader, epoch int32) *kmsg.DescribeQuorumResponse {
	resp := kmsg.NewPtrDescribeQuorumResponse()
	resp.ErrorCode = top
	t := kmsg.NewDescribeQuorumResponseTopic()
	t.Topic = "__cluster_metadata"
	p := kmsg.NewDescribeQuorumResponseTopicPartition()
	p.ErrorCode, p.LeaderID, p.LeaderEpoch = part, leader, epoch
	t.Partitions = append(t.Partitions, p)
	resp.Topics = append(resp.Topics, t)
	return resp
}

func TestQuorumOfRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		resp    *kmsg.DescribeQuorumResponse
		leader  int32
		refusal bool // a controller that does not lead
		err     string
	}{
		{name: "the leader", resp: describeQuorumAnswer(0, 0, 101, 7), leader: 101},
		{name: "a follower since Kafka 3.8", resp: describeQuorumAnswer(0, kerr.NotLeaderForPartition.Code, -1, 0), refusal: true, err: "NOT_LEADER"},
		{name: "a follower before", resp: describeQuorumAnswer(kerr.InvalidRequest.Code, 0, 0, 0), refusal: true, err: "INVALID_REQUEST"},
		{name: "another error", resp: describeQuorumAnswer(kerr.ClusterAuthorizationFailed.Code, 0, 0, 0), err: "CLUSTER_AUTHORIZATION_FAILED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := quorumOf(tc.resp)
			if tc.err == "" {
				if err != nil || q.Leader != tc.leader {
					t.Fatalf("leader %d, %v; want %d", q.Leader, err, tc.leader)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one saying %s", err, tc.err)
			}
			if refusal(err) != tc.refusal {
				t.Errorf("refusal(%v) = %v, want %v", err, !tc.refusal, tc.refusal)
			}
		})
	}
}

func TestFirstLeader(t *testing.T) {
	leader := func(id, epoch int32) answer {
		return answer{addr: "leader", q: Quorum{Leader: id, Epoch: epoch}}
	}
	refused := answer{addr: "follower", err: kerr.NotLeaderForPartition}
	dead := answer{addr: "dead", err: errors.New("dial tcp: no route to host")}
	for _, tc := range []struct {
		name     string
		answers  []answer // in the order they arrive
		leader   int32
		noLeader bool   // the error wraps ErrNoQuorumLeader
		err      string // else the error says this
	}{
		{name: "the leader answers first", answers: []answer{leader(101, 7), refused, dead}, leader: 101},
		{name: "the leader after a refusal and the dead one", answers: []answer{dead, refused, leader(102, 8)}, leader: 102},
		{name: "the first leader wins", answers: []answer{leader(101, 7), leader(102, 8)}, leader: 101},
		{name: "an election under way", answers: []answer{refused, dead, refused}, noLeader: true, err: "2 of 3 controllers refused, 1 did not answer"},
		{name: "no controller reached", answers: []answer{dead, {addr: "other", err: errors.New("connection refused")}}, err: "controller at dead: dial tcp: no route to host\ncontroller at other: connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := make(chan answer, len(tc.answers))
			for _, a := range tc.answers {
				ch <- a
			}
			q, err := firstLeader(len(tc.answers), ch)
			if tc.err == "" {
				if err != nil || q.Leader != tc.leader {
					t.Fatalf("leader %d, %v; want %d", q.Leader, err, tc.leader)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one saying %q", err, tc.err)
			}
			if errors.Is(err, ErrNoQuorumLeader) != tc.noLeader {
				t.Errorf("errors.Is(%v, ErrNoQuorumLeader) = %v, want %v", err, !tc.noLeader, tc.noLeader)
			}
		})
	}
}

func TestControllerPort(t *testing.T) {
	for _, tc := range []struct {
		name             string
		listeners, names string
		port             int
		ok               bool
	}{
		{name: "a controller", listeners: "CONTROLLER://:9093", names: "CONTROLLER", port: 9093, ok: true},
		{name: "combined", listeners: "INTERNAL://:9092,EXTERNAL://:19092,CONTROLLER://:9093", names: "CONTROLLER", port: 9093, ok: true},
		{name: "a host, spaces, the first name", listeners: "PLAINTEXT://:9092, ctl://0.0.0.0:29093", names: " CTL ,OTHER", port: 29093, ok: true},
		{name: "a broker has the name, not the listener", listeners: "INTERNAL://:9092,EXTERNAL://:19092", names: "CONTROLLER"},
		{name: "no listener names", listeners: "CONTROLLER://:9093"},
		{name: "no port", listeners: "CONTROLLER://c1", names: "CONTROLLER"},
		{name: "not a port", listeners: "CONTROLLER://:99999", names: "CONTROLLER"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port, ok := ControllerPort(tc.listeners, tc.names)
			if port != tc.port || ok != tc.ok {
				t.Errorf("ControllerPort = %d, %v; want %d, %v", port, ok, tc.port, tc.ok)
			}
		})
	}
}

func TestControllersForget(t *testing.T) {
	for _, tc := range []struct {
		name        string
		had, asking []string
		kept        []string
	}{
		{name: "a controller gone", had: []string{"10.0.0.1:9093", "10.0.0.2:9093"}, asking: []string{"10.0.0.2:9093"}, kept: []string{"10.0.0.2:9093"}},
		{name: "back at another address", had: []string{"10.0.0.1:9093"}, asking: []string{"10.0.0.7:9093"}},
		{name: "the same ones", had: []string{"10.0.0.1:9093"}, asking: []string{"10.0.0.1:9093"}, kept: []string{"10.0.0.1:9093"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewControllers(nil)
			defer c.Close()
			for _, a := range tc.had {
				if _, err := c.client(a); err != nil { // no connection yet
					t.Fatal(err)
				}
			}
			c.forget(tc.asking)
			var kept []string
			for a := range c.clients {
				kept = append(kept, a)
			}
			slices.Sort(kept)
			if !slices.Equal(kept, tc.kept) {
				t.Errorf("clients kept for %v, want %v", kept, tc.kept)
			}
		})
	}
}
