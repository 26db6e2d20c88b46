package compose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/compose-spec/compose-go/v2/types"
	dockertypes "github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/docker/go-connections/nat"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/kbf-project/kbf/internal/digest"
)

// engine is the part of the Docker Engine API the package uses, by what
// it touches; *client.Client satisfies it.
type engine interface {
	daemon
	images
	networks
	containers
	execs
}

type daemon interface {
	Ping(ctx context.Context) (dockertypes.Ping, error)
	DaemonHost() string
}

type images interface {
	ImageInspect(ctx context.Context, image string, opts ...client.ImageInspectOption) (image.InspectResponse, error)
	ImagePull(ctx context.Context, ref string, opts image.PullOptions) (io.ReadCloser, error)
}

type networks interface {
	NetworkList(ctx context.Context, opts network.ListOptions) ([]network.Summary, error)
	NetworkCreate(ctx context.Context, name string, opts network.CreateOptions) (network.CreateResponse, error)
	NetworkRemove(ctx context.Context, id string) error
}

type containers interface {
	ContainerList(ctx context.Context, opts container.ListOptions) ([]container.Summary, error)
	ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error)
	ContainerCreate(ctx context.Context, cfg *container.Config, host *container.HostConfig,
		net *network.NetworkingConfig, platform *ocispec.Platform, name string) (container.CreateResponse, error)
	ContainerStart(ctx context.Context, id string, opts container.StartOptions) error
	ContainerUnpause(ctx context.Context, id string) error
	ContainerRemove(ctx context.Context, id string, opts container.RemoveOptions) error
	ContainerLogs(ctx context.Context, id string, opts container.LogsOptions) (io.ReadCloser, error)
}

type execs interface {
	ContainerExecCreate(ctx context.Context, id string, opts container.ExecOptions) (container.ExecCreateResponse, error)
	ContainerExecAttach(ctx context.Context, execID string, opts container.ExecAttachOptions) (dockertypes.HijackedResponse, error)
	ContainerExecInspect(ctx context.Context, execID string) (container.ExecInspect, error)
}

// The labels Docker Compose puts on what it makes; `docker compose -p kbf`
// finds the stack by them.
const (
	labelProject    = "com.docker.compose.project"
	labelService    = "com.docker.compose.service"
	labelNumber     = "com.docker.compose.container-number"
	labelOneoff     = "com.docker.compose.oneoff"
	labelDependsOn  = "com.docker.compose.depends_on"
	labelNetwork    = "com.docker.compose.network"
	labelConfigHash = "com.docker.compose.config-hash"
	labelImage      = "com.docker.compose.image"
	// labelKBF marks a container kbf created, as opposed to one docker
	// compose made from a user's file: only kbf's own are recreated.
	labelKBF = "io.kbf.created"
)

// ping checks the engine answers.
func (c *Cluster) ping(ctx context.Context) error {
	if _, err := c.docker.Ping(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if client.IsErrConnectionFailed(err) {
			return fmt.Errorf("%w at %s: is the Docker engine running? (DOCKER_HOST names another)",
				ErrDockerUnreachable, c.docker.DaemonHost())
		}
		return fmt.Errorf("%w at %s (is the Docker engine running? DOCKER_HOST names another): %w",
			ErrDockerUnreachable, c.docker.DaemonHost(), err)
	}
	return nil
}

