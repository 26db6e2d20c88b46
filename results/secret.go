package results

import (
	"bufio"
	"io"
	"regexp"
	"strings"
)

// Secrets: what kbf never records. Every setting kbf reads (a broker's or
// a controller's configuration, a compose file's or a pod's environment, a
// client properties file, a command line) passes through this rule before
// it reaches a file of a trial or a benchmark directory, and again when a
// file is read back, so an older directory's secrets are not rendered anew.
//
// The rule is Kafka's own: a setting whose configuration type is PASSWORD
// is shown as "[hidden]" (Kafka's Password.HIDDEN, what a broker's
// KafkaConfig dump prints). Those are sasl.jaas.config, ssl.key.password,
// ssl.keystore.password, ssl.truststore.password, ssl.keystore.key,
// ssl.keystore.certificate.chain, ssl.truststore.certificates,
// password.encoder.secret, password.encoder.old.secret and
// delegation.token.secret.key, under any prefix (a listener's
// listener.name.<l>. and listener.name.<l>.<mechanism>., a client's
// producer. or admin.), and, as a rule for the names Kafka adds, any name
// whose last part says password, secret or passphrase
// (sasl.oauthbearer.client.credentials.client.secret). An environment
// variable is a secret when its name says PASSWORD, SECRET, TOKEN or KEY,
// or when it is a KAFKA_ variable whose setting is one.
//
// A JAAS line (sasl.jaas.config) keeps what is not secret: the login
// module, its flag and the user name, so that a reader still sees the
// mechanism and the principal:
//
//	org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password=[hidden] user_admin=[hidden] user_probe=[hidden];
//
// Every option but the few known to be harmless (username, serviceName,
// principal, …) is hidden, so an option kbf has never heard of is hidden
// too.

// Hidden is what a secret's value is recorded as: Kafka's own marker.
const Hidden = "[hidden]"

// passwordKeys are Kafka's PASSWORD-typed settings whose names do not say
// password, secret or passphrase in their last part.
var passwordKeys = []string{
	"sasl.jaas.config",
	"ssl.keystore.key",
	"ssl.keystore.certificate.chain",
	"ssl.truststore.certificates",
	"delegation.token.secret.key",
	"delegation.token.master.key", // its name before Kafka 3
}

// IsSecretKey reports whether a Kafka setting's value is a secret (see
// Hidden): case is ignored, so a Java system property
// (javax.net.ssl.keyStorePassword) is one too.
func IsSecretKey(key string) bool {
	k := strings.ToLower(strings.TrimSpace(key))
	if k == "" {
		return false
	}
	for _, p := range passwordKeys {
		if k == p || strings.HasSuffix(k, "."+p) {
			return true
		}
	}
	last := k[strings.LastIndexByte(k, '.')+1:]
	for _, w := range []string{"password", "passwd", "secret", "passphrase"} {
		if strings.Contains(last, w) {
			return true
		}
	}
	return false
}

// IsSecretEnv reports whether an environment variable's value is a
// secret: its name says PASSWORD, PASSWD, SECRET, TOKEN, KEY or
// CREDENTIAL, or it is a KAFKA_ variable that the images render into a
// secret setting (KAFKA_LISTENER_NAME_HOST_PLAIN_SASL_JAAS_CONFIG).
func IsSecretEnv(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range strings.FieldsFunc(n, func(r rune) bool { return r == '_' || r == '.' || r == '-' }) {
		for _, s := range []string{"PASSWORD", "PASSWD", "SECRET", "TOKEN", "KEY", "CREDENTIAL"} {
			if strings.Contains(w, s) {
				return true
			}
		}
	}
	if k, ok := strings.CutPrefix(n, "KAFKA_"); ok {
		// The images' rule: "___" is '-', "__" is '_', '_' is '.'.
		k = strings.NewReplacer("___", "-", "__", "_", "_", ".").Replace(k)
		return IsSecretKey(k)
	}
	return false
}

