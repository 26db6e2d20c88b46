package kafkasec

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ConnError is a failure to reach a listener that the client's security
// settings explain: the listener's address, the cause, and the setting to
// change. It unwraps to the client's error.
type ConnError struct {
	Addr    string
	Cause   string
	Setting string
	// Guess is set when the cause is read from a connection the listener
	// closed without saying why. A port proxy in front of a broker that
	// does not listen yet (Docker's, while the broker starts) closes
	// connections the same way, so a caller waiting for a broker to start
	// should keep waiting on a guess, or confirm it first (as kafkaadmin
	// does with a TLS handshake and a bare ApiVersions request). Causes
	// the listener stated (an error code, a certificate, a TLS alert) are
	// not guesses.
	Guess bool
	Err   error
}

func (e *ConnError) Error() string {
	return fmt.Sprintf("listener %s: %s; %s", e.Addr, e.Cause, e.Setting)
}

func (e *ConnError) Unwrap() error { return e.Err }

// Explain turns err, from a franz-go client configured by c connecting to
// the listener at addr, into a ConnError when the cause is in the security
// settings: a wrong password, a mechanism the listener does not enable, a
// certificate that is untrusted, expired or for another host, a listener
// that requires a client certificate, or TLS spoken to a plain listener and
// the reverse. Any other err is returned as it is. It does not open a
// connection: it reads only err and c.
func (c *Config) Explain(addr string, err error) error {
	if err == nil {
		return nil
	}
	if c == nil {
		c = &Config{}
	}
	e := &ConnError{Addr: addr, Err: err}
	file := "the command config"
	if c.File != "" {
		file = c.File
	}
	proto := c.protocol()
	var (
		unknownCA   x509.UnknownAuthorityError
		hostErr     x509.HostnameError
		invalid     x509.CertificateInvalidError
		recordErr   tls.RecordHeaderError
		verifyErr   *tls.CertificateVerificationError
		firstEOF    *kgo.ErrFirstReadEOF
		usesTLS     = c.TLS()
		usesSASL    = c.sasl()
		tlsProtocol = "SSL"
	)
	if usesSASL {
		tlsProtocol = SASLSSL
	}
	plainProtocol := Plaintext
	if usesSASL {
		plainProtocol = SASLPlaintext
	}
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed):
		e.Cause = fmt.Sprintf("%s authentication of user %q failed (a wrong password, or no such user)", c.Mechanism, c.Username)
		e.Setting = fmt.Sprintf("check username and password in sasl.jaas.config of %s", file)
	case errors.Is(err, kerr.UnsupportedSaslMechanism):
		e.Cause = fmt.Sprintf("the listener does not enable SASL mechanism %s", c.Mechanism)
		e.Setting = fmt.Sprintf("set sasl.mechanism in %s to one of the broker's sasl.enabled.mechanisms", file)
	case errors.Is(err, kerr.IllegalSaslState) && !usesTLS:
		e.Cause = "the listener does not take SASL (it is PLAINTEXT)"
		e.Setting = fmt.Sprintf("set security.protocol=PLAINTEXT in %s", file)
	case errors.As(err, &unknownCA):
		// unknownCA.Cert is where the chain ended, often the broker's
		// own CA sent along: name the broker's certificate instead.
		leaf := unknownCA.Cert
		if errors.As(err, &verifyErr) && len(verifyErr.UnverifiedCertificates) > 0 {
			leaf = verifyErr.UnverifiedCertificates[0]
		}
		e.Cause = fmt.Sprintf("its certificate (%s, issued by %s) is not signed by a CA kbf trusts", subject(leaf), issuer(leaf))
		e.Setting = fmt.Sprintf("set ssl.truststore.location in %s to a store holding that CA", file)
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		e.Cause = fmt.Sprintf("its certificate (%s) %s", subject(invalid.Cert), validity(invalid.Cert, time.Now()))
		e.Setting = "renew the broker's certificate (the broker's ssl.keystore.location), or correct this machine's clock"
	case errors.As(err, &hostErr):
		e.Cause = fmt.Sprintf("its certificate (%s) is not valid for %q; it names %s", subject(hostErr.Certificate), hostErr.Host, names(hostErr.Certificate))
		e.Setting = fmt.Sprintf("connect through a name the certificate holds (--bootstrap and the broker's advertised.listeners), or set ssl.endpoint.identification.algorithm= (empty) in %s to skip the check", file)
	case refusedClientCert(err):
		e.Cause = "the listener requires a client certificate it trusts (mutual TLS), and refused kbf's"
		e.Setting = fmt.Sprintf("set ssl.keystore.location (with ssl.keystore.password) in %s to the client's certificate and key", file)
	case usesTLS && (errors.As(err, &recordErr) || errors.As(err, &firstEOF) || errors.Is(err, syscall.ECONNRESET)):
		e.Guess = !errors.As(err, &recordErr)
		e.Cause = "it closed the connection during the TLS handshake: the listener does not speak TLS (it is PLAINTEXT or SASL_PLAINTEXT)"
		e.Setting = fmt.Sprintf("set security.protocol=%s in %s, or give the address of a TLS listener", plainProtocol, file)
	case !usesTLS && (tlsAlertAnswer(err) || errors.As(err, &firstEOF) && (usesSASL || strings.Contains(firstEOF.Error(), "api versions"))):
		e.Guess = !tlsAlertAnswer(err)
		e.Cause = fmt.Sprintf("the listener speaks TLS, and kbf's client spoke %s to it", proto)
		e.Setting = fmt.Sprintf("set security.protocol=%s in %s, with ssl.truststore.location for its CA", tlsProtocol, file)
	case !usesSASL && errors.As(err, &firstEOF):
		e.Guess = true
		e.Cause = "it closed the connection after kbf's first request, as a listener requiring SASL does to a client without it"
		if usesTLS {
			e.Setting = fmt.Sprintf("set security.protocol=SASL_SSL, sasl.mechanism and sasl.jaas.config in %s", file)
		} else {
			e.Setting = fmt.Sprintf("set security.protocol=SASL_PLAINTEXT (or SASL_SSL), sasl.mechanism and sasl.jaas.config in %s", file)
		}
	default:
		return err
	}
	return e
}

