package chaos

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// fakeDisk is a broker's log directory as df and dd see it: a filesystem
// of some kind and space; dd fills it and then the process halts (or not).
type fakeDisk struct {
	eng   *fakeEngine
	df    string // df -Pk's output
	halts bool   // the process ends once the disk is full
	cmds  []string
}

func (d *fakeDisk) exec(_ context.Context, service string, cmd ...string) (string, error) {
	d.cmds = append(d.cmds, service+": "+strings.Join(cmd, " "))
	switch cmd[0] {
	case "df":
		return d.df, nil
	case "dd":
		if d.halts {
			d.eng.mu.Lock()
			d.eng.running, d.eng.code = false, 1
			close(d.eng.stopped)
			d.eng.mu.Unlock()
		}
		return "", errors.New("dd in kbf-k1: exit code 1: dd: error writing '/var/lib/kafka/data/kbf-disk-full': No space left on device")
	case "rm":
		return "", nil
	}
	return "", errors.New("unexpected command")
}

const (
	dfTmpfs = "Filesystem     1024-blocks  Used Available Capacity Mounted on\n" +
		"tmpfs               131072  2048    129024       2% /var/lib/kafka/data\n"
	dfOverlay = "Filesystem     1024-blocks     Used Available Capacity Mounted on\n" +
		"overlay          102687672 51343836  46085100      53% /\n"
)

func TestDiskFull(t *testing.T) {
	for _, tc := range []struct {
		name     string
		df       string
		halts    bool
		want     string // error; "" for none
		finished bool
		dd       string
	}{
		{name: "halts", df: dfTmpfs, halts: true, finished: true,
			dd: "k1: dd if=/dev/zero of=/var/lib/kafka/data/kbf-disk-full bs=64k count=2032"},
		{name: "runs on", df: dfTmpfs, dd: "k1: dd if=/dev/zero of=/var/lib/kafka/data/kbf-disk-full bs=64k count=2032"},
		{name: "refuses the host's disk", df: dfOverlay,
			want: "disk-full k1: /var/lib/kafka/data is on overlay with 45004 MiB free, not a size-limited tmpfs made for the trial: refusing to fill it"},
		{name: "bad df", df: "nonsense", want: `disk-full k1: df /var/lib/kafka/data: want a header and one line, got "nonsense"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := newFake(nil)
			d := &fakeDisk{eng: eng, df: tc.df, halts: tc.halts}
			in := New(eng, func(s string) string { return "kbf-" + s }).WithDisk(d.exec, func(string) string { return "/var/lib/kafka/data" })
			f, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultDiskFull, HaltWait: 50 * time.Millisecond})
			if tc.want != "" {
				if err == nil || err.Error() != tc.want {
					t.Fatalf("Inject: %v, want %q", err, tc.want)
				}
				if slices.ContainsFunc(d.cmds, func(c string) bool { return strings.Contains(c, "dd ") }) {
					t.Errorf("dd ran after a refusal: %v", d.cmds)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(d.cmds, tc.dd) {
				t.Errorf("commands %q, want %q", d.cmds, tc.dd)
			}
			if f.Filled.IsZero() || f.SignalSent.IsZero() || f.Filled.Before(f.SignalSent) {
				t.Errorf("fault %+v: want the fill's start and its end", f)
			}
			if got := !f.Finished.IsZero(); got != tc.finished || tc.finished && f.ExitCode != 1 {
				t.Errorf("finished %v exit %d, want finished %v, exit 1", f.Finished, f.ExitCode, tc.finished)
			}
			if at := f.At(); !at.Equal(f.Filled) {
				t.Errorf("At %v, want the moment the disk was full %v", at, f.Filled)
			}

			// Recovery: a running broker has the file removed and is
			// stopped; either way the container starts again, once.
			eng.onSignal = map[string]int{"SIGTERM": 143}
			eng.calls = nil
			if err := in.Restart(context.Background(), "k1"); err != nil {
				t.Fatal(err)
			}
			want := []string{"start kbf-k1"}
			if !tc.halts {
				want = []string{"kill kbf-k1 SIGTERM", "start kbf-k1"}
				if !slices.Contains(d.cmds, "k1: rm -f /var/lib/kafka/data/kbf-disk-full") {
					t.Errorf("commands %q: the fill was not removed", d.cmds)
				}
			}
			if !slices.Equal(eng.calls, want) {
				t.Errorf("engine calls %q, want %q", eng.calls, want)
			}
			if err := in.Restart(context.Background(), "k1"); !errors.Is(err, cluster.ErrAlreadyRunning) {
				t.Errorf("second Restart: %v, want cluster.ErrAlreadyRunning", err)
			}
		})
	}
}

func TestDiskFullNeedsExec(t *testing.T) {
	in := New(newFake(nil), func(s string) string { return "kbf-" + s })
	_, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultDiskFull})
	if err == nil || !strings.Contains(err.Error(), "cannot run commands") {
		t.Fatalf("Inject without WithDisk: %v", err)
	}
}
