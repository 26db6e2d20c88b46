package kafkasec

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"

	"github.com/kbf-project/kbf/internal/regfile"
)

// Store types as ssl.truststore.type and ssl.keystore.type spell them.
const (
	typePEM    = "PEM"
	typeJKS    = "JKS"
	typePKCS12 = "PKCS12"
)

// jksMagic opens every JKS file.
var jksMagic = []byte{0xfe, 0xed, 0xfe, 0xed}

func readTLS(get getter, fail failer) (*tlsSettings, error) {
	t := &tlsSettings{}
	if p, ok := get("ssl.endpoint.identification.algorithm"); ok {
		switch strings.ToLower(strings.TrimSpace(p.Value)) {
		case "":
			t.noHostnameCheck = true
		case "https":
		default:
			return nil, fail(p.Key, "unknown algorithm %q; use https (check the broker's host name, the default) or leave it empty (do not)", p.Value)
		}
	}
	if err := t.readTrust(get, fail); err != nil {
		return nil, err
	}
	if err := t.readKey(get, fail); err != nil {
		return nil, err
	}
	return t, nil
}

// storeType is the store's declared type, Java's default JKS when unset.
func storeType(get getter, key string) string {
	if p, ok := get(key); ok && strings.TrimSpace(p.Value) != "" {
		return strings.ToUpper(strings.TrimSpace(p.Value))
	}
	return typeJKS
}

func (t *tlsSettings) readTrust(get getter, fail failer) error {
	typ := storeType(get, "ssl.truststore.type")
	pass, _ := get("ssl.truststore.password")
	var certs []*x509.Certificate
	if p, ok := get("ssl.truststore.certificates"); ok {
		if typ != typePEM {
			return fail(p.Key, "inline certificates need ssl.truststore.type=PEM")
		}
		cs, err := pemCerts([]byte(p.Value))
		if err != nil {
			return fail(p.Key, "%v", err)
		}
		certs = cs
	} else if p, ok := get("ssl.truststore.location"); ok {
		data, err := regfile.ReadFile(p.Value)
		if err != nil {
			return fail(p.Key, "%w", err)
		}
		format := sniff(data)
		if format != typePEM && typ == typePEM {
			return fail(p.Key, "%s is not a PEM file, and ssl.truststore.type is PEM; set ssl.truststore.type=JKS or PKCS12", p.Value)
		}
		switch format {
		case typePEM:
			if typ != typePEM {
				return fail(p.Key, "%s is a PEM file, and ssl.truststore.type is %s (Java's default is JKS); set ssl.truststore.type=PEM", p.Value, typ)
			}
			if _, ok := get("ssl.truststore.password"); ok {
				return fail("ssl.truststore.password", "Kafka refuses a password with a PEM truststore; remove it")
			}
			cs, err := pemCerts(data)
			if err != nil {
				return fail(p.Key, "%s: %v", p.Value, err)
			}
			certs, t.caPEMFile = cs, p.Value
		case typeJKS:
			if pass.Value == "" {
				return fail(p.Key, "%s is a JKS store: set ssl.truststore.password, which kbf needs to check the store", p.Value)
			}
			cs, err := jksTrust(data, pass.Value)
			if errors.Is(err, errWrongPassword) {
				return fail("ssl.truststore.password", "does not open %s; give that store's password", p.Value)
			}
			if err != nil {
				return fail(p.Key, "%s: %v", p.Value, err)
			}
			certs = cs
		default:
			cs, err := pkcs12.DecodeTrustStore(data, pass.Value)
			if errors.Is(err, pkcs12.ErrIncorrectPassword) {
				return fail("ssl.truststore.password", "does not open %s; give that store's password", p.Value)
			}
			if err != nil {
				return fail(p.Key, "%s is neither a JKS nor a PKCS12 store kbf can read: %v", p.Value, err)
			}
			certs = cs
		}
	} else {
		return nil // the system's CAs, as Java trusts its own cacerts
	}
	if len(certs) == 0 {
		return fail("ssl.truststore.location", "no certificate in the truststore; give a store holding the CA that signed the brokers' certificates")
	}
	t.roots = x509.NewCertPool()
	for _, c := range certs {
		t.roots.AddCert(c)
		t.rootsPEM = append(t.rootsPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
	}
	t.caCerts = certs
	return nil
}

func (t *tlsSettings) readKey(get getter, fail failer) error {
	typ := storeType(get, "ssl.keystore.type")
	storePass, _ := get("ssl.keystore.password")
	keyPass, hasKeyPass := get("ssl.key.password")
	var (
		chain []*x509.Certificate
		key   crypto.PrivateKey
	)
	if p, ok := get("ssl.keystore.certificate.chain"); ok {
		k, ok := get("ssl.keystore.key")
		if !ok {
			return fail(p.Key, "needs ssl.keystore.key with the private key")
		}
		if typ != typePEM {
			return fail(p.Key, "inline certificates need ssl.keystore.type=PEM")
		}
		cs, err := pemCerts([]byte(p.Value))
		if err != nil {
			return fail(p.Key, "%v", err)
		}
		pk, err := pemKey([]byte(k.Value))
		if err != nil {
			return fail(k.Key, "%v", err)
		}
		chain, key = cs, pk
	} else if p, ok := get("ssl.keystore.location"); ok {
		data, err := regfile.ReadFile(p.Value)
		if err != nil {
			return fail(p.Key, "%w", err)
		}
		format := sniff(data)
		if format != typePEM && typ == typePEM {
			return fail(p.Key, "%s is not a PEM file, and ssl.keystore.type is PEM; set ssl.keystore.type=JKS or PKCS12", p.Value)
		}
		switch format {
		case typePEM:
			if typ != typePEM {
				return fail(p.Key, "%s is a PEM file, and ssl.keystore.type is %s (Java's default is JKS); set ssl.keystore.type=PEM", p.Value, typ)
			}
			if _, ok := get("ssl.keystore.password"); ok {
				return fail("ssl.keystore.password", "Kafka refuses a store password with a PEM keystore (only ssl.key.password, for an encrypted key); remove it")
			}
			cs, err := pemCerts(data)
			if err != nil {
				return fail(p.Key, "%s: %v", p.Value, err)
			}
			pk, err := pemKey(data)
			if err != nil {
				return fail(p.Key, "%s: %v", p.Value, err)
			}
			chain, key = cs, pk
		case typeJKS:
			kp := storePass.Value
			if hasKeyPass {
				kp = keyPass.Value
			}
			cs, pk, err := jksKey(data, storePass.Value, kp)
			if errors.Is(err, errWrongPassword) {
				return fail("ssl.keystore.password", "does not open %s (or ssl.key.password does not open its key); give that store's passwords", p.Value)
			}
			if err != nil {
				return fail(p.Key, "%s: %v", p.Value, err)
			}
			chain, key = cs, pk
		default:
			pk, leaf, cas, err := pkcs12.DecodeChain(data, storePass.Value)
			if errors.Is(err, pkcs12.ErrIncorrectPassword) {
				return fail("ssl.keystore.password", "does not open %s; give that store's password", p.Value)
			}
			if err != nil {
				return fail(p.Key, "%s is neither a JKS nor a PKCS12 store kbf can read: %v", p.Value, err)
			}
			chain, key = append([]*x509.Certificate{leaf}, cas...), pk
		}
	} else {
		return nil
	}
	if len(chain) == 0 {
		return fail("ssl.keystore.location", "no certificate in the keystore; give the client's certificate with its key")
	}
	cert := &tls.Certificate{PrivateKey: key, Leaf: chain[0]}
	for _, c := range chain {
		cert.Certificate = append(cert.Certificate, c.Raw)
	}
	t.client = cert
	return nil
}

// sniff tells a store's format from its first bytes: PEM, JKS, or
// anything else, which may be PKCS12.
func sniff(data []byte) string {
	switch {
	case bytes.HasPrefix(data, jksMagic):
		return typeJKS
	case bytes.Contains(data, []byte("-----BEGIN ")):
		return typePEM
	}
	return typePKCS12
}

func pemCerts(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %w", len(certs)+1, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM certificate (-----BEGIN CERTIFICATE-----) found")
	}
	return certs, nil
}

