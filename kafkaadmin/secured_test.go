package kafkaadmin

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kbf-project/kbf/kafkasec"
)

// selfSigned is a certificate for 127.0.0.1, made for the test.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "kbf test broker"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// A listener that wants TLS or SASL is said at once, naming the broker and
// its address, not waited for until the timeout. kfake stands in for the
// listener: what is checked is how kbf reads the closed connection.
func TestWaitBrokersSecuredListener(t *testing.T) {
	tests := []struct {
		name string
		opts []kfake.Opt
		want string
	}{
		{name: "sasl", opts: []kfake.Opt{kfake.EnableSASL(), kfake.Superuser("PLAIN", "admin", "admin")}, want: "requires SASL authentication"},
		{name: "tls", opts: []kfake.Opt{kfake.TLS(&tls.Config{Certificates: []tls.Certificate{selfSigned(t)}})}, want: "speaks TLS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kc, a := fake(t, []Topic{orders}, tt.opts...)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			err := a.WaitBrokers(ctx)
			if !errors.Is(err, ErrSecured) {
				t.Fatalf("WaitBrokers: %v, want an error wrapping ErrSecured", err)
			}
			if ctx.Err() != nil {
				t.Errorf("WaitBrokers waited for its whole context before saying so: %v", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), kc.ListenAddrs()[0]) {
				t.Errorf("WaitBrokers: %v, want it to say %q and name %s", err, tt.want, kc.ListenAddrs()[0])
			}
			if !strings.Contains(err.Error(), "--command-config") {
				t.Errorf("WaitBrokers: %v, want it to point at --command-config", err)
			}
		})
	}
}

// With a --command-config, the admin client authenticates as it says; a
// cause the listener states (here a certificate for another host)
// ends the wait at once, in kafkasec's words. kfake answers a wrong SASL
// password by closing the connection, which Kafka does not: those causes
// are tested against the real broker (kafkasec's integration test).
func TestWaitBrokersCommandConfig(t *testing.T) {
	scram := []string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-256",
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="adminpw";`}
	tests := []struct {
		name  string
		opts  []kfake.Opt
		props []string
		want  string // "" for a wait that succeeds
	}{
		{name: "scram", opts: []kfake.Opt{kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "admin", "adminpw")}, props: scram},
		{name: "certificate for another host", opts: []kfake.Opt{kfake.TLS(&tls.Config{Certificates: []tls.Certificate{selfSigned(t)}})},
			props: []string{"security.protocol=SSL"}, want: "ssl.endpoint.identification.algorithm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var props []kafkasec.Property
			for i, l := range tt.props {
				k, v, _ := strings.Cut(l, "=")
				props = append(props, kafkasec.Property{Key: k, Value: v, Line: i + 1})
			}
			sec, err := kafkasec.FromProperties("client.properties", props)
			if err != nil {
				t.Fatal(err)
			}
			kc, a := fake(t, []Topic{orders}, tt.opts...)
			a.sec = sec
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			err = a.WaitBrokers(ctx)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("WaitBrokers: %v", err)
				}
				return
			}
			var ce *kafkasec.ConnError
			if !errors.As(err, &ce) || ctx.Err() != nil {
				t.Fatalf("WaitBrokers: %v; want a kafkasec.ConnError before the context ends", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), kc.ListenAddrs()[0]) {
				t.Errorf("WaitBrokers: %v; want it to name %s and %q", err, kc.ListenAddrs()[0], tt.want)
			}
		})
	}
}
