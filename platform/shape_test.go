package platform_test

import (
	"errors"
	"testing"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/internal/regfile"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/results"
)

// TestShapedCarriesTheFault: the fault in the spec shapes kbf's Docker
// cluster (a disk-full fault's tmpfs, a disk fault's FUSE layer) and
// nothing else; the caller's options are never changed.
func TestShapedCarriesTheFault(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      compose.Options
		fault     platform.Fault
		tmpfs     map[string]string
		fuseUnder string // "" for no FUSE layer
	}{
		{"no fault", compose.Options{}, platform.Fault{}, nil, ""},
		{"sigkill", compose.Options{}, platform.Fault{Kind: results.FaultSIGKILL, Broker: "k1", DiskSize: "128m"}, nil, ""},
		{"disk-full", compose.Options{}, platform.Fault{Kind: results.FaultDiskFull, Broker: "k2", DiskSize: "64m"}, map[string]string{"k2": "64m"}, ""},
		{"disk-full of a role's broker", compose.Options{}, platform.Fault{Kind: results.FaultDiskFull, DiskSize: "64m"}, nil, ""},
		{"disk-slow", compose.Options{}, platform.Fault{Kind: results.FaultDiskSlow, Broker: "k3"}, nil, "k3"},
		{"power-loss of every replica", compose.Options{}, platform.Fault{Kind: results.FaultPowerLoss, Broker: "k1", AllReplicas: true}, nil, platform.AllBrokers},
		{"disk-error on a user's file", compose.Options{File: "shop.yaml"}, platform.Fault{Kind: results.FaultDiskError, Broker: "kafka-1"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			s := platform.Spec{Docker: &opts, Fault: tc.fault}.Shaped()
			if got := s.Docker.DiskLimits; len(got) != len(tc.tmpfs) || len(got) > 0 && got[tc.fault.Broker] != tc.tmpfs[tc.fault.Broker] {
				t.Errorf("tmpfs %v, want %v", got, tc.tmpfs)
			}
			if _, ok := s.Docker.FaultDisks[tc.fuseUnder]; tc.fuseUnder != "" && (!ok || len(s.Docker.FaultDisks) != 1) || tc.fuseUnder == "" && s.Docker.FaultDisks != nil {
				t.Errorf("FUSE layers %v, want one under %q", s.Docker.FaultDisks, tc.fuseUnder)
			}
			if opts.DiskLimits != nil || opts.FaultDisks != nil {
				t.Errorf("the caller's options changed: %+v", opts)
			}
		})
	}
	r := platform.Spec{Remote: &platform.RemoteOptions{}, Fault: platform.Fault{Kind: results.FaultDiskFull, Broker: "1"}}
	if got := r.Shaped(); got.Remote != r.Remote || got.Docker != nil {
		t.Errorf("a remote spec shaped: %+v", got)
	}
}

// TestShapeOfAsksEachPlaceWithoutContactingIt: each place answers what it
// can do before it is reached: kbf's Docker cluster from its options (its
// brokers, a disk-full fault only on the broker given a tmpfs), a remote
// cluster the external fault alone, Kubernetes the faults it makes.
func TestShapeOfAsksEachPlaceWithoutContactingIt(t *testing.T) {
	docker := platform.Spec{Docker: &compose.Options{Brokers: 3}, Fault: platform.Fault{Kind: results.FaultDiskFull, Broker: "k2", DiskSize: "64m"}}
	remote := platform.Spec{Remote: &platform.RemoteOptions{}}
	k8s := platform.Spec{K8s: &platform.K8s{}}
	for _, tc := range []struct {
		name    string
		spec    platform.Spec
		kind    results.FaultKind
		broker  string
		want    bool // supported
		brokers int
	}{
		{"Docker, disk-full on the broker shaped for it", docker, results.FaultDiskFull, "k2", true, 3},
		{"Docker, disk-full on another broker", docker, results.FaultDiskFull, "k1", false, 3},
		{"Docker, an external fault", docker, results.FaultExternal, "k1", false, 3},
		{"remote, an external fault", remote, results.FaultExternal, "", true, 0},
		{"remote, sigkill", remote, results.FaultSIGKILL, "", false, 0},
		{"Kubernetes, sigkill", k8s, results.FaultSIGKILL, "", true, 0},
		{"Kubernetes, an external fault", k8s, results.FaultExternal, "", false, 0},
		{"Kubernetes, power-loss", k8s, results.FaultPowerLoss, "", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sh, err := platform.ShapeOf(tc.spec)
			if err != nil {
				t.Fatalf("ShapeOf: %v", err)
			}
			defer sh.Close()
			if n := len(sh.Brokers()); n != tc.brokers {
				t.Errorf("%d brokers, want %d", n, tc.brokers)
			}
			err = sh.Supports(tc.kind, tc.broker)
			if tc.want != (err == nil) || err != nil && !errors.Is(err, cluster.ErrUnsupported) {
				t.Errorf("Supports(%s, %q): %v, want supported %t", tc.kind, tc.broker, err, tc.want)
			}
			if err2 := platform.Supports(tc.spec, tc.kind, tc.broker); (err2 == nil) != (err == nil) {
				t.Errorf("platform.Supports: %v, the shape's Supports: %v", err2, err)
			}
		})
	}
	if sh, _ := platform.ShapeOf(remote); sh.Observer() == nil {
		t.Error("a remote cluster's shape shows no metadata: its external fault would be refused")
	}
}

// TestShapeOfRefusesWhatOpenRefuses: a spec of no place or several, and a
// Docker cluster's configuration error, are refused as Open refuses them,
// with no shape beside the error.
func TestShapeOfRefusesWhatOpenRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec platform.Spec
		want error
	}{
		{"no place", platform.Spec{}, platform.ErrSpec},
		{"Docker and Kubernetes", platform.Spec{Docker: &compose.Options{}, K8s: &platform.K8s{}}, platform.ErrSpec},
		{"combined with an even number of brokers", platform.Spec{Docker: &compose.Options{Brokers: 2, Combined: true}}, compose.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sh, err := platform.ShapeOf(tc.spec)
			if !errors.Is(err, tc.want) || sh != nil {
				t.Fatalf("ShapeOf: %v, %v; want %v and no shape", sh, err, tc.want)
			}
			if err := platform.Supports(tc.spec, results.FaultSIGKILL, "k1"); !errors.Is(err, tc.want) {
				t.Fatalf("Supports: %v, want %v", err, tc.want)
			}
		})
	}
}

// TestCheckKubeconfigAndLogsCommand: the checks a command makes of a
// place's settings before making it.
func TestCheckKubeconfigAndLogsCommand(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	if err := platform.CheckKubeconfig(t.TempDir()); !errors.Is(err, regfile.ErrNotRegular) {
		t.Errorf("CheckKubeconfig of a directory: %v, want regfile.ErrNotRegular", err)
	}
	for cmd, ok := range map[string]bool{"": false, "  ": false, "cat /logs/{id}.log": true} {
		if err := platform.CheckLogsCommand(cmd); (err == nil) != ok {
			t.Errorf("CheckLogsCommand(%q): %v, want accepted %t", cmd, err, ok)
		}
	}
}
