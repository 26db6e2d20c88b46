// Package faultfs is a passthrough (loopback) FUSE filesystem over a backing
// directory whose disk kbf can make slow, failing or lose power while a
// broker writes its log directory into it.
//
// It reads and writes the backing directory on behalf of whoever uses the
// mount point, and produces, on command (SetMode, PowerOff), the faults a
// real disk has:
//
//   - Normal: every operation passes through.
//   - Slow: every write and fsync reaching the layer waits a delay first
//     (the kernel splits a large write into calls of up to 128 KiB; each
//     waits). Reads are not delayed.
//   - Error: reads, writes, fsyncs and flushes of files fail with EIO, as a
//     failing device's do; opening, listing and stat still answer.
//   - PowerOff: the power goes. What was written since a file's last fsync
//     is lost, and from then on every operation fails with EIO until the
//     layer is unmounted (the machine is off).
//
// # What a power loss keeps
//
// The layer keeps, for every file written since its last fsync (or since
// Settle, which takes what was written before it as written back), the bytes
// the file had at that fsync wherever a later write or truncate changed
// them, and the size it had then. PowerOff puts those bytes back and cuts
// the file to that size, so that the backing directory holds exactly what
// was fsynced:
//
//   - A file's data and size are those of its last fsync (fsync, fdatasync,
//     msync of a mapping; a file opened O_SYNC or O_DSYNC has each write
//     synced). A file created and never fsynced is left empty.
//   - Names are not lost: create, mkdir, rename, unlink and rmdir reach the
//     backing directory at once and stay, as a journaling filesystem that
//     has committed its metadata would keep them. A file renamed after its
//     last fsync keeps its new name and its synced contents.
//
// For Kafka this means: a log segment (.log) keeps the records up to the
// last flush of that segment (with the defaults, the segment roll or a
// clean shutdown; with flush.messages=N, every N records; with flush.ms,
// on the scheduler's tick); its offset and time indexes (.index,
// .timeindex, preallocated and written through a mapping) keep what their
// last flush wrote and lose their preallocation when never flushed; a
// checkpoint (recovery-point-offset-checkpoint, replication-offset-
// checkpoint, the KRaft quorum-state), written to a .tmp file, fsynced and
// renamed, is either the old one or the new one, never a torn one. On its
// restart the broker sees an unclean shutdown and recovers its segments
// from the recovery point, as after a real power failure.
//
// The bytes kept are only those of fsynced regions a later write
// overwrote or a truncate cut, so an append-only segment costs nothing but
// its synced size: memory stays small while a broker appends.
//
// The kernel's page cache of the mount still holds the lost data after
// PowerOff; unmount the layer and mount it again before anything reads the
// directory (kbf restarts the broker's container on a fresh mount).
//
// A Mount needs /dev/fuse and root (it mounts directly, without
// fusermount) and passes allow_other so that a container's user can use it.
package faultfs

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// Mode is what the layer does to the operations that reach it.
type Mode int32

// The modes a mounted layer switches between.
const (
	Normal Mode = iota
	Slow
	Error
	Off
)

// String names the mode as the --fault flags and the docs do.
func (m Mode) String() string {
	switch m {
	case Normal:
		return "normal"
	case Slow:
		return "slow"
	case Error:
		return "error"
	case Off:
		return "off"
	}
	return fmt.Sprintf("mode(%d)", int32(m))
}

// ErrUnavailable says a mount cannot be made on this machine: no
// /dev/fuse, or not root.
var ErrUnavailable = errors.New("a FUSE mount needs /dev/fuse and root")

// Available returns nil when this process can mount a layer, or an error
// wrapping ErrUnavailable that says what is missing.
func Available() error {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: running as uid %d", ErrUnavailable, os.Geteuid())
	}
	return nil
}

// Layer is one mounted faultfs: a mount point serving a backing directory.
type Layer struct {
	Backing    string
	MountPoint string

	server *fuse.Server
	mode   atomic.Int32
	delay  atomic.Int64 // time.Duration of Slow

	// gate is held shared by every data operation from its mode check
	// to its end, and exclusively by PowerOff, so that no write lands
	// in the backing directory after the power went.
	gate sync.RWMutex
	// unsynced holds the files written since their last fsync.
	mu       sync.Mutex
	unsynced map[*node]*undo

	// lost counts what the last PowerOff dropped.
	lost LossStats
}

// LossStats says what a PowerOff dropped.
type LossStats struct {
	Files int   // files put back to their last fsync
	Bytes int64 // bytes cut from their ends (written, never fsynced)
}

