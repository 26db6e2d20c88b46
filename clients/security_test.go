package clients

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/kafkasec"
)

// Each external client is handed the security settings in its own names,
// in a file only its owner reads, named on the command line; the password
// is in the file, never in the arguments.
func TestWriteSecurity(t *testing.T) {
	const password = "pa55-only-in-the-file"
	sec, err := kafkasec.FromProperties("client.properties", []kafkasec.Property{
		{Key: "security.protocol", Value: "SASL_PLAINTEXT", Line: 1},
		{Key: "sasl.mechanism", Value: "SCRAM-SHA-256", Line: 2},
		{Key: "sasl.jaas.config", Value: `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="` + password + `";`, Line: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		client Name
		want   map[string]string // in the file
	}{
		{Librdkafka, map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": "alice", "sasl.password": password}},
		{Java, map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.client), func(t *testing.T) {
			spec := Spec{Client: tt.client, Bootstrap: []string{"127.0.0.1:1"}, Topic: "orders", Interval: 1, Acks: "all", Dir: t.TempDir(), Security: sec}
			dir, err := writeSecurity(&spec)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			if filepath.Dir(spec.CommandConfig) != dir || strings.HasPrefix(spec.CommandConfig, spec.Dir) {
				t.Errorf("command config %s: want it in %s, outside the results", spec.CommandConfig, dir)
			}
			st, err := os.Stat(spec.CommandConfig)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", st.Mode().Perm())
			}
			f, err := os.Open(spec.CommandConfig)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			props, err := kafkasec.ParseProperties(spec.CommandConfig, f)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, p := range props {
				got[p.Key] = p.Value
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			args := strings.Join(spec.Args(), " ")
			if !strings.Contains(args, "--command-config="+spec.CommandConfig) || strings.Contains(args, password) {
				t.Errorf("args %q: want --command-config and no password", args)
			}
		})
	}
	spec := Spec{Client: Java}
	if dir, err := writeSecurity(&spec); dir != "" || err != nil || spec.CommandConfig != "" {
		t.Errorf("no security: dir %q, err %v, command config %q; want none", dir, err, spec.CommandConfig)
	}
}
