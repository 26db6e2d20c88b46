package kafkasec

import (
	"fmt"
	"strings"
)

// Description is what may be recorded about a client's security: in
// meta.json, logs and reports. It holds no password and no key.
type Description struct {
	Protocol  string `json:"protocol"`
	Mechanism string `json:"mechanism,omitempty"`
	// Principal is the SASL user name.
	Principal string `json:"principal,omitempty"`
	// CASubjects are the subjects of the trusted CAs; empty with TLS
	// means the system's CAs.
	CASubjects []string `json:"ca_subjects,omitempty"`
	// ClientSubject is the subject of the client's certificate (mutual TLS).
	ClientSubject string `json:"client_subject,omitempty"`
	// HostnameCheck is whether the broker's certificate must name its host;
	// only meaningful with TLS.
	HostnameCheck bool `json:"hostname_check,omitempty"`
	// UnknownKeys are the keys only the Java client applies.
	UnknownKeys []string `json:"unknown_keys,omitempty"`
}

// Describe returns what may be recorded about c.
func (c *Config) Describe() Description {
	if c == nil {
		return Description{Protocol: Plaintext}
	}
	d := Description{Protocol: c.protocol(), Mechanism: c.Mechanism, Principal: c.Username, UnknownKeys: c.Unknown}
	if t := c.tls; t != nil {
		for _, ca := range t.caCerts {
			d.CASubjects = append(d.CASubjects, ca.Subject.String())
		}
		if t.client != nil && t.client.Leaf != nil {
			d.ClientSubject = t.client.Leaf.Subject.String()
		}
		d.HostnameCheck = !t.noHostnameCheck
	}
	return d
}

// String gives d on one line, e.g. "SASL_SSL, SCRAM-SHA-512 as alice,
// trusting CN=kbf test CA, host names checked".
func (d Description) String() string {
	parts := []string{d.Protocol}
	if d.Mechanism != "" {
		parts = append(parts, fmt.Sprintf("%s as %s", d.Mechanism, d.Principal))
	}
	if d.Protocol == SSL || d.Protocol == SASLSSL {
		if len(d.CASubjects) == 0 {
			parts = append(parts, "trusting the system's CAs")
		} else {
			parts = append(parts, "trusting "+strings.Join(d.CASubjects, "; "))
		}
		if d.ClientSubject != "" {
			parts = append(parts, "client certificate "+d.ClientSubject)
		}
		if d.HostnameCheck {
			parts = append(parts, "host names checked")
		} else {
			parts = append(parts, "host names not checked")
		}
	}
	if len(d.UnknownKeys) > 0 {
		parts = append(parts, "for the Java client only: "+strings.Join(d.UnknownKeys, " "))
	}
	return strings.Join(parts, ", ")
}
