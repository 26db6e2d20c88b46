package platform

import (
	"io"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/platform/docker"
	"github.com/kbf-project/kbf/platform/k8s"
	"github.com/kbf-project/kbf/platform/remote"
	"github.com/kbf-project/kbf/results"
)

// Fault is the fault a spec's trial makes, as far as the cluster's making
// depends on it: kbf's Docker cluster gives a disk-full fault's broker a
// tmpfs log directory of DiskSize, and a disk fault's broker (every
// broker's, AllReplicas) a log directory on a FUSE layer kbf serves.
type Fault struct {
	Kind results.FaultKind
	// Broker is the faulted broker; "" when it is found only at the fault
	// (a role), and its cluster is then shaped for none.
	Broker string
	// DiskSize is the size of a disk-full fault's tmpfs (such as 128m).
	DiskSize string
	// AllReplicas is a power loss of every broker at once.
	AllReplicas bool
}

// AllBrokers names every broker where a cluster's option names one: a
// power loss of every replica serves every broker's log directory
// through a FUSE layer.
const AllBrokers = docker.AllBrokers

// Shaped is s with kbf's Docker cluster shaped for s.Fault, as Open makes
// it; a spec of another place, or of no fault, is returned as it is. The
// spec's options are copied, never changed.
func (s Spec) Shaped() Spec {
	if s.Docker == nil || s.Fault.Kind == "" {
		return s
	}
	opts := *s.Docker
	docker.ForFault(&opts, s.Fault.Kind, s.Fault.Broker, s.Fault.DiskSize)
	disk := s.Fault.Broker
	if s.Fault.AllReplicas {
		disk = AllBrokers
	}
	docker.ForDiskFault(&opts, s.Fault.Kind, disk)
	s.Docker = &opts
	return s
}

// Shape is a cluster made only to be asked, before anything starts, what
// it is and can do (cluster.Shape); Close releases what making it took.
type Shape interface {
	cluster.Shape
	io.Closer
}

// ShapeOf makes the cluster of s only to be asked what it is and can do:
// it contacts nothing and brings nothing up. kbf's Docker cluster is read
// from its compose file or options, shaped for s.Fault; a remote or a
// Kubernetes cluster has no node until it is reached, and its shape
// answers for what its place can do (Supports, Quorum, Observer).
// Configuration errors are Open's.
func ShapeOf(s Spec) (Shape, error) {
	switch {
	case count(s) != 1:
		return nil, ErrSpec
	case s.Docker != nil:
		t, err := docker.New(*s.Shaped().Docker)
		if err != nil {
			return nil, err // a nil *docker.Cluster must not become a non-nil Shape
		}
		return t, nil
	case s.Remote != nil:
		return unreached{&remote.Cluster{}}, nil
	default:
		return unreached{&k8s.Cluster{}}, nil
	}
}

// unreached is the shape of a cluster of a place that is reached only
// when it is made: no client to close.
type unreached struct{ cluster.Shape }

func (unreached) Close() error { return nil }

// Supports says, contacting nothing, whether the cluster of s can make a
// fault of kind on broker (ShapeOf(s).Supports): nil when it can, else an
// error wrapping cluster.ErrUnsupported that says why not.
func Supports(s Spec, kind results.FaultKind, broker string) error {
	sh, err := ShapeOf(s)
	if err != nil {
		return err
	}
	defer sh.Close()
	return sh.Supports(kind, broker)
}

// CheckLogsCommand checks a remote cluster's command that prints a node's
// log (RemoteOptions.LogsCommand) before anything runs it.
func CheckLogsCommand(cmd string) error { return remote.CheckLogsCommand(cmd) }

// CheckKubeconfig reads the kubeconfig a Kubernetes cluster would be
// reached with ("": $KUBECONFIG, ~/.kube/config or the pod's service
// account), contacting nothing: one that is missing, unreadable or not a
// regular file (regfile.ErrNotRegular) is an error.
func CheckKubeconfig(path string) error {
	_, _, err := k8s.LoadConfig(path)
	return err
}
