package kafkaadmin

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Quorum is the controller quorum as its leader describes it.
type Quorum struct {
	Leader, Epoch int32
	HighWatermark int64
	Voters        []Voter
}

// Voter is one voter of the quorum as the leader sees it.
type Voter struct {
	ID           int32
	LogEndOffset int64
	// LastCaughtUp is when the voter last fetched up to the leader's log
	// end, by the leader's clock; zero when never, or when the leader has
	// not told.
	LastCaughtUp time.Time
}

// DescribeQuorum asks the controller quorum, through a broker (which
// forwards DescribeQuorum to it), which controller leads the metadata log,
// at which epoch, and how far each voter has followed it.
func (c *Admin) DescribeQuorum(ctx context.Context) (Quorum, error) {
	cl, err := c.client()
	if err != nil {
		return Quorum{}, err
	}
	resp, err := describeQuorumRequest().RequestWith(ctx, cl)
	if err != nil {
		return Quorum{}, fmt.Errorf("describe quorum: %w", err)
	}
	q, err := quorumOf(resp)
	if err != nil {
		return Quorum{}, fmt.Errorf("describe quorum: %w", err)
	}
	return q, nil
}

// describeQuorumRequest asks about the metadata log's one partition.
func describeQuorumRequest() *kmsg.DescribeQuorumRequest {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = "__cluster_metadata"
	p := kmsg.NewDescribeQuorumRequestTopicPartition()
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}

// quorumOf reads a DescribeQuorum answer; its error is the answer's own
// (a controller that does not lead refuses the question).
func quorumOf(resp *kmsg.DescribeQuorumResponse) (Quorum, error) {
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return Quorum{}, err
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return Quorum{}, fmt.Errorf("%d topics in the answer, want the metadata log's one partition", len(resp.Topics))
	}
	part := resp.Topics[0].Partitions[0]
	if err := kerr.ErrorForCode(part.ErrorCode); err != nil {
		return Quorum{}, err
	}
	q := Quorum{Leader: part.LeaderID, Epoch: part.LeaderEpoch, HighWatermark: part.HighWatermark}
	for _, v := range part.CurrentVoters {
		vt := Voter{ID: v.ReplicaID, LogEndOffset: v.LogEndOffset}
		if v.LastCaughtUpTimestamp > 0 {
			vt.LastCaughtUp = time.UnixMilli(v.LastCaughtUpTimestamp).UTC()
		}
		q.Voters = append(q.Voters, vt)
	}
	return q, nil
}

// CaughtUpSince reports whether voter id has fetched up to the leader's log
// end since since: a controller restarted at since has rejoined the quorum.
// The string says where it stands when it has not.
func (q Quorum) CaughtUpSince(id int32, since time.Time) (bool, string) {
	for _, v := range q.Voters {
		if v.ID != id {
			continue
		}
		// The leader's clock keeps milliseconds.
		if !v.LastCaughtUp.IsZero() && !v.LastCaughtUp.Before(since.Truncate(time.Millisecond)) {
			return true, ""
		}
		return false, fmt.Sprintf("voter %d at offset %d of the leader's high watermark %d, last caught up %s",
			id, v.LogEndOffset, q.HighWatermark, v.LastCaughtUp.Format(time.RFC3339Nano))
	}
	return false, fmt.Sprintf("node %d is not among the quorum's voters", id)
}
