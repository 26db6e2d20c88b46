//go:build integration

// This test needs the Docker engine and the image $KBF_IMAGE (kbf/kafka:4.3.1
// from make image when unset). It starts one KRaft controller and one broker
// with testcontainers-go's compose module (Ryuk off, project kbfsec), the
// broker's listeners secured with certificates this test makes, and checks
// kafkasec's settings against it: what works, and the one line each
// misconfiguration gives.
//
//	go test -tags integration ./kafkasec/ -run Integration -v -timeout 10m

package kafkasec

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tcexec "github.com/testcontainers/testcontainers-go/exec"
	tccompose "github.com/testcontainers/testcontainers-go/modules/compose"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/internal/testsupport/testkafka"
)

// The broker's listeners, published on 127.0.0.1 at these ports and
// advertised as localhost, the name its certificate holds.
const (
	project     = "kbfsec"
	portSASLSSL = 29292 // SASL_SSL: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512
	portSASL    = 29293 // SASL_PLAINTEXT: PLAIN, SCRAM-SHA-256
	portExpired = 29294 // SSL with an expired certificate
	portMTLS    = 29295 // SSL requiring a client certificate

	adminPassword = "admin-secret-pw"
	alicePassword = "alice-sha256-pw"
	bobPassword   = "bob-sha512-pw"
)

func secImage() string { return testkafka.Image("kbf/kafka:4.3.1") }

const composeFile = `name: kbfsec
services:
  c1:
    image: ${KBF_IMAGE}
    hostname: c1
    environment:
      CLUSTER_ID: a2JmLXNlY3VyaXR5LTAwMQ
      KAFKA_NODE_ID: "100"
      KAFKA_PROCESS_ROLES: controller
      KAFKA_LISTENERS: CONTROLLER://:9093
      KAFKA_CONTROLLER_QUORUM_VOTERS: 100@c1:9093
      KAFKA_CONTROLLER_LISTENER_NAMES: CONTROLLER
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: CONTROLLER:PLAINTEXT
      KAFKA_LOG_DIRS: /var/lib/kafka/data
      KAFKA_HEAP_OPTS: -Xmx256m -Xms256m
  b1:
    image: ${KBF_IMAGE}
    hostname: b1
    depends_on: [c1]
    # The whole configuration is the mounted server.properties: with no
    # KAFKA_ADVERTISED_LISTENERS in the environment the image does not ask
    # for its own keystore conventions, and the broker reads PEM files.
    environment:
      CLUSTER_ID: a2JmLXNlY3VyaXR5LTAwMQ
      KAFKA_HEAP_OPTS: -Xmx512m -Xms512m
    volumes:
      - ${SEC_DIR}/config:/mnt/shared/config:ro
      - ${SEC_DIR}/secrets:/etc/kafka/secrets:ro
    ports:
      - "127.0.0.1:29292:29292"
      - "127.0.0.1:29293:29293"
      - "127.0.0.1:29294:29294"
      - "127.0.0.1:29295:29295"
`

// serverProperties enables every mechanism on the SASL_SSL listener, and
// leaves SCRAM-SHA-512 off the SASL_PLAINTEXT one, so that a mechanism the
// listener does not enable is a real broker's answer.
const serverProperties = `process.roles=broker
node.id=1
controller.quorum.voters=100@c1:9093
controller.listener.names=CONTROLLER
log.dirs=/var/lib/kafka/data
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
listeners=INTERNAL://:9092,SECURE://:29292,SASL://:29293,EXPIRED://:29294,MTLS://:29295
advertised.listeners=INTERNAL://b1:9092,SECURE://localhost:29292,SASL://localhost:29293,EXPIRED://localhost:29294,MTLS://localhost:29295
listener.security.protocol.map=CONTROLLER:PLAINTEXT,INTERNAL:PLAINTEXT,SECURE:SASL_SSL,SASL:SASL_PLAINTEXT,EXPIRED:SSL,MTLS:SSL
inter.broker.listener.name=INTERNAL
ssl.keystore.type=PEM
ssl.keystore.location=/etc/kafka/secrets/broker.pem
listener.name.expired.ssl.keystore.type=PEM
listener.name.expired.ssl.keystore.location=/etc/kafka/secrets/expired.pem
listener.name.mtls.ssl.client.auth=required
listener.name.mtls.ssl.truststore.type=PEM
listener.name.mtls.ssl.truststore.location=/etc/kafka/secrets/ca.pem
listener.name.secure.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
listener.name.secure.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="` + adminPassword + `";
listener.name.secure.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.secure.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256
listener.name.sasl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="` + adminPassword + `";
listener.name.sasl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
`

