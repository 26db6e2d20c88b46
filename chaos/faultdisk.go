package chaos

// The faults of a log directory served through a FUSE layer (faultfs): a
// slow disk, a failing one, a power loss. The layers are served by kbf's
// own process for as long as the trial runs: Disks mounts them before the
// brokers start, the injector switches them, and the target unmounts them
// once the brokers on them are stopped.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/kbf-project/kbf/chaos/faultfs"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// DiskDirs are a broker's directories on the host: the backing directory
// that holds its data, and the mount point the FUSE layer serves it at,
// which the broker's container has as its log directory.
type DiskDirs struct {
	Backing, MountPoint string
}

// Disks are the FUSE layers under brokers' log directories, by service.
type Disks struct {
	mu     sync.Mutex
	dirs   map[string]DiskDirs
	layers map[string]*faultfs.Layer
	// faulted is the fault each broker took, until Restart undoes it;
	// lost are the brokers a power-loss took together, by the faulted one.
	faulted map[string]results.FaultKind
	lost    map[string][]string
}

// NewDisks returns the layers of dirs, not mounted yet.
func NewDisks(dirs map[string]DiskDirs) *Disks {
	return &Disks{dirs: dirs, layers: map[string]*faultfs.Layer{}, faulted: map[string]results.FaultKind{}, lost: map[string][]string{}}
}

// Services are the brokers with a layer, sorted.
func (d *Disks) Services() []string {
	var s []string
	for k := range d.dirs {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// Mount mounts every layer that is not mounted, making its directories
// (the backing one owned by uid 1000, the image's appuser) and detaching
// a layer a kbf that ended without unmounting left behind. The backing
// directory starts empty, as a tmpfs does: the broker formats it and
// fetches its replicas from the leaders, and a directory of a cluster
// made anew since can never hold another cluster's id.
func (d *Disks) Mount() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, svc := range d.Services() {
		if d.layers[svc] != nil {
			continue
		}
		_ = syscall.Unmount(d.dirs[svc].MountPoint, syscall.MNT_DETACH)
		if err := os.RemoveAll(d.dirs[svc].Backing); err != nil {
			return fmt.Errorf("disk of %s: %w", svc, err)
		}
		if err := d.mountLocked(svc); err != nil {
			return err
		}
	}
	return nil
}

func (d *Disks) mountLocked(svc string) error {
	dd := d.dirs[svc]
	_ = syscall.Unmount(dd.MountPoint, syscall.MNT_DETACH) // a stale layer: ENOTCONN to every user
	for _, dir := range []string{dd.Backing, dd.MountPoint} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("disk of %s: %w", svc, err)
		}
	}
	if err := os.Chown(dd.Backing, 1000, 1000); err != nil {
		return fmt.Errorf("disk of %s: %w", svc, err)
	}
	l, err := faultfs.Mount(dd.Backing, dd.MountPoint)
	if err != nil {
		return fmt.Errorf("disk of %s: %w", svc, err)
	}
	d.layers[svc] = l
	return nil
}

// Settle takes what every layer holds as written back (faultfs.Layer.
// Settle): a power loss later in the trial loses only the trial's
// unsynced writes.
func (d *Disks) Settle() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, l := range d.layers {
		l.Settle()
	}
}

// Unmount unmounts every layer; the brokers on them must be stopped.
func (d *Disks) Unmount() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for svc, l := range d.layers {
		errs = append(errs, l.Unmount())
		delete(d.layers, svc)
	}
	return errors.Join(errs...)
}

// Unmounted are the brokers whose layer this process does not serve.
func (d *Disks) Unmounted() []string { return d.served(false) }

// Mounted are the brokers whose layer this process serves.
func (d *Disks) Mounted() []string { return d.served(true) }

func (d *Disks) served(mounted bool) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var s []string
	for _, svc := range d.Services() {
		if (d.layers[svc] != nil) == mounted {
			s = append(s, svc)
		}
	}
	return s
}

func (d *Disks) layer(svc string) (*faultfs.Layer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.layers[svc]
	if l == nil {
		return nil, fmt.Errorf("%s's log directory is not on a FUSE layer kbf serves", svc)
	}
	return l, nil
}

// remount unmounts svc's layer and mounts a fresh one over the same
// backing directory, in normal mode and with no cached pages.
func (d *Disks) remount(svc string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if l := d.layers[svc]; l != nil {
		if err := l.Unmount(); err != nil {
			return err
		}
		delete(d.layers, svc)
	}
	return d.mountLocked(svc)
}

