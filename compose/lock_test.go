package compose

import (
	"context"
	"errors"
	"testing"

	"github.com/kbf-project/kbf/internal/clusterlock"
)

// fakeLock counts the takes and releases of a cluster's lock, and refuses
// when refuse is set.
type fakeLock struct {
	refuse          error
	taken, released int
}

func (l *fakeLock) take() (func(), error) {
	if l.refuse != nil {
		return nil, l.refuse
	}
	l.taken++
	return func() { l.released++ }, nil
}

// TestLockRefusedBeforeTheEngine: Up and Down on a cluster another kbf
// holds return its refusal having asked the engine nothing.
func TestLockRefusedBeforeTheEngine(t *testing.T) {
	inUse := &clusterlock.InUseError{Project: "kbf", Holder: clusterlock.Holder{PID: 1234, Command: "kbf bench"}}
	for name, op := range map[string]func(context.Context, *Cluster) error{
		"up":   func(ctx context.Context, c *Cluster) error { _, err := c.Up(ctx); return err },
		"down": func(ctx context.Context, c *Cluster) error { _, err := c.Down(ctx); return err },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeEngine()
			c := testCluster(t, Options{}, f)
			l := &fakeLock{refuse: inUse}
			c.lock = l.take
			err := op(context.Background(), c)
			if !errors.Is(err, clusterlock.ErrInUse) {
				t.Fatalf("%s on a cluster in use: %v, want the refusal", name, err)
			}
			if len(f.calls) > 0 {
				t.Errorf("the engine was asked %v", f.calls)
			}
		})
	}
}

// TestLockHeldUntilClose: Up and Down take the lock once between them,
// and Close lets it go.
func TestLockHeldUntilClose(t *testing.T) {
	f := newFakeEngine()
	c := testCluster(t, Options{}, f)
	l := &fakeLock{}
	c.lock = l.take
	for range 2 {
		if _, err := c.Down(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	f.down = true
	if _, err := c.Up(context.Background()); err == nil {
		t.Fatal("Up on an engine that is down: no error")
	}
	if l.taken != 1 || l.released != 0 {
		t.Fatalf("before Close: taken %d, released %d; want 1, 0", l.taken, l.released)
	}
	_ = c.Close()
	if l.released != 1 {
		t.Fatalf("after Close: released %d, want 1", l.released)
	}
	if err := c.Lock(); err != nil || l.taken != 2 {
		t.Fatalf("Lock after Close: %v, taken %d; want it taken again", err, l.taken)
	}
}

// TestHandLockTo: a replacement of the same cluster takes the lock over,
// so that it is held from the first Up to the replacement's Close; one of
// another cluster does not.
func TestHandLockTo(t *testing.T) {
	for _, tc := range []struct {
		name    string
		project string // the replacement's
		handed  bool
	}{
		{"the same cluster", "", true},
		{"another cluster", "kbf-2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &fakeLock{}
			old := testCluster(t, Options{}, newFakeEngine())
			old.lock = l.take
			if err := old.Lock(); err != nil {
				t.Fatal(err)
			}
			next := testCluster(t, Options{}, newFakeEngine())
			next.lockKey.Project = tc.project
			old.HandLockTo(next)
			_ = old.Close()
			if got := l.released == 0; got != tc.handed {
				t.Fatalf("after the old one's Close: released %d; handed over %v, want %v", l.released, got, tc.handed)
			}
			_ = next.Close()
			if l.released != 1 {
				t.Errorf("after both Closes: released %d, want 1", l.released)
			}
		})
	}
}