// secCluster is the test's cluster and the files its clients use.
type secCluster struct {
	dir       string
	caPEM     string // the CA that signed the brokers' certificates
	otherCA   string // a CA that signed nothing the broker has
	clientP12 string // the client's certificate and key for mutual TLS
	caJKS     string // the CA again, as a JKS truststore
	stack     *tccompose.DockerCompose
}

func startSecCluster(ctx context.Context, t *testing.T) *secCluster {
	t.Helper()
	dir := t.TempDir()
	// The image runs as appuser, which must reach the mounted files
	// through the test's temporary directories.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"config", "secrets", "client"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ca := newCA(t, "kbf security test CA")
	cert, key := ca.leaf(t, leafOpts{cn: "b1", dns: []string{"localhost"}})
	old, oldKey := ca.leaf(t, leafOpts{cn: "b1-expired", dns: []string{"localhost"}, notAfter: time.Now().Add(-time.Hour)})
	clientCert, clientKey := ca.leaf(t, leafOpts{cn: "kbf-client", client: true})
	sec := filepath.Join(dir, "secrets")
	for name, data := range map[string][]byte{
		"broker.pem":  append(keyPEM(t, key), certPEM(cert, ca.cert)...),
		"expired.pem": append(keyPEM(t, oldKey), certPEM(old, ca.cert)...),
		"ca.pem":      certPEM(ca.cert),
	} {
		if err := os.WriteFile(filepath.Join(sec, name), data, 0o644); err != nil { // a test key, read by appuser
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "config", "server.properties"), []byte(serverProperties), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &secCluster{
		dir:       dir,
		caPEM:     writeTestFile(t, filepath.Join(dir, "client"), "ca.pem", certPEM(ca.cert)),
		otherCA:   writeTestFile(t, filepath.Join(dir, "client"), "other-ca.pem", certPEM(newCA(t, "some other CA").cert)),
		clientP12: writeTestFile(t, filepath.Join(dir, "client"), "client.p12", p12KeyStore(t, storePass, clientCert, clientKey)),
		caJKS:     writeTestFile(t, filepath.Join(dir, "client"), "ca.jks", jksTrustStore(t, storePass, ca.cert)),
	}
	file := writeTestFile(t, dir, "compose.yaml", []byte(composeFile))

	c.stack = testkafka.Stack{File: file, Project: project, Env: map[string]string{"KBF_IMAGE": secImage(), "SEC_DIR": dir},
		OnFail: func(ctx context.Context, t *testing.T, stack *tccompose.DockerCompose) { logTail(ctx, t, stack, "b1") }}.Start(ctx, t)
	return c
}

// logTail logs the end of a service's output, for a failed test.
func logTail(ctx context.Context, t *testing.T, stack *tccompose.DockerCompose, service string) {
	ctr, err := stack.ServiceContainer(ctx, service)
	if err != nil {
		t.Logf("%s: %v", service, err)
		return
	}
	rc, err := ctr.Logs(ctx)
	if err != nil {
		t.Logf("%s logs: %v", service, err)
		return
	}
	defer rc.Close()
	data, _ := io.ReadAll(rc)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	t.Logf("%s's last lines:\n%s", service, strings.Join(lines, "\n"))
}

// props writes a client properties file and loads it.
func (c *secCluster) props(t *testing.T, name string, lines ...string) *Config {
	t.Helper()
	p := writeTestFile(t, filepath.Join(c.dir, "client"), name+".properties", []byte(strings.Join(lines, "\n")+"\n"))
	cfg, err := Load(p)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return cfg
}

func (c *secCluster) saslSSL(mech, jaas string) []string {
	return []string{"security.protocol=SASL_SSL", "sasl.mechanism=" + mech, jaas, "ssl.truststore.type=PEM", "ssl.truststore.location=" + c.caPEM}
}

func addr(port int) string { return fmt.Sprintf("localhost:%d", port) }

// TestIntegrationSecuredListeners produces and consumes through each
// secured listener with kafkasec's franz-go options, then checks the one
// line each misconfiguration gives, and how soon.
func TestIntegrationSecuredListeners(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	c := startSecCluster(ctx, t)

	admin := c.props(t, "admin", "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN", plainJAAS("admin", adminPassword))
	adm := waitAdmin(ctx, t, admin, addr(portSASL))
	defer adm.Close()
	created, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{
		{User: "alice", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: alicePassword},
		{User: "bob", Mechanism: kadm.ScramSha512, Iterations: 4096, Password: bobPassword},
	})
	if err == nil {
		err = created.Error()
	}
	if err != nil {
		t.Fatalf("create SCRAM users: %v", err)
	}

	jks, p12 := c.keytoolStores(ctx, t)

	works := []struct {
		name string
		addr string
		cfg  *Config
	}{
		{"SASL_SSL PLAIN", addr(portSASLSSL), c.props(t, "ssl-plain", c.saslSSL(Plain, plainJAAS("admin", adminPassword))...)},
		{"SASL_SSL SCRAM-SHA-256", addr(portSASLSSL), c.props(t, "ssl-256", c.saslSSL(ScramSHA256, scramJAAS("alice", alicePassword))...)},
		{"SASL_SSL SCRAM-SHA-512", addr(portSASLSSL), c.props(t, "ssl-512", c.saslSSL(ScramSHA512, scramJAAS("bob", bobPassword))...)},
		{"SASL_SSL SCRAM-SHA-512, JKS truststore", addr(portSASLSSL), c.props(t, "ssl-jks", "security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512", scramJAAS("bob", bobPassword),
			"ssl.truststore.location="+c.caJKS, "ssl.truststore.password="+storePass)},
		{"SASL_SSL SCRAM-SHA-256, truststore and keystore made by keytool", addr(portSASLSSL), c.props(t, "keytool", "security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-256", scramJAAS("alice", alicePassword),
			"ssl.truststore.location="+jks, "ssl.truststore.password="+storePass, "ssl.keystore.location="+p12, "ssl.keystore.password="+storePass)},
		{"SASL_SSL by IP, host name not checked", fmt.Sprintf("127.0.0.1:%d", portSASLSSL), c.props(t, "ssl-by-ip", append(c.saslSSL(Plain, plainJAAS("admin", adminPassword)), "ssl.endpoint.identification.algorithm=")...)},
		{"SASL_PLAINTEXT PLAIN", addr(portSASL), admin},
		{"SASL_PLAINTEXT SCRAM-SHA-256", addr(portSASL), c.props(t, "sasl-256", "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-256", scramJAAS("alice", alicePassword))},
		{"SSL with a client certificate", addr(portMTLS), c.props(t, "mtls", "security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location="+c.caPEM,
			"ssl.keystore.type=PKCS12", "ssl.keystore.location="+c.clientP12, "ssl.keystore.password="+storePass)},
	}
	for i, w := range works {
		t.Run(w.name, func(t *testing.T) {
			topic := fmt.Sprintf("sec-%d", i)
			if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
				t.Fatalf("create %s: %v", topic, err)
			}
			produceConsume(ctx, t, w.cfg, w.addr, topic)
		})
	}

	fails := []struct {
		name string
		addr string
		cfg  *Config
		want string
	}{
		{"wrong SCRAM password", addr(portSASLSSL), c.props(t, "bad-512", c.saslSSL(ScramSHA512, scramJAAS("bob", "not-"+bobPassword))...),
			`SCRAM-SHA-512 authentication of user "bob" failed (a wrong password, or no such user); check username and password in sasl.jaas.config`},
		{"wrong PLAIN password", addr(portSASL), c.props(t, "bad-plain", "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN", plainJAAS("admin", "not-"+adminPassword)),
			`PLAIN authentication of user "admin" failed`},
		{"mechanism the listener does not enable", addr(portSASL), c.props(t, "no-512", "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-512", scramJAAS("bob", bobPassword)),
			"the listener does not enable SASL mechanism SCRAM-SHA-512; set sasl.mechanism"},
		{"untrusted certificate", addr(portSASLSSL), c.props(t, "untrusted", "security.protocol=SASL_SSL", "sasl.mechanism=PLAIN", plainJAAS("admin", adminPassword), "ssl.truststore.type=PEM", "ssl.truststore.location="+c.otherCA),
			"its certificate (CN=b1, issued by CN=kbf security test CA) is not signed by a CA kbf trusts; set ssl.truststore.location"},
		{"expired certificate", addr(portExpired), c.props(t, "expired", "security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location="+c.caPEM),
			"its certificate (CN=b1-expired) expired at "},
		{"host name mismatch", fmt.Sprintf("127.0.0.1:%d", portSASLSSL), c.props(t, "by-ip", c.saslSSL(Plain, plainJAAS("admin", adminPassword))...),
			`its certificate (CN=b1) is not valid for "127.0.0.1"; it names localhost; connect through a name the certificate holds`},
		{"SASL_PLAINTEXT spoken to SASL_SSL", addr(portSASLSSL), admin,
			"the listener speaks TLS, and kbf's client spoke SASL_PLAINTEXT to it; set security.protocol=SASL_SSL"},
		{"PLAINTEXT spoken to SASL_SSL", addr(portSASLSSL), c.props(t, "plaintext", "security.protocol=PLAINTEXT"),
			"the listener speaks TLS, and kbf's client spoke PLAINTEXT to it; set security.protocol=SSL"},
		{"SASL_SSL spoken to SASL_PLAINTEXT", addr(portSASL), c.props(t, "tls-to-plain", c.saslSSL(Plain, plainJAAS("admin", adminPassword))...),
			"the listener does not speak TLS (it is PLAINTEXT or SASL_PLAINTEXT); set security.protocol=SASL_PLAINTEXT"},
		{"PLAINTEXT spoken to SASL_PLAINTEXT", addr(portSASL), c.props(t, "plaintext", "security.protocol=PLAINTEXT"),
			"as a listener requiring SASL does to a client without it; set security.protocol=SASL_PLAINTEXT (or SASL_SSL)"},
		{"no client certificate for mutual TLS", addr(portMTLS), c.props(t, "no-client-cert", "security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location="+c.caPEM),
			"the listener requires a client certificate it trusts (mutual TLS), and refused kbf's; set ssl.keystore.location"},
	}
	for _, f := range fails {
		t.Run(f.name, func(t *testing.T) {
			start := time.Now()
			err := ping(ctx, f.cfg, f.addr)
			took := time.Since(start)
			if err == nil {
				t.Fatal("the client reached the broker")
			}
			got := f.cfg.Explain(f.addr, err)
			t.Logf("%.1fs: %v", took.Seconds(), got)
			var ce *ConnError
			if !errors.As(got, &ce) || !strings.Contains(got.Error(), "listener "+f.addr+": ") || !strings.Contains(got.Error(), f.want) {
				t.Fatalf("got  %v\nfrom %v\nwant a line about listener %s with %q", got, err, f.addr, f.want)
			}
			// Only a connection closed without a word is a guess.
			if wantGuess := strings.Contains(f.name, "spoken to SASL_PLAINTEXT"); ce.Guess != wantGuess {
				t.Errorf("Guess = %v, want %v (from %v)", ce.Guess, wantGuess, err)
			}
			if took > 10*time.Second {
				t.Errorf("the failure took %s to show, want seconds", took.Round(time.Millisecond))
			}
			for _, s := range []string{adminPassword, alicePassword, bobPassword, storePass} {
				if strings.Contains(got.Error(), s) {
					t.Errorf("the line shows a secret: %v", got)
				}
			}
		})
	}
}

