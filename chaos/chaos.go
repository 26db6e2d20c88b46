// Package chaos injects faults into a broker's container and undoes them.
//
// A fault is a signal to the container's main process, sent through the
// Docker engine: SIGKILL (the process dies at once) or SIGTERM (Kafka shuts
// down in a controlled way, handing its leaderships over first); or a pause,
// the engine freezing every process of the container, as a long garbage
// collection or a stalled virtual machine would: the broker neither dies nor
// answers, and its connections stay open. Inject returns what the run
// records of it (results.Fault): when the signal was sent, when the engine
// saw the container finish, and its exit code. Restart starts (or unpauses)
// the container again; CollectLogs copies the node's Kafka logs out of its
// container, stopped or not.
package chaos

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// LogDir is where the kbf images' nodes write their logs.
const LogDir = "/opt/kafka/logs"

// LogFiles are the logs CollectLogs copies, with their rotated siblings
// (server.log.2026-11-30-03).
var LogFiles = results.NodeLogs()

// Engine is the part of the Docker Engine API chaos uses;
// *client.Client satisfies it.
type Engine interface {
	ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error)
	ContainerKill(ctx context.Context, id, signal string) error
	ContainerWait(ctx context.Context, id string, cond container.WaitCondition) (<-chan container.WaitResponse, <-chan error)
	ContainerStart(ctx context.Context, id string, opts container.StartOptions) error
	ContainerPause(ctx context.Context, id string) error
	ContainerUnpause(ctx context.Context, id string) error
	ContainerUpdate(ctx context.Context, id string, cfg container.UpdateConfig) (container.UpdateResponse, error)
	CopyFromContainer(ctx context.Context, id, src string) (io.ReadCloser, container.PathStat, error)
}

// Injector injects faults into the containers of a cluster.
type Injector struct {
	docker    Engine
	container func(service string) string
	now       func() time.Time
	netns     NetnsRunner // nil: no network faults
	disk      *disk       // nil: no disk-full faults (WithDisk)
	disks     *Disks      // nil: no FUSE layers (WithDisks)
	// starved are the brokers a cpu-starve holds, with the resources
	// they had before it.
	mu      sync.Mutex
	starved map[string]container.Resources
}

// New returns an Injector acting through docker; container names a
// service's container (compose.Cluster.ContainerName).
func New(docker Engine, containerName func(service string) string) *Injector {
	return &Injector{docker: docker, container: containerName, now: time.Now, netns: Nsenter{}, starved: map[string]container.Resources{}}
}

