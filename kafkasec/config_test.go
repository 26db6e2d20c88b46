package kafkasec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

const (
	testPassword = "Pa55-w0rd-never-shown"
	storePass    = "st0re-pass-never-shown"
	keyPass      = "k3y-pass-never-shown"
)

// fixture is a set of stores made by the test in a directory.
type fixture struct {
	dir                         string
	ca                          *testCA
	caPEM, caJKS, caP12         string
	clientPEM, clientJKS, clP12 string
	clientSubject               string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	ca := newCA(t, "kbf test CA")
	cert, key := ca.leaf(t, leafOpts{cn: "kbf-client", client: true})
	f := &fixture{dir: dir, ca: ca, clientSubject: cert.Subject.String()}
	f.caPEM = writeTestFile(t, dir, "ca.pem", certPEM(ca.cert))
	f.caJKS = writeTestFile(t, dir, "ca.jks", jksTrustStore(t, storePass, ca.cert))
	f.caP12 = writeTestFile(t, dir, "ca.p12", p12TrustStore(t, storePass, ca.cert))
	f.clientPEM = writeTestFile(t, dir, "client.pem", append(keyPEM(t, key), certPEM(cert)...))
	f.clientJKS = writeTestFile(t, dir, "client.jks", jksKeyStore(t, storePass, keyPass, cert, key))
	f.clP12 = writeTestFile(t, dir, "client.p12", p12KeyStore(t, storePass, cert, key))
	return f
}

// load writes lines as a properties file and loads it.
func (f *fixture) load(t *testing.T, lines ...string) (*Config, error) {
	t.Helper()
	p := filepath.Join(f.dir, "client.properties")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return Load(p)
}

func plainJAAS(user, pass string) string {
	return fmt.Sprintf(`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="%s" password="%s";`, user, pass)
}

func scramJAAS(user, pass string) string {
	return fmt.Sprintf(`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
    username="%s" \
    password="%s";`, user, pass)
}

