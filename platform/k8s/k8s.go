// Package k8s is the trial protocol's target (cluster.Cluster) for a
// Kafka cluster in Kubernetes, reached through the Kubernetes API with
// client-go (no kubectl): its nodes are the pods of a namespace, found by
// Strimzi's labels or by their Kafka environment (nodesOf), named by their
// pod; kbf's own clients reach the brokers at --bootstrap or at the pods'
// IPs, then where the brokers advertise themselves.
//
// Faults are made from inside the node's container, through exec: sigkill
// and pause signal the JVM (SIGKILL, SIGSTOP; SIGCONT undoes a pause), and
// the kubelet, not kbf, restarts a killed container: recovery waits for
// that restart and says how long it took. sigterm deletes the pod with its
// grace period, as a rolling update does, and its StatefulSet or operator
// makes it again. The network cuts are iptables rules in the pod's network
// namespace, made through an ephemeral container with NET_ADMIN that kbf
// adds to the broker's pod before the trial (network.go). What the API
// refuses for lack of a permission is one line naming the verb and the
// resource (ForbiddenError); the Role kbf needs is deploy/kubernetes/rbac.yaml.
//
// Logs are read through the API, the killed container's too, and split by
// logger as a Docker node's standard output is, or copied by exec when the
// node writes them to files. Each node's CPU time is read from its
// container's cgroup by one long-lived exec (CPUTimes), so that the host's
// load tells the cluster's own work from other processes'.
package k8s

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	corev1 "k8s.io/api/core/v1"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/kafkaadmin"
	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/platform/adminhealth"
	"github.com/kbf-project/kbf/results"
)

// Options are a Kubernetes target's settings.
type Options struct {
	// Selector narrows the namespace's pods to one cluster's (a label
	// selector, e.g. strimzi.io/cluster=my-cluster); "" takes them all.
	Selector string
	// Bootstrap is where kbf's clients first reach the brokers (a NodePort,
	// a LoadBalancer, a listener of your own); nil: the broker pods' IPs
	// at their client port, which kbf reaches when it runs in the cluster
	// or on a node.
	Bootstrap []string
	// Lead is the broker that leads partition 0 of the probed topic: the
	// one the fault hits; empty when that one is found only at the fault
	// (the group's coordinator), and nothing is shaped for it.
	Lead string
	// Security is how kbf's own clients reach the brokers (TLS, SASL),
	// from --command-config; nil speaks PLAINTEXT.
	Security *kafkasec.Config
	// Say prints a line that stays (the kubelet's restart of a killed
	// node); nil prints nothing.
	Say func(string)
	// Poll is how often a pod's status is asked while a fault is awaited;
	// zero: 100 ms.
	Poll time.Duration
	// Fault is the trial's fault: a network cut's ephemeral container is
	// added to Lead's pod, and checked, before the trial starts (Up).
	Fault results.FaultKind
	// NetImage is the image of the ephemeral container that cuts a pod's
	// links (it needs iptables); "": the broker's own image.
	NetImage string
}

// Cluster is a Kafka cluster in a Kubernetes namespace.
type Cluster struct {
	api   API
	opts  Options
	nodes []Node
	admin *kafkaadmin.Admin
	// topics are the admin's topics, kept to make it anew (readvertise).
	topics []kafkaadmin.Topic
	// reconnect makes kbf's clients anew after a pod was made again:
	// readvertise, set by New; nil in tests with no Kafka.
	reconnect func(ctx context.Context) error
	// Health is the partitions' health, asked of the brokers.
	adminhealth.Health
	// controllers asks the controllers themselves about their quorum, at
	// their pods' addresses; nil when kbf reaches the brokers at
	// --bootstrap, not at the pods' addresses, and so the controllers
	// neither.
	controllers *adminhealth.Controllers

	mu       sync.Mutex
	paused   map[string]bool          // pods whose JVM kbf stopped
	cuts     map[string]string        // pods kbf cut off, to their ephemeral container
	netNames map[string]string        // pods' running ephemeral containers of kbf's, checked
	restarts map[string]*restartWatch // pods a fault ended, awaited back
	caught   map[string]*bytes.Buffer // a deleted pod's output, by pod name
	done     []Restart
	cpu      *cpuWatch          // the nodes' CPU counters, once CPUTimes or Up started them
	cpuRetry time.Duration      // cpuRetry but in tests
	stop     context.CancelFunc // ends the watches
	watchCtx context.Context
}