// Inject sends f's signal to the broker's container and waits for the
// container to stop. SignalSent is taken just before the engine is asked to
// signal; Finished and ExitCode are the engine's record of the stop (137
// for SIGKILL, 143 for a SIGTERM Kafka obeyed). A SIGTERM that outlives
// f.Grace is followed by SIGKILL and marked Escalated.
//
// NodeID is left for the caller, who knows the cluster. When an error comes
// after the signal was sent, the returned fault holds what was learnt so far.
func (in *Injector) Inject(ctx context.Context, f cluster.Fault) (results.Fault, error) {
	rf := results.Fault{Broker: f.Broker, Kind: f.Kind}
	if err := f.Validate(); err != nil {
		return rf, fmt.Errorf("inject: %w", err)
	}
	name := in.container(f.Broker)
	ci, err := in.docker.ContainerInspect(ctx, name)
	if err != nil {
		return rf, fmt.Errorf("inject %s into %s: %w", f.Kind, f.Broker, err)
	}
	if ci.State == nil || !ci.State.Running {
		return rf, fmt.Errorf("inject %s into %s: container %s is not running", f.Kind, f.Broker, name)
	}

	if f.Kind.Network() {
		if in.netns != nil {
			if err := in.netns.Check(); err != nil {
				return rf, fmt.Errorf("%s %s: %w", f.Kind, f.Broker, err)
			}
		}
		rf.SignalSent = in.now()
		if err := in.cut(ctx, f.Broker, f.Kind, f.Controllers, f.Peers); err != nil {
			return rf, err
		}
		rf.Cut = in.now() // the rules are hooked in: from here on packets drop
		return rf, nil
	}
	if f.Kind.FaultFS() {
		return rf, in.diskFault(ctx, f, &rf)
	}
	if f.Kind == results.FaultCPUStarve {
		return rf, in.starve(ctx, f, &rf) // hiccup.go
	}
	if f.Kind == results.FaultPacketLoss {
		return rf, in.lose(ctx, f, &rf)
	}
	if f.Kind == results.FaultDiskFull {
		wait := f.HaltWait
		if wait == 0 {
			wait = cluster.DefaultHaltWait
		}
		return rf, in.fill(ctx, f.Broker, wait, &rf)
	}
	if f.Kind == results.FaultPause {
		rf.SignalSent = in.now()
		if err := in.pause(ctx, name); err != nil {
			return rf, fmt.Errorf("pause %s: %w", f.Broker, err)
		}
		rf.Paused = in.now() // the engine answers once the freezer has frozen every process
		return rf, nil
	}
	signal := "SIGKILL"
	if f.Kind == results.FaultSIGTERM {
		signal = "SIGTERM"
	}
	rf.SignalSent = in.now()
	if err := in.docker.ContainerKill(ctx, name, signal); err != nil {
		return rf, fmt.Errorf("%s %s: %w", strings.ToLower(signal), f.Broker, err)
	}
	if f.Kind == results.FaultSIGKILL {
		err = in.waitStopped(ctx, name)
	} else {
		grace := f.Grace
		if grace == 0 {
			grace = cluster.DefaultGrace
		}
		gctx, cancel := context.WithTimeout(ctx, grace)
		err = in.waitStopped(gctx, name)
		cancel()
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			rf.Escalated = true
			if err := in.docker.ContainerKill(ctx, name, "SIGKILL"); err != nil {
				return rf, fmt.Errorf("sigkill %s after %v of sigterm: %w", f.Broker, grace, err)
			}
			err = in.waitStopped(ctx, name)
		}
	}
	if err != nil {
		return rf, fmt.Errorf("wait for %s to stop: %w", f.Broker, err)
	}
	return rf, in.recordStop(ctx, f.Broker, &rf)
}

// recordStop records the engine's account of the broker's stopped
// container in rf: its exit code and finish time.
func (in *Injector) recordStop(ctx context.Context, broker string, rf *results.Fault) error {
	ci, err := in.docker.ContainerInspect(ctx, in.container(broker))
	if err != nil {
		return fmt.Errorf("inspect %s after %s: %w", broker, rf.Kind, err)
	}
	if ci.State != nil {
		rf.ExitCode = ci.State.ExitCode
		if t, err := time.Parse(time.RFC3339Nano, ci.State.FinishedAt); err == nil && t.Year() > 1 {
			rf.Finished = t.UTC()
		}
	}
	return nil
}

// pauseTries is how often a pause the freezer could not complete is tried.
const pauseTries = 3

