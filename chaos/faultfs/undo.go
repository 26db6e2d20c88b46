package faultfs

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"syscall"
)

// pageSize is the unit in which the layer keeps a file's synced bytes.
const pageSize = 4096

// undo is what a file had at its last fsync, wherever it has changed
// since: its size then, and the original bytes of every page a later
// write or truncate touched below that size.
type undo struct {
	mu    sync.Mutex
	fd    int   // the backing file, read-write, for as long as it is unsynced
	size  int64 // its size at the last fsync
	pages map[int64][]byte
}

// newUndo opens path read-write and records its size, which is the size
// of its last fsync because nothing has changed it since.
func newUndo(path string) (*undo, error) {
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		_ = syscall.Close(fd)
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	return &undo{fd: fd, size: st.Size, pages: map[int64][]byte{}}, nil
}

// fdPath names an open descriptor so that it can be opened again apart
// from the flags (O_APPEND, O_RDONLY) it was opened with.
func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// save keeps the synced bytes of [off, end) that are not kept yet, a page
// at a time, before a write or truncate changes them.
func (u *undo) save(off, end int64) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	for p := off / pageSize; p*pageSize < end && p*pageSize < u.size; p++ {
		if _, ok := u.pages[p]; ok {
			continue
		}
		buf := make([]byte, min(pageSize, u.size-p*pageSize))
		n, err := syscall.Pread(u.fd, buf, p*pageSize)
		if err != nil {
			return fmt.Errorf("keep page %d: %w", p, err)
		}
		u.pages[p] = buf[:n]
	}
	return nil
}

// restore puts the file back to its last fsync and closes it; it returns
// how many bytes past that size were cut.
func (u *undo) restore() (int64, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	defer u.closeLocked()
	var st syscall.Stat_t
	if err := syscall.Fstat(u.fd, &st); err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	for p, b := range u.pages {
		if _, err := syscall.Pwrite(u.fd, b, p*pageSize); err != nil {
			return 0, fmt.Errorf("put back page %d: %w", p, err)
		}
	}
	if err := syscall.Ftruncate(u.fd, u.size); err != nil {
		return 0, fmt.Errorf("cut to %d bytes: %w", u.size, err)
	}
	return max(st.Size-u.size, 0), nil
}

func (u *undo) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.closeLocked()
}

func (u *undo) closeLocked() {
	if u.fd >= 0 {
		_ = syscall.Close(u.fd)
		u.fd = -1
	}
}

// track returns n's undo, starting one from path when n has been synced
// since its last change.
func (l *Layer) track(n *node, path string) (*undo, syscall.Errno) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if u, ok := l.unsynced[n]; ok {
		return u, 0
	}
	u, err := newUndo(path)
	if err != nil {
		return nil, toErrno(err)
	}
	l.unsynced[n] = u
	return u, 0
}

// commit forgets n's undo: an fsync made its contents the synced ones.
func (l *Layer) commit(n *node) {
	l.mu.Lock()
	u, ok := l.unsynced[n]
	delete(l.unsynced, n)
	l.mu.Unlock()
	if ok {
		u.close()
	}
}

// toErrno returns the errno inside err, or EIO.
func toErrno(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return syscall.EIO
}
