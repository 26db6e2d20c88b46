package k8s

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/kbf-project/kbf/nodelog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// strimziStart matches the first line of an entry in Strimzi's console
// pattern, "%d{ISO8601} %p %m (%c) [%t]%n":
//
//	2026-12-02T01:03:17,385 INFO [QuorumController id=3] Fencing broker 1 … (org.apache.kafka.controller.ReplicationControlManager) [quorum-controller-3-event-handler]
var strimziStart = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2},\d{3}) ([A-Z]+) `)

// strimziEnd matches the logger and the thread that end a Strimzi entry's
// message: "(%c) [%t]".
var strimziEnd = regexp.MustCompile(`(\([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+\)) \[[^\]]*\]$`)

// KafkaPattern copies r to w, rewriting the entries written in Strimzi's
// console pattern into Kafka's, "[%d] %p %m (%c)%n", which kbf's analysis
// reads: the date loses its T, the thread is dropped. Lines already in
// Kafka's pattern, and the lines of a Kafka entry, pass as they are.
func KafkaPattern(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	bw := bufio.NewWriter(w)
	strimzi := false // the entry being copied is in Strimzi's pattern
	for sc.Scan() {
		line := sc.Text()
		if m := strimziStart.FindStringSubmatchIndex(line); m != nil {
			strimzi = true
			line = "[" + line[m[2]:m[3]] + " " + line[m[4]:m[5]] + "] " + line[m[6]:]
		} else if strings.HasPrefix(line, "[") {
			strimzi = false
		}
		if strimzi {
			line = strimziEnd.ReplaceAllString(line, "$1")
		}
		bw.WriteString(line)
		bw.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

// CollectLogs copies a node's log files, when its running container writes
// the controller's or the state changes' loggers to files in chaos.LogDir
// (Kafka's distribution's log4j configuration), by exec, as the Docker
// target copies them. Otherwise it reads the node's standard output
// through the API — the pod's deleted predecessor's as kbf caught it (a
// sigterm), the killed container's (previous), then the running one's —
// and splits it by logger into dst (nodelog.SplitLog), Strimzi's pattern
// turned into Kafka's. The whole output, not only since's: the
// configuration a node logs when it starts is part of the evidence.
func (t *Cluster) CollectLogs(ctx context.Context, service string, since time.Time, dst string) error {
	n, ok := t.node(service)
	if !ok {
		return fmt.Errorf("logs of %s: no such node", service)
	}
	// A container that cannot be exec'd (ended, forbidden) has its output
	// read all the same.
	if files, err := t.collectFiles(ctx, n, since, dst); err == nil && files {
		return nil
	}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(t.output(ctx, n, pw))
	}()
	kr, kw := io.Pipe()
	go func() {
		kw.CloseWithError(KafkaPattern(pr, kw))
	}()
	_, err := nodelog.SplitLog(kr, dst)
	kr.Close()
	pr.Close()
	if err != nil {
		return fmt.Errorf("logs of %s: %w", service, err)
	}
	return nil
}

// output writes the node's outputs, oldest first.
func (t *Cluster) output(ctx context.Context, n Node, w io.Writer) error {
	t.mu.Lock()
	var caught []byte
	if b := t.caught[n.Pod]; b != nil {
		caught = bytes.Clone(b.Bytes())
	}
	t.mu.Unlock()
	if _, err := w.Write(caught); err != nil {
		return err
	}
	for _, previous := range []bool{true, false} {
		rc, err := t.api.Logs(ctx, n.Pod, n.Container, previous, false)
		if previous && err != nil && noPrevious(err) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = io.Copy(w, rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// noPrevious says whether err is the API's answer for a container that
// has not been restarted: there is no previous output to read.
func noPrevious(err error) bool {
	var fe *ForbiddenError
	if errors.As(err, &fe) {
		return false
	}
	return apierrors.IsBadRequest(err) || apierrors.IsNotFound(err) || strings.Contains(err.Error(), "previous terminated container")
}