// Mount serves backing at mountPoint (both existing directories) and
// returns the layer in Normal mode. Unmount it when done.
func Mount(backing, mountPoint string) (*Layer, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	l := &Layer{Backing: backing, MountPoint: mountPoint, unsynced: map[*node]*undo{}}
	var st syscall.Stat_t
	if err := syscall.Stat(backing, &st); err != nil {
		return nil, fmt.Errorf("faultfs: backing %s: %w", backing, err)
	}
	root := &fs.LoopbackRoot{Path: backing, Dev: st.Dev}
	root.NewNode = func(r *fs.LoopbackRoot, _ *fs.Inode, _ string, _ *syscall.Stat_t) fs.InodeEmbedder {
		return &node{LoopbackNode: fs.LoopbackNode{RootData: r}, layer: l}
	}
	root.RootNode = root.NewNode(root, nil, "", &st)
	// Attributes are not cached: a size the layer changes (truncate,
	// PowerOff) must be the size the next stat sees.
	zero := time.Duration(0)
	server, err := fs.Mount(mountPoint, root.RootNode, &fs.Options{
		EntryTimeout: &zero,
		AttrTimeout:  &zero,
		MountOptions: fuse.MountOptions{
			AllowOther:        true,
			DirectMountStrict: true,
			FsName:            "kbf-faultfs",
			Name:              "faultfs",
			// Kafka writes with many goroutines; keep them apart.
			MaxBackground: 64,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("faultfs: mount %s on %s: %w", backing, mountPoint, err)
	}
	l.server = server
	return l, nil
}

// SetMode switches the layer to m: Normal, Slow (with delay, which must be
// positive) or Error. A layer that lost power stays off.
func (l *Layer) SetMode(m Mode, delay time.Duration) error {
	if m == Slow && delay <= 0 {
		return fmt.Errorf("faultfs: slow mode needs a positive delay, got %v", delay)
	}
	if m == Off {
		return errors.New("faultfs: use PowerOff to cut the power")
	}
	l.gate.Lock()
	defer l.gate.Unlock()
	if Mode(l.mode.Load()) == Off {
		return errors.New("faultfs: the layer lost power: unmount it and mount it again")
	}
	l.delay.Store(int64(delay))
	l.mode.Store(int32(m))
	return nil
}

// Mode returns the layer's mode.
func (l *Layer) Mode() Mode { return Mode(l.mode.Load()) }

// PowerOff cuts the power: every file written since its last fsync is put
// back to what that fsync left, and every later operation fails with EIO.
// It returns what was dropped; an error names a file it could not put back.
func (l *Layer) PowerOff() (LossStats, error) {
	l.gate.Lock()
	defer l.gate.Unlock()
	l.mode.Store(int32(Off))
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for n, u := range l.unsynced {
		cut, err := u.restore()
		if err != nil {
			errs = append(errs, err)
		}
		l.lost.Files++
		l.lost.Bytes += cut
		delete(l.unsynced, n)
	}
	return l.lost, errors.Join(errs...)
}

// Settle takes everything written so far as on the disk, as a kernel's
// writeback has put it there by the time anything long written matters:
// a later PowerOff loses only what was written after Settle and not
// fsynced. kbf settles a broker's layer when the trial begins, so that a
// power loss takes the trial's unsynced writes, not the files Kafka wrote
// when its storage was formatted and never fsynced (bootstrap.checkpoint,
// without which it does not start again). It returns how many files it
// settled.
func (l *Layer) Settle() int {
	l.gate.Lock()
	defer l.gate.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.unsynced)
	for k, u := range l.unsynced {
		u.close()
		delete(l.unsynced, k)
	}
	return n
}

// Unsynced returns how many files hold writes not yet fsynced.
func (l *Layer) Unsynced() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.unsynced)
}

// Unmount unmounts the layer; when the mount is busy it is detached
// lazily (gone from the namespace at once, released when the last user
// closes it). Writes still unsynced stay in the backing directory. It is
// safe to call more than once.
func (l *Layer) Unmount() error {
	l.mu.Lock()
	for n, u := range l.unsynced {
		u.close()
		delete(l.unsynced, n)
	}
	l.mu.Unlock()
	if l.server == nil {
		return nil
	}
	err := l.server.Unmount()
	if err != nil {
		if derr := syscall.Unmount(l.MountPoint, syscall.MNT_DETACH); derr != nil {
			return fmt.Errorf("faultfs: unmount %s: %w (detach: %w)", l.MountPoint, err, derr)
		}
	}
	l.server = nil
	return nil
}

// enter lets a data operation in: it waits the delay of slow mode when
// delayed is set, and fails with EIO in error or off mode. A nil release
// means the operation must fail with the errno returned.
func (l *Layer) enter(delayed bool) (release func(), errno syscall.Errno) {
	if delayed && Mode(l.mode.Load()) == Slow {
		time.Sleep(time.Duration(l.delay.Load()))
	}
	l.gate.RLock()
	switch Mode(l.mode.Load()) {
	case Error, Off:
		l.gate.RUnlock()
		return nil, syscall.EIO
	}
	return l.gate.RUnlock, 0
}

// enterMeta lets a namespace operation in: only a layer without power
// refuses it.
func (l *Layer) enterMeta() (release func(), errno syscall.Errno) {
	l.gate.RLock()
	if Mode(l.mode.Load()) == Off {
		l.gate.RUnlock()
		return nil, syscall.EIO
	}
	return l.gate.RUnlock, 0
}
