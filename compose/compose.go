// Package compose brings the kbf cluster up and down through the Docker Engine
// API and waits until Kafka is whole.
//
// It reads the compose file embedded from compose.yaml (one KRaft controller,
// three brokers), interpolated with KBF_IMAGE and KBF_K{1,2,3}_PORT from the
// environment, and creates the network and containers itself, labelled as
// `docker compose -p kbf` would label them. It supports exactly the compose
// subset that file uses: image, hostname, container_name, environment, ports,
// networks, depends_on (as start order), pull_policy and stop_grace_period.
//
// This package is the containers' half: it plans each service's container
// (keep, start, create, recreate), in compose-go's dependency order. The
// Kafka half, package kafkaadmin, is handed the brokers' published
// addresses: Up then waits until every broker is registered and unfenced,
// creates the probe topics with a fixed replica assignment, and waits until
// every ISR is full and every leader is the preferred one. Describe reports
// the partitions' state (leader, epoch, ISR, ELR, high watermark) as the
// brokers see it.
package compose

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/compose-spec/compose-go/v2/graph"
	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/docker/docker/client"

	"github.com/kbf-project/kbf/kafkaadmin"
)

//go:embed compose.yaml
var composeFile []byte

// Project is the compose project name, and so the prefix Docker Compose
// would use; every container and network the package makes carries it as
// the com.docker.compose.project label.
const Project = "kbf"

// DefaultImage is the image used when neither Options.Image nor KBF_IMAGE
// names one. It must match the default in compose.yaml.
const DefaultImage = "apache/kafka:4.3.1"

// OfflineImage is the image `make image` builds without a registry.
const OfflineImage = "kbf/kafka:4.3.1"

// ErrInvalid marks a configuration the cluster cannot take: a topic shape
// that does not fit the brokers, a compose file outside the supported subset.
var ErrInvalid = errors.New("invalid configuration")

// invalid marks err as a configuration error, keeping its message.
type invalid struct{ err error }

func (e invalid) Error() string        { return e.err.Error() }
func (e invalid) Unwrap() error        { return e.err }
func (e invalid) Is(target error) bool { return target == ErrInvalid }

func invalidf(format string, a ...any) error { return invalid{fmt.Errorf(format, a...)} }

// ErrDockerUnreachable is reported when the Docker engine does not answer.
var ErrDockerUnreachable = errors.New("cannot reach the Docker engine")

// Options configure a Cluster. The zero value is the kbf default.
type Options struct {
	// Image overrides KBF_IMAGE and DefaultImage.
	Image string
	// Env is the environment compose.yaml is interpolated with (KBF_IMAGE,
	// KBF_K1_PORT, ...). Nil means the process environment.
	Env map[string]string
	// Topics are the topics Up makes sure exist. Nil means DefaultTopics();
	// an empty, non-nil slice means none.
	Topics []Topic
	// Progress, when set, is told about each phase of Up as it ends.
	Progress func(Phase)
}

// Topic is a topic Up makes sure exists, and its shape.
type Topic = kafkaadmin.Topic

// Partition is one partition's state as the brokers report it.
type Partition = kafkaadmin.Partition

// DefaultTopics returns the experiment's topics: orders (3 partitions on
// every broker, RF 3, min.insync.replicas 2) and single (1 partition, RF 1,
// on broker 1 only).
func DefaultTopics() []Topic { return kafkaadmin.DefaultTopics() }

// ValidateTopics checks topics against the brokers of the embedded compose
// file, without Docker or Kafka. Errors wrap ErrInvalid.
func ValidateTopics(topics []Topic) error {
	p, err := defaultProject()
	if err != nil {
		return err
	}
	return validateTopics(topics, p.brokerIDs())
}

func validateTopics(topics []Topic, brokers []int32) error {
	if err := kafkaadmin.ValidateTopics(topics, brokers); err != nil {
		return invalid{err}
	}
	return nil
}

