package compose

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kbf-project/kbf/internal/golden"
)

func TestLogFile(t *testing.T) {
	tests := []struct{ logger, file string }{
		{"state.change.logger", "state-change.log"},
		{"org.apache.kafka.controller.ReplicationControlManager", "controller.log"},
		{"org.apache.kafka.controller", "controller.log"},
		{"org.apache.kafka.controllerx", "server.log"},
		{"kafka.server.KafkaConfig", "server.log"},
		{"kafka.network.RequestChannel$", "kafka-request.log"},
		{"org.apache.kafka.storage.internals.log.LogCleaner$CleanerThread", "log-cleaner.log"},
		{"kafka.authorizer.logger", "kafka-authorizer.log"},
		{"", "server.log"},
	}
	for _, tt := range tests {
		if got := logFile(tt.logger); got != tt.file {
			t.Errorf("logFile(%q) = %q, want %q", tt.logger, got, tt.file)
		}
	}
}

func TestLoggerOf(t *testing.T) {
	tests := []struct {
		name   string
		entry  []string
		logger string
	}{
		{"one line", []string{"[2026-11-30 03:26:17,476] INFO [Broker id=2] Leader orders-0 starts (state.change.logger)"}, "state.change.logger"},
		{"parentheses inside", []string{"[2026-11-30 03:26:17,476] INFO a (b.c) and more (kafka.Kafka)"}, "kafka.Kafka"},
		{"message over lines", []string{"[2026-11-30 03:25:50,101] INFO KafkaConfig values: ", "\tsasl.jaas.config = (null)",
			" (kafka.server.KafkaConfig)"}, "kafka.server.KafkaConfig"},
		{"stack trace after", []string{"[2026-11-30 03:26:18,001] WARN oops (kafka.server.ReplicaFetcherThread)",
			"java.io.IOException: gone", "\tat org.apache.kafka.clients.NetworkClientUtils.sendAndReceive(NetworkClientUtils.java:99)"},
			"kafka.server.ReplicaFetcherThread"},
		{"no logger", []string{"[2026-11-30 03:26:18,001] INFO no logger"}, ""},
	}
	for _, tt := range tests {
		if got := loggerOf(tt.entry); got != tt.logger {
			t.Errorf("%s: loggerOf = %q, want %q", tt.name, got, tt.logger)
		}
	}
}

// checkSplit compares the files SplitLog wrote into dir with the golden
// files testdata/split/<file>.golden.
func checkSplit(t *testing.T, dir string, written []string) {
	t.Helper()
	var names []string
	for _, p := range written {
		names = append(names, filepath.Base(p))
	}
	if want := []string{"server.log", "controller.log", "state-change.log", "log-cleaner.log"}; !slices.Equal(names, want) {
		t.Errorf("wrote %v, want %v", names, want)
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "split", name+".golden"), b)
	}
}

