package chaos

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kbf-project/kbf/chaos/faultfs"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// mountedDisks serves k1's log directory through a real FUSE layer, or
// skips the test where none can be mounted; the layer is unmounted when
// the test ends, passed or failed.
func mountedDisks(t *testing.T) (*Disks, DiskDirs) {
	t.Helper()
	if err := faultfs.Available(); err != nil {
		t.Skipf("no FUSE mount here (%v): run the tests as root on a machine with /dev/fuse", err)
	}
	dir := t.TempDir()
	dd := DiskDirs{Backing: filepath.Join(dir, "data"), MountPoint: filepath.Join(dir, "mnt")}
	d := NewDisks(map[string]DiskDirs{"k1": dd})
	if err := d.Mount(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Unmount(); err != nil {
			t.Errorf("unmount: %v", err)
		}
	})
	return d, dd
}

func appendTo(t *testing.T, path, s string, sync bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPowerLoss(t *testing.T) {
	d, dd := mountedDisks(t)
	seg := filepath.Join(dd.MountPoint, "00000000000000000000.log")
	appendTo(t, seg, "acked and flushed;", true)
	appendTo(t, seg, "acked, never flushed", false)
	eng := newFake(map[string]int{"SIGKILL": 137})
	in := New(eng, func(s string) string { return "kbf-" + s }).WithDisks(d)

	f, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultPowerLoss})
	if err != nil {
		t.Fatal(err)
	}
	if f.ExitCode != 137 || f.Disk == nil || f.Disk.LostFiles != 1 || f.Disk.LostBytes != int64(len("acked, never flushed")) ||
		!slices.Equal(f.Disk.Brokers, []string{"k1"}) {
		t.Errorf("fault %+v, disk %+v", f, f.Disk)
	}
	got, err := os.ReadFile(filepath.Join(dd.Backing, "00000000000000000000.log"))
	if err != nil || string(got) != "acked and flushed;" {
		t.Errorf("segment after the power loss = %q, %v; want what was fsynced", got, err)
	}
	// The layer is mounted afresh: the restarted broker reads what was
	// synced and writes again.
	if got, err := os.ReadFile(seg); err != nil || string(got) != "acked and flushed;" {
		t.Errorf("segment through the new layer = %q, %v", got, err)
	}
	appendTo(t, seg, "after", false)

	if err := in.Restart(context.Background(), "k1"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"kill kbf-k1 SIGKILL", "start kbf-k1"}; !slices.Equal(eng.calls, want) {
		t.Errorf("engine calls %v, want %v", eng.calls, want)
	}
}

func TestDiskSlowAndError(t *testing.T) {
	d, dd := mountedDisks(t)
	seg := filepath.Join(dd.MountPoint, "seg")
	appendTo(t, seg, "x", true)
	eng := newFake(map[string]int{"SIGTERM": 143})
	in := New(eng, func(s string) string { return "kbf-" + s }).WithDisks(d)
	ctx := context.Background()

	f, err := in.Inject(ctx, cluster.Fault{Broker: "k1", Kind: results.FaultDiskSlow, DiskDelay: 100 * time.Millisecond})
	if err != nil || f.Disk == nil || f.Disk.Delay != 100*time.Millisecond {
		t.Fatalf("disk-slow: %+v, %v", f, err)
	}
	start := time.Now()
	appendTo(t, seg, "y", true)
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Errorf("a write and an fsync on the slow disk took %v, less than twice the delay", took)
	}
	if err := in.Restart(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	if len(eng.calls) != 0 {
		t.Errorf("undoing disk-slow called the engine: %v", eng.calls)
	}

	f, err = in.Inject(ctx, cluster.Fault{Broker: "k1", Kind: results.FaultDiskError, HaltWait: 50 * time.Millisecond})
	if err != nil || !f.Finished.IsZero() {
		t.Fatalf("disk-error: %+v, %v; want a broker running on", f, err)
	}
	if _, err := os.ReadFile(seg); !errors.Is(err, syscall.EIO) {
		t.Errorf("read of the failed disk: %v, want EIO", err)
	}
	if err := in.Restart(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(seg); err != nil || string(got) != "xy" {
		t.Errorf("read after the disk is undone = %q, %v", got, err)
	}
	if want := []string{"kill kbf-k1 SIGTERM", "start kbf-k1"}; !slices.Equal(eng.calls, want) {
		t.Errorf("engine calls %v, want %v (the broker with its directory offline restarted)", eng.calls, want)
	}
}

func TestDiskFaultNeedsALayer(t *testing.T) {
	in := New(newFake(nil), func(s string) string { return "kbf-" + s })
	_, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultDiskError})
	if err == nil || !strings.Contains(err.Error(), "on no FUSE layer") {
		t.Fatalf("Inject without WithDisks: %v", err)
	}
}

// TestStopOnDisks stops a broker running on its layer's mount point, and
// leaves one on a directory of its own to the cluster's Up.
func TestStopOnDisks(t *testing.T) {
	d := NewDisks(map[string]DiskDirs{"k1": {Backing: "/srv/kbf-k1/data", MountPoint: "/srv/kbf-k1/mnt"}})
	for _, tc := range []struct {
		name  string
		binds []string
		want  []string
	}{
		{name: "on its layer", binds: []string{"/srv/kbf-k1/mnt:/var/lib/kafka/data"}, want: []string{"kill kbf-k1 SIGKILL"}},
		{name: "on its own directory"},
		{name: "on another layer", binds: []string{"/srv/kbf-k1/mnt2:/var/lib/kafka/data"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := newFake(map[string]int{"SIGKILL": 137})
			eng.binds = tc.binds
			in := New(eng, func(s string) string { return "kbf-" + s }).WithDisks(d)
			if err := in.StopOnDisks(context.Background(), "k1"); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(eng.calls, tc.want) {
				t.Errorf("engine calls %v, want %v", eng.calls, tc.want)
			}
		})
	}
}
