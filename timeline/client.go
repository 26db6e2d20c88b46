package timeline

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// ClientLine is one line of the probe's client.log, whatever its message.
// The report reads these to explain what the clients did between the
// events a timeline keeps.
type ClientLine struct {
	Time   time.Time
	Level  string
	Client string // producer, consumer, admin
	Msg    string
	KV     map[string]string
	Line   int
}

// ReadClientLines returns the lines of the client log at path whose times
// lie in [from, to], in file order. Lines it cannot read are skipped.
func ReadClientLines(path string, from, to time.Time) ([]ClientLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []ClientLine
	lr := newLineReader(f)
	for {
		line, err := lr.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("%s: line %d: %w", path, lr.n+1, err)
		}
		t, level, client, rest, ok := splitClientLine(line)
		if !ok || t.Before(from) || t.After(to) {
			continue
		}
		msg, kvs := splitMessage(rest)
		kv, err := parseKeyValues(kvs)
		if err != nil {
			kv = nil
		}
		out = append(out, ClientLine{Time: t, Level: level, Client: client, Msg: msg, KV: kv, Line: lr.n})
	}
}

// splitMessage splits "message words k=v k2=v2" before its first key=value
// pair; franz-go's messages hold no "=".
func splitMessage(s string) (msg, kvs string) {
	i := 0
	for i < len(s) {
		j := strings.IndexByte(s[i:], ' ')
		word := s[i:]
		if j >= 0 {
			word = s[i : i+j]
		}
		if strings.Contains(word, "=") {
			return strings.TrimSpace(s[:i]), s[i:]
		}
		if j < 0 {
			break
		}
		i += j + 1
	}
	return strings.TrimSpace(s), ""
}
