// Package nodelog splits a Kafka node's standard output into the log files
// Kafka's own file configuration would have written (server.log,
// controller.log, state-change.log, …), secrets hidden: how kbf reads the
// logs of a node that logs only to its standard output, whatever runs it
// (a Docker container, a Kubernetes pod, a command that prints a remote
// node's log).
package nodelog

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kbf-project/kbf/results"
)

// logRoutes send each Kafka logger to the file the distribution's
// config/log4j2.yaml (and the kbf image's) gives it, so that a node that
// logs only to standard output yields the same files as one with the file
// configuration. A logger goes by the longest route that names it or one
// of its ancestors; the rest is server.log, as the root logger's.
var logRoutes = []struct{ logger, file string }{
	{"state.change.logger", "state-change.log"},
	{"org.apache.kafka.controller", "controller.log"},
	{"kafka.controller", "controller.log"},
	{"kafka.request.logger", "kafka-request.log"},
	{"kafka.network.RequestChannel$", "kafka-request.log"},
	{"org.apache.kafka.storage.internals.log.LogCleaner", "log-cleaner.log"},
	{"org.apache.kafka.storage.internals.log.LogCleaner$CleanerThread", "log-cleaner.log"},
	{"org.apache.kafka.storage.internals.log.Cleaner", "log-cleaner.log"},
	{"kafka.authorizer.logger", "kafka-authorizer.log"},
}

// ServerLog is the file of every logger no route names.
const ServerLog = "server.log"

// logFile returns the file a logger's lines go to.
func logFile(logger string) string {
	file, best := ServerLog, -1
	for _, r := range logRoutes {
		if (logger == r.logger || strings.HasPrefix(logger, r.logger+".")) && len(r.logger) > best {
			file, best = r.file, len(r.logger)
		}
	}
	return file
}

// entryStart matches the first line of a log4j entry in Kafka's pattern,
// "[%d] %p %m (%c)%n": the date, then the level.
var entryStart = regexp.MustCompile(`^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}\] [A-Z]+ `)

// loggerEnd matches the logger that ends an entry's message, "(%c)": a
// dotted name, so that a value in parentheses or a stack frame's
// "(File.java:99)" is not taken for one.
var loggerEnd = regexp.MustCompile(`\(([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\)$`)

// loggerOf returns the logger of an entry's lines: the one that ends its
// message, which spans lines when the message does (KafkaConfig values:
// ...); a stack trace after it is part of the entry.
func loggerOf(entry []string) string {
	for _, line := range entry {
		if m := loggerEnd.FindStringSubmatch(line); m != nil {
			return m[1]
		}
	}
	return ""
}

// SplitLog reads a node's standard output and writes its log4j entries
// into dstDir, split by logger into server.log, controller.log,
// state-change.log and the rest as the file configuration would (see
// logRoutes); the lines are written as they are. A line that does not
// start an entry belongs to the entry before it; lines before the first
// entry (the image's start script) are dropped. server.log is always
// written; the others only when they get a line. It returns the files
// written, in the order they were first written.
func SplitLog(r io.Reader, dstDir string) ([]string, error) {
	if err := os.MkdirAll(dstDir, 0o755); err != nil {
		return nil, err
	}
	files := map[string]*bufio.Writer{}
	var order []string
	var closers []*os.File
	open := func(name string) (*bufio.Writer, error) {
		if w, ok := files[name]; ok {
			return w, nil
		}
		f, err := os.Create(filepath.Join(dstDir, name))
		if err != nil {
			return nil, err
		}
		closers = append(closers, f)
		w := bufio.NewWriter(f)
		files[name] = w
		order = append(order, filepath.Join(dstDir, name))
		return w, nil
	}
	finish := func(err error) ([]string, error) {
		for _, w := range files {
			err = errors.Join(err, w.Flush())
		}
		for _, f := range closers {
			err = errors.Join(err, f.Close())
		}
		return order, err
	}
	if _, err := open(ServerLog); err != nil {
		return finish(err)
	}
	sc := bufio.NewScanner(r)
	// A stack trace line can be long; a longer line than this is an error.
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var entry []string
	flush := func() error {
		if len(entry) == 0 {
			return nil
		}
		w, err := open(logFile(loggerOf(entry)))
		if err != nil {
			return err
		}
		for _, line := range entry {
			w.WriteString(results.MaskLine(line))
			w.WriteByte('\n')
		}
		entry = entry[:0]
		return nil
	}
	started := false
	for sc.Scan() {
		line := sc.Text()
		if entryStart.MatchString(line) {
			if err := flush(); err != nil {
				return finish(err)
			}
			started = true
		}
		if started {
			entry = append(entry, line)
		}
	}
	if err := flush(); err != nil {
		return finish(err)
	}
	return finish(sc.Err())
}