// pemKey reads the first private key block. An encrypted PKCS#8 key is
// refused: Go's standard library cannot decrypt it.
func pemKey(data []byte) (crypto.PrivateKey, error) {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return nil, errors.New("no PEM private key (-----BEGIN PRIVATE KEY-----) found")
		}
		switch b.Type {
		case "ENCRYPTED PRIVATE KEY":
			return nil, errors.New("the private key is encrypted, which kbf cannot read; decrypt it (openssl pkcs8 -topk8 -nocrypt) or give a PKCS12 keystore")
		case "PRIVATE KEY":
			return x509.ParsePKCS8PrivateKey(b.Bytes)
		case "RSA PRIVATE KEY":
			return x509.ParsePKCS1PrivateKey(b.Bytes)
		case "EC PRIVATE KEY":
			return x509.ParseECPrivateKey(b.Bytes)
		}
	}
}

func jksLoad(data []byte, pass string) (keystore.KeyStore, error) {
	ks := keystore.New()
	if err := ks.Load(bytes.NewReader(data), []byte(pass)); err != nil {
		if strings.Contains(err.Error(), "invalid digest") {
			return ks, errWrongPassword
		}
		return ks, err
	}
	return ks, nil
}

func jksTrust(data []byte, pass string) ([]*x509.Certificate, error) {
	ks, err := jksLoad(data, pass)
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for _, alias := range ks.Aliases() {
		var der []byte
		if ks.IsTrustedCertificateEntry(alias) {
			e, err := ks.GetTrustedCertificateEntry(alias)
			if err != nil {
				return nil, err
			}
			der = e.Certificate.Content
		} else if chain, err := ks.GetPrivateKeyEntryCertificateChain(alias); err == nil && len(chain) > 0 {
			der = chain[0].Content
		}
		if der == nil {
			continue
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", alias, err)
		}
		certs = append(certs, c)
	}
	return certs, nil
}

func jksKey(data []byte, storePass, keyPass string) ([]*x509.Certificate, crypto.PrivateKey, error) {
	ks, err := jksLoad(data, storePass)
	if err != nil {
		return nil, nil, err
	}
	for _, alias := range ks.Aliases() {
		if !ks.IsPrivateKeyEntry(alias) {
			continue
		}
		e, err := ks.GetPrivateKeyEntry(alias, []byte(keyPass))
		if err != nil {
			return nil, nil, errWrongPassword
		}
		key, err := x509.ParsePKCS8PrivateKey(e.PrivateKey)
		if err != nil {
			return nil, nil, fmt.Errorf("entry %s's key: %w", alias, err)
		}
		var chain []*x509.Certificate
		for _, c := range e.CertificateChain {
			cert, err := x509.ParseCertificate(c.Content)
			if err != nil {
				return nil, nil, fmt.Errorf("entry %s's chain: %w", alias, err)
			}
			chain = append(chain, cert)
		}
		return chain, key, nil
	}
	return nil, nil, errors.New("no private key entry; a keystore for mutual TLS holds the client's key and certificate")
}
