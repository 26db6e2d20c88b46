package clusterlock

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// A lock file holds its holder in three lines:
//
//	1234
//	2026-12-07T10:02:11.123456789Z
//	kbf bench --trials 10
//
// the pid, the time the lock was taken (RFC 3339, UTC) and the command
// line; empty while nobody holds it.

// writeHolder writes h into the locked file f, in place of what was there.
func writeHolder(f *os.File, h Holder) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	line := strings.ReplaceAll(h.Command, "\n", " ")
	_, err := f.WriteAt(fmt.Appendf(nil, "%d\n%s\n%s\n", h.PID, h.Since.UTC().Format(time.RFC3339Nano), line), 0)
	return err
}

// readHolder reads who holds f's lock; what cannot be read is left zero.
func readHolder(f *os.File) Holder {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	if err != nil {
		return Holder{}
	}
	return parseHolder(string(b))
}

func parseHolder(s string) Holder {
	lines := strings.SplitN(s, "\n", 3)
	if len(lines) < 3 {
		return Holder{}
	}
	pid, err := strconv.Atoi(lines[0])
	if err != nil || pid <= 0 {
		return Holder{}
	}
	since, _ := time.Parse(time.RFC3339Nano, lines[1])
	return Holder{PID: pid, Since: since, Command: strings.TrimSuffix(lines[2], "\n")}
}
