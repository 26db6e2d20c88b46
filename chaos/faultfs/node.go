package faultfs

import (
	"context"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// node is a loopback node whose data operations go through the layer.
type node struct {
	fs.LoopbackNode
	layer *Layer
}

var (
	_ fs.NodeOpener    = (*node)(nil)
	_ fs.NodeCreater   = (*node)(nil)
	_ fs.NodeSetattrer = (*node)(nil)
)

// backingPath is the node's file in the backing directory.
func (n *node) backingPath() string {
	return filepath.Join(n.RootData.Path, n.Path(n.RootData.RootNode.EmbeddedInode()))
}

// Open opens the backing file; one opened with O_TRUNC keeps its synced
// bytes first.
func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	release, errno := n.layer.enterMeta()
	if errno != 0 {
		return nil, 0, errno
	}
	defer release()
	if flags&syscall.O_TRUNC != 0 && flags&syscall.O_ACCMODE != syscall.O_RDONLY {
		if errno := n.keep(0, -1); errno != 0 {
			return nil, 0, errno
		}
	}
	fh, fuseFlags, errno := n.LoopbackNode.Open(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return n.wrap(fh, flags), fuseFlags, 0
}

// Create creates the backing file. Its name stays after a power loss; its
// contents are those of its last fsync, none when never synced.
func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	release, errno := n.layer.enterMeta()
	if errno != 0 {
		return nil, nil, 0, errno
	}
	defer release()
	ch, fh, fuseFlags, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	cn, ok := ch.Operations().(*node)
	if !ok {
		return nil, nil, 0, syscall.EIO
	}
	return ch, cn.wrap(fh, flags), fuseFlags, 0
}

// wrap makes the loopback file a handle of the layer's. The handle does
// not offer the kernel a passthrough descriptor: every read and write
// must come to the layer.
func (n *node) wrap(fh fs.FileHandle, flags uint32) fs.FileHandle {
	lf, ok := fh.(*fs.LoopbackFile)
	if !ok {
		return fh
	}
	return &handle{lf: lf, n: n, sync: flags&(syscall.O_SYNC|syscall.O_DSYNC) != 0}
}

// Setattr changes the backing file's attributes; a truncate keeps the
// synced bytes it cuts.
func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if h, ok := f.(*handle); ok {
		f = h.lf
	}
	sz, truncate := in.GetSize()
	if !truncate {
		release, errno := n.layer.enterMeta()
		if errno != 0 {
			return errno
		}
		defer release()
		return n.LoopbackNode.Setattr(ctx, f, in, out)
	}
	release, errno := n.layer.enter(true)
	if errno != 0 {
		return errno
	}
	defer release()
	if errno := n.keep(int64(sz), -1); errno != 0 {
		return errno
	}
	return n.LoopbackNode.Setattr(ctx, f, in, out)
}

// keep keeps the synced bytes of [off, end) of the node's file before they
// change; end -1 means to the synced end.
func (n *node) keep(off, end int64) syscall.Errno {
	u, errno := n.layer.track(n, n.backingPath())
	if errno != 0 {
		return errno
	}
	if end < 0 {
		end = u.size
	}
	if err := u.save(off, end); err != nil {
		return toErrno(err)
	}
	return 0
}

// Tmpfile is refused: an O_TMPFILE file would bypass the layer's handles.
func (n *node) Tmpfile(context.Context, uint32, uint32, *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EOPNOTSUPP
}

// CopyFileRange is refused, so that the kernel copies with reads and
// writes the layer sees.
func (n *node) CopyFileRange(context.Context, fs.FileHandle, uint64, *fs.Inode, fs.FileHandle, uint64, uint64, uint64) (uint32, syscall.Errno) {
	return 0, syscall.EOPNOTSUPP
}

// The namespace operations pass through while the layer has power.

// Mkdir makes a directory.
func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	release, errno := n.layer.enterMeta()
	if errno != 0 {
		return nil, errno
	}
	defer release()
	return n.LoopbackNode.Mkdir(ctx, name, mode, out)
}

// Rmdir removes a directory.
func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	release, errno := n.layer.enterMeta()
	if errno != 0 {
		return errno
	}
	defer release()
	return n.LoopbackNode.Rmdir(ctx, name)
}

// Unlink removes a file.
func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	release, errno := n.layer.enterMeta()
	if errno != 0 {
		return errno
	}
	defer release()
	return n.LoopbackNode.Unlink(ctx, name)
}

// Rename renames a file or directory.
func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	release, errno := n.layer.enterMeta()
	if errno != 0 {
		return errno
	}
	defer release()
	return n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
}

// Link makes a hard link.
func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	release, errno := n.layer.enterMeta()
	if errno != 0 {
		return nil, errno
	}
	defer release()
	return n.LoopbackNode.Link(ctx, target, name, out)
}

// Symlink makes a symbolic link.
func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	release, errno := n.layer.enterMeta()
	if errno != 0 {
		return nil, errno
	}
	defer release()
	return n.LoopbackNode.Symlink(ctx, target, name, out)
}

// Mknod makes a special file.
func (n *node) Mknod(ctx context.Context, name string, mode, rdev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	release, errno := n.layer.enterMeta()
	if errno != 0 {
		return nil, errno
	}
	defer release()
	return n.LoopbackNode.Mknod(ctx, name, mode, rdev, out)
}
