package k8s

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kbf-project/kbf/kafkaadmin"
)

// Strimzi's pod labels: the cluster a pod belongs to, and its node pool's
// roles ("true" when it has the role).
const (
	LabelStrimziCluster    = "strimzi.io/cluster"
	LabelStrimziBroker     = "strimzi.io/broker-role"
	LabelStrimziController = "strimzi.io/controller-role"
)

// ClientPort is the port a broker's clients reach it at when the pod names
// none (Strimzi's and kbf's manifests' plain listener).
const ClientPort = 9092

// Node is one Kafka node, a pod.
type Node struct {
	Pod       string // the node's name in kbf: the pod's
	Container string // the container the JVM runs in
	ID        int32
	Broker    bool
	// Controller is true for a node of the metadata quorum.
	Controller bool
	// Addr is where a client reaches a broker in the pod: its IP and
	// client port; "" while the pod has no IP.
	Addr  string
	Image string
	// CtlPort is the port of a controller's own listener, as its
	// environment spells it; 0 when it does not (Strimzi's, which wants
	// the cluster's certificates besides): the quorum is then asked of
	// the brokers.
	CtlPort int
}

// nodesOf finds the Kafka nodes among pods, with their node ids and roles:
//
//   - a Strimzi pod (label strimzi.io/cluster) has its roles in the labels
//     strimzi.io/broker-role and strimzi.io/controller-role, and its JVM in
//     the container named kafka;
//   - any other pod is a node when a container's environment sets
//     KAFKA_PROCESS_ROLES, as the apache/kafka and kbf images read it
//     (kbf's manifests, most hand-written StatefulSets).
//
// A node's id is KAFKA_NODE_ID when the environment gives it literally, else
// the number the pod's name ends with: Strimzi names a pod after its node id,
// kbf's StatefulSets start their ordinals at theirs. The environment is
// what the pod was made with, read without exec or Kafka, so that kbf
// knows every node, brokers and controllers, before anything starts, a
// controller included (brokers do not tell a client where controllers are).
// Pods that are neither are not Kafka's and are skipped; a pod that is
// one but whose id cannot be told is an error.
func nodesOf(pods []corev1.Pod) ([]Node, error) {
	var nodes []Node
	for i := range pods {
		p := &pods[i]
		n, ok, err := nodeOf(p)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if j := slices.IndexFunc(nodes, func(m Node) bool { return m.ID == n.ID }); j >= 0 {
			return nil, fmt.Errorf("pods %s and %s both say node id %d: narrow --selector to one cluster", nodes[j].Pod, n.Pod, n.ID)
		}
		nodes = append(nodes, n)
	}
	slices.SortFunc(nodes, func(a, b Node) int { return int(a.ID) - int(b.ID) })
	return nodes, nil
}

func nodeOf(p *corev1.Pod) (Node, bool, error) {
	n := Node{Pod: p.Name}
	var c *corev1.Container
	var env map[string]string
	if _, strimzi := p.Labels[LabelStrimziCluster]; strimzi {
		c = container(p, "kafka")
		if c == nil {
			return n, false, nil // the entity operator, Cruise Control, …
		}
		n.Broker = p.Labels[LabelStrimziBroker] == "true"
		n.Controller = p.Labels[LabelStrimziController] == "true"
		env = literalEnv(c)
	} else {
		for i := range p.Spec.Containers {
			e := literalEnv(&p.Spec.Containers[i])
			if roles, ok := e["KAFKA_PROCESS_ROLES"]; ok {
				c, env = &p.Spec.Containers[i], e
				for _, r := range strings.Split(roles, ",") {
					switch strings.TrimSpace(r) {
					case "broker":
						n.Broker = true
					case "controller":
						n.Controller = true
					}
				}
				break
			}
		}
		if c == nil {
			return n, false, nil
		}
	}
	if !n.Broker && !n.Controller {
		return n, false, fmt.Errorf("pod %s: a Kafka node with neither the broker nor the controller role", p.Name)
	}
	n.Container, n.Image = c.Name, c.Image
	id, err := nodeID(p.Name, env)
	if err != nil {
		return n, false, err
	}
	n.ID = id
	if n.Broker && p.Status.PodIP != "" {
		n.Addr = net.JoinHostPort(p.Status.PodIP, strconv.Itoa(clientPort(c)))
	}
	if n.Controller {
		n.CtlPort, _ = kafkaadmin.ControllerPort(env["KAFKA_LISTENERS"], env["KAFKA_CONTROLLER_LISTENER_NAMES"])
	}
	return n, true, nil
}

// nodeID is KAFKA_NODE_ID when set literally, else the number name ends
// with.
func nodeID(name string, env map[string]string) (int32, error) {
	if v, ok := env["KAFKA_NODE_ID"]; ok {
		id, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("pod %s: KAFKA_NODE_ID %q is no node id", name, v)
		}
		return int32(id), nil
	}
	i := strings.LastIndexFunc(name, func(r rune) bool { return r < '0' || r > '9' })
	if i == len(name)-1 {
		return 0, fmt.Errorf("pod %s: its name ends with no node id, and KAFKA_NODE_ID is not in its environment", name)
	}
	id, err := strconv.ParseInt(name[i+1:], 10, 32)
	if err != nil {
		return 0, fmt.Errorf("pod %s: node id %s: %w", name, name[i+1:], err)
	}
	return int32(id), nil
}

// literalEnv is a container's environment that is spelt out in the pod;
// values from a field, a ConfigMap or a Secret are left out.
func literalEnv(c *corev1.Container) map[string]string {
	m := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			m[e.Name] = e.Value
		}
	}
	return m
}

func container(p *corev1.Pod, name string) *corev1.Container {
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == name {
			return &p.Spec.Containers[i]
		}
	}
	return nil
}

// clientPort is the container's port named kafka, clients or
// tcp-clients, else ClientPort.
func clientPort(c *corev1.Container) int {
	for _, p := range c.Ports {
		switch p.Name {
		case "kafka", "clients", "tcp-clients", "plain":
			return int(p.ContainerPort)
		}
	}
	return ClientPort
}