func TestSplitLog(t *testing.T) {
	in, err := os.Open(filepath.Join("testdata", "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	dir := t.TempDir()
	written, err := SplitLog(in, dir)
	if err != nil {
		t.Fatalf("SplitLog: %v", err)
	}
	checkSplit(t, dir, written)
}

func TestSplitLogEmpty(t *testing.T) {
	dir := t.TempDir()
	written, err := SplitLog(strings.NewReader("===> only the script\n"), dir)
	if err != nil || len(written) != 1 {
		t.Fatalf("SplitLog = %v, %v; want server.log only", written, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "server.log")); err != nil || len(b) != 0 {
		t.Errorf("server.log %q, %v; want empty", b, err)
	}
}

func TestCollectOutput(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("testdata", "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeEngine()
	upFromNothing(t, f, Options{})
	stop(f, "kbf-k1", 137) // a killed node's output stays readable
	f.output = map[string]string{"kbf-k1": string(out)}
	c := testCluster(t, Options{}, f)
	dir := t.TempDir()
	if err := c.CollectOutput(context.Background(), "k1", dir); err != nil {
		t.Fatalf("CollectOutput: %v", err)
	}
	var written []string
	for _, n := range []string{"server.log", "controller.log", "state-change.log", "log-cleaner.log"} {
		written = append(written, filepath.Join(dir, n))
	}
	checkSplit(t, dir, written)
	if err := c.CollectOutput(context.Background(), "k9", dir); err == nil {
		t.Errorf("CollectOutput of no container: no error")
	}
}

func TestNodeConfigs(t *testing.T) {
	// Brokers 0, 1, 2 in kfake, a controller whose container answers the
	// cat of its server.properties.
	kc, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.BrokerConfigs(map[string]string{"broker.session.timeout.ms": "4000"}))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	file := "name: cfg\nservices:\n  kraft:\n    image: i\n    environment: {KAFKA_NODE_ID: 9, KAFKA_PROCESS_ROLES: controller}\n"
	for i, addr := range kc.ListenAddrs() {
		_, port, _ := strings.Cut(addr, ":")
		file += fmt.Sprintf("  b%d:\n    image: i\n    ports: ['127.0.0.1:%s:%s']\n    environment: {KAFKA_NODE_ID: %d, KAFKA_PROCESS_ROLES: broker, KAFKA_ADVERTISED_LISTENERS: 'HOST://127.0.0.1:%s'}\n",
			i, port, port, i, port)
	}
	f := newFakeEngine()
	f.containers["cfg-kraft-1"] = &container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{Name: "/cfg-kraft-1", State: &container.State{Running: true}}}
	f.properties = "# rendered\nnode.id=9\nprocess.roles=controller\nbroker.session.timeout.ms = 4000\n\n"
	c := testCluster(t, Options{File: writeFile(t, file), Topics: []Topic{}}, f)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got, err := c.NodeConfigs(ctx)
	if err != nil {
		t.Fatalf("NodeConfigs: %v", err)
	}
	if len(got) != 4 {
		t.Errorf("configurations of %v, want kraft b0 b1 b2", slices.Sorted(maps.Keys(got)))
	}
	for _, b := range []string{"b0", "b1", "b2"} {
		if v := got[b]["broker.session.timeout.ms"]; v != "4000" {
			t.Errorf("%s: broker.session.timeout.ms = %q, want 4000 as the broker reports it", b, v)
		}
	}
	want := map[string]string{"node.id": "9", "process.roles": "controller", "broker.session.timeout.ms": "4000"}
	if !maps.Equal(got["kraft"], want) {
		t.Errorf("kraft: %v, want %v", got["kraft"], want)
	}

	// A controller that is not running is named, the brokers still read.
	f.containers["cfg-kraft-1"].State.Running = false
	got, err = c.NodeConfigs(ctx)
	if err == nil || !strings.Contains(err.Error(), "configuration of kraft") || len(got) != 3 {
		t.Errorf("NodeConfigs with kraft stopped: %d nodes, %v; want the three brokers and kraft named", len(got), err)
	}
}

// TestSplitLogSecrets checks a node's output is split with every secret it
// printed hidden (results.MaskLine): a JAAS line and a configuration dump.
func TestSplitLogSecrets(t *testing.T) {
	const pw = "split-pw-3e9"
	in := "===> KAFKA_OPTS=-Dx.password=" + pw + "\n" +
		"[2026-01-02 03:04:05,678] INFO KafkaConfig values:\n" +
		"\tlistener.name.host.plain.sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"" + pw + "\" user_probe=\"" + pw + "\";\n" +
		"\tsasl.mechanism = PLAIN\n" +
		" (kafka.server.KafkaConfig)\n"
	dir := t.TempDir()
	if _, err := SplitLog(strings.NewReader(in), dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), pw) {
		t.Errorf("server.log holds the password:\n%s", b)
	}
	for _, keep := range []string{`username="admin" password=[hidden] user_probe=[hidden];`, "sasl.mechanism = PLAIN"} {
		if !strings.Contains(string(b), keep) {
			t.Errorf("server.log lost %q:\n%s", keep, b)
		}
	}
}