func subject(c *x509.Certificate) string {
	if c == nil {
		return "no certificate"
	}
	return c.Subject.String()
}

func issuer(c *x509.Certificate) string {
	if c == nil {
		return "unknown"
	}
	return c.Issuer.String()
}

func names(c *x509.Certificate) string {
	if c == nil {
		return "nothing"
	}
	var ns []string
	ns = append(ns, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		ns = append(ns, ip.String())
	}
	if len(ns) == 0 {
		return "no host name (no subject alternative names)"
	}
	return strings.Join(ns, ", ")
}

func validity(c *x509.Certificate, now time.Time) string {
	if c == nil {
		return "is expired or not yet valid"
	}
	if now.Before(c.NotBefore) {
		return fmt.Sprintf("is not valid before %s (now %s)", c.NotBefore.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("expired at %s (now %s)", c.NotAfter.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
}

// refusedClientCert reports whether the broker ended the handshake with an
// alert about the client's certificate. crypto/tls gives a received alert
// only as a net.OpError whose Err is of an unexported type: its text is
// all there is.
func refusedClientCert(err error) bool {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "remote error" {
		return false
	}
	msg := op.Err.Error()
	for _, a := range []string{"certificate required", "bad certificate", "unknown certificate authority", "certificate unknown"} {
		if strings.HasSuffix(msg, "tls: "+a) {
			return true
		}
	}
	return false
}

// tlsAlertAnswer reports whether franz-go read a TLS alert where it
// expected a Kafka response: what a TLS listener of Kafka 4 answers to a
// plain request. franz-go says so only in the text of an unwrapped error.
func tlsAlertAnswer(err error) bool {
	return strings.Contains(err.Error(), "appear to be a tls alert record")
}