// Cluster is the kbf cluster as the compose file describes it. Its methods
// act on the containers through Docker and, through package kafkaadmin, on
// the brokers; New itself contacts neither.
type Cluster struct {
	proj  *project
	image string
	admin *kafkaadmin.Admin

	docker engine
	cli    *client.Client // the engine's client when it is a real one
	// portFree reports whether a port can be published on host.
	portFree func(host string, port int) error
	progress func(Phase)
	now      func() time.Time
}

// New loads the embedded compose file with opts and returns the Cluster it
// describes. Configuration errors wrap ErrInvalid.
func New(opts Options) (*Cluster, error) {
	cli, err := NewDockerClient()
	if err != nil {
		return nil, err
	}
	c, err := newCluster(opts, cli)
	if err != nil {
		cli.Close()
		return nil, err
	}
	c.cli = cli
	return c, nil
}

// NewDockerClient returns a Docker Engine API client configured from the
// environment (DOCKER_HOST and the like), negotiating the API version. It
// does not contact the engine.
func NewDockerClient() (*client.Client, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	return cli, nil
}

func newCluster(opts Options, docker engine) (*Cluster, error) {
	env := opts.Env
	if env == nil {
		env = environ()
	}
	env = cloneEnv(env)
	if opts.Image != "" {
		env["KBF_IMAGE"] = opts.Image
	}
	for _, k := range sortedKeys(env) {
		if strings.HasPrefix(k, "KBF_") && strings.HasSuffix(k, "_PORT") {
			if p, err := strconv.Atoi(env[k]); err != nil || p < 1 || p > 65535 {
				return nil, invalidf("%s=%s: not a port (1-65535)", k, env[k])
			}
		}
	}
	proj, err := loadProject(context.Background(), env)
	if err != nil {
		return nil, err
	}
	topics := opts.Topics
	if topics == nil {
		topics = DefaultTopics()
	}
	if err := validateTopics(topics, proj.brokerIDs()); err != nil {
		return nil, err
	}
	c := &Cluster{
		proj:     proj,
		image:    proj.image,
		docker:   docker,
		portFree: listenable,
		progress: opts.Progress,
		now:      time.Now,
	}
	var brokers []kafkaadmin.Broker
	for _, id := range proj.brokerIDs() {
		brokers = append(brokers, kafkaadmin.Broker{ID: id, Addr: proj.nodes[proj.byID[id]].addr})
	}
	c.admin, err = kafkaadmin.New(kafkaadmin.Config{Brokers: brokers, Topics: topics, Alive: c.checkRunning})
	if err != nil {
		return nil, invalid{err}
	}
	return c, nil
}

// Close releases the Docker and Kafka clients.
func (c *Cluster) Close() error {
	c.admin.Close()
	if c.cli != nil {
		return c.cli.Close()
	}
	return nil
}

// Docker returns the Cluster's Docker Engine API client, to share with
// package chaos. It is nil for a Cluster made in a test.
func (c *Cluster) Docker() *client.Client { return c.cli }

// Image returns the image the containers run.
func (c *Cluster) Image() string { return c.image }

// Topics returns the topics Up makes sure exist.
func (c *Cluster) Topics() []Topic { return c.admin.Topics() }

// TopicNames returns the names of Topics.
func (c *Cluster) TopicNames() []string { return c.admin.TopicNames() }

// Admin returns the cluster's Kafka administration: its topics, waits,
// elections and descriptions.
func (c *Cluster) Admin() *kafkaadmin.Admin { return c.admin }

// Services returns the compose services in start order (the controller
// first).
func (c *Cluster) Services() []string { return slices.Clone(c.proj.order) }

// BrokerServices returns the broker services (k1, k2, k3) in node id order.
func (c *Cluster) BrokerServices() []string {
	var s []string
	for _, id := range c.proj.brokerIDs() {
		s = append(s, c.proj.byID[id])
	}
	return s
}

// Brokers maps each broker service (k1) to its node id (1), as
// results.Cluster.Brokers records it.
func (c *Cluster) Brokers() map[string]int32 {
	m := make(map[string]int32)
	for _, s := range c.proj.order {
		if c.proj.nodes[s].broker {
			m[s] = c.proj.nodes[s].id
		}
	}
	return m
}

