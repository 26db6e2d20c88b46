package faultfs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// mount mounts a layer over a fresh backing directory, or skips the test
// where no FUSE mount can be made. The layer is unmounted when the test
// ends, passed or failed.
func mount(t *testing.T) *Layer {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("no FUSE mount here (%v): run the tests as root on a machine with /dev/fuse", err)
	}
	dir := t.TempDir()
	backing, mnt := filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
	for _, d := range []string{backing, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Mount(backing, mnt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Unmount(); err != nil {
			t.Errorf("unmount: %v", err)
		}
	})
	return l
}

// write writes data to name under dir at off, fsyncing it when sync is set.
func write(t *testing.T, dir, name string, off int64, data []byte, sync bool) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(data, off); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNormalPassesThrough(t *testing.T) {
	l := mount(t)
	write(t, l.MountPoint, "00000000000000000000.log", 0, []byte("record"), false)
	got, err := os.ReadFile(filepath.Join(l.Backing, "00000000000000000000.log"))
	if err != nil || string(got) != "record" {
		t.Fatalf("backing file = %q, %v; want the write", got, err)
	}
	got, err = os.ReadFile(filepath.Join(l.MountPoint, "00000000000000000000.log"))
	if err != nil || string(got) != "record" {
		t.Fatalf("read through the mount = %q, %v", got, err)
	}
}

