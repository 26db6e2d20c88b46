package chaos

// A disk-full fault fills the filesystem of the broker's log directory while
// its process runs, as a disk that runs out of space at 3 a.m. does: the
// next write Kafka makes into the directory fails with "No space left on
// device", and what Kafka then does (take the directory offline, halt) is
// the fault's story. The filesystem must be a size-limited tmpfs made for
// the trial (compose.Options.DiskLimits): the fill refuses any other, so
// that it can never fill a host's disk.

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// FillFile is the file a disk-full fault writes into the log directory.
const FillFile = "kbf-disk-full"

// MaxFill bounds the filesystem a disk-full fault fills: a tmpfs larger
// than this is not one made for the trial.
const MaxFill = 8 << 30

// Exec runs a command in a service's running container and returns its
// standard output; a non-zero exit is an error (compose.Cluster.Exec).
type Exec func(ctx context.Context, service string, cmd ...string) (string, error)

// disk is what a disk-full fault needs of the cluster.
type disk struct {
	exec   Exec
	logDir func(service string) string
	// filled are the brokers whose log directory a fault filled, by
	// service, until Restart undoes it.
	filled map[string]string
}

// WithDisk lets in inject disk-full faults: exec runs commands in a
// broker's container and logDir names its log directory.
func (in *Injector) WithDisk(exec Exec, logDir func(service string) string) *Injector {
	in.disk = &disk{exec: exec, logDir: logDir, filled: map[string]string{}}
	return in
}

// fill fills the broker's log directory up and records when the filesystem
// was full; then it waits up to wait for the process to end, recording its
// end and exit code when it does. A broker still running then is no error:
// the report says what it did.
func (in *Injector) fill(ctx context.Context, broker string, wait time.Duration, rf *results.Fault) error {
	if in.disk == nil {
		return fmt.Errorf("disk-full %s: this injector cannot run commands in containers", broker)
	}
	dir := in.disk.logDir(broker)
	if dir == "" {
		return fmt.Errorf("disk-full %s: its log directory is unknown (set KAFKA_LOG_DIRS)", broker)
	}
	out, err := in.disk.exec(ctx, broker, "df", "-Pk", dir)
	if err != nil {
		return fmt.Errorf("disk-full %s: %w", broker, err)
	}
	fs, availKiB, err := parseDF(out)
	if err != nil {
		return fmt.Errorf("disk-full %s: df %s: %w", broker, dir, err)
	}
	if fs != "tmpfs" || availKiB*1024 > MaxFill {
		return fmt.Errorf("disk-full %s: %s is on %s with %d MiB free, not a size-limited tmpfs made for the trial: refusing to fill it", broker, dir, fs, availKiB/1024)
	}
	file := path.Join(dir, FillFile)
	in.disk.filled[broker] = file
	rf.SignalSent = in.now()
	// A MiB more than is free: dd stops at "No space left on device".
	_, err = in.disk.exec(ctx, broker, "dd", "if=/dev/zero", "of="+file, "bs=64k", "count="+strconv.FormatInt(availKiB/64+16, 10))
	if err == nil {
		return fmt.Errorf("disk-full %s: dd did not fill %s: it ended with no error", broker, dir)
	}
	if !strings.Contains(err.Error(), "No space left on device") {
		return fmt.Errorf("disk-full %s: dd did not fill %s: %w", broker, dir, err)
	}
	rf.Filled = in.now()

	wctx, cancel := context.WithTimeout(ctx, wait)
	err = in.waitStopped(wctx, in.container(broker))
	cancel()
	switch {
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return nil // it runs on
	case err != nil:
		return fmt.Errorf("disk-full %s: wait for the process: %w", broker, err)
	}
	return in.recordStop(ctx, broker, rf)
}

// parseDF reads df -Pk's one filesystem line: its name and the KiB free.
func parseDF(out string) (fs string, availKiB int64, err error) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		return "", 0, fmt.Errorf("want a header and one line, got %q", out)
	}
	f := strings.Fields(lines[1])
	if len(f) < 6 {
		return "", 0, fmt.Errorf("line %q: want 6 fields", lines[1])
	}
	availKiB, err = strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("line %q: available: %w", lines[1], err)
	}
	return f[0], availKiB, nil
}

// unfill undoes a disk-full fault: a broker still running (its directory
// offline) has the file removed and is stopped, and the container starts
// again; its tmpfs starts empty, so the broker formats its directory anew
// and fetches its replicas from the leaders. It reports false when no
// fault filled broker's disk.
func (in *Injector) unfill(ctx context.Context, broker string) (bool, error) {
	if in.disk == nil {
		return false, nil
	}
	file, ok := in.disk.filled[broker]
	if !ok {
		return false, nil
	}
	name := in.container(broker)
	ci, err := in.docker.ContainerInspect(ctx, name)
	if err != nil {
		return true, fmt.Errorf("undo disk-full %s: %w", broker, err)
	}
	if ci.State != nil && ci.State.Running {
		if _, err := in.disk.exec(ctx, broker, "rm", "-f", file); err != nil {
			return true, fmt.Errorf("undo disk-full %s: %w", broker, err)
		}
		if err := in.docker.ContainerKill(ctx, name, "SIGTERM"); err != nil {
			return true, fmt.Errorf("undo disk-full %s: stop: %w", broker, err)
		}
		gctx, cancel := context.WithTimeout(ctx, cluster.DefaultGrace)
		err := in.waitStopped(gctx, name)
		cancel()
		if err != nil {
			return true, fmt.Errorf("undo disk-full %s: stop: %w", broker, err)
		}
	}
	delete(in.disk.filled, broker)
	if err := in.docker.ContainerStart(ctx, name, startOptions); err != nil {
		return true, fmt.Errorf("undo disk-full %s: start: %w", broker, err)
	}
	return true, nil
}
