package probe

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// clientLog writes the clients' log in the format results.ClientLogFormat
// documents. Lines are buffered and written on flush.
type clientLog struct {
	level kgo.LogLevel
	mu    sync.Mutex
	w     io.Writer
	buf   bytes.Buffer
}

func newClientLog(w io.Writer, level kgo.LogLevel) *clientLog {
	if w == nil {
		w, level = io.Discard, kgo.LogLevelNone
	}
	return &clientLog{w: w, level: level}
}

// named returns the kgo.Logger of one client.
func (l *clientLog) named(client string) kgo.Logger { return &namedLog{l: l, client: client} }

func (l *clientLog) flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len() == 0 {
		return nil
	}
	_, err := l.w.Write(l.buf.Bytes())
	l.buf.Reset()
	return err
}

type namedLog struct {
	l      *clientLog
	client string
}

func (n *namedLog) Level() kgo.LogLevel { return n.l.level }

func (n *namedLog) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	now := time.Now().UTC()
	l := n.l
	l.mu.Lock()
	defer l.mu.Unlock()
	b := &l.buf
	b.WriteString(now.Format("2006-01-02T15:04:05.000000000Z07:00"))
	b.WriteByte(' ')
	b.WriteString(level.String())
	b.WriteByte(' ')
	b.WriteString(n.client)
	b.WriteByte(' ')
	b.WriteString(oneLine(msg))
	for i := 0; i+1 < len(keyvals); i += 2 {
		fmt.Fprintf(b, " %v=%s", keyvals[i], quote(fmt.Sprint(keyvals[i+1])))
	}
	b.WriteByte('\n')
}

func quote(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\"=") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