// pause freezes the container. The cgroup freezer gives up when a process
// will not freeze in time (runc: "unable to freeze"), which a loaded machine
// sees now and then; the container is then left running, so trying again is
// safe.
func (in *Injector) pause(ctx context.Context, name string) error {
	var err error
	for i := 0; i < pauseTries; i++ {
		if err = in.docker.ContainerPause(ctx, name); err == nil || !strings.Contains(err.Error(), "unable to freeze") {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("%w (tried %d times)", err, pauseTries)
}

// waitStopped returns once the container is not running.
func (in *Injector) waitStopped(ctx context.Context, name string) error {
	resC, errC := in.docker.ContainerWait(ctx, name, container.WaitConditionNotRunning)
	select {
	case res := <-resC:
		if res.Error != nil && res.Error.Message != "" {
			return errors.New(res.Error.Message)
		}
		return nil
	case err := <-errC:
		if ctx.Err() != nil {
			return ctx.Err() // the client's own wording hides which one
		}
		return err
	}
}

var startOptions = container.StartOptions{}

// Restart starts the broker's stopped container again, unpauses a paused
// one, heals a network cut or a packet loss, or gives a starved one its
// CPU back; it keeps its data. After a disk-full fault
// it restarts the broker on its emptied tmpfs.
// A container already running, and not cut off, is an error wrapping
// cluster.ErrAlreadyRunning.
func (in *Injector) Restart(ctx context.Context, broker string) error {
	if healed, err := in.healIfCut(ctx, broker); healed || err != nil {
		return err
	}
	if fed, err := in.unstarve(ctx, broker); fed || err != nil {
		return err
	}
	if undone, err := in.unfill(ctx, broker); undone || err != nil {
		return err
	}
	if undone, err := in.undoDisk(ctx, broker); undone || err != nil {
		return err
	}
	name := in.container(broker)
	ci, err := in.docker.ContainerInspect(ctx, name)
	if err != nil {
		return fmt.Errorf("restart %s: %w", broker, err)
	}
	if ci.State != nil && ci.State.Paused {
		if err := in.docker.ContainerUnpause(ctx, name); err != nil {
			return fmt.Errorf("unpause %s: %w", broker, err)
		}
		return nil
	}
	if ci.State != nil && ci.State.Running {
		return fmt.Errorf("restart %s: %s: %w", broker, name, cluster.ErrAlreadyRunning)
	}
	if err := in.docker.ContainerStart(ctx, name, startOptions); err != nil {
		return fmt.Errorf("restart %s: %w", broker, err)
	}
	return nil
}

// CollectLogs copies the node's LogFiles out of its container, running or
// stopped, into dstDir, creating it. Rotated siblings are copied when
// modified at or after since (to the second, the archive's precision); the
// current files always. Each copy keeps its modification time.
func (in *Injector) CollectLogs(ctx context.Context, service string, since time.Time, dstDir string) error {
	_, err := in.collectLogs(ctx, service, since, dstDir)
	return err
}

// collectLogs is CollectLogs, returning the paths written.
func (in *Injector) collectLogs(ctx context.Context, service string, since time.Time, dstDir string) ([]string, error) {
	name := in.container(service)
	rc, _, err := in.docker.CopyFromContainer(ctx, name, LogDir)
	if err != nil {
		return nil, fmt.Errorf("collect %s logs: %w", service, err)
	}
	defer rc.Close()
	if err := os.MkdirAll(dstDir, 0o755); err != nil {
		return nil, fmt.Errorf("collect %s logs: %w", service, err)
	}
	since = since.Truncate(time.Second)
	var written []string
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return written, fmt.Errorf("collect %s logs: read archive: %w", service, err)
		}
		base := path.Base(hdr.Name)
		if hdr.Typeflag != tar.TypeReg || !WantedLog(base, hdr.ModTime, since) {
			continue
		}
		dst := filepath.Join(dstDir, base)
		if err := writeFile(dst, tr, hdr.ModTime); err != nil {
			return written, fmt.Errorf("collect %s logs: %w", service, err)
		}
		written = append(written, dst)
	}
	return written, nil
}

// WantedLog reports whether a file of a node's log directory is copied:
// the loggers' files, and their rotated siblings modified at or after
// since (to the second, an archive's precision).
func WantedLog(base string, mod, since time.Time) bool {
	for _, f := range LogFiles {
		if base == f {
			return true
		}
		if strings.HasPrefix(base, f+".") {
			return !mod.Before(since.Truncate(time.Second))
		}
	}
	return false
}

func writeFile(dst string, r io.Reader, mod time.Time) error {
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	mw := results.MaskWriter(f) // no secret a node logged is kept
	if _, err := io.Copy(mw, r); err != nil {
		f.Close()
		return err
	}
	if err := mw.Close(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	// Keep the container's time: a reader can tell which file is newer.
	return os.Chtimes(dst, mod, mod)
}