// WithDisks lets in inject the faults of brokers' FUSE layers.
func (in *Injector) WithDisks(d *Disks) *Injector {
	in.disks = d
	return in
}

// diskFault switches the broker's layer: slow or failing, or without
// power.
func (in *Injector) diskFault(ctx context.Context, f cluster.Fault, rf *results.Fault) error {
	if in.disks == nil {
		return fmt.Errorf("%s %s: its log directory is on no FUSE layer kbf serves", f.Kind, f.Broker)
	}
	l, err := in.disks.layer(f.Broker)
	if err != nil {
		return fmt.Errorf("%s %s: %w", f.Kind, f.Broker, err)
	}
	switch f.Kind {
	case results.FaultDiskSlow:
		rf.SignalSent = in.now()
		rf.Disk = &results.DiskFault{Delay: f.DiskDelay}
		if err := l.SetMode(faultfs.Slow, f.DiskDelay); err != nil {
			return fmt.Errorf("disk-slow %s: %w", f.Broker, err)
		}
		in.disks.mark(f.Broker, f.Kind, nil)
		return nil // the process runs on, slowly
	case results.FaultDiskError:
		rf.SignalSent = in.now()
		rf.Disk = &results.DiskFault{}
		if err := l.SetMode(faultfs.Error, 0); err != nil {
			return fmt.Errorf("disk-error %s: %w", f.Broker, err)
		}
		in.disks.mark(f.Broker, f.Kind, nil)
		return in.awaitHalt(ctx, f, rf)
	}
	return in.powerLoss(ctx, f, rf)
}

