package remote

// A node's logs by a command the user gives (Options.LogsCommand): kbf
// cannot read a remote node's files, but kubectl, ssh or a cloud's CLI can
// print them, and the user knows which.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/internal/procgroup"
	"github.com/kbf-project/kbf/nodelog"
)

// The placeholders a logs command may hold, each replaced per node; the
// command also gets them as KBF_NODE_ID, KBF_NODE_HOST and KBF_SINCE.
const (
	// PlaceID is the node's id: 1, 2, 100.
	PlaceID = "{id}"
	// PlaceHost is the host a broker advertises, as the metadata gives it
	// (a DNS name or an address); a dedicated controller has none kbf knows.
	PlaceHost = "{host}"
	// PlaceSince is when the trial began, RFC 3339 in UTC, for a command
	// that can skip older lines (kubectl logs --since-time={since}).
	PlaceSince = "{since}"
)

// DefaultLogsTimeout bounds one node's logs command.
const DefaultLogsTimeout = time.Minute

// logsWaitDelay is how long, once a logs command has exited, kbf waits for
// the children it left behind to close its standard output.
const logsWaitDelay = 2 * time.Second

// placeRE matches what looks like a placeholder: a lowercase word in
// braces. One preceded by '$' is the shell's (${var}), not kbf's.
var placeRE = regexp.MustCompile(`\{[a-z_]+\}`)

// hostRE is a host the shell takes as one word with no quoting: a broker
// advertising anything else is not put into a command line.
var hostRE = regexp.MustCompile(`^[A-Za-z0-9._:%-]+$`)

// CheckLogsCommand says what is wrong with a logs command: a placeholder
// it does not know, or none naming the node, so every node would print the
// same log.
func CheckLogsCommand(cmd string) error {
	if strings.TrimSpace(cmd) == "" {
		return errors.New("empty: want a command that prints one node's log, e.g. 'kubectl logs -n kafka my-kafka-{id}'")
	}
	names := false
	for _, loc := range placeRE.FindAllStringIndex(cmd, -1) {
		if loc[0] > 0 && cmd[loc[0]-1] == '$' {
			continue
		}
		switch p := cmd[loc[0]:loc[1]]; p {
		case PlaceID, PlaceHost:
			names = true
		case PlaceSince:
		default:
			return fmt.Errorf("%s: no such placeholder; kbf replaces %s, %s and %s", p, PlaceID, PlaceHost, PlaceSince)
		}
	}
	if !names {
		return fmt.Errorf("names no node: put %s (the node's id) or %s (the host a broker advertises) where the node goes", PlaceID, PlaceHost)
	}
	return nil
}

// expand is cmd for one node: id, its host ("" when unknown) and since.
// A placeholder right after '$' is the shell's (${id}) and stays.
func expand(cmd string, id int32, host string, since time.Time) (string, error) {
	var out strings.Builder
	last := 0
	for _, loc := range placeRE.FindAllStringIndex(cmd, -1) {
		out.WriteString(cmd[last:loc[0]])
		last = loc[1]
		p := cmd[loc[0]:loc[1]]
		if loc[0] > 0 && cmd[loc[0]-1] == '$' {
			out.WriteString(p)
			continue
		}
		switch p {
		case PlaceID:
			out.WriteString(strconv.Itoa(int(id)))
		case PlaceSince:
			out.WriteString(since.UTC().Format(time.RFC3339))
		case PlaceHost:
			switch {
			case host == "":
				return "", fmt.Errorf("%s: kbf knows no host for node %d (a dedicated controller advertises none to clients); use %s", PlaceHost, id, PlaceID)
			case !hostRE.MatchString(host):
				return "", fmt.Errorf("%s: node %d advertises host %q, which kbf does not put into a command line", PlaceHost, id, host)
			}
			out.WriteString(host)
		default:
			out.WriteString(p)
		}
	}
	out.WriteString(cmd[last:])
	return out.String(), nil
}

// logsRun is how a logs command runs: the command, its directory and its
// time.
type logsRun struct {
	cmd, dir string
	timeout  time.Duration
}

