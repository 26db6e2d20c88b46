// Package compose brings the kbf cluster up and down through the Docker Engine
// API and waits until Kafka is whole.
//
// It reads the compose file embedded from compose.yaml (one KRaft controller,
// three brokers), interpolated with KBF_IMAGE and KBF_K{1,2,3}_PORT from the
// environment and resized on request (Options.Brokers, Options.Controllers),
// or the user's own compose file (Options.File), and finds the brokers and
// controllers from each service's KAFKA_* settings. Options.Config sets
// Kafka properties in the nodes' environment. It creates the network and
// containers itself, labelled as `docker compose -p kbf` would label them,
// for exactly the compose subset the embedded file uses: image, hostname,
// container_name, environment, ports, networks, depends_on (as start order),
// pull_policy and stop_grace_period. Containers Docker Compose made from a
// user's file are used as they are.
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
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/client"

	"github.com/kbf-project/kbf/internal/clusterlock"
	"github.com/kbf-project/kbf/kafkaadmin"
	"github.com/kbf-project/kbf/kafkasec"
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
	// Security secures kbf's admin client as a --command-config file
	// says; nil speaks PLAINTEXT.
	Security *kafkasec.Config
	// Topics are the topics Up makes sure exist. Nil means DefaultTopics();
	// an empty, non-nil slice means none.
	Topics []Topic
	// Progress, when set, is told about each phase of Up as it ends.
	Progress func(Phase)

	// File is the user's compose file, as docker compose -f takes it; ""
	// means the embedded one. Its brokers and controllers are read from
	// each service's KAFKA_* settings.
	File string
	// ProjectName is the compose project of File, as docker compose -p;
	// "" means the file's name: or else its directory's name.
	ProjectName string
	// Brokers and Controllers size the embedded cluster: brokers k1…kN
	// (node ids 1…N, ports 19092…) and controllers c1…cM (node ids 100…);
	// 0 means 3 brokers and 1 controller. Only for the embedded file.
	Brokers, Controllers int
	// Combined makes each broker of the embedded cluster a controller too
	// (process.roles broker,controller): the brokers are the quorum, and
	// there is no dedicated controller. Brokers must then be odd.
	Combined bool
	// Config are Kafka server properties for the nodes, applied in order
	// (a later one wins); a node whose configuration changes is recreated.
	Config []Setting
	// BuildOffline, when set, makes OfflineImage (as make image does); Up
	// calls it when the image is DefaultImage, cannot be pulled and
	// OfflineImage is not here either, and then runs OfflineImage. Nil:
	// the error names make image.
	BuildOffline func(ctx context.Context) error
	// Notice, when set, is told what Up decided by itself, such as running
	// the offline image in place of one it could not pull.
	Notice func(string)
	// DiskLimits mounts, per service, a tmpfs of that size ("128m", as
	// docker run --tmpfs takes it) on the node's log directories, so that a
	// disk-full fault can fill them without touching the host's disk. A
	// node whose limit changes is recreated, its data starting empty.
	DiskLimits map[string]string
	// FaultDisks binds, per service, a host directory (the mount point of
	// the FUSE layer kbf serves, chaos.Disks) on the node's log directory,
	// so that the disk-slow, disk-error and power-loss faults can act on
	// its files. A node whose binding changes is recreated.
	FaultDisks map[string]string
	// Lead is the broker service that is to lead partition 0 of the first
	// topic (the probed one), so that a fault on it always hits a
	// partition it leads; "" means the first broker by node id.
	Lead string
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
	proj   *project
	image  string
	admin  *kafkaadmin.Admin
	topics []Topic // the topics Up makes sure exist

	docker engine
	cli    *client.Client // the engine's client when it is a real one
	// portFree reports whether a port can be published on host.
	portFree func(host string, port int) error
	progress func(Phase)
	now      func() time.Time
	// buildOffline and notice are Options.BuildOffline and Options.Notice.
	buildOffline func(ctx context.Context) error
	notice       func(string)

	// lock takes the cluster's lock (clusterlock) for Lock; nil for a
	// Cluster on a test's engine, which no other kbf can reach.
	lock    func() (release func(), err error)
	lockKey clusterlock.Key
	lockMu  sync.Mutex
	release func() // set while Lock's lock is held
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
	c.lockKey = clusterlock.Key{Endpoint: cli.DaemonHost(), Project: c.proj.name}
	c.lock = func() (func(), error) { return clusterlock.Acquire(c.lockKey) }
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
	proj, err := loadProject(context.Background(), source{
		file: opts.File, projectName: opts.ProjectName, env: env,
		brokers: opts.Brokers, controllers: opts.Controllers, combined: opts.Combined, config: opts.Config,
		diskLimits: opts.DiskLimits, faultDisks: opts.FaultDisks,
	})
	if err != nil {
		return nil, err
	}
	topics, err := topicsFor(proj, opts.Topics, opts.Lead)
	if err != nil {
		return nil, err
	}
	if err := validateTopics(topics, proj.brokerIDs()); err != nil {
		return nil, err
	}
	c := &Cluster{
		proj:     proj,
		topics:   topics,
		image:    proj.image,
		docker:   docker,
		portFree: listenable,
		progress: opts.Progress,
		now:      time.Now,

		buildOffline: opts.BuildOffline,
		notice:       opts.Notice,
	}
	var brokers []kafkaadmin.Broker
	for _, id := range proj.brokerIDs() {
		brokers = append(brokers, kafkaadmin.Broker{ID: id, Addr: proj.nodes[proj.byID[id]].addr})
	}
	c.admin, err = kafkaadmin.New(kafkaadmin.Config{Brokers: brokers, Topics: topics, Alive: c.checkRunning, Security: opts.Security})
	if err != nil {
		return nil, invalid{err}
	}
	return c, nil
}

