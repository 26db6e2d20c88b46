package compose

import (
	"context"
	"maps"
	"net"
	"slices"
	"strconv"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/kbf-project/kbf/kafkaadmin"
)

// ControllerAddrs returns where kbf reaches each running controller's own
// listener, by node id: the container's address on the cluster's network
// and the port of the listener KAFKA_CONTROLLER_LISTENER_NAMES names in
// KAFKA_LISTENERS. No port is published for it, so the address is reached
// from the host only where the host routes to the containers' network
// (Linux, not Docker Desktop); a caller that reaches none asks the brokers
// instead. A controller whose container is not running or is paused, or
// whose listener kbf cannot read, is left out.
func (c *Cluster) ControllerAddrs(ctx context.Context) (map[int32]string, error) {
	out := map[int32]string{}
	for _, svc := range c.proj.order {
		n := c.proj.nodes[svc]
		if !n.controller {
			continue
		}
		port, ok := controllerPort(c.proj.services[svc])
		if !ok {
			continue
		}
		ci, err := c.inspect(ctx, svc)
		if err != nil {
			return out, err
		}
		// A paused controller's kernel still accepts the connection, and
		// nothing answers on it: a question to it would only wait.
		if ci == nil || ci.State == nil || !ci.State.Running || ci.State.Paused || ci.NetworkSettings == nil {
			continue
		}
		ip := ""
		if ep := ci.NetworkSettings.Networks[c.proj.network]; ep != nil {
			ip = ep.IPAddress
		}
		// A user's file may attach it elsewhere: its first network then.
		for _, name := range slices.Sorted(maps.Keys(ci.NetworkSettings.Networks)) {
			if ep := ci.NetworkSettings.Networks[name]; ip == "" && ep != nil {
				ip = ep.IPAddress
			}
		}
		if ip != "" {
			out[n.id] = net.JoinHostPort(ip, strconv.Itoa(port))
		}
	}
	return out, nil
}

// controllerPort is the port of a service's controller listener, as its
// environment sets it (kafkaadmin.ControllerPort).
func controllerPort(s types.ServiceConfig) (int, bool) {
	get := func(k string) string {
		if v := s.Environment[k]; v != nil {
			return *v
		}
		return ""
	}
	return kafkaadmin.ControllerPort(get("KAFKA_LISTENERS"), get("KAFKA_CONTROLLER_LISTENER_NAMES"))
}