// keytoolStores has Java's keytool, in the broker's image, make a JKS
// truststore holding the test's CA and a PKCS12 keystore with a key pair of
// its own, so that kafkasec is shown to read the stores Kafka users have,
// not only those the Go libraries write. It returns their paths.
func (c *secCluster) keytoolStores(ctx context.Context, t *testing.T) (jks, p12 string) {
	t.Helper()
	ctr, err := c.stack.ServiceContainer(ctx, "b1")
	if err != nil {
		t.Fatal(err)
	}
	store := func(name, script string) string {
		t.Helper()
		// keytool's own words only when it fails: the output is the store.
		code, out, err := ctr.Exec(ctx, []string{"bash", "-c", script + " >/tmp/keytool.log 2>&1 || { cat /tmp/keytool.log; exit 1; }; base64 -w0 /tmp/" + name}, tcexec.Multiplexed())
		data, _ := io.ReadAll(out)
		if err != nil || code != 0 {
			t.Fatalf("keytool %s: exit %d, %v: %s", name, code, err, data)
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatalf("keytool %s: %v", name, err)
		}
		return writeTestFile(t, filepath.Join(c.dir, "client"), "keytool-"+name, raw)
	}
	jks = store("ca.jks", "keytool -importcert -noprompt -alias ca -file /etc/kafka/secrets/ca.pem -storetype JKS -keystore /tmp/ca.jks -storepass "+storePass)
	p12 = store("client.p12", "keytool -genkeypair -alias client -keyalg EC -groupname secp256r1 -dname CN=keytool-client -validity 2 -storetype PKCS12 -keystore /tmp/client.p12 -storepass "+storePass)
	cfg := c.props(t, "keytool-check", "security.protocol=SSL", "ssl.truststore.location="+jks, "ssl.truststore.password="+storePass,
		"ssl.keystore.location="+p12, "ssl.keystore.password="+storePass)
	if d := cfg.Describe(); len(d.CASubjects) != 1 || d.CASubjects[0] != "CN=kbf security test CA" || d.ClientSubject != "CN=keytool-client" {
		t.Fatalf("keytool's stores read as %+v", d)
	}
	return jks, p12
}