// MaskSetting returns value as kbf may record it under key: Hidden for a
// secret, a JAAS line with its secret options hidden, and any other value
// with what looks like a secret inside it hidden (MaskLine). Kafka's
// "[hidden]" and "null", and an empty value, are kept: they hold nothing.
func MaskSetting(key, value string) string {
	if !IsSecretKey(key) {
		return MaskLine(value)
	}
	switch strings.TrimSpace(value) {
	case "", Hidden, "null":
		return value
	}
	if jaasRE.MatchString(value) {
		return maskJAAS(value)
	}
	return Hidden
}

// MaskSettings masks every value of m in place (MaskSetting), writing
// only the values that change, and returns m.
func MaskSettings(m map[string]string) map[string]string {
	for k, v := range m {
		if w := MaskSetting(k, v); w != v {
			m[k] = w
		}
	}
	return m
}

// MaskArg returns a command-line argument as kbf may record it: a
// setting given as KEY=VALUE (after a --flag= or a NODE: or CLIENT:
// prefix, as --config and --client-set take them) is masked whole, as
// MaskSetting would; anything else as MaskLine.
func MaskArg(arg string) string {
	if m := argRE.FindStringSubmatch(arg); m != nil && IsSecretKey(m[2]) {
		return m[1] + m[2] + "=" + MaskSetting(m[2], m[3])
	}
	return MaskLine(arg)
}

// argRE splits an argument into its prefix (--flag=, NODE:), the key and
// the value.
var argRE = regexp.MustCompile(`^((?:--?[A-Za-z0-9-]+=)?(?:[A-Za-z0-9_-]+:)?)([A-Za-z_][A-Za-z0-9_.-]*)=(.*)$`)

// jaasRE matches a JAAS line: a login module and its control flag.
var jaasRE = regexp.MustCompile(`^\s*[A-Za-z_$][\w.$]*\s+(?i:required|requisite|sufficient|optional)\b`)

// settingLineRE is a line that is one setting: key=value as a properties
// file has it, or "\tkey = value" as Kafka's configuration dump.
var settingLineRE = regexp.MustCompile(`^(\s*)([A-Za-z_][A-Za-z0-9_.-]*)(\s*=\s*)(.*)$`)

