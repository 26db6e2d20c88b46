package kafkasec

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kbf-project/kbf/internal/regfile"
)

// The security protocols of Kafka's security.protocol.
const (
	Plaintext     = "PLAINTEXT"
	SSL           = "SSL"
	SASLPlaintext = "SASL_PLAINTEXT"
	SASLSSL       = "SASL_SSL"
)

// The SASL mechanisms kbf's clients are given.
const (
	Plain       = "PLAIN"
	ScramSHA256 = "SCRAM-SHA-256"
	ScramSHA512 = "SCRAM-SHA-512"
)

// The login module each mechanism's sasl.jaas.config names.
var loginModules = map[string]string{
	Plain:       "org.apache.kafka.common.security.plain.PlainLoginModule",
	ScramSHA256: "org.apache.kafka.common.security.scram.ScramLoginModule",
	ScramSHA512: "org.apache.kafka.common.security.scram.ScramLoginModule",
}

// secret holds a password. It prints as [redacted] through every fmt verb
// and in JSON, so a Config logged by mistake gives nothing away.
type secret string

func (secret) String() string               { return "[redacted]" }
func (secret) GoString() string             { return "[redacted]" }
func (secret) MarshalJSON() ([]byte, error) { return []byte(`"[redacted]"`), nil }
func (secret) Format(f fmt.State, _ rune)   { f.Write([]byte("[redacted]")) }

// Config is a client properties file read and checked: what kbf's clients
// need to reach a secured listener. The zero Config is PLAINTEXT.
type Config struct {
	// File is the properties file's path, "" when the Config was not read
	// from one.
	File string
	// Protocol is security.protocol, upper case.
	Protocol string
	// Mechanism is sasl.mechanism, "" unless Protocol is SASL_*.
	Mechanism string
	// Username is the SASL user named in sasl.jaas.config.
	Username string
	password secret

	// tls is the checked TLS side, nil unless Protocol is SSL or SASL_SSL.
	tls *tlsSettings

	// props are every property of the file, in order, for the Java client.
	// Unexported: they hold the secrets.
	props []Property
	// Unknown are the keys kbf does not apply to its franz-go and
	// librdkafka clients; the Java client still gets them.
	Unknown []string
	// Warnings name, one a line, the keys no Kafka client knows either:
	// most likely misspelt. Kafka's tools warn and go on, and so does kbf.
	Warnings []string
}

// tlsSettings is the TLS side of a Config.
type tlsSettings struct {
	// roots are the CAs to trust; nil trusts the system's.
	roots    *x509.CertPool
	rootsPEM []byte
	caCerts  []*x509.Certificate
	// caPEMFile is the truststore itself when it is a PEM file, which
	// librdkafka can read as it is.
	caPEMFile string
	// client is the certificate and key for mutual TLS, nil without one.
	client *tls.Certificate
	// noHostnameCheck is ssl.endpoint.identification.algorithm set empty.
	noHostnameCheck bool
}

// known are the keys this package applies to franz-go and librdkafka.
var known = []string{
	"security.protocol", "sasl.mechanism", "sasl.jaas.config",
	"ssl.truststore.location", "ssl.truststore.type", "ssl.truststore.password", "ssl.truststore.certificates",
	"ssl.keystore.location", "ssl.keystore.type", "ssl.keystore.password",
	"ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.key.password",
	"ssl.endpoint.identification.algorithm",
}

// Load reads and checks the client properties file at path, as Kafka's
// tools read --command-config. Stores it names are read relative to the
// working directory, as Java does.
func Load(path string) (*Config, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("command config: %w", err)
	}
	defer f.Close()
	props, err := ParseProperties(path, f)
	if err != nil {
		return nil, err
	}
	return FromProperties(path, props)
}

