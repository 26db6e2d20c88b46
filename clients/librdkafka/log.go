package main

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// clientLog writes librdkafka's log in kbf's client.log format
// (results.ClientLogFormat), one line per log event:
//
//	2026-11-30T03:26:17.460123456Z DEBUG producer METADATA [thrd:main]: ...
//
// the level from librdkafka's syslog level, which client, then librdkafka's
// facility and its own text. The time is when the event reached Go, which
// polls librdkafka's log queue as events arrive; librdkafka gives none.
type clientLog struct {
	mu  sync.Mutex
	w   io.Writer
	buf bytes.Buffer
}

func newClientLog(w io.Writer) *clientLog { return &clientLog{w: w} }

// follow writes the events of one client's log channel until it closes.
func (l *clientLog) follow(client string, events <-chan kafka.LogEvent, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	for ev := range events {
		l.write(ev.Timestamp, level(ev.Level), client, ev.Tag+" "+ev.Message)
	}
}

func (l *clientLog) write(t time.Time, level, client, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.WriteString(t.UTC().Format("2006-01-02T15:04:05.000000000Z07:00"))
	l.buf.WriteByte(' ')
	l.buf.WriteString(level)
	l.buf.WriteByte(' ')
	l.buf.WriteString(client)
	l.buf.WriteByte(' ')
	l.buf.WriteString(oneLine(msg))
	l.buf.WriteByte('\n')
}

// level names a syslog level as franz-go names its own.
func level(syslog int) string {
	switch {
	case syslog >= 7:
		return "DEBUG"
	case syslog >= 5:
		return "INFO"
	case syslog == 4:
		return "WARN"
	}
	return "ERROR"
}

func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(strings.TrimRight(s, "\n"))
}

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
