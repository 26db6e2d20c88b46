package kafkasec

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/kbf-project/kbf/internal/regfile"
)

func TestUnknownKeyWarnings(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // each warning's key and suggestion, in order
	}{
		{name: "kbf's and Kafka's keys", in: "security.protocol=PLAINTEXT\nclient.id=x\nrequest.timeout.ms=1000\n"},
		{name: "a misspelt key", in: "security.protocl=SASL_SSL\n", want: []string{"'security.protocl'", "did you mean security.protocol?"}},
		{name: "an unknown key with no near one", in: "acks=all\nfoo.bar=1\n", want: []string{"'foo.bar'"}},
		{name: "each unknown key, by its line", in: "sasl.mechansim=PLAIN\nssl.truststore.locaton=x\n",
			want: []string{"x.properties:1: the configuration 'sasl.mechansim'", "did you mean sasl.mechanism?",
				"x.properties:2: the configuration 'ssl.truststore.locaton'", "did you mean ssl.truststore.location?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			props, err := ParseProperties("x.properties", strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			c, err := FromProperties("x.properties", props)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(c.Warnings, "\n")
			if len(tc.want) == 0 && got != "" {
				t.Fatalf("warnings %q, want none", got)
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("warnings %q: no %q in order", got, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestKafkaKeysHoldKbfs: every key kbf applies is a Kafka client's too.
func TestKafkaKeysHoldKbfs(t *testing.T) {
	for _, k := range known {
		if !slices.Contains(kafkaKeys, k) {
			t.Errorf("%s is not in kafkaKeys", k)
		}
	}
}

// TestLoadNotRegular: a named pipe or a device as --command-config or as a
// store is refused at once, not read until a writer comes or memory ends.
func TestLoadNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	props := func(body string) string {
		p := filepath.Join(dir, strings.NewReplacer("/", "_", "=", "_", "\n", "_").Replace(body))
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct{ name, path string }{
		{"--command-config a named pipe", fifo},
		{"--command-config /dev/zero", "/dev/zero"},
		{"a truststore that is a named pipe", props("security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=" + fifo)},
		{"a keystore that is /dev/zero", props("security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.location=/dev/zero")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Load(tc.path); !errors.Is(err, regfile.ErrNotRegular) {
				t.Fatalf("err = %v, want ErrNotRegular", err)
			}
		})
	}
}
