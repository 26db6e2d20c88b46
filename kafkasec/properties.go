// Package kafkasec reads a Kafka client properties file, the one Kafka's own
// tools take with --command-config (security.protocol, sasl.mechanism,
// sasl.jaas.config, ssl.truststore.*, ssl.keystore.*, ...), and produces what
// each of kbf's clients needs to reach a secured listener: franz-go options,
// librdkafka settings, and the Java client's properties (the file itself). It
// also produces what may be recorded about the connection (protocol,
// mechanism, principal, certificate subjects), never a password or a key, and
// turns a connection's failure into one line naming the listener, the cause
// and the setting to change.
package kafkasec

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Property is one key and value of a properties file, with the line its
// logical line starts on.
type Property struct {
	Key, Value string
	Line       int
}

// ParseError is a located error in a properties file. It never quotes a
// value: a value may be a password.
type ParseError struct {
	File string
	Line int
	Err  error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// ParseProperties reads r in the syntax of java.util.Properties.load: lines
// starting with # or ! are comments; a key ends at the first unescaped '=',
// ':' or white space; a line ending in an odd number of backslashes goes on
// on the next line, whose leading white space is dropped; \t \n \r \f and
// \uXXXX are escapes and a backslash before any other character stands for
// that character. A key given twice keeps its last value, as in Java. The
// bytes are read as ISO-8859-1, as Kafka's tools read --command-config
// (Properties.load of an InputStream), so a non-ASCII password reaches
// every client as it reaches Kafka's own. name only locates errors.
func ParseProperties(name string, r io.Reader) ([]Property, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	sc := bufio.NewScanner(strings.NewReader(latin1(data)))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	sc.Split(scanLines)
	var (
		props   []Property
		index   = map[string]int{}
		logical strings.Builder
		start   int
		lineNo  int
		cont    bool
	)
	// add takes the logical line begun at start: a key given again keeps
	// its first place and takes the later value, as Java's Properties does.
	add := func() error {
		p, err := splitProperty(logical.String())
		if err != nil {
			return &ParseError{File: name, Line: start, Err: err}
		}
		p.Line = start
		if i, ok := index[p.Key]; ok {
			props[i] = p
			return nil
		}
		index[p.Key] = len(props)
		props = append(props, p)
		return nil
	}
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if cont {
			line = strings.TrimLeft(line, " \t\f")
		} else {
			line = strings.TrimLeft(line, " \t\f")
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
			start = lineNo
			logical.Reset()
		}
		// A line goes on when it ends in an odd number of backslashes.
		n := 0
		for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
			n++
		}
		cont = n%2 == 1
		if cont {
			logical.WriteString(line[:len(line)-1])
			continue
		}
		logical.WriteString(line)
		if err := add(); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	// A last line that ends in a backslash goes on into nothing.
	if cont {
		if err := add(); err != nil {
			return nil, err
		}
	}
	return props, nil
}

// scanLines splits at \n, \r\n or a lone \r, the three line ends Java knows.
func scanLines(data []byte, atEOF bool) (int, []byte, error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if atEOF {
			return i + 1, data[:i], nil
		}
		return 0, nil, nil // a \r at the end of the buffer: wait for the next byte
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// splitProperty splits a logical line (continuations joined, leading white
// space gone) into its unescaped key and value.
func splitProperty(line string) (Property, error) {
	keyEnd, valStart := len(line), len(line)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			keyEnd = i
			j := i
			for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '\f') {
				j++
			}
			if j < len(line) && (line[j] == '=' || line[j] == ':') {
				j++
				for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '\f') {
					j++
				}
			}
			valStart = j
			break
		}
	}
	key, err := unescape(line[:keyEnd])
	if err != nil {
		return Property{}, fmt.Errorf("key: %w", err)
	}
	val, err := unescape(line[valStart:])
	if err != nil {
		return Property{}, fmt.Errorf("value of %s: %w", key, err)
	}
	return Property{Key: key, Value: val}, nil
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			break // a lone trailing backslash is dropped, as Java does
		}
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf(`malformed \uxxxx escape: it needs four hexadecimal digits`)
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf(`malformed \uxxxx escape: it needs four hexadecimal digits`)
			}
			i += 4
			// A character beyond U+FFFF is two escapes, a UTF-16 pair.
			if utf16.IsSurrogate(rune(r)) && i+7 <= len(s) && strings.HasPrefix(s[i+1:], `\u`) {
				if lo, err := strconv.ParseUint(s[i+3:i+7], 16, 16); err == nil {
					if pair := utf16.DecodeRune(rune(r), rune(lo)); pair != utf8.RuneError {
						b.WriteRune(pair)
						i += 6
						continue
					}
				}
			}
			b.WriteRune(rune(r))
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// latin1 decodes ISO-8859-1: each byte is the rune of the same number.
func latin1(b []byte) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		out = utf8.AppendRune(out, rune(c))
	}
	return string(out)
}

// WriteProperties writes m to path as a properties file that
// ParseProperties and java.util.Properties read back as m: keys sorted,
// '=', ':', '#', '!', white space and backslashes escaped, and every
// character outside printable ASCII as \uXXXX (the file is ISO-8859-1 to
// Java). The file is made readable by its owner only: it may hold
// passwords, such as Librdkafka's map for the librdkafka probe.
func WriteProperties(path string, m map[string]string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(escape(k, true))
		b.WriteByte('=')
		b.WriteString(escape(m[k], false))
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("write properties: %w", err)
	}
	return nil
}

// escape spells s for a properties file, as Properties.store does: in a
// key every space is escaped, in a value only a leading one.
func escape(s string, key bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\\' || r == '=' || r == ':' || r == '#' || r == '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == ' ' && (key || i == 0):
			b.WriteString(`\ `)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || r > 0x7e:
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, `\u%04X`, u)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
