package compose

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	dockertypes "github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// fakeEngine is an in-memory Docker engine: containers, one image store,
// networks. It records the calls that change something, in order.
type fakeEngine struct {
	down       bool              // Ping fails as an unreachable engine would
	images     map[string]string // name → id
	pullErr    error             // ImagePull fails to start
	pullStream string            // what a pull that starts streams
	pullGives  string            // the id a successful pull stores
	containers map[string]*container.InspectResponse
	networks   map[string]network.Summary // id → network
	libs       string                     // ls /opt/kafka/libs output
	output     map[string]string          // a container's standard output
	properties string                     // cat server.properties output
	calls      []string
	nextID     int
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{
		images:     map[string]string{DefaultImage: "sha256:aaa"},
		containers: map[string]*container.InspectResponse{},
		networks:   map[string]network.Summary{},
	}
}

func (f *fakeEngine) record(format string, a ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, a...))
}

func (f *fakeEngine) id() string { f.nextID++; return fmt.Sprintf("id%d", f.nextID) }

func notFound(what string) error { return fmt.Errorf("no such %s: %w", what, cerrdefs.ErrNotFound) }

func (f *fakeEngine) Ping(context.Context) (dockertypes.Ping, error) {
	if f.down {
		return dockertypes.Ping{}, client.ErrorConnectionFailed("unix:///fake.sock")
	}
	return dockertypes.Ping{APIVersion: "1.41"}, nil
}

func (f *fakeEngine) DaemonHost() string { return "unix:///fake.sock" }

func (f *fakeEngine) ImageInspect(_ context.Context, name string, _ ...client.ImageInspectOption) (image.InspectResponse, error) {
	id, ok := f.images[name]
	if !ok {
		return image.InspectResponse{}, notFound("image " + name)
	}
	return image.InspectResponse{ID: id}, nil
}

func (f *fakeEngine) ImagePull(_ context.Context, ref string, _ image.PullOptions) (io.ReadCloser, error) {
	f.record("pull %s", ref)
	if f.pullErr != nil {
		return nil, f.pullErr
	}
	if f.pullGives != "" {
		f.images[ref] = f.pullGives
	}
	return io.NopCloser(strings.NewReader(f.pullStream)), nil
}

func (f *fakeEngine) NetworkList(context.Context, network.ListOptions) ([]network.Summary, error) {
	var nets []network.Summary
	for _, n := range f.networks {
		nets = append(nets, n)
	}
	sort.Slice(nets, func(i, j int) bool { return nets[i].ID < nets[j].ID })
	return nets, nil
}

func (f *fakeEngine) NetworkCreate(_ context.Context, name string, opts network.CreateOptions) (network.CreateResponse, error) {
	f.record("create network %s", name)
	id := f.id()
	f.networks[id] = network.Summary{ID: id, Name: name, Labels: opts.Labels}
	return network.CreateResponse{ID: id}, nil
}

func (f *fakeEngine) NetworkRemove(_ context.Context, id string) error {
	n, ok := f.networks[id]
	if !ok {
		return notFound("network " + id)
	}
	f.record("remove network %s", n.Name)
	delete(f.networks, id)
	return nil
}

func (f *fakeEngine) ContainerList(_ context.Context, opts container.ListOptions) ([]container.Summary, error) {
	var list []container.Summary
	for _, name := range sortedKeys(f.containers) {
		ci := f.containers[name]
		match := true
		for _, l := range opts.Filters.Get("label") {
			k, v, _ := strings.Cut(l, "=")
			match = match && ci.Config.Labels[k] == v
		}
		if match {
			list = append(list, container.Summary{ID: ci.ID, Names: []string{"/" + name}, Labels: ci.Config.Labels})
		}
	}
	return list, nil
}

func (f *fakeEngine) ContainerInspect(_ context.Context, name string) (container.InspectResponse, error) {
	ci, ok := f.containers[name]
	if !ok {
		return container.InspectResponse{}, notFound("container " + name)
	}
	return *ci, nil
}

