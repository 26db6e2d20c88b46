package kafkasec

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TLSConfig returns the client's TLS configuration, nil when the protocol
// does not use TLS. Each call returns a new one.
func (c *Config) TLSConfig() *tls.Config {
	if c == nil || c.tls == nil {
		return nil
	}
	t := c.tls
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: t.roots}
	if t.client != nil {
		cfg.Certificates = []tls.Certificate{*t.client}
	}
	if t.noHostnameCheck {
		// Verify the chain, but not the name: what Java does with
		// ssl.endpoint.identification.algorithm empty.
		cfg.InsecureSkipVerify = true //nolint:gosec // the chain is verified below
		roots := t.roots
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the broker sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		}
	}
	return cfg
}

// saslMechanism returns the franz-go SASL mechanism, nil without SASL.
func (c *Config) saslMechanism() sasl.Mechanism {
	if c == nil || !c.sasl() {
		return nil
	}
	user, pass := c.Username, string(c.password)
	switch c.Mechanism {
	case Plain:
		return plain.Auth{User: user, Pass: pass}.AsMechanism()
	case ScramSHA256:
		return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()
	case ScramSHA512:
		return scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()
	}
	return nil
}

// KgoOpts returns the franz-go options that secure a client as the file
// says: kgo.DialTLSConfig and kgo.SASL. None for PLAINTEXT.
func (c *Config) KgoOpts() []kgo.Opt {
	var opts []kgo.Opt
	if cfg := c.TLSConfig(); cfg != nil {
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	if m := c.saslMechanism(); m != nil {
		opts = append(opts, kgo.SASL(m))
	}
	return opts
}

// Librdkafka returns the librdkafka settings equivalent to the file. A PEM
// truststore file is named as it is; CAs from a JKS or PKCS12 store, and a
// client certificate and key, are written as PEM files (mode 0600) into
// dir, which the caller creates and removes. The map holds sasl.password:
// hand it to the client through a file or a pipe, never on a command line,
// and never record it.
func (c *Config) Librdkafka(dir string) (map[string]string, error) {
	m := map[string]string{"security.protocol": c.protocol()}
	if c == nil {
		return m, nil
	}
	if c.sasl() {
		m["sasl.mechanisms"] = c.Mechanism
		m["sasl.username"] = c.Username
		m["sasl.password"] = string(c.password)
	}
	if c.tls == nil {
		return m, nil
	}
	t := c.tls
	switch {
	case t.caPEMFile != "":
		m["ssl.ca.location"] = t.caPEMFile
	case t.rootsPEM != nil:
		p, err := writeFile(dir, "ca.pem", t.rootsPEM)
		if err != nil {
			return nil, err
		}
		m["ssl.ca.location"] = p
	}
	if t.client != nil {
		var chain []byte
		for _, der := range t.client.Certificate {
			chain = append(chain, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
		}
		certPath, err := writeFile(dir, "client.pem", chain)
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKCS8PrivateKey(t.client.PrivateKey)
		if err != nil {
			return nil, fmt.Errorf("client key: %w", err)
		}
		keyPath, err := writeFile(dir, "client.key", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
		if err != nil {
			return nil, err
		}
		m["ssl.certificate.location"], m["ssl.key.location"] = certPath, keyPath
	}
	if t.noHostnameCheck {
		m["ssl.endpoint.identification.algorithm"] = "none"
	} else {
		m["ssl.endpoint.identification.algorithm"] = "https"
	}
	return m, nil
}

func (c *Config) protocol() string {
	if c == nil || c.Protocol == "" {
		return Plaintext
	}
	return c.Protocol
}

func writeFile(dir, name string, data []byte) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("librdkafka's %s: no directory given to write it in", name)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return "", fmt.Errorf("librdkafka's %s: %w", name, err)
	}
	return p, nil
}

// JavaProperties returns the properties the Java client takes: the user's
// file as it is, unknown keys included, with no key of kbf's own added.
// They hold the secrets: pass them in a file, never record them.
func (c *Config) JavaProperties() map[string]string {
	m := make(map[string]string, len(c.props))
	for _, p := range c.props {
		m[p.Key] = p.Value
	}
	return m
}
