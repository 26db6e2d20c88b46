package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBadInput: each mistake on the command line is one line and exit 2,
// found before anything reaches Docker, a cluster or the API server, and
// a file that is a pipe or a device is refused rather than read.
func TestBadInput(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
	t.Setenv("KUBECONFIG", "")
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"probe --bootstrap port out of range", []string{"probe", "--bootstrap", "not-a-host:99999"}, `port "99999": want a number from 1 to 65535`},
		{"probe --bootstrap no port", []string{"probe", "--bootstrap", "kafka"}, `--bootstrap "kafka": want host:port`},
		{"probe --bootstrap empty", []string{"probe", "--bootstrap", ""}, "--bootstrap: empty"},
		{"run --bootstrap empty", []string{"run", "--fault", "external", "--bootstrap", ""}, "--bootstrap: empty"},
		{"bench --bootstrap empty", []string{"bench", "--kill", "external", "--bootstrap", ""}, "--bootstrap: empty"},
		{"run --bootstrap port out of range", []string{"run", "--fault", "external", "--bootstrap", "h:0"}, `port "0"`},
		{"report --window negative", []string{"report", "--window", "-1s", "."}, "--window -1s: must not be negative"},
		// A flag that changes nothing without its partner is refused, not
		// ignored in silence.
		{"run --txn-records without a transactional producer", []string{"run", "--fault", "sigkill", "--txn-records", "5"}, "--txn-records needs --producer transactional"},
		{"run --txn-interval with an idempotent producer", []string{"run", "--fault", "sigkill", "--producer", "idempotent", "--txn-interval", "2s"}, "--txn-interval needs --producer transactional"},
		{"probe --txn-records without a transactional producer", []string{"probe", "--txn-records", "5"}, "--txn-records needs --producer transactional"},
		{"bench --txn-interval without a transactional producer", []string{"bench", "--kill", "sigkill", "--txn-interval", "2s"}, "--txn-interval needs --producer transactional"},
		{"run --load-size without --load", []string{"run", "--fault", "sigkill", "--load-size", "4KiB"}, "--load-size needs --load"},
		{"probe --load-topic without --load", []string{"probe", "--load-topic", "orders-load"}, "--load-topic needs --load"},
		{"up --brokers 0", []string{"up", "--brokers", "0"}, "--brokers 0: want 1 or more"},
		{"run --brokers 0", []string{"run", "--fault", "sigkill", "--brokers", "0"}, "--brokers 0: want 1 or more"},
		{"up --controllers 0", []string{"up", "--controllers", "0"}, "--controllers 0: want 1 or 3"},
		{"run --consumer unknown", []string{"run", "--fault", "sigkill", "--consumer", "share"}, `consumer "share": want assign or group`},
		{"run --group-protocol unknown", []string{"run", "--fault", "sigkill", "--consumer", "group", "--group-protocol", "eager"}, `group-protocol "eager": want classic or consumer`},
		{"run --commit unknown", []string{"run", "--fault", "sigkill", "--consumer", "group", "--commit", "never"}, `commit "never": want sync, async or interval`},
		{"run --commit without a group", []string{"run", "--fault", "sigkill", "--commit", "async"}, "commit async: only with consumer group"},
		{"bench --group-protocol without a group", []string{"bench", "--kill", "sigkill", "--group-protocol", "consumer"}, "group-protocol consumer: only with consumer group"},
		{"run --producer unknown", []string{"run", "--fault", "sigkill", "--producer", "exactly-once"}, `producer "exactly-once": want idempotent or transactional`},
		{"run --txn-records 0", []string{"run", "--fault", "sigkill", "--producer", "transactional", "--txn-records", "0"}, "txn-records 0: must be at least 1"},
		{"run --txn-records not a number", []string{"run", "--fault", "sigkill", "--txn-records", "many"}, `invalid argument "many" for "--txn-records"`},
		{"run --txn-interval 0", []string{"run", "--fault", "sigkill", "--producer", "transactional", "--txn-interval", "0s"}, "txn-interval 0s: must be positive"},
		{"run --txn-interval not a duration", []string{"run", "--fault", "sigkill", "--txn-interval", "soon"}, `invalid argument "soon" for "--txn-interval"`},
		{"run --producer transactional --acks 1", []string{"run", "--fault", "sigkill", "--producer", "transactional", "--acks", "1"}, "producer transactional: needs acks all"},
		{"run --producer transactional --clients librdkafka", []string{"run", "--fault", "sigkill", "--producer", "transactional", "--clients", "franz-go,librdkafka"}, "--producer transactional: the librdkafka probe has no transactional producer"},
		{"bench --producer unknown", []string{"bench", "--kill", "sigkill", "--producer", "eos"}, `producer "eos": want idempotent or transactional`},
		{"run --load not a rate", []string{"run", "--fault", "sigkill", "--load", "fast"}, `--load "fast": want records/s (5000/s) or bytes/s (2MB/s)`},
		{"run --load 0/s", []string{"run", "--fault", "sigkill", "--load", "0/s"}, "--load 0/s: want more than 0"},
		{"probe --load-size too big", []string{"probe", "--load", "10/s", "--load-size", "2MiB"}, "--load-size 2MiB: want 1 byte to 1 MiB"},
		{"run --load-topic the probe's", []string{"run", "--fault", "sigkill", "--load", "10/s", "--load-topic", "orders"}, `--load-topic "orders": is the probe's topic`},
		{"bench FILE a named pipe", []string{"bench", fifo}, "a named pipe"},
		{"bench FILE /dev/zero", []string{"bench", "/dev/zero"}, "a character device"},
		{"--command-config a named pipe", []string{"up", "--command-config", fifo}, "a named pipe"},
		{"--command-config /dev/zero", []string{"run", "--fault", "sigkill", "--command-config", "/dev/zero"}, "a character device"},
		{"--kubeconfig a named pipe", []string{"run", "--fault", "sigkill", "--target", "k8s", "--broker", "kafka-0", "--kubeconfig", fifo}, "a named pipe"},
		{"run --broker coordinator with no group", []string{"run", "--fault", "sigkill", "--broker", "coordinator"},
			"--broker coordinator: needs --consumer group, the group whose coordinator to fault"},
		{"run --broker txn-coordinator", []string{"run", "--fault", "sigkill", "--broker", "txn-coordinator"},
			"--broker txn-coordinator: needs --producer transactional, the transactional id whose coordinator to fault"},
		{"bench --broker coordinator with no group", []string{"bench", "--kill", "sigkill", "--broker", "coordinator"},
			"--broker coordinator: needs --consumer group"},
		{"--kubeconfig /dev/zero", []string{"run", "--fault", "sigkill", "--target", "k8s", "--broker", "kafka-0", "--kubeconfig", "/dev/zero"}, "a character device"},
		{"watch --stall zero", []string{"watch", "--stall", "0"}, "--stall 0s: must be positive"},
		{"watch --stall below the steady bound", []string{"watch", "--stall", "100ms"}, "--stall 100ms: below the probe's steady bound"},
		{"watch --retain negative", []string{"watch", "--retain", "-1"}, "--retain -1: must not be negative"},
		{"watch --metrics-addr no port", []string{"watch", "--metrics-addr", "localhost"}, "--metrics-addr localhost: want host:port"},
		{"watch --target unknown", []string{"watch", "--target", "nomad"}, "--target nomad: want docker or k8s"},
		{"watch --bootstrap empty", []string{"watch", "--bootstrap", ""}, "--bootstrap: empty"},
		{"watch --retain not a count or age", []string{"watch", "--retain", "soon"}, "--retain soon: want a count of incidents (50) or an age (72h, 30d)"},
		{"watch --logs-command without --bootstrap", []string{"watch", "--logs-command", "cat {id}.log"}, "--logs and --logs-command are for a --bootstrap cluster"},
		{"watch --logs and --logs-command", []string{"watch", "--bootstrap", "b1:9092", "--logs", ".", "--logs-command", "cat {id}.log"}, "--logs and --logs-command: give one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(context.Background(), tc.args, &stdout, &stderr) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("kbf still running after 30s")
			}
			if code != exitUsage || !strings.Contains(stderr.String(), tc.want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want one usage line with %q", code, stderr.String(), tc.want)
			}
		})
	}
}

