package testkafka

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
	"time"
)

// TestSign: a leaf verifies against its CA for the names it holds, and not
// for another name, another CA or once expired; its key goes with it.
func TestSign(t *testing.T) {
	ca := NewCA(t, "test CA")
	other := NewCA(t, "other CA")
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	good, key := ca.Sign(t, Leaf{CN: "broker", DNS: []string{"localhost"}})
	old, _ := ca.Sign(t, Leaf{CN: "old", DNS: []string{"localhost"}, NotAfter: time.Now().Add(-time.Hour)})
	stranger, _ := other.Sign(t, Leaf{CN: "stranger", DNS: []string{"localhost"}})
	client, _ := ca.Sign(t, Leaf{CN: "client", Client: true})
	tests := []struct {
		name  string
		cert  *x509.Certificate
		host  string
		usage x509.ExtKeyUsage
		ok    bool
	}{
		{"its name", good, "localhost", x509.ExtKeyUsageServerAuth, true},
		{"another name", good, "kafka-1", x509.ExtKeyUsageServerAuth, false},
		{"expired", old, "localhost", x509.ExtKeyUsageServerAuth, false},
		{"another CA's", stranger, "localhost", x509.ExtKeyUsageServerAuth, false},
		{"a client's", client, "", x509.ExtKeyUsageClientAuth, true},
		{"a client's as a server's", client, "", x509.ExtKeyUsageServerAuth, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: tc.host, KeyUsages: []x509.ExtKeyUsage{tc.usage}})
			if (err == nil) != tc.ok {
				t.Errorf("verify: %v, want ok %v", err, tc.ok)
			}
		})
	}
	if _, err := tls.X509KeyPair(CertPEM(good, ca.Cert), KeyPEM(t, key)); err != nil {
		t.Errorf("the PEM pair: %v", err)
	}
	if good.SerialNumber.Cmp(old.SerialNumber) == 0 {
		t.Error("two certificates share a serial number")
	}
	if _, err := tls.X509KeyPair(CertPEM(stranger), KeyPEM(t, key)); err == nil {
		t.Error("a key paired with another's certificate")
	}
}