// awaitHalt waits up to the fault's HaltWait for the broker's process to
// end, as Kafka ends it when the failed directory holds its metadata log,
// and records the end. A broker still running then is no error.
func (in *Injector) awaitHalt(ctx context.Context, f cluster.Fault, rf *results.Fault) error {
	wait := f.HaltWait
	if wait == 0 {
		wait = cluster.DefaultHaltWait
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	err := in.waitStopped(wctx, in.container(f.Broker))
	cancel()
	switch {
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return nil
	case err != nil:
		return fmt.Errorf("%s %s: wait for the process: %w", f.Kind, f.Broker, err)
	}
	return in.recordStop(ctx, f.Broker, rf)
}

// powerOffProcess kills the broker's process. Its disk went first: a
// broker that wrote in between failed on it and may have halted by itself
// before the signal came (one log directory offline ends a broker), which
// is the power loss too, not an error.
func (in *Injector) powerOffProcess(ctx context.Context, broker string) error {
	name := in.container(broker)
	err := in.docker.ContainerKill(ctx, name, "SIGKILL")
	if err == nil {
		return nil
	}
	if ci, ierr := in.docker.ContainerInspect(ctx, name); ierr == nil && ci.State != nil && !ci.State.Running {
		return nil
	}
	return err
}

// powerLoss cuts the power of the broker and of f.AlsoLose at once: every
// layer drops what was not fsynced and refuses everything after, then the
// containers are SIGKILLed, then each layer is mounted afresh over what
// was synced, for Restart to start the brokers on.
func (in *Injector) powerLoss(ctx context.Context, f cluster.Fault, rf *results.Fault) error {
	brokers := append([]string{f.Broker}, f.AlsoLose...)
	layers := make([]*faultfs.Layer, len(brokers))
	for i, b := range brokers {
		l, err := in.disks.layer(b)
		if err != nil {
			return fmt.Errorf("power-loss %s: %w", b, err)
		}
		layers[i] = l
	}
	rf.Disk = &results.DiskFault{Brokers: brokers}
	in.disks.mark(f.Broker, f.Kind, brokers)
	rf.SignalSent = in.now()
	var errs []error
	for i, l := range layers {
		lost, err := l.PowerOff()
		rf.Disk.LostFiles += lost.Files
		rf.Disk.LostBytes += lost.Bytes
		if err != nil {
			errs = append(errs, fmt.Errorf("power-loss %s: %w", brokers[i], err))
		}
	}
	for _, b := range brokers {
		if err := in.powerOffProcess(ctx, b); err != nil {
			errs = append(errs, fmt.Errorf("power-loss %s: sigkill: %w", b, err))
		}
	}
	for _, b := range brokers {
		if err := in.waitStopped(ctx, in.container(b)); err != nil {
			errs = append(errs, fmt.Errorf("power-loss %s: wait for the process: %w", b, err))
			continue
		}
		if err := in.disks.remount(b); err != nil {
			errs = append(errs, fmt.Errorf("power-loss %s: %w", b, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return in.recordStop(ctx, f.Broker, rf)
}

func (d *Disks) mark(broker string, kind results.FaultKind, lost []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faulted[broker] = kind
	if lost != nil {
		d.lost[broker] = lost
	}
}

// undoDisk undoes a fault of the broker's layer: a slow disk is made
// normal; a failed one is made normal and the broker, still running with
// its directory offline, stopped and started again; the brokers a power
// loss took are started on what was synced. It reports false when no such
// fault is on broker.
func (in *Injector) undoDisk(ctx context.Context, broker string) (bool, error) {
	if in.disks == nil {
		return false, nil
	}
	in.disks.mu.Lock()
	kind, ok := in.disks.faulted[broker]
	lost := in.disks.lost[broker]
	delete(in.disks.faulted, broker)
	delete(in.disks.lost, broker)
	in.disks.mu.Unlock()
	if !ok {
		return false, nil
	}
	if kind == results.FaultPowerLoss {
		for _, b := range lost {
			if err := in.startStopped(ctx, b); err != nil {
				return true, fmt.Errorf("undo power-loss: %w", err)
			}
		}
		return true, nil
	}
	l, err := in.disks.layer(broker)
	if err != nil {
		return true, fmt.Errorf("undo %s %s: %w", kind, broker, err)
	}
	if err := l.SetMode(faultfs.Normal, 0); err != nil {
		return true, fmt.Errorf("undo %s %s: %w", kind, broker, err)
	}
	if kind == results.FaultDiskSlow {
		return true, in.startStopped(ctx, broker)
	}
	if err := in.stopRunning(ctx, broker); err != nil {
		return true, fmt.Errorf("undo %s %s: %w", kind, broker, err)
	}
	return true, in.startStopped(ctx, broker)
}

// stopRunning stops the broker's container gracefully when it runs.
func (in *Injector) stopRunning(ctx context.Context, broker string) error {
	name := in.container(broker)
	ci, err := in.docker.ContainerInspect(ctx, name)
	if err != nil {
		return err
	}
	if ci.State == nil || !ci.State.Running {
		return nil
	}
	if err := in.docker.ContainerKill(ctx, name, "SIGTERM"); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	gctx, cancel := context.WithTimeout(ctx, cluster.DefaultGrace)
	defer cancel()
	if err := in.waitStopped(gctx, name); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	return nil
}

// startStopped starts the broker's container unless it runs.
func (in *Injector) startStopped(ctx context.Context, broker string) error {
	name := in.container(broker)
	ci, err := in.docker.ContainerInspect(ctx, name)
	if err != nil {
		return fmt.Errorf("start %s: %w", broker, err)
	}
	if ci.State != nil && ci.State.Running {
		return nil
	}
	if err := in.docker.ContainerStart(ctx, name, startOptions); err != nil {
		return fmt.Errorf("start %s: %w", broker, err)
	}
	return nil
}

// bound reports whether the container ci has svc's mount point bound.
func (d *Disks) bound(svc string, ci container.InspectResponse) bool {
	dd, ok := d.dirs[svc]
	if !ok || ci.HostConfig == nil {
		return false
	}
	return slices.ContainsFunc(ci.HostConfig.Binds, func(b string) bool { return strings.HasPrefix(b, dd.MountPoint+":") })
}

// diskStopWait bounds how long Close waits for a broker on a layer.
const diskStopWait = 30 * time.Second

// StopOnDisks stops (SIGKILL) those of svcs that run with their log
// directory on a layer's mount point, before their layers are unmounted
// or mounted: kbf serves the layers only while it runs, and a broker left
// running on an unmounted layer fails its directory. The next trial
// starts them again on fresh layers. A broker on a directory of its own
// is left to the cluster's Up, which recreates it gracefully.
func (in *Injector) StopOnDisks(ctx context.Context, svcs ...string) error {
	if in.disks == nil {
		return nil
	}
	var errs []error
	for _, svc := range svcs {
		name := in.container(svc)
		ci, err := in.docker.ContainerInspect(ctx, name)
		if err != nil || ci.State == nil || !ci.State.Running || !in.disks.bound(svc, ci) {
			continue
		}
		if err := in.docker.ContainerKill(ctx, name, "SIGKILL"); err != nil {
			errs = append(errs, fmt.Errorf("stop %s: %w", svc, err))
			continue
		}
		wctx, cancel := context.WithTimeout(ctx, diskStopWait)
		if err := in.waitStopped(wctx, name); err != nil {
			errs = append(errs, fmt.Errorf("stop %s: %w", svc, err))
		}
		cancel()
	}
	return errors.Join(errs...)
}