// assignRE finds name=value (a JAAS option, a properties pair, a Java
// system property) inside a line of text.
var assignRE = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.-]*)(\\?=)`)

// secretOption reports whether a JAAS option or an inline name=value
// found in text holds a secret: a secret key, or a PLAIN user's
// password (user_NAME).
func secretOption(name string) bool {
	return IsSecretKey(name) || strings.HasPrefix(strings.ToLower(name), "user_") || envName.MatchString(name) && IsSecretEnv(name)
}

// envName is an environment variable's name as a shell prints it
// (API_TOKEN=…): upper case, with an underscore.
var envName = regexp.MustCompile(`^[A-Z][A-Z0-9]*_[A-Z0-9_]*$`)

// hints are the words without which a line holds nothing MaskLine hides.
var hints = []string{"pass", "secret", "user_", "jaas", "keystore.key", "certificate", "master.key", "token", "key", "credential"}

// MaskLine returns a line of text (a log line, an error, a note) with the
// secrets it shows hidden: a whole line that is a secret setting, as a
// properties file or Kafka's configuration dump holds one, and inside any
// line every name=value whose name is a secret setting or a JAAS user's
// password (user_admin="…"). Lines with none are returned as they are.
func MaskLine(line string) string {
	if !strings.Contains(line, "=") {
		return line
	}
	lower := strings.ToLower(line)
	hinted := false
	for _, h := range hints {
		if strings.Contains(lower, h) {
			hinted = true
			break
		}
	}
	if !hinted {
		return line
	}
	if m := settingLineRE.FindStringSubmatch(line); m != nil {
		switch {
		case IsSecretKey(m[2]):
			return m[1] + m[2] + m[3] + MaskSetting(m[2], m[4])
		case envName.MatchString(m[2]) && IsSecretEnv(m[2]) && m[4] != "":
			return m[1] + m[2] + m[3] + Hidden
		}
	}
	return maskInline(line, secretOption)
}

// jaasKept are the JAAS options a JAAS line keeps: none holds a secret.
var jaasKept = map[string]bool{
	"username": true, "servicename": true, "principal": true, "usekeytab": true, "storekey": true,
	"useticketcache": true, "debug": true, "tokenauth": true, "unsecuredloginstringclaim_sub": true,
	"donotprompt": true, "clientid": true, "scope": true,
}

// maskJAAS hides every option of a JAAS line but jaasKept's.
func maskJAAS(line string) string {
	return maskInline(line, func(name string) bool { return !jaasKept[strings.ToLower(name)] })
}

// maskInline hides the value of every name=value in s whose name secret
// says is one. A value is a quoted string (to its closing quote, or the
// end) or a word; a login module's name (a JAAS line given unquoted as a
// value) is kept, its options being masked one by one after it.
func maskInline(s string, secret func(name string) bool) string {
	var b strings.Builder
	pos := 0
	for pos < len(s) {
		loc := assignRE.FindStringSubmatchIndex(s[pos:])
		if loc == nil {
			break
		}
		nameStart, nameEnd, end := pos+loc[2], pos+loc[3], pos+loc[1]
		b.WriteString(s[pos:end])
		pos = end
		if !secret(s[nameStart:nameEnd]) {
			continue
		}
		v := valueEnd(s, pos)
		val := s[pos:v]
		if val == "" || val == Hidden || val == "null" || strings.HasSuffix(val, "LoginModule") {
			b.WriteString(val)
		} else {
			b.WriteString(Hidden)
		}
		pos = v
	}
	b.WriteString(s[pos:])
	return b.String()
}

// valueEnd is where the value starting at i ends: after its closing quote
// (or at the end, for a quote never closed), after a bracketed [list], or
// at the first space, ';', ',' or closing bracket.
func valueEnd(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"', '\'':
		q := s[i]
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case q:
				return j + 1
			}
		}
		return len(s)
	case '[':
		if j := strings.IndexByte(s[i:], ']'); j >= 0 {
			return i + j + 1
		}
		return len(s)
	}
	j := strings.IndexAny(s[i:], " \t;,)]}\"")
	if j < 0 {
		return len(s)
	}
	return i + j
}

// MaskWriter returns a writer that writes what it is given to w line by
// line, each through MaskLine: for a node's log copied into a trial.
// Close writes a last line that has no newline; it does not close w.
func MaskWriter(w io.Writer) io.WriteCloser {
	return &maskWriter{w: bufio.NewWriter(w)}
}

type maskWriter struct {
	w    *bufio.Writer
	line []byte
	err  error
}

func (m *maskWriter) Write(p []byte) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	n := len(p)
	for len(p) > 0 {
		i := indexNL(p)
		if i < 0 {
			m.line = append(m.line, p...)
			break
		}
		m.line = append(m.line, p[:i+1]...)
		p = p[i+1:]
		m.flushLine()
	}
	return n, m.err
}

func indexNL(p []byte) int {
	for i, c := range p {
		if c == '\n' {
			return i
		}
	}
	return -1
}

func (m *maskWriter) flushLine() {
	if m.err != nil || len(m.line) == 0 {
		return
	}
	line := string(m.line)
	nl := strings.HasSuffix(line, "\n")
	line = MaskLine(strings.TrimSuffix(line, "\n"))
	if nl {
		line += "\n"
	}
	_, m.err = m.w.WriteString(line)
	m.line = m.line[:0]
}

// Close writes the last line, if it had no newline, and flushes.
func (m *maskWriter) Close() error {
	m.flushLine()
	if m.err != nil {
		return m.err
	}
	return m.w.Flush()
}

// maskSecrets hides the secrets of every setting, argument and note m
// records, in place, writing only what changes: WriteMeta calls it before
// writing, and DecodeMeta after reading, so that no report renders a
// secret an older kbf wrote.
func (m *Meta) maskSecrets() {
	for i, a := range m.Command {
		if w := MaskArg(a); w != a {
			m.Command[i] = w
		}
	}
	for _, cfg := range m.Cluster.Nodes {
		MaskSettings(cfg)
	}
	MaskSettings(m.Probe.Client)
	for i, n := range m.Notes {
		if w := MaskLine(n); w != n {
			m.Notes[i] = w
		}
	}
	if r := m.Recovery; r != nil {
		if w := MaskLine(r.Err); w != r.Err {
			r.Err = w
		}
	}
}
