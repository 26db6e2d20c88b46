package kafkasec

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"

	"github.com/kbf-project/kbf/internal/testsupport/testkafka"
)

// testCA is a CA made by a test (testkafka.CA), which signs leaf
// certificates.
type testCA struct {
	cert *x509.Certificate
	ca   *testkafka.CA
}

func newCA(t *testing.T, cn string) *testCA {
	ca := testkafka.NewCA(t, cn)
	return &testCA{cert: ca.Cert, ca: ca}
}

// leafOpts says what a leaf certificate holds (testkafka.Leaf).
type leafOpts struct {
	cn       string
	dns      []string
	ips      []net.IP
	notAfter time.Time // zero: a day from now
	client   bool
}

func (ca *testCA) leaf(t *testing.T, o leafOpts) (*x509.Certificate, *ecdsa.PrivateKey) {
	return ca.ca.Sign(t, testkafka.Leaf{CN: o.cn, DNS: o.dns, IPs: o.ips, NotAfter: o.notAfter, Client: o.client})
}

func certPEM(certs ...*x509.Certificate) []byte { return testkafka.CertPEM(certs...) }

func keyPEM(t *testing.T, key *ecdsa.PrivateKey) []byte { return testkafka.KeyPEM(t, key) }

func writeTestFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func jksTrustStore(t *testing.T, pass string, certs ...*x509.Certificate) []byte {
	t.Helper()
	ks := keystore.New()
	for i, c := range certs {
		err := ks.SetTrustedCertificateEntry("ca"+string(rune('a'+i)), keystore.TrustedCertificateEntry{
			CreationTime: time.Now(),
			Certificate:  keystore.Certificate{Type: "X509", Content: c.Raw},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := ks.Store(&b, []byte(pass)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jksKeyStore(t *testing.T, storePass, keyPass string, cert *x509.Certificate, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	ks := keystore.New()
	err = ks.SetPrivateKeyEntry("client", keystore.PrivateKeyEntry{
		CreationTime:     time.Now(),
		PrivateKey:       der,
		CertificateChain: []keystore.Certificate{{Type: "X509", Content: cert.Raw}},
	}, []byte(keyPass))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ks.Store(&b, []byte(storePass)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func p12TrustStore(t *testing.T, pass string, certs ...*x509.Certificate) []byte {
	t.Helper()
	data, err := pkcs12.Modern.EncodeTrustStore(certs, pass)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func p12KeyStore(t *testing.T, pass string, cert *x509.Certificate, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	data, err := pkcs12.Modern.Encode(key, cert, nil, pass)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