var (
	_ cluster.Cluster = (*Cluster)(nil)
)

// New finds the Kafka nodes among the pods of api's namespace and reads
// the brokers' advertised addresses from the brokers themselves, with
// kbf's own client, as it will reach them during the trial.
func New(ctx context.Context, api API, opts Options) (*Cluster, error) {
	pods, err := api.Pods(ctx, opts.Selector)
	if err != nil {
		return nil, err
	}
	nodes, err := nodesOf(pods)
	if err != nil {
		return nil, err
	}
	t := newCluster(api, opts, nodes)
	if len(t.brokerNodes()) == 0 {
		sel := ""
		if opts.Selector != "" {
			sel = " with labels " + opts.Selector
		}
		t.Close()
		return nil, fmt.Errorf("no Kafka broker among the pods of namespace %s%s: kbf looks for Strimzi's labels or a container whose environment sets KAFKA_PROCESS_ROLES",
			api.Namespace(), sel)
	}
	brokers, md, err := t.advertised(ctx)
	if err != nil {
		t.Close()
		return nil, err
	}
	topics := kafkaadmin.DefaultTopics()
	if err := t.ledBy(md, topics[0].Name, opts.Lead); err != nil {
		t.Close()
		return nil, err
	}
	if lead, ok := t.Brokers()[opts.Lead]; ok {
		ids := make([]int32, 0, len(brokers))
		for _, b := range brokers {
			ids = append(ids, b.ID)
		}
		topics[0] = topics[0].LedFirstBy(lead, ids)
	}
	t.topics, t.reconnect = topics, t.readvertise
	if t.admin, t.Health, err = adminhealth.Open(kafkaadmin.Config{Brokers: brokers, Topics: topics, Security: opts.Security}); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// readvertise makes kbf's admin client anew once every broker advertises
// itself again: a pod made again has another IP, and the admin asks each
// broker at its address. It waits, within ctx, for the new pod's broker to
// register.
func (t *Cluster) readvertise(ctx context.Context) error {
	for {
		brokers, _, err := t.advertised(ctx)
		if err == nil {
			admin, health, err := adminhealth.Open(kafkaadmin.Config{Brokers: brokers, Topics: t.topics, Security: t.opts.Security})
			if err != nil {
				return err
			}
			t.admin.Close()
			t.admin, t.Health = admin, health
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the brokers' addresses after a pod was made again: %w (last: %w)", ctx.Err(), err)
		case <-time.After(time.Second):
		}
	}
}

func newCluster(api API, opts Options, nodes []Node) *Cluster {
	if opts.Poll <= 0 {
		opts.Poll = 100 * time.Millisecond
	}
	ctx, stop := context.WithCancel(context.Background())
	t := &Cluster{api: api, opts: opts, nodes: nodes, paused: map[string]bool{}, cuts: map[string]string{}, netNames: map[string]string{}, restarts: map[string]*restartWatch{},
		caught: map[string]*bytes.Buffer{}, watchCtx: ctx, stop: stop, cpuRetry: cpuRetry}
	if len(opts.Bootstrap) == 0 {
		t.controllers = adminhealth.NewControllers(opts.Security, t.controllerAddrs)
	}
	return t
}

// controllerAddrs are the running controllers' own listeners, at their
// pods' addresses, by node id; a controller whose port kbf does not know,
// or whose container does not run, is left out.
func (t *Cluster) controllerAddrs(ctx context.Context) (map[int32]string, error) {
	out := map[int32]string{}
	for _, n := range t.nodes {
		if !n.Controller || n.CtlPort == 0 {
			continue
		}
		p, err := t.api.Pod(ctx, n.Pod)
		if err != nil {
			return out, err
		}
		st := containerStatus(p, n.Container)
		if p.Status.PodIP == "" || st == nil || st.State.Running == nil {
			continue
		}
		out[n.ID] = net.JoinHostPort(p.Status.PodIP, strconv.Itoa(n.CtlPort))
	}
	return out, nil
}

// advertised asks the brokers where they advertise themselves, and checks
// that they are the pods' brokers.
func (t *Cluster) advertised(ctx context.Context) ([]kafkaadmin.Broker, *kmsg.MetadataResponse, error) {
	seeds := t.opts.Bootstrap
	if len(seeds) == 0 {
		for _, n := range t.brokerNodes() {
			if n.Addr != "" {
				seeds = append(seeds, n.Addr)
			}
		}
		if len(seeds) == 0 {
			return nil, nil, fmt.Errorf("no broker pod of namespace %s has an IP yet: are they running?", t.api.Namespace())
		}
	}
	kopts := []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.RequestRetries(2)}
	if t.opts.Security != nil {
		kopts = append(kopts, t.opts.Security.KgoOpts()...)
	}
	cl, err := kgo.NewClient(kopts...)
	if err != nil {
		return nil, nil, fmt.Errorf("bootstrap %s: %w", strings.Join(seeds, ","), err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	md, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		return nil, nil, fmt.Errorf("no broker answers on %s: %w", strings.Join(seeds, ","), err)
	}
	var brokers []kafkaadmin.Broker
	for _, b := range md.Brokers {
		brokers = append(brokers, kafkaadmin.Broker{ID: b.NodeID, Addr: net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))})
	}
	return brokers, md, matchBrokers(t.brokerNodes(), brokers)
}

