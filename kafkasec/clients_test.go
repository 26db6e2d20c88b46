package kafkasec

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// tlsServer serves TLS with cert on 127.0.0.1, requiring a client
// certificate signed by clientCA when it is given, and returns its address.
func tlsServer(t *testing.T, cert tls.Certificate, clientCA *x509.Certificate) string {
	t.Helper()
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	if clientCA != nil {
		pool := x509.NewCertPool()
		pool.AddCert(clientCA)
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				conn.(*tls.Conn).Handshake()
				conn.Write([]byte("x")) // TLS 1.3 reports a refused client certificate on the first read
				conn.Close()
			}()
		}
	}()
	return ln.Addr().String()
}

// TestTLSConfig shakes hands with a TLS server using TLSConfig, and checks
// that Explain names each refusal.
func TestTLSConfig(t *testing.T) {
	f := newFixture(t)
	serverCert := func(o leafOpts) tls.Certificate {
		c, k := f.ca.leaf(t, o)
		return tls.Certificate{Certificate: [][]byte{c.Raw}, PrivateKey: k}
	}
	forLocalhost := tlsServer(t, serverCert(leafOpts{cn: "broker", dns: []string{"localhost"}}), nil)
	for127 := tlsServer(t, serverCert(leafOpts{cn: "broker", ips: []net.IP{net.IPv4(127, 0, 0, 1)}}), nil)
	expired := tlsServer(t, serverCert(leafOpts{cn: "old-broker", ips: []net.IP{net.IPv4(127, 0, 0, 1)}, notAfter: time.Now().Add(-time.Hour)}), nil)
	other := newCA(t, "another CA")
	oc, ok := other.leaf(t, leafOpts{cn: "stranger", ips: []net.IP{net.IPv4(127, 0, 0, 1)}})
	untrusted := tlsServer(t, tls.Certificate{Certificate: [][]byte{oc.Raw}, PrivateKey: ok}, nil)
	mutual := tlsServer(t, serverCert(leafOpts{cn: "broker", ips: []net.IP{net.IPv4(127, 0, 0, 1)}}), f.ca.cert)

	trust := []string{"security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location=" + f.caPEM}
	tests := []struct {
		name    string
		lines   []string
		addr    string
		wantErr string // "" for a handshake that succeeds
	}{
		{"trusted and named", trust, for127, ""},
		{"host name mismatch", trust, forLocalhost, `listener ADDR: its certificate (CN=broker) is not valid for "127.0.0.1"; it names localhost; connect through a name the certificate holds`},
		{"host name not checked", append(trust, "ssl.endpoint.identification.algorithm="), forLocalhost, ""},
		{"unchecked host name still needs a trusted chain", append(trust, "ssl.endpoint.identification.algorithm="), untrusted, "is not signed by a CA kbf trusts"},
		{"expired", trust, expired, "listener ADDR: its certificate (CN=old-broker) expired at "},
		{"untrusted", trust, untrusted, "listener ADDR: its certificate (CN=stranger, issued by CN=another CA) is not signed by a CA kbf trusts; set ssl.truststore.location in "},
		{"system CAs do not know the test CA", []string{"security.protocol=SSL"}, for127, "is not signed by a CA kbf trusts"},
		{"client certificate required and missing", trust, mutual, "listener ADDR: the listener requires a client certificate it trusts (mutual TLS)"},
		{"client certificate given", append(trust, "ssl.keystore.type=PKCS12", "ssl.keystore.location="+f.clP12, "ssl.keystore.password="+storePass), mutual, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := f.load(t, tt.lines...)
			if err != nil {
				t.Fatal(err)
			}
			err = handshake(c.TLSConfig(), tt.addr)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("handshake: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("handshake succeeded")
			}
			got := c.Explain(tt.addr, err)
			want := strings.ReplaceAll(tt.wantErr, "ADDR", tt.addr)
			var ce *ConnError
			if !errors.As(got, &ce) || !strings.Contains(got.Error(), want) {
				t.Errorf("Explain(%v)\n = %v\nwant a ConnError with %q", err, got, want)
			}
		})
	}
}

// handshake dials addr as franz-go does with kgo.DialTLSConfig (the server
// name set from the address), and reads one byte.
func handshake(cfg *tls.Config, addr string) error {
	cfg = cfg.Clone()
	host, _, _ := net.SplitHostPort(addr)
	cfg.ServerName = host
	d := tls.Dialer{Config: cfg, NetDialer: &net.Dialer{Timeout: 5 * time.Second}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	_, err = conn.Read(make([]byte, 1))
	return err
}

func TestKgoOpts(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name  string
		lines []string
		want  int
	}{
		{"PLAINTEXT", nil, 0},
		{"SASL_PLAINTEXT", []string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-256", scramJAAS("u", testPassword)}, 1},
		{"SSL", []string{"security.protocol=SSL"}, 1},
		{"SASL_SSL", []string{"security.protocol=SASL_SSL", "sasl.mechanism=PLAIN", plainJAAS("u", testPassword), "ssl.truststore.type=PEM", "ssl.truststore.location=" + f.caPEM}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := f.load(t, tt.lines...)
			if err != nil {
				t.Fatal(err)
			}
			opts := c.KgoOpts()
			if len(opts) != tt.want {
				t.Fatalf("%d options, want %d", len(opts), tt.want)
			}
			cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers("127.0.0.1:1"))...)
			if err != nil {
				t.Fatalf("franz-go refuses the options: %v", err)
			}
			cl.Close()
		})
	}
}