// FromProperties checks props, read from the file named file, and loads the
// stores they name. An error is one line located at the property's line,
// saying what is wrong and what to do; it never quotes a secret.
func FromProperties(file string, props []Property) (*Config, error) {
	c := &Config{File: file, props: props, Protocol: Plaintext}
	// Kafka's ConfigDef trims every value it parses, passwords included.
	get := func(key string) (Property, bool) {
		for _, p := range props {
			if p.Key == key {
				p.Value = strings.TrimSpace(p.Value)
				return p, true
			}
		}
		return Property{}, false
	}
	lineOf := func(key string) int {
		p, _ := get(key)
		return p.Line
	}
	fail := func(key string, format string, args ...any) error {
		return &ParseError{File: file, Line: lineOf(key), Err: fmt.Errorf(key+": "+format, args...)}
	}
	for _, p := range props {
		if !slices.Contains(known, p.Key) {
			c.Unknown = append(c.Unknown, p.Key)
		}
	}
	c.Warnings = unknownKeyWarnings(file, props)

	if p, ok := get("security.protocol"); ok {
		c.Protocol = strings.ToUpper(strings.TrimSpace(p.Value))
		switch c.Protocol {
		case Plaintext, SSL, SASLPlaintext, SASLSSL:
		default:
			return nil, fail(p.Key, "unknown protocol %q; use PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", p.Value)
		}
	}

	if c.sasl() {
		if err := c.readSASL(get, fail); err != nil {
			return nil, err
		}
	}
	if c.TLS() {
		t, err := readTLS(get, fail)
		if err != nil {
			return nil, err
		}
		c.tls = t
	}
	return c, nil
}

// String gives what may be recorded, as Describe: a Config printed by
// mistake shows no secret.
func (c *Config) String() string { return c.Describe().String() }

// GoString is String, so %#v shows no secret either.
func (c *Config) GoString() string { return c.String() }

// MarshalJSON encodes Describe, never the secrets.
func (c *Config) MarshalJSON() ([]byte, error) { return json.Marshal(c.Describe()) }

// TLS reports whether the protocol is SSL or SASL_SSL.
func (c *Config) TLS() bool { return c.Protocol == SSL || c.Protocol == SASLSSL }

func (c *Config) sasl() bool { return c.Protocol == SASLPlaintext || c.Protocol == SASLSSL }

type getter func(string) (Property, bool)
type failer func(key, format string, args ...any) error

func (c *Config) readSASL(get getter, fail failer) error {
	p, ok := get("sasl.mechanism")
	if !ok {
		// Java's default is GSSAPI (Kerberos), which kbf's Go and C
		// clients are not given.
		return fail("security.protocol", "%s without sasl.mechanism means Kafka's default GSSAPI (Kerberos), which kbf does not support; set sasl.mechanism=PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", c.Protocol)
	}
	// Java matches mechanism names exactly, so kbf does too: a file that
	// works for one client works for all.
	c.Mechanism = p.Value
	module, ok := loginModules[c.Mechanism]
	if !ok {
		if _, upper := loginModules[strings.ToUpper(p.Value)]; upper {
			return fail(p.Key, "%q: mechanism names are upper case; write %s", p.Value, strings.ToUpper(p.Value))
		}
		return fail(p.Key, "mechanism %q is not supported; use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", p.Value)
	}
	j, ok := get("sasl.jaas.config")
	if !ok {
		return fail("sasl.mechanism", "%s needs sasl.jaas.config with the user: add sasl.jaas.config=%s required username=\"...\" password=\"...\";", c.Mechanism, module)
	}
	e, err := parseJAAS(j.Value)
	if err != nil {
		return fail(j.Key, "%v", err)
	}
	if e.Module != module {
		return fail(j.Key, "login module %s does not go with sasl.mechanism=%s; use %s", e.Module, c.Mechanism, module)
	}
	user, ok := e.Options["username"]
	if !ok || user == "" {
		return fail(j.Key, "no username option; add username=\"...\" before the ';'")
	}
	pass, ok := e.Options["password"]
	if !ok {
		return fail(j.Key, "no password option; add password=\"...\" before the ';'")
	}
	c.Username, c.password = user, secret(pass)
	return nil
}

// errWrongPassword is what a store's loader returns when the password does
// not open it; the caller names the setting.
var errWrongPassword = errors.New("wrong password")
