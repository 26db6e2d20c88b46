//go:build integration

// TestIntegrationSASLSSL runs one SIGKILL trial with all three clients
// through SASL_SSL listeners (testdata/sasl_ssl.yaml, project kbfsasl,
// ports 39392–39394), the certificates made by the test and the SCRAM user
// created through the admin API (make probes first):
//
//	make probes && go test -tags integration ./cmd/kbf/ -run IntegrationSASLSSL -v -timeout 15m

package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	tccompose "github.com/testcontainers/testcontainers-go/modules/compose"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

const saslPassword = "alice-never-recorded-512"

// saslCerts writes into dir the brokers' key and certificate (for
// localhost, broker.pem) and the CA that signed it (ca.pem).
func saslCerts(t *testing.T, dir string) (caFile string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kbf sasl test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kbf sasl broker"},
		DNSNames: []string{"localhost"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	broker := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	broker = append(broker, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	broker = append(broker, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})...)
	// Read by the image's appuser through the mount: a test key.
	if err := os.WriteFile(filepath.Join(dir, "broker.pem"), broker, 0o644); err != nil {
		t.Fatal(err)
	}
	caFile = filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
		t.Fatal(err)
	}
	return caFile
}

func TestIntegrationSASLSSL(t *testing.T) {
	if os.Getenv(clients.EnvProbeDir) == "" {
		t.Setenv(clients.EnvProbeDir, filepath.Join("..", "..", clients.ProbeDir))
	}
	all := []clients.Name{clients.FranzGo, clients.Librdkafka, clients.Java}
	if err := checkBuilt(all); errors.Is(err, clients.ErrNotBuilt) {
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
	t.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	stack, err := tccompose.NewDockerComposeWith(tccompose.WithStackFiles(file), tccompose.StackIdentifier("kbfsasl"))
	if err != nil {
		t.Fatalf("compose stack: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := stack.Down(ctx, tccompose.RemoveOrphans(true), tccompose.RemoveVolumes(true)); err != nil {
			t.Errorf("compose down: %v", err)
		}
	})
	if err := stack.WithEnv(map[string]string{"KBF_SASL_DIR": secrets, "KBF_IMAGE": os.Getenv("KBF_IMAGE")}).Up(ctx, tccompose.Wait(true)); err != nil {
		t.Fatalf("compose up: %v", err)
	}
	adm, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:39395"))
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
	if _, err := report.Analyze(tr, report.Options{}); err != nil {
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