// checkSubset refuses a service that uses compose keys the package does not
// implement, so a change to compose.yaml cannot be silently ignored.
func checkSubset(s types.ServiceConfig) error {
	switch s.PullPolicy {
	case "", types.PullPolicyMissing, types.PullPolicyIfNotPresent, types.PullPolicyNever:
	default:
		return fmt.Errorf("pull_policy %s is not supported", s.PullPolicy)
	}
	for _, p := range s.Ports {
		if p.Protocol != "" && p.Protocol != "tcp" || p.Mode != "" && p.Mode != "ingress" || p.Name != "" || p.AppProtocol != "" {
			return fmt.Errorf("port %s: only host_ip, published, target (tcp) are supported", p.Published)
		}
	}
	for k, n := range s.Networks {
		if n != nil && !reflect.ValueOf(*n).IsZero() {
			return fmt.Errorf("network %s: per-service network settings are not supported", k)
		}
	}
	for k, d := range s.DependsOn {
		if d.Condition != types.ServiceConditionStarted || d.Restart {
			return fmt.Errorf("depends_on %s: only condition service_started is supported", k)
		}
	}
	for k, v := range s.Environment {
		if v == nil {
			return fmt.Errorf("environment %s: a variable without a value is not supported", k)
		}
	}
	// What remains once the supported keys are cleared must be empty.
	s.Name, s.Image, s.Hostname, s.ContainerName, s.PullPolicy = "", "", "", "", ""
	s.Environment, s.Ports, s.Networks, s.DependsOn, s.StopGracePeriod, s.Tmpfs = nil, nil, nil, nil, nil, nil
	s.CPUShares = 0
	if len(faultDiskBinds(s)) == len(s.Volumes) {
		s.Volumes = nil // kbf's own binds of FUSE layers, none of a file's
	}
	if key := setKey(reflect.ValueOf(s)); key != "" {
		return fmt.Errorf("%s is not supported", key)
	}
	return nil
}

// setKey names the first field of struct v that is set, looking into
// embedded structs; "" when none is.
func setKey(v reflect.Value) string {
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		if sf.Anonymous && f.Kind() == reflect.Struct {
			if key := setKey(f); key != "" {
				return key
			}
			continue
		}
		if !f.IsZero() {
			key := strings.Split(sf.Tag.Get("yaml"), ",")[0]
			if key == "" || key == "-" {
				key = sf.Name
			}
			return key
		}
	}
	return ""
}

func checkNetwork(n types.NetworkConfig) error {
	if n.Driver != "" && n.Driver != "bridge" {
		return fmt.Errorf("driver %s is not supported", n.Driver)
	}
	n.Name, n.Driver = "", ""
	if !reflect.ValueOf(n).IsZero() {
		return errors.New("only name and driver bridge are supported")
	}
	return nil
}

// spec is what the engine is asked to create for one service.
type spec struct {
	Name       string
	Config     *container.Config
	Host       *container.HostConfig
	Networking *network.NetworkingConfig
}

// spec builds the container of service svc from the compose file; imageID
// is recorded in a label so a rebuilt image is noticed.
func (p *project) spec(svc, imageID string) spec {
	s := p.services[svc]
	env := make([]string, 0, len(s.Environment))
	for k, v := range s.Environment {
		env = append(env, k+"="+*v)
	}
	sort.Strings(env)

	exposed := nat.PortSet{}
	bindings := nat.PortMap{}
	for _, pc := range s.Ports {
		port := nat.Port(strconv.FormatUint(uint64(pc.Target), 10) + "/tcp")
		exposed[port] = struct{}{}
		bindings[port] = append(bindings[port], nat.PortBinding{HostIP: pc.HostIP, HostPort: pc.Published})
	}
	var deps []string
	for d := range s.DependsOn {
		deps = append(deps, d+":"+types.ServiceConditionStarted+":false")
	}
	sort.Strings(deps)

	cfg := &container.Config{
		Hostname:     s.Hostname,
		Image:        s.Image,
		Env:          env,
		ExposedPorts: exposed,
		Labels: map[string]string{
			labelProject:   p.name,
			labelService:   svc,
			labelNumber:    "1",
			labelOneoff:    "False",
			labelDependsOn: strings.Join(deps, ","),
			labelKBF:       "true",
		},
	}
	if s.StopGracePeriod != nil {
		secs := int(time.Duration(*s.StopGracePeriod).Round(time.Second) / time.Second)
		cfg.StopTimeout = &secs
	}
	host := &container.HostConfig{
		NetworkMode:  container.NetworkMode(p.network),
		PortBindings: bindings,
		// No restart policy: a killed broker stays down until kbf restarts it.
		RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyDisabled},
	}
	// The file's cpu_shares: the embedded cluster's nodes weigh less than
	// the default when the CPU is short (compose.yaml says why).
	host.CPUShares = s.CPUShares
	for _, t := range s.Tmpfs { // "PATH[:OPTIONS]", as docker run --tmpfs
		if host.Tmpfs == nil {
			host.Tmpfs = map[string]string{}
		}
		dir, opts, _ := strings.Cut(t, ":")
		host.Tmpfs[dir] = opts
	}
	host.Binds = faultDiskBinds(s)
	aliases := []string{svc}
	if s.Hostname != "" && s.Hostname != svc {
		aliases = append(aliases, s.Hostname)
	}
	netw := &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
		p.network: {Aliases: aliases},
	}}
	sp := spec{Name: p.containerName(svc), Config: cfg, Host: host, Networking: netw}
	cfg.Labels[labelConfigHash] = sp.hash()
	cfg.Labels[labelImage] = imageID
	return sp
}

