package results

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The client log (client.log) holds the probe's Kafka clients' own log, one
// entry a line:
//
//	2026-11-30T03:26:17.460123456Z DEBUG producer metadata refresh topic partition data changed topic=orders partition=0 new_leader=2
//	2026-11-30T03:26:17.512000000Z DEBUG producer read Produce v11 broker=2 bytes_read=61 read_wait=20µs time_to_read=1.02s err=<nil>
//
//	time     RFC 3339 in UTC with nine fractional digits
//	level    the client library's level: DEBUG, INFO, WARN, ERROR
//	client   which client logged it: producer, consumer or admin (Client)
//	message  the library's message, as it wrote it
//	k=v ...  the key=value pairs it gave, in its order
//
// A message or value that would not read back as written (empty, holding a
// "=", a quote, a control character or a space at either end, not UTF-8)
// is quoted with Go's strconv.Quote; a value is quoted also when it holds
// a space. The library's messages hold none of these, so in practice only
// values are quoted. Keys, levels and client names are single words. A
// line is at most MaxClientLine bytes.
const ClientLogFormat = "time level client message key=value..."

// MaxClientLine is the longest client.log line the decoder reads; the
// encoder refuses to write a longer one.
const MaxClientLine = 64 << 10

// ClientLine is one entry of client.log.
type ClientLine struct {
	Time   time.Time
	Level  string
	Client Client
	Msg    string
	KV     []KeyValue // in the order the client gave them; nil for none
}

// KeyValue is one key=value pair of a client log entry.
type KeyValue struct{ Key, Value string }

// Value returns the value of key, the last when the line repeats it, and
// whether the line has it.
func (l *ClientLine) Value(key string) (string, bool) {
	for i := len(l.KV) - 1; i >= 0; i-- {
		if l.KV[i].Key == key {
			return l.KV[i].Value, true
		}
	}
	return "", false
}

// Get returns the value of key, "" when the line has none.
func (l *ClientLine) Get(key string) string {
	v, _ := l.Value(key)
	return v
}

// errNotWord is reported for a key, level or client name that is empty or
// holds a space, a quote, a "=" or a control character.
var errNotWord = errors.New("not a single word")

// errLineTooLong is reported for a client.log line over MaxClientLine bytes.
var errLineTooLong = fmt.Errorf("line longer than %d bytes", MaxClientLine)

// ClientLogEncoder writes client.log; lines are held in memory until Flush,
// so a crash between flushes never leaves half a line on disk.
type ClientLogEncoder struct {
	w   io.Writer
	buf []byte
}

// NewClientLogEncoder returns a ClientLogEncoder writing to w.
func NewClientLogEncoder(w io.Writer) *ClientLogEncoder { return &ClientLogEncoder{w: w} }

// Encode buffers one line. It refuses a line that would not read back as
// written: a zero time or one outside years 0000–9999, a level, client or
// key that is not a single word, a line over MaxClientLine.
func (e *ClientLogEncoder) Encode(l *ClientLine) error {
	if l.Time.IsZero() {
		return errors.New("client log line: no time")
	}
	if y := l.Time.UTC().Year(); y < 0 || y > 9999 {
		return fmt.Errorf("client log line: time in year %d", y)
	}
	for _, w := range []struct{ what, s string }{{"level", l.Level}, {"client", string(l.Client)}} {
		if !isWord(w.s) {
			return fmt.Errorf("client log %s %q: %w", w.what, w.s, errNotWord)
		}
	}
	for _, kv := range l.KV {
		if !isWord(kv.Key) {
			return fmt.Errorf("client log key %q: %w", kv.Key, errNotWord)
		}
	}
	start := len(e.buf)
	b := l.Time.UTC().AppendFormat(e.buf, timeLayout)
	b = append(b, ' ')
	b = append(b, l.Level...)
	b = append(b, ' ')
	b = append(b, l.Client...)
	b = append(b, ' ')
	b = l.appendText(b)
	b = append(b, '\n')
	if len(b)-start > MaxClientLine {
		e.buf = b[:start]
		return fmt.Errorf("client log line: %w", errLineTooLong)
	}
	e.buf = b
	return nil
}

