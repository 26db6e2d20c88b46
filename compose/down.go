package compose

import (
	"context"
	"fmt"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
)

// Down removes the cluster: every container of the project, with its
// anonymous volumes (the brokers' data), and the network. It works on a
// half-made stack, and on none. It returns the names of what it removed,
// containers first. It takes the cluster's lock (Lock) as Up does.
func (c *Cluster) Down(ctx context.Context) ([]string, error) {
	if err := c.ping(ctx); err != nil {
		return nil, err
	}
	if err := c.Lock(); err != nil {
		return nil, err
	}
	// The brokers are about to go; the admin client would only retry in vain.
	c.admin.Close()
	// By name, for a container whose labels were lost, and by label, for
	// one of the project made under another name.
	names := make(map[string]bool)
	for _, svc := range c.proj.order {
		if ci, err := c.inspect(ctx, svc); err != nil {
			return nil, err
		} else if ci != nil {
			names[strings.TrimPrefix(ci.Name, "/")] = true
		}
	}
	list, err := c.docker.ContainerList(ctx, container.ListOptions{
		All:     true,
		Filters: filters.NewArgs(filters.Arg("label", labelProject+"="+c.proj.name)),
	})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	for _, ct := range list {
		if len(ct.Names) > 0 {
			names[strings.TrimPrefix(ct.Names[0], "/")] = true
		}
	}
	var removed []string
	for _, name := range c.removalOrder(names) {
		if err := c.remove(ctx, name); err != nil {
			return removed, err
		}
		removed = append(removed, name)
	}

	nets, err := c.docker.NetworkList(ctx, network.ListOptions{})
	if err != nil {
		return removed, fmt.Errorf("list networks: %w", err)
	}
	for _, n := range nets {
		if n.Name == c.proj.network || n.Labels[labelProject] == c.proj.name {
			if err := c.removeNetwork(ctx, n.ID); err != nil {
				return removed, err
			}
			removed = append(removed, "network "+n.Name)
		}
	}
	return removed, nil
}

// removalOrder removes brokers before the controller, the reverse of the
// start order, then anything else of the project.
func (c *Cluster) removalOrder(names map[string]bool) []string {
	var order []string
	for i := len(c.proj.order) - 1; i >= 0; i-- {
		if n := c.ContainerName(c.proj.order[i]); names[n] {
			order = append(order, n)
			delete(names, n)
		}
	}
	rest := sortedKeys(names)
	return append(order, rest...)
}
