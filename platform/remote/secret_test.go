package remote

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/kafkaadmin"
)

// TestCollectLogsSecrets checks a remote node's log copied by --logs or
// printed by --logs-command keeps no secret it logged: a configuration
// line and a JAAS line a broker might print.
func TestCollectLogsSecrets(t *testing.T) {
	const pw, user = "remote-pw-8d2", "remote-user-pw-51e"
	log := "[2026-01-02 03:04:05,678] INFO KafkaConfig values:\n" +
		"\tssl.truststore.password = " + pw + "\n" +
		"\tsasl.jaas.config = null\n" +
		" (kafka.server.KafkaConfig)\n" +
		`[2026-01-02 03:04:06,000] INFO login with org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="` + pw + `" user_probe="` + user + `"; (x.Y)` + "\n"
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "1", "server.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tgt := range map[string]*Cluster{
		"--logs":         {opts: Options{Logs: src}},
		"--logs-command": {opts: Options{LogsCommand: "cat " + src + "/{id}/server.log"}, brokers: []kafkaadmin.Broker{{ID: 1, Addr: "1:9092"}}},
	} {
		t.Run(name, func(t *testing.T) {
			dst := t.TempDir()
			if err := tgt.CollectLogs(context.Background(), "1", time.Now(), dst); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dst, "server.log"))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{pw, user} {
				if bytes.Contains(b, []byte(p)) {
					t.Errorf("server.log holds %s:\n%s", p, b)
				}
			}
			for _, keep := range []string{"ssl.truststore.password = [hidden]", "sasl.jaas.config = null", `username="admin" password=[hidden] user_probe=[hidden];`} {
				if !strings.Contains(string(b), keep) {
					t.Errorf("server.log lost %q:\n%s", keep, b)
				}
			}
		})
	}
}