func TestLoad(t *testing.T) {
	f := newFixture(t)
	caSubject := []string{f.ca.cert.Subject.String()}
	tests := []struct {
		name  string
		lines []string
		want  Description
	}{
		{"no file settings is PLAINTEXT", []string{"client.id=x"},
			Description{Protocol: Plaintext, UnknownKeys: []string{"client.id"}}},
		{"PLAIN over SASL_PLAINTEXT", []string{"security.protocol=sasl_plaintext", "sasl.mechanism=PLAIN", plainJAAS("alice", testPassword)},
			Description{Protocol: SASLPlaintext, Mechanism: Plain, Principal: "alice"}},
		{"SCRAM-SHA-512 over SASL_SSL, PEM truststore", []string{"security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512", scramJAAS("bob", testPassword),
			"ssl.truststore.type=PEM", "ssl.truststore.location=" + f.caPEM},
			Description{Protocol: SASLSSL, Mechanism: ScramSHA512, Principal: "bob", CASubjects: caSubject, HostnameCheck: true}},
		{"JKS truststore, type left to Java's default", []string{"security.protocol=SSL", "ssl.truststore.location=" + f.caJKS, "ssl.truststore.password=" + storePass},
			Description{Protocol: SSL, CASubjects: caSubject, HostnameCheck: true}},
		{"PKCS12 truststore", []string{"security.protocol=SSL", "ssl.truststore.type=PKCS12", "ssl.truststore.location=" + f.caP12, "ssl.truststore.password=" + storePass},
			Description{Protocol: SSL, CASubjects: caSubject, HostnameCheck: true}},
		{"inline PEM truststore", []string{"security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.certificates=" + strings.ReplaceAll(string(certPEM(f.ca.cert)), "\n", "\\n\\\n")},
			Description{Protocol: SSL, CASubjects: caSubject, HostnameCheck: true}},
		{"system CAs, no hostname check", []string{"security.protocol=SSL", "ssl.endpoint.identification.algorithm="},
			Description{Protocol: SSL}},
		{"mTLS with a PEM keystore", []string{"security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location=" + f.caPEM, "ssl.keystore.type=PEM", "ssl.keystore.location=" + f.clientPEM},
			Description{Protocol: SSL, CASubjects: caSubject, ClientSubject: f.clientSubject, HostnameCheck: true}},
		{"mTLS with a JKS keystore and a key password", []string{"security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location=" + f.caPEM,
			"ssl.keystore.location=" + f.clientJKS, "ssl.keystore.password=" + storePass, "ssl.key.password=" + keyPass},
			Description{Protocol: SSL, CASubjects: caSubject, ClientSubject: f.clientSubject, HostnameCheck: true}},
		{"mTLS with a PKCS12 keystore", []string{"security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location=" + f.caPEM,
			"ssl.keystore.type=PKCS12", "ssl.keystore.location=" + f.clP12, "ssl.keystore.password=" + storePass},
			Description{Protocol: SSL, CASubjects: caSubject, ClientSubject: f.clientSubject, HostnameCheck: true}},
		{"values trimmed as Kafka's ConfigDef trims them", []string{"security.protocol=SASL_SSL ", "sasl.mechanism=PLAIN\t", plainJAAS("alice", testPassword) + "  ",
			"ssl.truststore.type=PEM ", "ssl.truststore.location=" + f.caPEM + "   "},
			Description{Protocol: SASLSSL, Mechanism: Plain, Principal: "alice", CASubjects: caSubject, HostnameCheck: true}},
		{"unknown keys are kept and listed", []string{"security.protocol=PLAINTEXT", "request.timeout.ms=5000", "ssl.protocol=TLSv1.3"},
			Description{Protocol: Plaintext, UnknownKeys: []string{"request.timeout.ms", "ssl.protocol"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := f.load(t, tt.lines...)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(c.Describe())
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) {
				t.Errorf("Describe:\n got %s\nwant %s", got, want)
			}
			if n := len(c.JavaProperties()); n != len(tt.lines) {
				t.Errorf("JavaProperties has %d keys, want the file's %d", n, len(tt.lines))
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name  string
		lines []string
		want  string // after "client.properties:"
	}{
		{"unknown protocol", []string{"security.protocol=TLS"}, `1: security.protocol: unknown protocol "TLS"; use PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL`},
		{"SASL without a mechanism", []string{"client.id=x", "security.protocol=SASL_SSL"}, "2: security.protocol: SASL_SSL without sasl.mechanism means Kafka's default GSSAPI"},
		{"unknown mechanism", []string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=GSSAPI"}, `2: sasl.mechanism: mechanism "GSSAPI" is not supported; use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512`},
		{"lower-case mechanism", []string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=scram-sha-256"}, `2: sasl.mechanism: "scram-sha-256": mechanism names are upper case; write SCRAM-SHA-256`},
		{"no jaas config", []string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN"}, "2: sasl.mechanism: PLAIN needs sasl.jaas.config with the user"},
		{"module of another mechanism", []string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-256", plainJAAS("u", testPassword)},
			"3: sasl.jaas.config: login module org.apache.kafka.common.security.plain.PlainLoginModule does not go with sasl.mechanism=SCRAM-SHA-256"},
		{"jaas without its semicolon", []string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN", strings.TrimSuffix(plainJAAS("u", testPassword), ";")},
			"3: sasl.jaas.config: the ';' that ends org.apache.kafka.common.security.plain.PlainLoginModule's options is missing"},
		{"jaas with an unclosed quote", []string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN", `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="` + testPassword + `;`},
			`3: sasl.jaas.config: a quoted value is not closed`},
		{"jaas without a password", []string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN", `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u";`},
			"3: sasl.jaas.config: no password option"},
		{"missing truststore", []string{"security.protocol=SSL", "ssl.truststore.location=/nonexistent/ca.jks"}, "2: ssl.truststore.location: open /nonexistent/ca.jks: no such file or directory"},
		{"PEM truststore read as JKS", []string{"security.protocol=SSL", "ssl.truststore.location=" + f.caPEM}, "2: ssl.truststore.location: " + f.caPEM + " is a PEM file, and ssl.truststore.type is JKS (Java's default is JKS); set ssl.truststore.type=PEM"},
		{"JKS truststore with a wrong password", []string{"security.protocol=SSL", "ssl.truststore.location=" + f.caJKS, "ssl.truststore.password=" + testPassword},
			"3: ssl.truststore.password: does not open " + f.caJKS},
		{"JKS truststore without a password", []string{"security.protocol=SSL", "ssl.truststore.location=" + f.caJKS}, "2: ssl.truststore.location: " + f.caJKS + " is a JKS store: set ssl.truststore.password"},
		{"PKCS12 truststore with a wrong password", []string{"security.protocol=SSL", "ssl.truststore.location=" + f.caP12, "ssl.truststore.password=" + testPassword},
			"3: ssl.truststore.password: does not open " + f.caP12},
		{"JKS keystore with a wrong key password", []string{"security.protocol=SSL", "ssl.keystore.location=" + f.clientJKS, "ssl.keystore.password=" + storePass, "ssl.key.password=" + testPassword},
			"3: ssl.keystore.password: does not open " + f.clientJKS + " (or ssl.key.password does not open its key)"},
		{"PKCS12 keystore with a wrong password", []string{"security.protocol=SSL", "ssl.keystore.type=PKCS12", "ssl.keystore.location=" + f.clP12, "ssl.keystore.password=" + testPassword},
			"4: ssl.keystore.password: does not open " + f.clP12},
		{"PEM type on a JKS file", []string{"security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location=" + f.caJKS}, "3: ssl.truststore.location: " + f.caJKS + " is not a PEM file, and ssl.truststore.type is PEM"},
		{"password on a PEM truststore", []string{"security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location=" + f.caPEM, "ssl.truststore.password=" + storePass},
			"4: ssl.truststore.password: Kafka refuses a password with a PEM truststore; remove it"},
		{"store password on a PEM keystore", []string{"security.protocol=SSL", "ssl.keystore.type=PEM", "ssl.keystore.location=" + f.clientPEM, "ssl.keystore.password=" + storePass},
			"4: ssl.keystore.password: Kafka refuses a store password with a PEM keystore"},
		{"unknown identification algorithm", []string{"security.protocol=SSL", "ssl.endpoint.identification.algorithm=dns"}, `2: ssl.endpoint.identification.algorithm: unknown algorithm "dns"`},
		{"malformed escape", []string{"security.protocol=SSL", `ssl.truststore.password=\u00zz`}, `2: value of ssl.truststore.password: malformed \uxxxx escape`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.load(t, tt.lines...)
			if err == nil {
				t.Fatal("no error")
			}
			want := filepath.Join(f.dir, "client.properties") + ":" + tt.want
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("got  %s\nwant %s…", err, want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has several lines: %q", err)
			}
			for _, s := range []string{testPassword, storePass, keyPass} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error shows a secret: %s", err)
				}
			}
		})
	}
}

// TestSecretsNeverShown checks that nothing meant to be recorded or printed
// carries a password: the Config itself through every fmt verb and JSON,
// Describe, and Explain's line for a refused password.
func TestSecretsNeverShown(t *testing.T) {
	f := newFixture(t)
	c, err := f.load(t, "security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-256", scramJAAS("carol", testPassword),
		"ssl.truststore.location="+f.caJKS, "ssl.truststore.password="+storePass,
		"ssl.keystore.location="+f.clientJKS, "ssl.keystore.password="+storePass, "ssl.key.password="+keyPass)
	if err != nil {
		t.Fatal(err)
	}
	desc, _ := json.Marshal(c.Describe())
	cfgJSON, _ := json.Marshal(c)
	shown := map[string]string{
		"%v":                fmt.Sprintf("%v", c),
		"%+v":               fmt.Sprintf("%+v", c),
		"%#v":               fmt.Sprintf("%#v", c),
		"%+v of the secret": fmt.Sprintf("%+v %s %q %x", c.password, c.password, c.password, c.password),
		"Config as JSON":    string(cfgJSON),
		"Describe as JSON":  string(desc),
		"Describe.String":   c.Describe().String(),
		"Explain":           c.Explain("127.0.0.1:9092", fmt.Errorf("%w: bad", kerr.SaslAuthenticationFailed)).Error(),
	}
	for what, s := range shown {
		for _, secret := range []string{testPassword, storePass, keyPass} {
			if strings.Contains(s, secret) {
				t.Errorf("%s shows a secret: %s", what, s)
			}
		}
	}
	// The Java client gets the user's file as it is, secrets included: the
	// check above could fail.
	if !strings.Contains(fmt.Sprint(c.JavaProperties()), storePass) {
		t.Error("JavaProperties lost the store password the Java client needs")
	}
	if d := c.Describe().String(); d != "SASL_SSL, SCRAM-SHA-256 as carol, trusting CN=kbf test CA, client certificate CN=kbf-client, host names checked" {
		t.Errorf("Describe().String() = %q", d)
	}
}
