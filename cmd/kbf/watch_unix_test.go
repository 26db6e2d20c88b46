//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kbf-project/kbf/internal/testsupport/testkafka"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/watch"
)

// childArgs, set in a child's environment, makes TestWatchChild run kbf
// with these arguments (joined by a unit separator, 0x1f) as main does, and exit with its
// code: the signal tests' kbf is this test binary.
const childArgs = "KBF_TEST_WATCH_ARGS"

func TestWatchChild(t *testing.T) {
	args := os.Getenv(childArgs)
	if args == "" {
		t.Skip("run by TestWatchStopSignals as kbf")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, strings.Split(args, "\x1f"), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// TestWatchStopSignals runs kbf watch in a process of its own against a
// cluster (kfake) that is then frozen — its connections accept and never
// answer — and stops it by each signal once an incident is open: kbf exits
// 0 within watch.ShutdownTimeout with the incident written complete. It
// says how long each stop took. The cluster is kfake's: nothing here is a
// claim about Kafka.
func TestWatchStopSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kbf watch for each signal")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			took := stopWatch(t, sig, stopFrozen)
			t.Logf("kbf watch stopped by %v on a frozen cluster in %v", sig, took.Round(time.Millisecond))
		})
	}
}

// TestWatchStopIdle stops kbf watch by Ctrl-C while no incident is open
// on a cluster that answers: kbf exits 0 with no incident written. It
// says how long the stop took.
func TestWatchStopIdle(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kbf watch")
	}
	took := stopWatch(t, syscall.SIGINT, stopIdle)
	t.Logf("kbf watch stopped by %v with no incident open in %v", syscall.SIGINT, took.Round(time.Millisecond))
}

// TestWatchStopUnwritable stops kbf watch by SIGTERM while an incident is
// open that cannot be written (its directory taken by another's): kbf
// exits 1 with the reason, not 0 with the incident dropped.
func TestWatchStopUnwritable(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kbf watch")
	}
	stopWatch(t, syscall.SIGTERM, stopUnwritable)
}

// How a stopWatch finds the watch when it stops it.
const (
	stopIdle       = iota // no incident open, the cluster answering
	stopFrozen            // the cluster frozen, an incident open
	stopUnwritable        // as stopFrozen, with incident 1's directory taken
)

// stopWatch stops a kbf watch by sig as mode says, and returns how long it
// took to exit.
func stopWatch(t *testing.T, sig syscall.Signal, mode int) time.Duration {
	f := &testkafka.Freezer{}
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(2, "kbf-watch-test"), kfake.ListenFn(f.Listen))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { f.Thaw(); c.Close() }()
	out := filepath.Join(t.TempDir(), "watch")
	args := []string{"watch", "--bootstrap", strings.Join(c.ListenAddrs(), ","), "--topic", "kbf-watch-test", "--out", out,
		"--interval", "20ms", "--stall", "500ms", "--settle", "1s", "--before", "2s"}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchChild$")
	cmd.Env = append(os.Environ(), childArgs+"="+strings.Join(args, "\x1f"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	var said strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	await := func(text string, d time.Duration) {
		t.Helper()
		deadline := time.After(d)
		for {
			select {
			case l, ok := <-lines:
				said.WriteString(l + "\n")
				if !ok {
					t.Fatalf("kbf watch ended before %q; it said:\n%s", text, said.String())
				}
				if strings.Contains(l, text) {
					return
				}
			case <-deadline:
				_ = cmd.Process.Kill()
				t.Fatalf("no %q within %v; kbf watch said:\n%s", text, d, said.String())
			}
		}
	}
	await("watching kbf-watch-test", 30*time.Second)
	time.Sleep(3 * time.Second) // records before the incident
	if mode == stopUnwritable {
		if err := os.Mkdir(filepath.Join(out, results.IncidentDir(1)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if mode != stopIdle {
		f.Freeze()
		await("incident 1 opened", 10*time.Second)
	}
	stopped := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() {
		for l := range lines {
			said.WriteString(l + "\n")
		}
		exited <- cmd.Wait()
	}()
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(watch.ShutdownTimeout + 10*time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("kbf watch still runs %v after %v", time.Since(stopped), sig)
	}
	took := time.Since(stopped)
	if took > watch.ShutdownTimeout+time.Second {
		t.Errorf("kbf watch took %v to stop, over its bound %v", took, watch.ShutdownTimeout)
	}
	if mode == stopUnwritable {
		var ee *exec.ExitError
		if !errors.As(werr, &ee) || ee.ExitCode() != exitError || !strings.Contains(said.String(), "kbf: incident 1 not written") {
			t.Errorf("kbf watch after %v: %v, want exit %d saying incident 1 not written; it said:\n%s", sig, werr, exitError, said.String())
		}
		return took
	}
	if werr != nil {
		t.Errorf("kbf watch after %v: %v; it said:\n%s", sig, werr, said.String())
	}
	_, err = results.ReadMeta(filepath.Join(out, results.IncidentDir(1)))
	switch {
	case mode == stopFrozen && err != nil:
		t.Errorf("the incident open at %v: %v; kbf watch said:\n%s", sig, err, said.String())
	case mode == stopIdle && err == nil:
		t.Errorf("an incident written with none open; kbf watch said:\n%s", said.String())
	}
	if testing.Verbose() {
		t.Logf("kbf watch said:\n%s", said.String())
	}
	return took
}