// runLogsCommand runs r's command, expanded for the node, within its
// timeout, and splits what it prints by logger into dst as the node's own
// log files would be (nodelog.SplitLog). Its failure is one line naming the
// command and the end of what it wrote on its standard error, and leaves
// nothing in dst.
func runLogsCommand(ctx context.Context, r logsRun, id int32, host string, since time.Time, dst string) error {
	err := logsCommand(ctx, r, id, host, since, dst)
	if err != nil {
		os.RemoveAll(dst)
	}
	return err
}

func logsCommand(ctx context.Context, r logsRun, id int32, host string, since time.Time, dst string) error {
	line, err := expand(r.cmd, id, host, since)
	if err != nil {
		return fmt.Errorf("logs command %q: %w", r.cmd, err)
	}
	timeout := r.timeout
	if timeout <= 0 {
		timeout = DefaultLogsTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := exec.CommandContext(ctx, "/bin/sh", "-c", line)
	c.Dir = r.dir
	c.Env = append(os.Environ(), "KBF_NODE_ID="+strconv.Itoa(int(id)), "KBF_NODE_HOST="+host, "KBF_SINCE="+since.UTC().Format(time.RFC3339))
	// The command runs in a process group of its own, all of it stopped at
	// the timeout. A child it leaves holding the output when it exits (an
	// ssh control master, "sleep 300 &") does not hold kbf: the command's
	// own exit ends the wait WaitDelay later, and what it printed is kept.
	c.SysProcAttr = procgroup.Attr()
	c.Cancel = func() error { return procgroup.Kill(c.Process) }
	c.WaitDelay = logsWaitDelay
	var stderr tailBuffer
	c.Stderr = &stderr
	pr, pw := io.Pipe()
	c.Stdout = pw
	type split struct {
		files []string
		err   error
	}
	splitDone := make(chan split, 1)
	go func() {
		files, err := nodelog.SplitLog(pr, dst)
		if err != nil {
			// The rest of the output is not read: stop the command.
			pr.CloseWithError(err)
			cancel()
		}
		splitDone <- split{files, err}
	}()
	if err := c.Start(); err != nil {
		pw.Close()
		<-splitDone
		return fmt.Errorf("logs command %q: %w", line, err)
	}
	err = c.Wait()
	pw.Close()
	sp := <-splitDone
	files, splitErr := sp.files, sp.err
	if errors.Is(err, exec.ErrWaitDelay) {
		// The command exited well; a child of its kept the output open.
		err = nil
	}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return fmt.Errorf("logs command %q: not done within %v%s", line, timeout, stderr.say())
	case err != nil:
		return fmt.Errorf("logs command %q: %w%s", line, err, stderr.say())
	case splitErr != nil:
		return fmt.Errorf("logs command %q: %w", line, splitErr)
	case len(files) == 1 && empty(files[0]):
		return fmt.Errorf("logs command %q: printed no Kafka log entry (a line beginning [yyyy-mm-dd hh:mm:ss,mmm] LEVEL)%s", line, stderr.say())
	}
	return nil
}

func empty(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Size() == 0
}

// tailBuffer keeps the last tailMax bytes written to it.
type tailBuffer struct{ b []byte }

const tailMax = 4096

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = t.b[len(t.b)-tailMax:]
	}
	return len(p), nil
}

// say is the last lines of the standard error on one line, at most
// tailSay bytes, after ": "; empty when it wrote nothing.
func (t *tailBuffer) say() string {
	lines := strings.FieldsFunc(string(t.b), func(r rune) bool { return r == '\n' || r == '\r' })
	s := ""
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		switch {
		case l == "":
			continue
		case s == "":
			s = l
		case len(l)+3+len(s) <= tailSay:
			s = l + " | " + s
		default:
			i = 0
		}
	}
	if len(s) > tailSay {
		s = "…" + s[len(s)-tailSay:]
	}
	if s == "" {
		return ""
	}
	return ": " + s
}

const tailSay = 300