// ledBy refuses a fault of lead when kbf's topic already exists with its
// partition 0 preferred on another broker: the fault must hit the
// partition's leader, and kbf moves no replica of a cluster it did not
// make (on Docker, kbf down makes the topic anew).
func (t *Cluster) ledBy(md *kmsg.MetadataResponse, topic, lead string) error {
	want, ok := t.Brokers()[lead]
	if !ok {
		return nil // Check refuses a broker that is not one
	}
	for _, mt := range md.Topics {
		if mt.Topic == nil || *mt.Topic != topic {
			continue
		}
		for _, p := range mt.Partitions {
			if p.Partition != 0 || len(p.Replicas) == 0 || p.Replicas[0] == want {
				continue
			}
			by := fmt.Sprintf("node %d", p.Replicas[0])
			if svc, ok := t.service(p.Replicas[0]); ok {
				by = svc
			}
			return fmt.Errorf("topic %s exists with partition 0 preferred on %s, not %s: fault %s, or delete the topic for kbf to make it anew led by %s",
				topic, by, lead, by, lead)
		}
	}
	return nil
}

// matchBrokers checks that the brokers Kafka names are the pods': a pod
// kbf would fault that Kafka does not know, or a broker with no pod, is
// another cluster's or a wrong --selector.
func matchBrokers(pods []Node, kafka []kafkaadmin.Broker) error {
	known := map[int32]bool{}
	for _, b := range kafka {
		known[b.ID] = true
	}
	var lines []string
	for _, n := range pods {
		if !known[n.ID] {
			lines = append(lines, fmt.Sprintf("pod %s is broker %d, which the cluster's metadata does not list (not registered yet, or another cluster: narrow --selector)", n.Pod, n.ID))
		}
		delete(known, n.ID)
	}
	for id := range known {
		lines = append(lines, fmt.Sprintf("broker %d of the cluster's metadata is no pod kbf found (give --selector the cluster's pods)", id))
	}
	if len(lines) > 0 {
		return errors.New(strings.Join(lines, "\n"))
	}
	return nil
}

// Close ends kbf's clients and the watches of restarting nodes.
func (t *Cluster) Close() error {
	t.stop()
	if t.admin != nil {
		t.admin.Close()
	}
	if t.controllers != nil {
		t.controllers.Close()
	}
	return nil
}