// NodeID returns the node id of a service (a broker's or the controller's).
func (c *Cluster) NodeID(service string) (int32, bool) {
	n, ok := c.proj.nodes[service]
	return n.id, ok
}

// Service returns the service whose node has the given id.
func (c *Cluster) Service(nodeID int32) (string, bool) {
	s, ok := c.proj.byID[nodeID]
	return s, ok
}

// ContainerName returns the container of a service (kbf-k1 for k1).
func (c *Cluster) ContainerName(service string) string {
	if s, ok := c.proj.services[service]; ok && s.ContainerName != "" {
		return s.ContainerName
	}
	return Project + "-" + service
}

// Bootstrap returns the brokers' published addresses (127.0.0.1:19092, ...)
// in node id order.
func (c *Cluster) Bootstrap() []string { return c.admin.Bootstrap() }

// project is the loaded compose file, with what kbf reads out of it.
type project struct {
	image    string
	services map[string]types.ServiceConfig
	network  string // the one network's name
	netKey   string // its key in the file
	order    []string
	nodes    map[string]node
	byID     map[int32]string
}

// node is what the Kafka side needs to know of a service.
type node struct {
	id      int32
	broker  bool   // process.roles includes broker
	addr    string // published host:port of a broker's EXTERNAL listener
	port    int    // that port
	portVar string // the variable that sets it, e.g. KBF_K1_PORT
}

func (p *project) brokerIDs() []int32 {
	var ids []int32
	for _, n := range p.nodes {
		if n.broker {
			ids = append(ids, n.id)
		}
	}
	slices.Sort(ids)
	return ids
}

var (
	defaultOnce sync.Once
	defaultProj *project
	defaultErr  error
)

// defaultProject is the compose file with no variables set.
func defaultProject() (*project, error) {
	defaultOnce.Do(func() {
		defaultProj, defaultErr = loadProject(context.Background(), map[string]string{})
	})
	return defaultProj, defaultErr
}

