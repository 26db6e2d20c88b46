package faultfs

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// handle is an open file of the layer: a loopback file whose reads,
// writes and fsyncs go through the layer's mode and bookkeeping. It has
// no PassthroughFd on purpose.
type handle struct {
	lf   *fs.LoopbackFile
	n    *node
	sync bool // opened O_SYNC or O_DSYNC: each write is synced
}

var (
	_ fs.FileReader    = (*handle)(nil)
	_ fs.FileWriter    = (*handle)(nil)
	_ fs.FileFsyncer   = (*handle)(nil)
	_ fs.FileFlusher   = (*handle)(nil)
	_ fs.FileReleaser  = (*handle)(nil)
	_ fs.FileGetattrer = (*handle)(nil)
	_ fs.FileLseeker   = (*handle)(nil)
	_ fs.FileAllocater = (*handle)(nil)
	_ fs.FileGetlker   = (*handle)(nil)
	_ fs.FileSetlker   = (*handle)(nil)
	_ fs.FileSetlkwer  = (*handle)(nil)
)

// path names the handle's backing file by its descriptor, which still
// reaches it after a rename or unlink.
func (h *handle) path() string {
	fd, _ := h.lf.PassthroughFd()
	return fdPath(fd)
}

// Read reads the backing file; a failing disk answers EIO.
func (h *handle) Read(ctx context.Context, buf []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	release, errno := h.n.layer.enter(false)
	if errno != 0 {
		return nil, errno
	}
	defer release()
	return h.lf.Read(ctx, buf, off)
}

// Write keeps the synced bytes it overwrites, then writes.
func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	release, errno := h.n.layer.enter(true)
	if errno != 0 {
		return 0, errno
	}
	defer release()
	u, errno := h.n.layer.track(h.n, h.path())
	if errno != 0 {
		return 0, errno
	}
	if err := u.save(off, off+int64(len(data))); err != nil {
		return 0, toErrno(err)
	}
	written, errno := h.lf.Write(ctx, data, off)
	if errno == 0 && h.sync {
		h.n.layer.commit(h.n)
	}
	return written, errno
}

// Fsync syncs the backing file; once it has, the file's writes survive a
// power loss.
func (h *handle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	release, errno := h.n.layer.enter(true)
	if errno != 0 {
		return errno
	}
	defer release()
	if errno := h.lf.Fsync(ctx, flags); errno != 0 {
		return errno
	}
	h.n.layer.commit(h.n)
	return 0
}

// Flush is the close of one descriptor; a failing disk answers EIO.
func (h *handle) Flush(ctx context.Context) syscall.Errno {
	release, errno := h.n.layer.enter(false)
	if errno != 0 {
		return errno
	}
	defer release()
	return h.lf.Flush(ctx)
}

// Release closes the backing file, whatever the mode.
func (h *handle) Release(ctx context.Context) syscall.Errno { return h.lf.Release(ctx) }

// Getattr stats the backing file.
func (h *handle) Getattr(ctx context.Context, out *fuse.AttrOut) syscall.Errno {
	return h.lf.Getattr(ctx, out)
}

// Lseek seeks data and holes in the backing file.
func (h *handle) Lseek(ctx context.Context, off uint64, whence uint32) (uint64, syscall.Errno) {
	return h.lf.Lseek(ctx, off, whence)
}

// Allocate keeps the synced bytes it may change, then allocates.
func (h *handle) Allocate(ctx context.Context, off, size uint64, mode uint32) syscall.Errno {
	release, errno := h.n.layer.enter(true)
	if errno != 0 {
		return errno
	}
	defer release()
	u, errno := h.n.layer.track(h.n, h.path())
	if errno != 0 {
		return errno
	}
	if err := u.save(int64(off), int64(off+size)); err != nil {
		return toErrno(err)
	}
	return h.lf.Allocate(ctx, off, size, mode)
}

// Getlk tests a lock on the backing file.
func (h *handle) Getlk(ctx context.Context, owner uint64, lk *fuse.FileLock, flags uint32, out *fuse.FileLock) syscall.Errno {
	return h.lf.Getlk(ctx, owner, lk, flags, out)
}

// Setlk takes a lock on the backing file.
func (h *handle) Setlk(ctx context.Context, owner uint64, lk *fuse.FileLock, flags uint32) syscall.Errno {
	return h.lf.Setlk(ctx, owner, lk, flags)
}

// Setlkw waits for a lock on the backing file.
func (h *handle) Setlkw(ctx context.Context, owner uint64, lk *fuse.FileLock, flags uint32) syscall.Errno {
	return h.lf.Setlkw(ctx, owner, lk, flags)
}
