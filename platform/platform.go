// Package platform makes the cluster a trial runs against (cluster.Cluster)
// from a spec that says where it lives: kbf's Docker cluster
// (platform/docker), a Kafka in Kubernetes (platform/k8s), or a cluster
// reached by its addresses (platform/remote). kbf run, bench, probe and
// watch all make theirs here, and ask here what a cluster can do before
// making it (ShapeOf, Supports), so that a place a cluster can live is
// added once and no command imports one.
package platform

import (
	"context"
	"errors"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/platform/docker"
	"github.com/kbf-project/kbf/platform/k8s"
	"github.com/kbf-project/kbf/platform/remote"
)

// Spec says where a cluster lives: exactly one of Docker, Remote and K8s
// is set. Fault is the fault its trial makes, which kbf's Docker cluster
// is shaped for when made (Shaped).
type Spec struct {
	// Docker is kbf's Docker cluster, the embedded one or a user's compose
	// file. Making it contacts nothing.
	Docker *compose.Options
	// Remote is a cluster reached by its addresses: contacted when made,
	// its brokers asked who they are.
	Remote *RemoteOptions
	// K8s is a Kafka in Kubernetes: its namespace's pods listed when made.
	K8s *K8s
	// Fault is the trial's fault; the zero Fault is none.
	Fault Fault
}

// RemoteOptions are a remote cluster's settings (remote.Options): its
// addresses, where its node logs are, its client security.
type RemoteOptions = remote.Options

// K8sOptions are a Kubernetes cluster's settings (k8s.Options): the pods'
// selector, the broker to fault, the ephemeral container's image.
type K8sOptions = k8s.Options

// K8s is where a Kafka in Kubernetes is, and the target's settings.
type K8s struct {
	// Kubeconfig is the kubeconfig file; "": $KUBECONFIG, ~/.kube/config,
	// or the pod's service account in the cluster.
	Kubeconfig string
	// Namespace is the cluster's; "": the kubeconfig context's, else
	// default.
	Namespace string
	Options   K8sOptions
}

// ErrSpec marks a spec that names no place, or more than one.
var ErrSpec = errors.New("a cluster spec names one place: Docker, Remote or K8s")

// Open makes the cluster s names. Configuration errors wrap
// compose.ErrInvalid (a compose file, a setting) or regfile.ErrNotRegular
// (a kubeconfig that is not a file).
func Open(ctx context.Context, s Spec) (cluster.Cluster, error) {
	s = s.Shaped()
	switch {
	case count(s) != 1:
		return nil, ErrSpec
	case s.Docker != nil:
		t, err := docker.New(*s.Docker)
		if err != nil {
			return nil, err // a nil *docker.Cluster must not become a non-nil Cluster
		}
		return t, nil
	case s.Remote != nil:
		t, err := remote.New(ctx, *s.Remote)
		if err != nil {
			return nil, err
		}
		return t, nil
	default:
		return openK8s(ctx, *s.K8s)
	}
}

func count(s Spec) int {
	n := 0
	for _, set := range []bool{s.Docker != nil, s.Remote != nil, s.K8s != nil} {
		if set {
			n++
		}
	}
	return n
}

func openK8s(ctx context.Context, s K8s) (cluster.Cluster, error) {
	cfg, ns, err := k8s.LoadConfig(s.Kubeconfig)
	if err != nil {
		return nil, err
	}
	if s.Namespace != "" {
		ns = s.Namespace
	}
	if ns == "" {
		ns = "default"
	}
	api, err := k8s.NewAPI(cfg, ns)
	if err != nil {
		return nil, err
	}
	t, err := k8s.New(ctx, api, s.Options)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Pool keeps kbf's Docker clusters across a benchmark's trials: a trial on
// a kept cluster's nodes reuses it, one with other node settings gets a
// cluster of its own beside the kept ones, up to Docker.Clusters
// (docker.Pool). A cluster
// of another place is made anew for each trial — its brokers checked
// again, a pod made again since the last found at its new address — and
// closed by the trial's release.
type Pool struct {
	Docker docker.Pool
}

// Open returns the cluster of s and the func that releases it once the
// trial is over; fresh asks for a Docker cluster brought up from nothing.
func (p *Pool) Open(ctx context.Context, s Spec, fresh bool) (cluster.Cluster, func(), error) {
	if s.Docker != nil && count(s) == 1 {
		s = s.Shaped()
		t, err := p.Docker.Get(ctx, *s.Docker, fresh)
		if err != nil {
			return nil, nil, err
		}
		return t, func() {}, nil
	}
	c, err := Open(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	return c, func() { c.Close() }, nil
}

// Reuses reports whether Open(s, fresh) returns last as it is: kbf's
// Docker cluster kept with the same settings (docker.Pool.Reuses). A
// cluster of another place is made anew for each trial, never reused.
func (p *Pool) Reuses(last cluster.Cluster, s Spec, fresh bool) bool {
	d, ok := last.(*docker.Cluster)
	if !ok || s.Docker == nil || count(s) != 1 {
		return false
	}
	return p.Docker.Reuses(d, *s.Shaped().Docker, fresh)
}

// Close takes down the Docker clusters brought up beside kbf's own and
// closes the clients; kbf's own cluster stays up.
func (p *Pool) Close(ctx context.Context) error {
	err := p.Docker.Shrink(ctx)
	p.Docker.Close()
	return err
}
