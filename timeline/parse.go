package timeline

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/results"
)

// maxLine is how much of one line is kept; the rest is skipped. Every message
// a rule knows fits in far less, and a log may hold lines of any length.
const maxLine = 64 << 10

// lineReader returns a file's lines one at a time, counting them, without
// their line ending, each cut to maxLine bytes.
type lineReader struct {
	r   *bufio.Reader
	n   int // lines returned so far
	buf []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line; io.EOF after the last. A last line without a
// newline is returned as any other: a killed process may leave one.
func (lr *lineReader) next() (string, error) {
	lr.buf = lr.buf[:0]
	read := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(chunk) > 0 {
			read = true
			if room := maxLine - len(lr.buf); room > 0 {
				lr.buf = append(lr.buf, chunk[:min(room, len(chunk))]...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && !read:
			return "", io.EOF
		case err != nil && !errors.Is(err, io.EOF):
			return "", err
		}
		lr.n++
		line := strings.TrimRight(string(lr.buf), "\r\n")
		return line, nil
	}
}

// parseKafkaLog reads one of a Kafka node's log4j files, written with the
// pattern "[%d] %p %m (%c)%n":
//
//	[2026-11-30 03:26:17,385] INFO [QuorumController id=100] Fencing broker 1 at epoch 14 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)
//
// %d is "yyyy-MM-dd HH:mm:ss,SSS" in the container's zone, UTC. A line that
// does not open with "[yyyy-" continues the record before it (a multi-line
// message or a stack trace) and is skipped; only a record's first line is
// matched. It passes each recognised event to emit and returns how many lines
// it could not read: a record whose timestamp does not parse, or a
// continuation line with no record before it.
func parseKafkaLog(r io.Reader, node, name string, nodeID int32, emit func(Event)) (unparsed int, err error) {
	lr := newLineReader(r)
	const (
		noRecord = iota
		inRecord
		inBadRecord
	)
	state := noRecord
	var prev *Event
	for {
		line, err := lr.next()
		if errors.Is(err, io.EOF) {
			return unparsed, nil
		}
		if err != nil {
			return unparsed, fmt.Errorf("%s: line %d: %w", name, lr.n+1, err)
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !recordStart(line) {
			if state == noRecord {
				unparsed++
			}
			continue
		}
		t, msg, ok := parseKafkaLine(line)
		if !ok {
			unparsed++
			state = inBadRecord
			continue
		}
		state = inRecord
		e, r, known, err := match(msg)
		if !known {
			continue
		}
		if err != nil {
			unparsed++
			continue
		}
		e.Time, e.Node, e.Text = t, node, msg
		e.Source = name + ":" + strconv.Itoa(lr.n)
		if e.Broker == None && r.self {
			e.Broker = nodeID
		}
		if e.Broker == None && prev != nil && slices.Contains(r.after, prev.Kind) {
			if d := e.Time.Sub(prev.Time); d >= 0 && d <= time.Second {
				e.Broker = prev.Broker
			}
		}
		if r.leads && e.Leader == None {
			e.Leader = e.Broker
		}
		emit(e)
		prev = &e
	}
}

// recordStart reports whether line opens a log4j record, "[yyyy-".
func recordStart(line string) bool {
	if len(line) < 6 || line[0] != '[' || line[5] != '-' {
		return false
	}
	for _, c := range []byte(line[1:5]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseKafkaLine splits a record's first line into its time and message.
func parseKafkaLine(line string) (time.Time, string, bool) {
	end := strings.IndexByte(line, ']')
	if end < 0 {
		return time.Time{}, "", false
	}
	t, ok := parseLog4jTime(line[1:end])
	if !ok {
		return time.Time{}, "", false
	}
	rest := strings.TrimPrefix(line[end+1:], " ")
	level, msg, _ := strings.Cut(rest, " ")
	if !isLevel(level) {
		msg = rest
	}
	return t, strings.TrimSpace(stripLogger(msg)), true
}

func isLevel(s string) bool {
	switch s {
	case "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL":
		return true
	}
	return false
}

// stripLogger removes the trailing " (logger.name)" the pattern's "(%c)"
// writes. A parenthesis without a dot, "(under-min-isr)", is the message's.
func stripLogger(s string) string {
	if !strings.HasSuffix(s, ")") {
		return s
	}
	i := strings.LastIndex(s, " (")
	if i < 0 {
		return s
	}
	name := s[i+2 : len(s)-1]
	if !strings.Contains(name, ".") {
		return s
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '$' || c == '-') {
			return s
		}
	}
	return s[:i]
}

// parseLog4jTime parses "2026-11-30 03:26:17,385" as UTC. It also takes a
// "T" for the space and a "." for the comma.
func parseLog4jTime(s string) (time.Time, bool) {
	if len(s) != 23 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
		s[13] != ':' || s[16] != ':' || (s[19] != ',' && s[19] != '.') {
		return time.Time{}, false
	}
	var v [7]int
	for i, f := range [7][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}, {20, 23}} {
		n, ok := results.Digits(s, f[0], f[1])
		if !ok {
			return time.Time{}, false
		}
		v[i] = n
	}
	if v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 || v[5] > 60 {
		return time.Time{}, false
	}
	t := time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], v[6]*int(time.Millisecond), time.UTC)
	if t.Day() != v[2] { // 31 February
		return time.Time{}, false
	}
	return t, true
}

// parseClientLog reads the probe's client.log through results'
// ClientLogDecoder. It passes each recognised event to emit and returns how
// many lines it could not read: a line the decoder refuses, or a recognised
// message whose values do not parse.
func parseClientLog(r io.Reader, name string, emit func(Event)) (unparsed int, err error) {
	dec := results.NewClientLogDecoder(r, name)
	var l results.ClientLine
	for {
		err := dec.Decode(&l)
		if errors.Is(err, io.EOF) {
			return unparsed, nil
		}
		var pe *results.ParseError
		if errors.As(err, &pe) {
			unparsed++
			continue
		}
		if err != nil {
			return unparsed, err
		}
		e, ok, err := matchClient(&l)
		if err != nil {
			unparsed++
			continue
		}
		if !ok {
			continue
		}
		e.Time, e.Node, e.Text = l.Time, string(l.Client), l.Text()
		e.Source = name + ":" + strconv.Itoa(dec.Line())
		emit(e)
	}
}

// matchClient recognises a client line by its message and fills the event
// from its key=value pairs.
func matchClient(l *results.ClientLine) (Event, bool, error) {
	for i := range clientRules {
		cr := &clientRules[i]
		request, ok := cr.matches(l.Msg)
		if !ok {
			continue
		}
		for _, key := range cr.need {
			if _, ok := l.Value(key); !ok {
				return Event{}, true, fmt.Errorf("no %s", key)
			}
		}
		e := newEvent(time.Time{}, "", cr.kind)
		e.Request = request
		for _, kv := range l.KV {
			field, ok := cr.keys[kv.Key]
			if !ok {
				continue
			}
			saved := e
			if err := setField(&e, field, kv.Value); err != nil {
				// A fact's optional value that does not parse (a seed
				// broker named "seed_0") is left unset; a needed one
				// makes the line unreadable.
				if !cr.kind.ClientFact() || slices.Contains(cr.need, kv.Key) {
					return Event{}, true, err
				}
				e = saved
			}
		}
		return e, true, nil
	}
	return matchClientText(l)
}