// TestBuildScriptVersion: image/build.sh refuses a KAFKA_VERSION that is
// not a 4.x release before it does anything, and runs nothing it holds.
func TestBuildScriptVersion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "image", "build.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"1;touch pwned", "4.0.2`touch pwned`", "4.0.2$(touch pwned)", "4.0.2;touch pwned", "4.0.2x/../y", "3.9.1", "4.0.2\ntouch pwned", ""} {
		t.Run(v, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bash, script)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "KAFKA_VERSION="+v, "KBF_CACHE_DIR="+dir)
			if v == "" {
				cmd.Env = append(os.Environ(), "KAFKA_VERSION=-", "KBF_CACHE_DIR="+dir)
			}
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "want a Kafka 4.x release") {
				t.Errorf("%v: %s; want exit 2 and the reason", err, out)
			}
			if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
				t.Error("the value was run")
			}
		})
	}
}

// TestBenchSweepUnknownProperty checks that a sweep over a property no
// Kafka node knows is refused before anything starts, as --config's is.
func TestBenchSweepUnknownProperty(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
	file := filepath.Join(t.TempDir(), "sweep.yaml")
	scenario := "trials: 1\nscenarios:\n  - name: s\n    fault: sigkill\n    sweep:\n      key: broker.sesion.timeout.ms\n      values: [6000, 9000]\n"
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := kbfCmd(context.Background(), "bench", file, "--out", filepath.Join(t.TempDir(), "out"))
	if code != exitUsage || !strings.Contains(stderr, "did you mean broker.session.timeout.ms?") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want %d and one line naming the property", code, stderr, exitUsage)
	}
}

// TestBenchSweepPastLimit: a sweep whose value breaks a limit of Kafka's
// settings (a session timeout below two default heartbeats) is refused
// before anything starts, in one line.
func TestBenchSweepPastLimit(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
	file := filepath.Join(t.TempDir(), "sweep.yaml")
	scenario := "trials: 1\nscenarios:\n  - name: s\n    fault: sigkill\n    sweep:\n      key: broker.session.timeout.ms\n      values: [9000, 3000]\n"
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := kbfCmd(context.Background(), "bench", file, "--out", filepath.Join(t.TempDir(), "out"))
	if code != exitUsage || !strings.Contains(stderr, "at most half broker.session.timeout.ms") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want %d and one line naming the limit", code, stderr, exitUsage)
	}
}