func (t *Cluster) say(format string, a ...any) {
	if t.opts.Say != nil {
		t.opts.Say(fmt.Sprintf(format, a...))
	}
}

func (t *Cluster) brokerNodes() []Node {
	var bs []Node
	for _, n := range t.nodes {
		if n.Broker {
			bs = append(bs, n)
		}
	}
	return bs
}

func (t *Cluster) node(name string) (Node, bool) {
	for _, n := range t.nodes {
		if n.Pod == name {
			return n, true
		}
	}
	return Node{}, false
}

// Nodes are the nodes found, in node id order.
func (t *Cluster) Nodes() []Node { return append([]Node(nil), t.nodes...) }

// Brokers maps each broker's pod to its node id.
func (t *Cluster) Brokers() map[string]int32 {
	m := map[string]int32{}
	for _, n := range t.brokerNodes() {
		m[n.Pod] = n.ID
	}
	return m
}

// Services names the brokers, then the nodes that are controllers only.
func (t *Cluster) Services() []string {
	var s []string
	for _, n := range t.brokerNodes() {
		s = append(s, n.Pod)
	}
	for _, n := range t.nodes {
		if !n.Broker {
			s = append(s, n.Pod)
		}
	}
	return s
}

// service names node id's pod.
func (t *Cluster) service(id int32) (string, bool) {
	for _, n := range t.nodes {
		if n.ID == id {
			return n.Pod, true
		}
	}
	return "", false
}

// Bootstrap is the brokers' advertised addresses.
func (t *Cluster) Bootstrap() []string { return t.admin.Bootstrap() }

// Up waits until every node's pod is Ready, then makes sure kbf's topics
// exist, every ISR is full and every leader preferred: kbf starts no pod,
// the namespace's controllers do.
func (t *Cluster) Up(ctx context.Context) (cluster.UpInfo, error) {
	start := time.Now()
	for _, n := range t.nodes {
		if _, err := t.waitPod(ctx, n, "Ready", func(p *corev1.Pod) bool { return ready(p) }); err != nil {
			return cluster.UpInfo{}, err
		}
	}
	t.startCPU() // its first readings come while the brokers are asked
	up, err := t.Health.Up(ctx)
	up.Took = time.Since(start)
	// A fault aimed at a role (the group's coordinator) names no Lead: its
	// broker is found at the fault, and the cut adds its container then.
	if err == nil && t.opts.Fault.Network() && t.opts.Lead != "" {
		err = t.PrepareNet(ctx, t.opts.Lead)
	}
	return up, err
}

// Image is the brokers' container image.
func (t *Cluster) Image() string {
	for _, n := range t.brokerNodes() {
		return n.Image
	}
	return ""
}

// NodeConfigs reads back each broker's configuration in effect, by pod.
func (t *Cluster) NodeConfigs(ctx context.Context) (map[string]map[string]string, error) {
	byID, err := t.admin.BrokerConfigs(ctx)
	out := make(map[string]map[string]string, len(byID))
	for id, cfg := range byID {
		if svc, ok := t.service(id); ok {
			out[svc] = cfg
		}
	}
	return out, err
}

// Quorum asks the controllers themselves about the metadata quorum, at
// their pods' addresses, where kbf reaches the brokers at theirs; else,
// and where it reaches no controller, the brokers, which forward the
// question to the controller they believe leads (after a controller fault,
// the dead one for seconds more).
func (t *Cluster) Quorum() cluster.Quorum {
	return adminhealth.Quorum(func() *kafkaadmin.Admin { return t.admin }, t.service, "no pod kbf found", t.controllers)
}

// Observer is nil: kbf faults the namespace's brokers itself, and an
// external fault reaches its cluster by --bootstrap, whatever runs it.
func (t *Cluster) Observer() cluster.Observer { return nil }

// Identify checks nothing more: the pods kbf found are the cluster.
func (t *Cluster) Identify(context.Context) error { return nil }

// ready says whether the pod is Ready.
func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