// hash is a digest of everything the container is created with but the
// image's id; a container whose label differs was made from another
// configuration (another image name, other ports) and is recreated.
func (s spec) hash() string {
	cfg := *s.Config
	cfg.Labels = maps.Clone(s.Config.Labels)
	delete(cfg.Labels, labelConfigHash)
	delete(cfg.Labels, labelImage)
	h, err := digest.JSON(struct {
		Name       string
		Config     container.Config
		Host       *container.HostConfig
		Networking *network.NetworkingConfig
	}{s.Name, cfg, s.Host, s.Networking})
	if err != nil {
		panic(err) // plain data structures always marshal
	}
	return h
}

// listenable reports whether port can be bound on host now.
func listenable(host string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return l.Close()
}

// networkByName finds the network with exactly this name (the engine's name
// filter also matches parts of names).
func (c *Cluster) networkByName(ctx context.Context, name string) (*network.Summary, error) {
	nets, err := c.docker.NetworkList(ctx, network.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list networks: %w", err)
	}
	for i := range nets {
		if nets[i].Name == name {
			return &nets[i], nil
		}
	}
	return nil, nil
}

func (c *Cluster) createNetwork(ctx context.Context) error {
	_, err := c.docker.NetworkCreate(ctx, c.proj.network, network.CreateOptions{
		Driver: "bridge",
		Labels: map[string]string{labelProject: c.proj.name, labelNetwork: c.proj.netKey},
	})
	if err != nil {
		return fmt.Errorf("create network %s: %w", c.proj.network, err)
	}
	return nil
}

// inspect returns the container of svc, or nil when there is none.
func (c *Cluster) inspect(ctx context.Context, svc string) (*container.InspectResponse, error) {
	ci, err := c.docker.ContainerInspect(ctx, c.ContainerName(svc))
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("inspect %s: %w", c.ContainerName(svc), err)
	}
	return &ci, nil
}

func isNotFound(err error) bool {
	return err != nil && client.IsErrNotFound(err)
}

// ContainerState is one service's container as the engine reports it.
type ContainerState struct {
	Service string
	Name    string
	// Status is the engine's word: created, running, exited, ...; "missing"
	// when there is no container.
	Status   string
	Running  bool
	ExitCode int
	Started  time.Time
	Finished time.Time
}

// Containers reports the state of every service's container, in start order.
func (c *Cluster) Containers(ctx context.Context) ([]ContainerState, error) {
	if err := c.ping(ctx); err != nil {
		return nil, err
	}
	var states []ContainerState
	for _, svc := range c.proj.order {
		ci, err := c.inspect(ctx, svc)
		if err != nil {
			return nil, err
		}
		st := ContainerState{Service: svc, Name: c.ContainerName(svc), Status: "missing"}
		if ci != nil && ci.State != nil {
			st.Status = string(ci.State.Status)
			st.Running = ci.State.Running
			st.ExitCode = ci.State.ExitCode
			st.Started, _ = time.Parse(time.RFC3339Nano, ci.State.StartedAt)
			st.Finished, _ = time.Parse(time.RFC3339Nano, ci.State.FinishedAt)
		}
		states = append(states, st)
	}
	return states, nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