func TestLibrdkafka(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name  string
		lines []string
		want  map[string]string // "FILE:x" means a file in dir whose content contains x
	}{
		{"PLAINTEXT", nil, map[string]string{"security.protocol": "PLAINTEXT"}},
		{"SCRAM over SASL_PLAINTEXT", []string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-512", scramJAAS("dave", testPassword)},
			map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "dave", "sasl.password": testPassword}},
		{"PEM truststore named as it is", []string{"security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location=" + f.caPEM},
			map[string]string{"security.protocol": "SSL", "ssl.ca.location": f.caPEM, "ssl.endpoint.identification.algorithm": "https"}},
		{"JKS truststore written as PEM, mTLS from PKCS12, no host check", []string{"security.protocol=SSL", "ssl.truststore.location=" + f.caJKS, "ssl.truststore.password=" + storePass,
			"ssl.keystore.type=PKCS12", "ssl.keystore.location=" + f.clP12, "ssl.keystore.password=" + storePass, "ssl.endpoint.identification.algorithm="},
			map[string]string{"security.protocol": "SSL", "ssl.ca.location": "FILE:BEGIN CERTIFICATE", "ssl.certificate.location": "FILE:BEGIN CERTIFICATE",
				"ssl.key.location": "FILE:BEGIN PRIVATE KEY", "ssl.endpoint.identification.algorithm": "none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := f.load(t, tt.lines...)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			got, err := c.Librdkafka(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("got %d settings %v, want %d", len(got), keys(got), len(tt.want))
			}
			for k, w := range tt.want {
				content, isFile := strings.CutPrefix(w, "FILE:")
				if !isFile {
					if got[k] != w {
						t.Errorf("%s = %q, want %q", k, got[k], w)
					}
					continue
				}
				if !strings.HasPrefix(got[k], dir) {
					t.Errorf("%s = %q, want a file in %s", k, got[k], dir)
					continue
				}
				data, err := os.ReadFile(got[k])
				if err != nil || !strings.Contains(string(data), content) {
					t.Errorf("%s: %v, want a file with %q", k, err, content)
				}
			}
		})
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestExplainSASL checks the wording for the failures a broker reports in
// a response rather than by closing the connection; the integration test
// checks that a real broker's answers reach these cases.
func TestExplainSASL(t *testing.T) {
	scram := &Config{File: "c.properties", Protocol: SASLSSL, Mechanism: ScramSHA512, Username: "erin"}
	plainText := &Config{File: "c.properties", Protocol: SASLPlaintext, Mechanism: Plain, Username: "erin"}
	tests := []struct {
		name  string
		c     *Config
		err   error
		want  string
		guess bool
	}{
		{"wrong password", scram, fmt.Errorf("%w: Authentication failed", kerr.SaslAuthenticationFailed),
			`listener k1:9093: SCRAM-SHA-512 authentication of user "erin" failed (a wrong password, or no such user); check username and password in sasl.jaas.config of c.properties`, false},
		{"mechanism not enabled", scram, kerr.UnsupportedSaslMechanism,
			"listener k1:9093: the listener does not enable SASL mechanism SCRAM-SHA-512; set sasl.mechanism in c.properties to one of the broker's sasl.enabled.mechanisms", false},
		{"SASL client on a TLS listener", plainText, &kgo.ErrFirstReadEOF{},
			"listener k1:9093: the listener speaks TLS, and kbf's client spoke SASL_PLAINTEXT to it; set security.protocol=SASL_SSL in c.properties, with ssl.truststore.location for its CA", true},
		{"SASL client answered with a TLS alert", plainText, errors.New("invalid large response size 352518912 > limit 104857600; the first three bytes received appear to be a tls alert record for TLS v1.2; is this a plaintext connection speaking to a tls endpoint?"),
			"listener k1:9093: the listener speaks TLS, and kbf's client spoke SASL_PLAINTEXT to it; set security.protocol=SASL_SSL in c.properties, with ssl.truststore.location for its CA", false},
		{"TLS client on a plain listener", scram, &kgo.ErrFirstReadEOF{},
			"listener k1:9093: it closed the connection during the TLS handshake: the listener does not speak TLS (it is PLAINTEXT or SASL_PLAINTEXT); set security.protocol=SASL_PLAINTEXT in c.properties, or give the address of a TLS listener", true},
		{"unrelated error is kept", scram, kerr.NotLeaderForPartition, kerr.NotLeaderForPartition.Error(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.c.Explain("k1:9093", tt.err)
			if got.Error() != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			var ce *ConnError
			if errors.As(got, &ce) && ce.Guess != tt.guess {
				t.Errorf("Guess = %v, want %v", ce.Guess, tt.guess)
			}
			if !errors.Is(got, tt.err) {
				t.Errorf("%v does not wrap %v", got, tt.err)
			}
		})
	}
	if (*Config)(nil).Explain("a:1", nil) != nil {
		t.Error("Explain of nil is not nil")
	}
}