func TestSlowDelaysWritesAndFsyncs(t *testing.T) {
	l := mount(t)
	f, err := os.Create(filepath.Join(l.MountPoint, "slow"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const delay = 150 * time.Millisecond
	if err := l.SetMode(Slow, delay); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := f.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < delay {
		t.Errorf("a write in slow mode took %v, less than the delay %v", took, delay)
	}
	start = time.Now()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < delay {
		t.Errorf("an fsync in slow mode took %v, less than the delay %v", took, delay)
	}
	if err := l.SetMode(Slow, 0); err == nil {
		t.Error("slow mode with no delay was accepted")
	}
}

func TestErrorFailsReadsAndWrites(t *testing.T) {
	l := mount(t)
	write(t, l.MountPoint, "seg", 0, []byte("before"), true)
	f, err := os.OpenFile(filepath.Join(l.MountPoint, "seg"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := l.SetMode(Error, 0); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := f.ReadAt(buf, 0); !errors.Is(err, syscall.EIO) {
		t.Errorf("read in error mode: %v, want EIO", err)
	}
	if _, err := f.WriteAt([]byte("after"), 0); !errors.Is(err, syscall.EIO) {
		t.Errorf("write in error mode: %v, want EIO", err)
	}
	if err := f.Sync(); !errors.Is(err, syscall.EIO) {
		t.Errorf("fsync in error mode: %v, want EIO", err)
	}
	if err := l.SetMode(Normal, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(buf, 0); err != nil || string(buf) != "before" {
		t.Errorf("read back in normal mode = %q, %v; want the synced bytes", buf, err)
	}
}

// TestPowerOffKeepsWhatWasSynced writes files the way Kafka's log
// directory is written and checks the backing directory after the power
// went.
func TestPowerOffKeepsWhatWasSynced(t *testing.T) {
	l := mount(t)
	m := l.MountPoint
	synced := bytes.Repeat([]byte("s"), 3*pageSize+100)
	// A segment: appended and flushed, then appended again.
	write(t, m, "a.log", 0, synced, true)
	write(t, m, "a.log", int64(len(synced)), []byte("unsynced tail"), false)
	// A file created and written, never synced.
	write(t, m, "b.log", 0, []byte("never synced"), false)
	// A synced file overwritten in its middle, then cut.
	write(t, m, "c.index", 0, synced, true)
	write(t, m, "c.index", pageSize-3, []byte("overwritten across a page"), false)
	if err := os.Truncate(filepath.Join(m, "c.index"), 10); err != nil {
		t.Fatal(err)
	}
	// A checkpoint: written to .tmp, fsynced, renamed.
	write(t, m, "checkpoint.tmp", 0, []byte("0\n1\ntopic 0 42\n"), true)
	if err := os.Rename(filepath.Join(m, "checkpoint.tmp"), filepath.Join(m, "checkpoint")); err != nil {
		t.Fatal(err)
	}
	// A synced file opened with O_TRUNC and rewritten.
	write(t, m, "d", 0, []byte("old"), true)
	if err := os.WriteFile(filepath.Join(m, "d"), []byte("new but unsynced"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := l.Unsynced(); n != 4 {
		t.Errorf("unsynced files = %d, want 4 (a.log, b.log, c.index, d)", n)
	}

	lost, err := l.PowerOff()
	if err != nil {
		t.Fatal(err)
	}
	if lost.Files != 4 || lost.Bytes != int64(len("unsynced tail")+len("never synced")+len("new but unsynced")-len("old")) {
		t.Errorf("lost = %+v", lost)
	}
	if _, err := os.ReadFile(filepath.Join(m, "a.log")); !errors.Is(err, syscall.EIO) {
		t.Errorf("a read after the power went: %v, want EIO", err)
	}
	if err := os.WriteFile(filepath.Join(m, "e"), nil, 0o644); !errors.Is(err, syscall.EIO) {
		t.Errorf("a create after the power went: %v, want EIO", err)
	}
	if err := l.SetMode(Normal, 0); err == nil {
		t.Error("a layer without power went back to normal")
	}

	want := map[string]string{
		"a.log":      string(synced),
		"b.log":      "",
		"c.index":    string(synced),
		"checkpoint": "0\n1\ntopic 0 42\n",
		"d":          "old",
	}
	for name, w := range want {
		got, err := os.ReadFile(filepath.Join(l.Backing, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if string(got) != w {
			t.Errorf("%s after the power loss: %d bytes %.20q…, want %d bytes %.20q…", name, len(got), got, len(w), w)
		}
	}
	if _, err := os.Stat(filepath.Join(l.Backing, "checkpoint.tmp")); !os.IsNotExist(err) {
		t.Errorf("checkpoint.tmp after the rename: %v, want gone", err)
	}
}

// TestPowerOffLosesUnsyncedMappedWrites writes an index the way Kafka
// does, through a shared mapping: msync makes the bytes durable, a write
// never msynced is lost even when the kernel wrote the page back.
func TestPowerOffLosesUnsyncedMappedWrites(t *testing.T) {
	l := mount(t)
	path := filepath.Join(l.MountPoint, "00000000000000000000.index")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(2 * pageSize); err != nil { // preallocated
		t.Fatal(err)
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, 2*pageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	copy(mem, "entry1")
	if err := msync(mem); err != nil {
		t.Fatal(err)
	}
	copy(mem[pageSize:], "entry2")
	if err := syscall.Munmap(mem); err != nil { // the kernel may write it back
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.PowerOff(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(l.Backing, "00000000000000000000.index"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2*pageSize || !bytes.HasPrefix(got, []byte("entry1")) || bytes.Contains(got, []byte("entry2")) {
		t.Errorf("index after the power loss: %d bytes, entry1 %v, entry2 %v; want 2 pages, entry1 kept, entry2 lost",
			len(got), bytes.Contains(got, []byte("entry1")), bytes.Contains(got, []byte("entry2")))
	}
}

func msync(b []byte) error {
	_, _, e := syscall.Syscall(syscall.SYS_MSYNC, uintptr(unsafePointer(b)), uintptr(len(b)), syscall.MS_SYNC)
	if e != 0 {
		return e
	}
	return nil
}

// TestSettleKeepsEarlierWrites: what was written before Settle survives a
// power loss though never fsynced; what was written after it does not.
func TestSettleKeepsEarlierWrites(t *testing.T) {
	l := mount(t)
	write(t, l.MountPoint, "bootstrap.checkpoint", 0, []byte("formatted"), false)
	if n := l.Settle(); n != 1 {
		t.Errorf("Settle settled %d files, want 1", n)
	}
	write(t, l.MountPoint, "bootstrap.checkpoint", 9, []byte(" and more"), false)
	if _, err := l.PowerOff(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(l.Backing, "bootstrap.checkpoint"))
	if err != nil || string(got) != "formatted" {
		t.Errorf("after Settle and a power loss: %q, %v; want what was written before Settle", got, err)
	}
}