func environ() map[string]string {
	env := make(map[string]string)
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

func cloneEnv(env map[string]string) map[string]string {
	m := make(map[string]string, len(env)+1)
	for k, v := range env {
		m[k] = v
	}
	return m
}

// loadProject loads the embedded compose file with env.
func loadProject(ctx context.Context, env map[string]string) (*project, error) {
	return parseProject(ctx, composeFile, env)
}

func parseProject(ctx context.Context, file []byte, env map[string]string) (*project, error) {
	p, err := loader.LoadWithContext(ctx, types.ConfigDetails{
		WorkingDir:  ".",
		ConfigFiles: []types.ConfigFile{{Filename: "compose.yaml", Content: file}},
		Environment: types.Mapping(env),
	}, func(o *loader.Options) {
		o.SetProjectName(Project, true)
		o.SkipResolveEnvironment = true
	})
	if err != nil {
		return nil, invalidf("compose file: %w", err)
	}
	if len(p.Networks) != 1 {
		return nil, invalidf("compose file: want exactly one network, got %d", len(p.Networks))
	}
	proj := &project{
		services: make(map[string]types.ServiceConfig),
		nodes:    make(map[string]node),
		byID:     make(map[int32]string),
	}
	for k, n := range p.Networks {
		proj.netKey, proj.network = k, n.Name
		if err := checkNetwork(n); err != nil {
			return nil, invalidf("compose file: network %s: %w", k, err)
		}
	}
	ports := make(map[string]string) // published port → service
	for name, s := range p.Services {
		if err := checkSubset(s); err != nil {
			return nil, invalidf("compose file: service %s: %w", name, err)
		}
		if _, ok := s.Networks[proj.netKey]; !ok || len(s.Networks) != 1 {
			return nil, invalidf("compose file: service %s: want network %s only", name, proj.netKey)
		}
		if proj.image == "" {
			proj.image = s.Image
		} else if s.Image != proj.image {
			return nil, invalidf("compose file: services run different images (%s, %s)", proj.image, s.Image)
		}
		n, err := nodeOf(name, s)
		if err != nil {
			return nil, invalidf("compose file: service %s: %w", name, err)
		}
		if other, ok := proj.byID[n.id]; ok {
			return nil, invalidf("compose file: services %s and %s are both node %d", other, name, n.id)
		}
		for _, pc := range s.Ports {
			if other, ok := ports[pc.Published]; ok {
				a, b := portVar(other), portVar(name)
				if b < a {
					a, b = b, a
				}
				return nil, invalidf("%s and %s both name port %s", a, b, pc.Published)
			}
			ports[pc.Published] = name
		}
		proj.services[name] = s
		proj.nodes[name] = n
		proj.byID[n.id] = name
	}
	if proj.order, err = startOrder(ctx, p); err != nil {
		return nil, invalidf("compose file: %w", err)
	}
	if len(proj.brokerIDs()) == 0 {
		return nil, invalidf("compose file: no broker")
	}
	return proj, nil
}

// portVar names the variable that sets a broker service's port.
func portVar(service string) string { return "KBF_" + strings.ToUpper(service) + "_PORT" }

// nodeOf reads a service's Kafka identity from its environment.
func nodeOf(name string, s types.ServiceConfig) (node, error) {
	get := func(k string) string {
		if v := s.Environment[k]; v != nil {
			return *v
		}
		return ""
	}
	id, err := strconv.ParseInt(get("KAFKA_NODE_ID"), 10, 32)
	if err != nil {
		return node{}, fmt.Errorf("KAFKA_NODE_ID %q: not a node id", get("KAFKA_NODE_ID"))
	}
	n := node{id: int32(id), portVar: portVar(name)}
	for _, r := range strings.Split(get("KAFKA_PROCESS_ROLES"), ",") {
		if strings.TrimSpace(r) == "broker" {
			n.broker = true
		}
	}
	if !n.broker {
		return n, nil
	}
	if len(s.Ports) != 1 {
		return node{}, fmt.Errorf("a broker publishes exactly one port, got %d", len(s.Ports))
	}
	pc := s.Ports[0]
	port, err := strconv.Atoi(pc.Published)
	if err != nil || port < 1 || port > 65535 {
		return node{}, fmt.Errorf("published port %q (%s): not a port", pc.Published, n.portVar)
	}
	host := pc.HostIP
	if host == "" {
		host = "127.0.0.1"
	}
	n.port = port
	n.addr = host + ":" + pc.Published
	return n, nil
}

// startOrder sorts services so each comes after those it depends on, in
// compose-go's own dependency order (which also refuses a cycle); services
// at the same depth go by name, so the order is the same on every run.
func startOrder(ctx context.Context, p *types.Project) ([]string, error) {
	var mu sync.Mutex
	depth := make(map[string]int, len(p.Services))
	err := graph.InDependencyOrder(ctx, p, func(_ context.Context, name string, s types.ServiceConfig) error {
		mu.Lock()
		defer mu.Unlock()
		d := 0
		for dep := range s.DependsOn {
			d = max(d, depth[dep]+1) // visited before name: compose-go's promise
		}
		depth[name] = d
		return nil
	})
	if err != nil {
		return nil, err
	}
	order := slices.Collect(maps.Keys(depth))
	slices.SortFunc(order, func(a, b string) int {
		if depth[a] != depth[b] {
			return depth[a] - depth[b]
		}
		return strings.Compare(a, b)
	})
	return order, nil
}

func joinIDs(ids []int32) string { return kafkaadmin.JoinIDs(ids) }

// ClusterID returns the id the nodes' storage is formatted with, the
// CLUSTER_ID of their environment, which the brokers report as their
// cluster's id: a cluster on these ports with another id is not this one.
// It is "" when the compose file sets none (the image then picks its own).
func (c *Cluster) ClusterID() string {
	for _, svc := range c.proj.order {
		if v := c.proj.services[svc].Environment["CLUSTER_ID"]; v != nil {
			return *v
		}
	}
	return ""
}
