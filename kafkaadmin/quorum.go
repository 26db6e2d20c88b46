package kafkaadmin

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// QuorumLeader asks the controller quorum, through a broker (which
// forwards DescribeQuorum to it), which controller leads the metadata log
// and at which epoch: the active controller a controller fault aims at.
func (c *Admin) QuorumLeader(ctx context.Context) (leader, epoch int32, err error) {
	cl, err := c.client()
	if err != nil {
		return 0, 0, err
	}
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = "__cluster_metadata"
	p := kmsg.NewDescribeQuorumRequestTopicPartition()
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, 0, fmt.Errorf("describe quorum: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return 0, 0, fmt.Errorf("describe quorum: %w", err)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return 0, 0, fmt.Errorf("describe quorum: %d topics in the answer, want the metadata log's one partition", len(resp.Topics))
	}
	part := resp.Topics[0].Partitions[0]
	if err := kerr.ErrorForCode(part.ErrorCode); err != nil {
		return 0, 0, fmt.Errorf("describe quorum: %w", err)
	}
	return part.LeaderID, part.LeaderEpoch, nil
}
