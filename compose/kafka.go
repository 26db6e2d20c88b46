package compose

import (
	"context"
	"fmt"
)

// The Kafka side of the Cluster is package kafkaadmin's; these methods hand
// over to it, so that a trial needs one value for the cluster.

// WaitBrokers waits until every broker is registered with the controller
// and unfenced, and answers on its published port. It fails at once if a
// container stops meanwhile.
func (c *Cluster) WaitBrokers(ctx context.Context) error { return c.admin.WaitBrokers(ctx) }

// EnsureTopics creates the cluster's topics that are absent, with their
// replica assignment and min.insync.replicas, and checks those present
// have the same shape. It returns the names it created.
func (c *Cluster) EnsureTopics(ctx context.Context) ([]string, error) {
	return c.admin.EnsureTopics(ctx)
}

// PreferredElection asks the controller to give each partition of the
// topics back to its preferred leader. No topics means the cluster's topics.
func (c *Cluster) PreferredElection(ctx context.Context, topics ...string) error {
	return c.admin.PreferredElection(ctx, topics...)
}

// Describe reports the state of every partition of the topics, sorted by
// topic and partition. No topics means every topic that is not internal.
func (c *Cluster) Describe(ctx context.Context, topics ...string) ([]Partition, error) {
	return c.admin.Describe(ctx, topics...)
}

// checkRunning fails when a container has stopped: waiting longer for its
// broker would be in vain.
func (c *Cluster) checkRunning(ctx context.Context) error {
	if c.docker == nil {
		return nil
	}
	for _, svc := range c.proj.order {
		ci, err := c.inspect(ctx, svc)
		if err != nil {
			return nil // the wait's own timeout will tell
		}
		if ci == nil {
			return fmt.Errorf("container %s is gone", c.ContainerName(svc))
		}
		if ci.State != nil && !ci.State.Running && !ci.State.Restarting {
			return fmt.Errorf("container %s stopped (%s, exit code %d); its log: docker logs %s",
				c.ContainerName(svc), ci.State.Status, ci.State.ExitCode, c.ContainerName(svc))
		}
	}
	return nil
}