func (f *fakeEngine) ContainerCreate(_ context.Context, cfg *container.Config, host *container.HostConfig,
	netw *network.NetworkingConfig, _ *ocispec.Platform, name string) (container.CreateResponse, error) {
	f.record("create %s", name)
	if _, ok := f.containers[name]; ok {
		return container.CreateResponse{}, fmt.Errorf("conflict: %s exists", name)
	}
	imgID, ok := f.images[cfg.Image]
	if !ok {
		return container.CreateResponse{}, notFound("image " + cfg.Image)
	}
	var netID string
	for id, n := range f.networks {
		if n.Name == string(host.NetworkMode) {
			netID = id
		}
	}
	if netID == "" {
		return container.CreateResponse{}, notFound("network " + string(host.NetworkMode))
	}
	id := f.id()
	f.containers[name] = &container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{
			ID: id, Name: "/" + name, Image: imgID, HostConfig: host,
			State: &container.State{Status: container.StateCreated},
		},
		Config: cfg,
		NetworkSettings: &container.NetworkSettings{Networks: map[string]*network.EndpointSettings{
			string(host.NetworkMode): {NetworkID: netID, Aliases: netw.EndpointsConfig[string(host.NetworkMode)].Aliases},
		}},
	}
	return container.CreateResponse{ID: id}, nil
}

func (f *fakeEngine) ContainerStart(_ context.Context, name string, _ container.StartOptions) error {
	f.record("start %s", name)
	ci, ok := f.containers[name]
	if !ok {
		return notFound("container " + name)
	}
	ci.State = &container.State{Status: container.StateRunning, Running: true}
	return nil
}

func (f *fakeEngine) ContainerUnpause(_ context.Context, name string) error {
	f.record("unpause %s", name)
	ci, ok := f.containers[name]
	if !ok {
		return notFound("container " + name)
	}
	ci.State = &container.State{Status: container.StateRunning, Running: true}
	return nil
}

func (f *fakeEngine) ContainerRemove(_ context.Context, name string, opts container.RemoveOptions) error {
	if !opts.Force || !opts.RemoveVolumes {
		return errors.New("fake: remove without force and volumes")
	}
	if _, ok := f.containers[name]; !ok {
		return notFound("container " + name)
	}
	f.record("remove %s", name)
	delete(f.containers, name)
	return nil
}

func (f *fakeEngine) ContainerLogs(_ context.Context, name string, _ container.LogsOptions) (io.ReadCloser, error) {
	if _, ok := f.containers[name]; !ok {
		return nil, notFound("container " + name)
	}
	var b bytes.Buffer
	io.WriteString(stdcopy.NewStdWriter(&b, stdcopy.Stdout), f.output[name])
	return io.NopCloser(&b), nil
}

func (f *fakeEngine) ContainerExecCreate(_ context.Context, name string, opts container.ExecOptions) (container.ExecCreateResponse, error) {
	if ci, ok := f.containers[name]; !ok || !ci.State.Running {
		return container.ExecCreateResponse{}, fmt.Errorf("container %s is not running", name)
	}
	switch strings.Join(opts.Cmd, " ") {
	case "ls " + LibDir:
		return container.ExecCreateResponse{ID: "ls"}, nil
	case "cat " + ConfigFile:
		return container.ExecCreateResponse{ID: "cat"}, nil
	}
	return container.ExecCreateResponse{}, fmt.Errorf("fake: unexpected command %q", opts.Cmd)
}

func (f *fakeEngine) ContainerExecAttach(_ context.Context, id string, _ container.ExecAttachOptions) (dockertypes.HijackedResponse, error) {
	var b bytes.Buffer
	w := stdcopy.NewStdWriter(&b, stdcopy.Stdout)
	out := f.libs
	if id == "cat" {
		out = f.properties
	}
	io.WriteString(w, out)
	c1, c2 := net.Pipe()
	c2.Close()
	return dockertypes.HijackedResponse{Conn: c1, Reader: bufio.NewReader(&b)}, nil
}

func (f *fakeEngine) ContainerExecInspect(context.Context, string) (container.ExecInspect, error) {
	return container.ExecInspect{ExitCode: 0}, nil
}

var _ engine = (*fakeEngine)(nil)

func networkSummary(id, name string) network.Summary { return network.Summary{ID: id, Name: name} }