// topicsFor returns the topics of a cluster: the given ones or the
// defaults, the first spread from the lead broker on, and the defaults'
// one-replica topic on the first broker (of a user's file too) whose log
// directory is not a tmpfs: a restart empties a tmpfs, and the topic's one
// replica with it.
func topicsFor(proj *project, topics []Topic, lead string) ([]Topic, error) {
	ids := proj.brokerIDs()
	if topics == nil {
		topics = DefaultTopics()
		topics[1].Brokers = []int32{ids[0]}
		for _, id := range ids {
			if !ownDisk(proj.services[proj.byID[id]]) {
				topics[1].Brokers = []int32{id}
				break
			}
		}
	}
	topics = slices.Clone(topics)
	if lead != "" && len(topics) > 0 {
		n, ok := proj.nodes[lead]
		if !ok || !n.broker {
			var bs []string
			for _, id := range ids {
				bs = append(bs, proj.byID[id])
			}
			return nil, invalidf("broker %s: not a broker of the cluster (%s)", lead, strings.Join(bs, " "))
		}
		topics[0] = topics[0].LedFirstBy(n.id, ids)
	}
	return topics, nil
}

// Lock takes the cluster's lock for this process, at once or never: a
// second kbf that would make, fault, restart or remove the same cluster
// (the same Docker engine and compose project) while this one uses it
// is refused, with a clusterlock.InUseError naming this one. Up and Down
// take it; a caller that changes the cluster before either (a disk
// layer mounted under a broker) takes it first. It is held until Close,
// or until the process ends however it ends. Taking it again does
// nothing.
func (c *Cluster) Lock() error {
	c.lockMu.Lock()
	defer c.lockMu.Unlock()
	if c.lock == nil || c.release != nil {
		return nil
	}
	release, err := c.lock()
	if err != nil {
		return err
	}
	c.release = release
	return nil
}

// HandLockTo gives c's lock to to, a Cluster of the same project on the
// same engine made to replace c (a benchmark's cluster given new
// settings), so that no other kbf takes the cluster between c's Close and
// to's Up. It does nothing unless c holds the lock and to does not.
func (c *Cluster) HandLockTo(to *Cluster) {
	if c == to {
		return
	}
	c.lockMu.Lock()
	defer c.lockMu.Unlock()
	to.lockMu.Lock()
	defer to.lockMu.Unlock()
	if c.release == nil || to.release != nil || c.lockKey != to.lockKey {
		return
	}
	to.release, c.release = c.release, nil
}

// unlock lets go of Lock's lock.
func (c *Cluster) unlock() {
	c.lockMu.Lock()
	defer c.lockMu.Unlock()
	if c.release != nil {
		c.release()
		c.release = nil
	}
}

// Close releases the Docker and Kafka clients, and the cluster's lock.
func (c *Cluster) Close() error {
	defer c.unlock()
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
func (c *Cluster) ContainerName(service string) string { return c.proj.containerName(service) }

// containerName is a service's container_name, else the name docker
// compose gives it: kbf-k1 in the embedded file, <project>-<service>-1 in
// a user's.
func (p *project) containerName(service string) string {
	if s, ok := p.services[service]; ok && s.ContainerName != "" {
		return s.ContainerName
	}
	if p.embedded {
		return p.name + "-" + service
	}
	return p.name + "-" + service + "-1"
}

// Bootstrap returns the brokers' published addresses (127.0.0.1:19092, ...)
// in node id order.
func (c *Cluster) Bootstrap() []string { return c.admin.Bootstrap() }

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

// LogsToStdout reports whether a service's node logs only to its standard
// output: no KAFKA_LOG4J_OPTS points it at a log4j configuration with
// files, which is the official image's default. Its logs are then read
// from the container's output (CollectOutput), not copied from files.
func (c *Cluster) LogsToStdout(service string) bool {
	return c.proj.services[service].Environment["KAFKA_LOG4J_OPTS"] == nil
}

// LogDir is the first log directory of a node, as its environment sets it;
// "" when it sets none.
func (c *Cluster) LogDir(service string) string {
	if dirs := LogDirs(c.proj.services[service]); len(dirs) > 0 {
		return dirs[0]
	}
	return ""
}

// Check loads the compose file opts names, shapes and configures it, and
// checks the topics against its brokers, contacting neither Docker nor
// Kafka: the command line's mistakes are found before anything starts.
// Errors wrap ErrInvalid.
func Check(opts Options) error {
	_, err := newCluster(opts, nil)
	return err
}
