package platform_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/internal/regfile"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/platform/remote"
	"github.com/kbf-project/kbf/results"
)

// TestOpenRefusesASpecOfNoneOrSeveralPlaces: a spec names exactly one place.
func TestOpenRefusesASpecOfNoneOrSeveralPlaces(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec platform.Spec
	}{
		{"no place", platform.Spec{}},
		{"Docker and remote", platform.Spec{Docker: &compose.Options{}, Remote: &remote.Options{Bootstrap: []string{"127.0.0.1:9"}}}},
		{"Docker and Kubernetes", platform.Spec{Docker: &compose.Options{}, K8s: &platform.K8s{}}},
		{"all three", platform.Spec{Docker: &compose.Options{}, Remote: &remote.Options{}, K8s: &platform.K8s{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := platform.Open(context.Background(), tc.spec)
			if !errors.Is(err, platform.ErrSpec) {
				t.Fatalf("Open: %v, want ErrSpec", err)
			}
			if c != nil {
				t.Fatalf("Open returned a cluster (%T) with its error", c)
			}
			var p platform.Pool
			c, release, err := p.Open(context.Background(), tc.spec, false)
			if !errors.Is(err, platform.ErrSpec) || c != nil || release != nil {
				t.Fatalf("Pool.Open: %v, %v, release set %t; want ErrSpec and nothing else", c, err, release != nil)
			}
		})
	}
}

// TestOpenDockerConfigurationError: a Docker spec the cluster cannot take is
// refused without Docker, as compose.ErrInvalid, and never as a non-nil
// cluster holding a nil pointer (which a caller's c != nil would take for
// a cluster).
func TestOpenDockerConfigurationError(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts compose.Options
	}{
		{"combined with an even number of brokers", compose.Options{Brokers: 2, Combined: true}},
		{"a setting for a node that is not there", compose.Options{Config: []compose.Setting{{Node: "k9", Key: "broker.session.timeout.ms", Value: "6000"}}}},
		{"a lead broker that is not there", compose.Options{Lead: "k7"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := platform.Open(context.Background(), platform.Spec{Docker: &tc.opts})
			if !errors.Is(err, compose.ErrInvalid) {
				t.Fatalf("Open: %v, want compose.ErrInvalid", err)
			}
			if c != nil {
				t.Fatalf("Open returned a non-nil cluster (%T) with its error", c)
			}
		})
	}
}

// TestOpenKubeconfigNotAFile: a kubeconfig that is a directory is refused
// in one line, as every file kbf is given.
func TestOpenKubeconfigNotAFile(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	c, err := platform.Open(context.Background(), platform.Spec{K8s: &platform.K8s{Kubeconfig: t.TempDir()}})
	if !errors.Is(err, regfile.ErrNotRegular) {
		t.Fatalf("Open: %v, want regfile.ErrNotRegular", err)
	}
	if c != nil {
		t.Fatalf("Open returned a non-nil cluster (%T) with its error", c)
	}
}

// TestOpenRemoteUnreachable: a remote cluster is contacted when made; one
// that answers nothing is an error within the caller's deadline, and no
// cluster.
func TestOpenRemoteUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	// Port 1 on loopback: nothing listens, the connection is refused.
	c, err := platform.Open(ctx, platform.Spec{Remote: &remote.Options{Bootstrap: []string{"127.0.0.1:1"}}})
	if err == nil {
		t.Fatalf("Open of a cluster that answers nothing: nil error and %T", c)
	}
	if c != nil {
		t.Fatalf("Open returned a non-nil cluster (%T) with its error", c)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Open took %v past its caller's 5 s deadline", took)
	}
}

// TestPoolReuses: kbf's Docker cluster a trial had is reused by the next
// of the same spec, shaped for its fault as Open shapes it; a disk-full
// fault's cluster (a tmpfs log directory) is another, and a cluster of
// another place is never reused.
func TestPoolReuses(t *testing.T) {
	var p platform.Pool
	defer p.Close(context.Background())
	spec := func(kind results.FaultKind) platform.Spec {
		return platform.Spec{Docker: &compose.Options{Env: map[string]string{}}, Fault: platform.Fault{Kind: kind, Broker: "k1", DiskSize: "64m"}}
	}
	c, release, err := p.Open(context.Background(), spec(results.FaultSIGKILL), false)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if !p.Reuses(c, spec(results.FaultSIGTERM), false) {
		t.Error("a sigterm after a sigkill on the same nodes: not reused")
	}
	if p.Reuses(c, spec(results.FaultDiskFull), false) {
		t.Error("a disk-full fault's cluster: reused")
	}
	remote := platform.Spec{Remote: &platform.RemoteOptions{Bootstrap: []string{"127.0.0.1:1"}}}
	if p.Reuses(c, remote, false) {
		t.Error("a remote cluster: reused")
	}
}