// Text is the line's message and pairs as the encoder writes them, without
// the time, level and client.
func (l *ClientLine) Text() string { return string(l.appendText(nil)) }

func (l *ClientLine) appendText(b []byte) []byte {
	if quoteMsg(l.Msg) {
		b = strconv.AppendQuote(b, l.Msg)
	} else {
		b = append(b, l.Msg...)
	}
	for _, kv := range l.KV {
		b = append(b, ' ')
		b = append(b, kv.Key...)
		b = append(b, '=')
		if quoteValue(kv.Value) {
			b = strconv.AppendQuote(b, kv.Value)
		} else {
			b = append(b, kv.Value...)
		}
	}
	return b
}

// Flush writes the buffered lines.
func (e *ClientLogEncoder) Flush() error {
	if len(e.buf) == 0 {
		return nil
	}
	_, err := e.w.Write(e.buf)
	e.buf = e.buf[:0]
	return err
}

// isWord reports whether s can stand unquoted between spaces and before a
// "=": a key, a level, a client name.
func isWord(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == '"' || c == '=' || c == 0x7f {
			return false
		}
	}
	return true
}

// quoteValue reports whether a value must be quoted to read back as
// written: an unquoted value runs to the next space.
func quoteValue(s string) bool { return s == "" || !isWord(s) }

// quoteMsg reports whether a message must be quoted: an unquoted one runs
// to the first word with a "=" and loses the spaces at its ends.
func quoteMsg(s string) bool {
	if s == "" || s[0] == '"' || strings.TrimSpace(s) != s || !utf8.ValidString(s) {
		return true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c == '=' || c == 0x7f {
			return true
		}
	}
	return false
}

// ClientLogDecoder reads client.log one line at a time.
type ClientLogDecoder struct {
	file string
	r    *bufio.Reader
	line int
	buf  []byte
}

// NewClientLogDecoder returns a ClientLogDecoder reading r; file names r in
// errors.
func NewClientLogDecoder(r io.Reader, file string) *ClientLogDecoder {
	return &ClientLogDecoder{file: file, r: bufio.NewReaderSize(r, 64<<10)}
}

// Line is the number of the line Decode last read, from 1.
func (d *ClientLogDecoder) Line() int { return d.line }

// Decode reads the next line into l, skipping blank ones. It returns io.EOF
// after the last, a *ParseError for a line it cannot read — after which
// Decode reads on from the next line, so a reader may skip it — and any
// other error from the underlying reader as it came. A last line without its
// newline is read as any other: a killed process may leave one.
func (d *ClientLogDecoder) Decode(l *ClientLine) error {
	for {
		line, long, err := d.next()
		if err != nil {
			return err
		}
		if long {
			return d.errorf(0, "%w", errLineTooLong)
		}
		if strings.TrimSpace(string(line)) == "" {
			continue
		}
		return d.parse(string(line), l)
	}
}

