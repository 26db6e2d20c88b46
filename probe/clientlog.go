package probe

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/results"
)

// clientLog writes the clients' log through results' ClientLogEncoder, the
// one owner of client.log's format. Lines are buffered and written on
// flush.
type clientLog struct {
	level kgo.LogLevel
	mu    sync.Mutex
	enc   *results.ClientLogEncoder
}

func newClientLog(w io.Writer, level kgo.LogLevel) *clientLog {
	if w == nil {
		w, level = io.Discard, kgo.LogLevelNone
	}
	return &clientLog{enc: results.NewClientLogEncoder(w), level: level}
}

// named returns the kgo.Logger of one client.
func (l *clientLog) named(client results.Client) kgo.Logger { return &namedLog{l: l, client: client} }

func (l *clientLog) flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.enc.Flush()
}

type namedLog struct {
	l      *clientLog
	client results.Client
}

func (n *namedLog) Level() kgo.LogLevel { return n.l.level }

func (n *namedLog) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	line := results.ClientLine{Time: time.Now().UTC(), Level: level.String(), Client: n.client, Msg: msg}
	for i := 0; i+1 < len(keyvals); i += 2 {
		line.KV = append(line.KV, results.KeyValue{Key: key(keyvals[i]), Value: fmt.Sprint(keyvals[i+1])})
	}
	n.l.mu.Lock()
	defer n.l.mu.Unlock()
	// The encoder refuses only what franz-go never logs (a key with a
	// space, a line over 64 KiB); losing such a line beats stopping the
	// probe over its own diagnostics.
	_ = n.l.enc.Encode(&line)
}

// key makes a franz-go key one word, as client.log's keys are.
func key(k any) string {
	s := strings.Map(func(r rune) rune {
		if r <= ' ' || r == '"' || r == '=' || r == 0x7f {
			return '_'
		}
		return r
	}, fmt.Sprint(k))
	if s == "" {
		return "_"
	}
	return s
}
