package kafkasec

import (
	"errors"
	"fmt"
	"strings"
)

// jaasEntry is the one login module a client's sasl.jaas.config holds.
type jaasEntry struct {
	Module  string
	Flag    string
	Options map[string]string
}

// parseJAAS reads sasl.jaas.config the way Kafka's JaasConfig does (a
// java.io.StreamTokenizer): a login module class, a control flag, then
// key=value options up to ';'. A value is a word (letters, digits, '.',
// '-', '_', '$') or a double-quoted string in which a backslash escapes the
// next character; // and /* */ comments are skipped. Kafka allows exactly
// one module in a client's property. Errors never quote a value.
func parseJAAS(s string) (jaasEntry, error) {
	t := &jaasTokens{s: s}
	var entries []jaasEntry
	for {
		tok, err := t.next()
		if err != nil {
			return jaasEntry{}, err
		}
		if tok.kind == tokEOF {
			break
		}
		if tok.kind != tokWord {
			return jaasEntry{}, errors.New("expected a login module class name")
		}
		e := jaasEntry{Module: tok.text, Options: map[string]string{}}
		flag, err := t.next()
		if err != nil {
			return jaasEntry{}, err
		}
		switch strings.ToLower(flag.text) {
		case "required", "requisite", "sufficient", "optional":
			if flag.kind != tokWord {
				return jaasEntry{}, fmt.Errorf("expected a control flag (required, requisite, sufficient or optional) after %s", e.Module)
			}
			e.Flag = strings.ToLower(flag.text)
		default:
			return jaasEntry{}, fmt.Errorf("expected a control flag (required, requisite, sufficient or optional) after %s", e.Module)
		}
		for {
			key, err := t.next()
			if err != nil {
				return jaasEntry{}, err
			}
			if key.kind == tokSemi {
				break
			}
			if key.kind == tokEOF {
				return jaasEntry{}, fmt.Errorf("the ';' that ends %s's options is missing", e.Module)
			}
			if key.kind != tokWord {
				return jaasEntry{}, fmt.Errorf("expected an option name or ';' in %s's options", e.Module)
			}
			eq, err := t.next()
			if err != nil {
				return jaasEntry{}, err
			}
			if eq.kind != tokEquals {
				return jaasEntry{}, fmt.Errorf("expected '=' after option %s (is the ';' at the end missing?)", key.text)
			}
			val, err := t.next()
			if err != nil {
				return jaasEntry{}, err
			}
			if val.kind != tokWord && val.kind != tokQuoted {
				return jaasEntry{}, fmt.Errorf("expected a value after %s=", key.text)
			}
			e.Options[key.text] = val.text
		}
		entries = append(entries, e)
	}
	if len(entries) != 1 {
		return jaasEntry{}, fmt.Errorf("holds %d login modules; a client's takes exactly 1", len(entries))
	}
	return entries[0], nil
}

const (
	tokEOF = iota
	tokWord
	tokQuoted
	tokEquals
	tokSemi
	tokOther
)

type jaasToken struct {
	kind int
	text string
}

type jaasTokens struct {
	s string
	i int
}

func isJAASWordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '-' || c == '_' || c == '$' || c >= 0x80
}

func (t *jaasTokens) next() (jaasToken, error) {
	for t.i < len(t.s) {
		c := t.s[t.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			t.i++
			continue
		case strings.HasPrefix(t.s[t.i:], "//"):
			if j := strings.IndexAny(t.s[t.i:], "\r\n"); j >= 0 {
				t.i += j
			} else {
				t.i = len(t.s)
			}
			continue
		case strings.HasPrefix(t.s[t.i:], "/*"):
			j := strings.Index(t.s[t.i+2:], "*/")
			if j < 0 {
				return jaasToken{}, errors.New("a /* comment is not closed")
			}
			t.i += j + 4
			continue
		}
		break
	}
	if t.i >= len(t.s) {
		return jaasToken{kind: tokEOF}, nil
	}
	c := t.s[t.i]
	switch {
	case c == '=':
		t.i++
		return jaasToken{kind: tokEquals, text: "="}, nil
	case c == ';':
		t.i++
		return jaasToken{kind: tokSemi, text: ";"}, nil
	case c == '"' || c == '\'':
		quote := c
		var b strings.Builder
		for t.i++; t.i < len(t.s); t.i++ {
			c := t.s[t.i]
			if c == quote {
				t.i++
				return jaasToken{kind: tokQuoted, text: b.String()}, nil
			}
			if c == '\n' || c == '\r' {
				break
			}
			if c == '\\' && t.i+1 < len(t.s) {
				t.i++
				switch t.s[t.i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case 'r':
					b.WriteByte('\r')
				default:
					b.WriteByte(t.s[t.i])
				}
				continue
			}
			b.WriteByte(c)
		}
		return jaasToken{}, errors.New("a quoted value is not closed (a \" is missing)")
	case isJAASWordChar(c):
		j := t.i
		for j < len(t.s) && isJAASWordChar(t.s[j]) {
			j++
		}
		tok := jaasToken{kind: tokWord, text: t.s[t.i:j]}
		t.i = j
		return tok, nil
	}
	t.i++
	return jaasToken{kind: tokOther, text: string(c)}, nil
}
