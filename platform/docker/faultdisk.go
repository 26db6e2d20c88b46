package docker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/chaos/faultfs"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/results"
)

// AllBrokers, as ForDiskFault's broker, puts every broker of the cluster
// on a FUSE layer: a power-loss of every replica.
const AllBrokers = "*"

// DiskRoot is the host directory under which the FUSE layers' backing
// directories and mount points live, one directory per project and broker.
func DiskRoot() string { return filepath.Join(os.TempDir(), "kbf-faultfs") }

// ForDiskFault shapes opts for a fault of a broker's FUSE layer
// (disk-slow, disk-error, power-loss): the broker's log directory, or
// every broker's (AllBrokers), becomes the mount point of a layer kbf
// serves while the trial runs. A user's compose file is left as it is:
// its brokers' disks are its own (Supports refuses the fault).
func ForDiskFault(opts *compose.Options, kind results.FaultKind, broker string) {
	if !kind.FaultFS() || broker == "" || opts.File != "" {
		return
	}
	opts.FaultDisks = map[string]string{broker: ""}
}

// diskMounts fills opts.FaultDisks' mount points, expanding AllBrokers
// into the brokers of the cluster opts describes.
func diskMounts(opts *compose.Options) error {
	if len(opts.FaultDisks) == 0 {
		return nil
	}
	project := opts.ProjectName
	if project == "" {
		project = compose.Project
	}
	svcs := slicesOf(opts.FaultDisks)
	if _, all := opts.FaultDisks[AllBrokers]; all {
		plain := *opts
		plain.FaultDisks = nil
		cl, err := compose.New(plain)
		if err != nil {
			return err
		}
		svcs = slicesOf(cl.Brokers())
		_ = cl.Close()
	}
	mounts := map[string]string{}
	for _, svc := range svcs {
		mounts[svc] = filepath.Join(DiskRoot(), project+"-"+svc, "mnt")
	}
	opts.FaultDisks = mounts
	return nil
}

func slicesOf[V any](m map[string]V) []string {
	var s []string
	for k := range maps.Keys(m) {
		s = append(s, k)
	}
	return s
}

// newDisks are the layers of opts.FaultDisks' mount points: each backed by
// the directory "data" beside its mount point.
func newDisks(opts compose.Options) *chaos.Disks {
	if len(opts.FaultDisks) == 0 {
		return nil
	}
	dirs := map[string]chaos.DiskDirs{}
	for svc, mnt := range opts.FaultDisks {
		dirs[svc] = chaos.DiskDirs{Backing: filepath.Join(filepath.Dir(mnt), "data"), MountPoint: mnt}
	}
	return chaos.NewDisks(dirs)
}

// supportsDisk says whether the broker's log directory is on a layer kbf
// can serve: kbf's own cluster, the engine on this host, /dev/fuse and
// root.
func (t *Cluster) supportsDisk(kind results.FaultKind, broker string) error {
	switch {
	case t.opts.File != "":
		return cluster.Unsupportedf("fault %s: kbf serves a FUSE layer under its own cluster's brokers only; %s's brokers keep their own disks", kind, t.opts.File)
	case t.opts.FaultDisks[broker] == "":
		return cluster.Unsupportedf("fault %s: %s's log directory is on no FUSE layer kbf serves", kind, broker)
	}
	if h := os.Getenv("DOCKER_HOST"); h != "" && !strings.HasPrefix(h, "unix://") {
		return cluster.Unsupportedf("fault %s: the Docker engine at %s is not on this host, where kbf serves the FUSE layer", kind, h)
	}
	if err := faultfs.Available(); err != nil {
		return cluster.Unsupportedf("fault %s: %v (run kbf as root on the Docker host)", kind, err)
	}
	return nil
}

// mountDisks mounts the layers this process does not serve yet; a broker
// still running on one of their mount points (left by a kbf that ended
// without unmounting) is stopped first, since its directory is gone. Up
// then starts the brokers on the layers.
func (t *Cluster) mountDisks(ctx context.Context) error {
	if err := t.inj.StopOnDisks(ctx, t.disks.Unmounted()...); err != nil {
		return err
	}
	return t.disks.Mount()
}

// closeDisks stops the brokers on the layers this process serves and
// unmounts them: kbf serves them only while it runs. The next trial mounts
// them again and starts the brokers on them. A target that mounted
// nothing (its trial never began) stops nothing.
func (t *Cluster) closeDisks() error {
	if t.disks == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := t.inj.StopOnDisks(ctx, t.disks.Mounted()...)
	if uerr := t.disks.Unmount(); uerr != nil {
		err = errors.Join(err, fmt.Errorf("unmount the brokers' FUSE layers: %w", uerr))
	}
	return err
}