// waitAdmin waits for the broker to answer an admin request through cfg.
func waitAdmin(ctx context.Context, t *testing.T, cfg *Config, seed string) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(append(cfg.KgoOpts(), kgo.SeedBrokers(seed))...)
	if err != nil {
		t.Fatal(err)
	}
	adm := kadm.NewClient(cl)
	deadline := time.Now().Add(4 * time.Minute) // a loaded machine starts a JVM slowly
	for {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := adm.ListBrokers(rctx)
		cancel()
		if err == nil {
			return adm
		}
		if time.Now().After(deadline) {
			adm.Close()
			t.Fatalf("broker at %s not ready: %v", seed, err)
		}
		time.Sleep(time.Second)
	}
}

// produceConsume writes one record to topic through cfg and reads it back.
func produceConsume(ctx context.Context, t *testing.T, cfg *Config, seed, topic string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(append(cfg.KgoOpts(), kgo.SeedBrokers(seed), kgo.DefaultProduceTopic(topic),
		kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	value := []byte("through " + cfg.Describe().String())
	// A SCRAM user just created may take a moment to reach the broker.
	for {
		err := cl.ProduceSync(ctx, &kgo.Record{Value: value}).FirstErr()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("produce: %v", cfg.Explain(seed, err))
		}
		time.Sleep(time.Second)
	}
	for {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consume: %v", err)
		}
		for _, e := range fs.Errors() {
			t.Logf("fetch: %v", e.Err)
		}
		for _, r := range fs.Records() {
			if string(r.Value) == string(value) {
				return
			}
		}
	}
}

// ping asks the broker at seed for its metadata through cfg, as kbf's
// clients first do.
func ping(ctx context.Context, cfg *Config, seed string) error {
	cl, err := kgo.NewClient(append(cfg.KgoOpts(), kgo.SeedBrokers(seed))...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return cl.Ping(ctx)
}
