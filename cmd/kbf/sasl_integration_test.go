//go:build integration

// TestIntegrationSASLSSL runs one SIGKILL trial with all three clients
// through SASL_SSL listeners (testdata/sasl_ssl.yaml, project kbfsasl,
// ports 29392–29394), the certificates made by the test and the SCRAM user
// created through the admin API (make probes first):
//
//	make probes && go test -tags integration ./cmd/kbf/ -run IntegrationSASLSSL -v -timeout 15m

package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/internal/testsupport/testkafka"
	"github.com/kbf-project/kbf/results"
)

const saslPassword = "alice-never-recorded-512"

// saslCerts writes into dir the brokers' key and certificate (for
// localhost, broker.pem) and the CA that signed it (ca.pem).
func saslCerts(t *testing.T, dir string) (caFile string) {
	t.Helper()
	ca := testkafka.NewCA(t, "kbf sasl test CA")
	cert, key := ca.Sign(t, testkafka.Leaf{CN: "kbf sasl broker", DNS: []string{"localhost"}})
	// Read by the image's appuser through the mount: a test key.
	if err := os.WriteFile(filepath.Join(dir, "broker.pem"), append(testkafka.KeyPEM(t, key), testkafka.CertPEM(cert, ca.Cert)...), 0o644); err != nil {
		t.Fatal(err)
	}
	caFile = filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, testkafka.CertPEM(ca.Cert), 0o644); err != nil {
		t.Fatal(err)
	}
	return caFile
}

func TestIntegrationSASLSSL(t *testing.T) {
	if os.Getenv(clients.EnvProbeDir) == "" {
		t.Setenv(clients.EnvProbeDir, filepath.Join("..", "..", clients.ProbeDir))
	}
	all := []clients.Name{clients.FranzGo, clients.Librdkafka, clients.Java}
	if err := clients.CheckBuilt(all); errors.Is(err, clients.ErrNotBuilt) {
		t.Skipf("the reference probes are not built (make probes): %v", err)
	} else if err != nil {
		t.Skipf("a reference probe cannot run here: %v", err)
	}
	if os.Getenv("KBF_IMAGE") == "" {
		t.Setenv("KBF_IMAGE", "kbf/kafka:4.3.1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()

	secrets := t.TempDir()
	for _, d := range []string{filepath.Dir(secrets), secrets} {
		if err := os.Chmod(d, 0o755); err != nil { // the image's appuser reads the mount
			t.Fatal(err)
		}
	}
	ca := saslCerts(t, secrets)
	t.Setenv("KBF_SASL_DIR", secrets)
	props := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(props, []byte("security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"+
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="`+saslPassword+"\";\n"+
		"ssl.truststore.type=PEM\nssl.truststore.location="+ca+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file, err := filepath.Abs(filepath.Join("testdata", "sasl_ssl.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	// The SCRAM user must exist before kbf's clients authenticate: the
	// stack is started first, the user made over the brokers' PLAINTEXT
	// listener ADMIN, and kbf run takes the stack as it is.
	testkafka.Stack{File: file, Project: "kbfsasl", Env: map[string]string{"KBF_SASL_DIR": secrets, "KBF_IMAGE": os.Getenv("KBF_IMAGE")}}.Start(ctx, t)
	adm, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:29395"))
	if err != nil {
		t.Fatal(err)
	}
	for {
		r, err := kadm.NewClient(adm).AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{
			{User: "alice", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: saslPassword}})
		if err == nil {
			err = r.Error()
		}
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("create the SCRAM user: %v", err)
		}
		time.Sleep(time.Second)
	}
	adm.Close()

	out := filepath.Join(t.TempDir(), "sasl")
	args := []string{"run", "-f", file, "--project-name", "kbfsasl", "--command-config", props,
		"--broker", "kafka-1", "--fault", "sigkill", "--clients", "franz-go,librdkafka,java",
		"--interval", "50ms", "--baseline-gap", "1500ms", "--baseline-timeout", "3m", "--duration", "30s", "--fault-after", "8s", "--out", out}
	var stdout, stderr bytes.Buffer
	// Exit 3 is the audit's (librdkafka may write a retried batch twice).
	if code := run(ctx, args, &stdout, &stderr); code != exitOK && code != exitNoValid && code != exitFindings {
		t.Fatalf("kbf %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, stdout.String(), stderr.String())
	}
	t.Logf("kbf's output:\n%s\n%s", stdout.String(), stderr.String())
	trials, err := results.Find(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 1 || len(trials[0].Clients) != 2 {
		t.Fatalf("%d trials, want 1 with two external clients: %+v", len(trials), trials)
	}
	tr := trials[0]
	if tr.Meta == nil || tr.Meta.Fault == nil || tr.Meta.Fault.Kind != "sigkill" {
		t.Fatalf("no SIGKILL recorded: %+v", tr.Meta)
	}
	if s := tr.Meta.Probe.Security; s == nil || s.Protocol != "SASL_SSL" || s.Mechanism != "SCRAM-SHA-512" || s.Principal != "alice" {
		t.Errorf("meta.json's security %+v, want SASL_SSL, SCRAM-SHA-512 as alice", s)
	}
	probes := []string{tr.Probe}
	for _, c := range tr.Clients {
		probes = append(probes, c.Probe)
	}
	for _, p := range probes {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: empty or missing (%v)", p, err)
		}
	}
	if _, err := analysis.Analyze(tr, analysis.Options{}); err != nil {
		t.Errorf("report: %v", err)
	}
	err = filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(saslPassword)) {
			t.Errorf("%s holds the password", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(stdout.Bytes(), []byte(saslPassword)) || bytes.Contains(stderr.Bytes(), []byte(saslPassword)) {
		t.Error("kbf's output holds the password")
	}
}
