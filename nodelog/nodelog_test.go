package nodelog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/internal/testsupport/golden"
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