// next returns the next line without its line ending; long is true when it
// was longer than MaxClientLine and has been skipped.
func (d *ClientLogDecoder) next() (line []byte, long bool, err error) {
	d.buf = d.buf[:0]
	read := false
	for {
		chunk, err := d.r.ReadSlice('\n')
		if len(chunk) > 0 {
			read = true
			if len(d.buf)+len(chunk) > MaxClientLine+2 { // room for "\r\n"
				long = true
			} else if !long {
				d.buf = append(d.buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && !read:
			return nil, false, io.EOF
		case err != nil && !errors.Is(err, io.EOF):
			return nil, false, fmt.Errorf("%s: line %d: %w", d.file, d.line+1, err)
		}
		d.line++
		b := bytes.TrimSuffix(d.buf, []byte("\n"))
		b = bytes.TrimSuffix(b, []byte("\r"))
		return b, long || len(b) > MaxClientLine, nil
	}
}

func (d *ClientLogDecoder) errorf(col int, format string, args ...any) error {
	return &ParseError{File: d.file, Line: d.line, Column: col, Err: fmt.Errorf(format, args...)}
}

// parse reads one line; columns in errors count bytes from 1.
func (d *ClientLogDecoder) parse(s string, l *ClientLine) error {
	ts, rest, _ := strings.Cut(s, " ")
	t, err := ParseTime(ts)
	if err != nil {
		return d.errorf(1, "%w", err)
	}
	if t.IsZero() {
		return d.errorf(1, "no time")
	}
	col := len(ts) + 2
	level, rest, _ := strings.Cut(rest, " ")
	if !isWord(level) {
		return d.errorf(col, "level %s: %w", excerpt(level), errNotWord)
	}
	col += len(level) + 1
	client, rest, _ := strings.Cut(rest, " ")
	if !isWord(client) {
		return d.errorf(col, "client %s: %w", excerpt(client), errNotWord)
	}
	col += len(client) + 1
	msg, kvs, err := splitMessage(rest)
	if err != nil {
		return d.errorf(col, "message: %w", err)
	}
	col += len(rest) - len(kvs)
	kv, err := parseKeyValues(kvs)
	if errors.Is(err, errNotPair) && !strings.HasPrefix(rest, `"`) {
		// Not kbf's own shape: another client's text with a "=" inside
		// it, such as the Java client's "[Producer clientId=p1] Node 1
		// disconnected." The whole text is the message, with no pairs,
		// rather than a line the timeline cannot read.
		msg, kv, err = strings.TrimSpace(rest), nil, nil
	}
	if err != nil {
		return d.errorf(col, "%w", err)
	}
	*l = ClientLine{Time: t, Level: level, Client: Client(client), Msg: msg, KV: kv}
	return nil
}

// splitMessage splits "message words k=v k2=v2" before its first key=value
// pair, or a quoted message from what follows it.
func splitMessage(s string) (msg, kvs string, err error) {
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", excerpt(s), err)
		}
		msg, err = strconv.Unquote(q)
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", excerpt(q), err)
		}
		rest := s[len(q):]
		if rest != "" && rest[0] != ' ' {
			return "", "", errors.New("text after the closing quote")
		}
		return msg, rest, nil
	}
	i := 0
	for i < len(s) {
		j := strings.IndexByte(s[i:], ' ')
		word := s[i:]
		if j >= 0 {
			word = s[i : i+j]
		}
		if strings.Contains(word, "=") {
			return strings.TrimSpace(s[:i]), s[i:], nil
		}
		if j < 0 {
			break
		}
		i += j + 1
	}
	return strings.TrimSpace(s), "", nil
}

// parseKeyValues reads " k=v k2=\"quoted value\" ...".
func parseKeyValues(s string) ([]KeyValue, error) {
	var kv []KeyValue
	for {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return kv, nil
		}
		key, rest, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("%w: %s", errNotPair, excerpt(s))
		}
		if !isWord(key) {
			return nil, fmt.Errorf("key %s: %w", excerpt(key), errNotWord)
		}
		var v string
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, fmt.Errorf("value of %s: %w", key, err)
			}
			if v, err = strconv.Unquote(q); err != nil {
				return nil, fmt.Errorf("value of %s: %w", key, err)
			}
			rest = rest[len(q):]
			if rest != "" && rest[0] != ' ' {
				return nil, fmt.Errorf("value of %s: text after the closing quote", key)
			}
		} else {
			v, rest, _ = strings.Cut(rest, " ")
			if quoteValue(v) {
				return nil, fmt.Errorf("value of %s: %s should be quoted", key, excerpt(v))
			}
		}
		kv = append(kv, KeyValue{key, v})
		s = rest
	}
}

// errNotPair is a word without "=" where a key=value pair was due.
var errNotPair = errors.New("not key=value")

// excerpt quotes at most the first 40 bytes of s, so that an error about a
// huge or binary line stays one short line.
func excerpt(s string) string {
	const n = 40
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:n]) + "..."
}
