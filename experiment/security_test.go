package experiment

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/results"
)

// A trial run through a secured configuration records how its clients
// were secured (protocol, mechanism, principal) in meta.json, and its
// password nowhere in the trial directory.
func TestTrialRecordsSecurityNotSecrets(t *testing.T) {
	const password = "pa55-never-in-a-file"
	props := []kafkasec.Property{
		{Key: "security.protocol", Value: "SASL_PLAINTEXT", Line: 1},
		{Key: "sasl.mechanism", Value: "SCRAM-SHA-512", Line: 2},
		{Key: "sasl.jaas.config", Value: `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="` + password + `";`, Line: 3},
	}
	sec, err := kafkasec.FromProperties("client.properties", props)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		sec  *kafkasec.Config
		want *results.Security
	}{
		{name: "plaintext without a command config", sec: nil, want: nil},
		{name: "sasl", sec: sec, want: &results.Security{Protocol: "SASL_PLAINTEXT", Mechanism: "SCRAM-SHA-512", Principal: "alice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			r, _, _ := newRunner(t, w, results.FaultSIGKILL)
			r.Opt.Probe.Security = tt.sec
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			if err := r.Trial(context.Background(), 1, dir); err != nil {
				t.Fatal(err)
			}
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := m.Probe.Security
			if (got == nil) != (tt.want == nil) || got != nil && (got.Protocol != tt.want.Protocol || got.Mechanism != tt.want.Mechanism || got.Principal != tt.want.Principal) {
				t.Errorf("meta.json's security %+v, want %+v", got, tt.want)
			}
			err = filepath.WalkDir(r.Opt.Out, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := os.ReadFile(path)
				if err == nil && bytes.Contains(b, []byte(password)) {
					t.Errorf("%s holds the password", path)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
