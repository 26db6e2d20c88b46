package k8s

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/results"
)

// listLogs prints the regular files of the log directory, one a line:
// size, modification time (Unix seconds) and name. A directory that is not
// there prints nothing.
const listLogs = `cd %s 2>/dev/null || exit 0
for f in *; do [ -f "$f" ] && stat -c '%%s %%Y %%n' "$f"; done
true`

// logFile is one file of a node's log directory.
type logFile struct {
	name string
	size int64
	mod  time.Time
}

// parseLogList reads listLogs' output; a line it cannot read is an error.
func parseLogList(out string) ([]logFile, error) {
	var fs []logFile
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("log directory listing: line %q: want size, time and name", line)
		}
		size, err1 := strconv.ParseInt(f[0], 10, 64)
		sec, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil || size < 0 {
			return nil, fmt.Errorf("log directory listing: line %q: want size, time and name", line)
		}
		fs = append(fs, logFile{name: f[2], size: size, mod: time.Unix(sec, 0)})
	}
	return fs, nil
}

// collectFiles copies the node's log files (chaos.LogDir in its running
// container) into dst by exec, cat one file at a time, and says whether
// they hold the controller's or the state changes' lines: then they are
// the node's logs, as a Docker node's files are. A container that logs
// only to its standard output has none; a killed container's files went
// with it (only a volume keeps them).
func (t *Cluster) collectFiles(ctx context.Context, n Node, since time.Time, dst string) (bool, error) {
	out, stderr, err := t.api.Exec(ctx, n.Pod, n.Container, []string{"sh", "-c", fmt.Sprintf(listLogs, chaos.LogDir)})
	if err != nil {
		return false, fmt.Errorf("list %s's log files: %w (%s)", n.Pod, err, strings.TrimSpace(stderr))
	}
	files, err := parseLogList(out)
	if err != nil {
		return false, fmt.Errorf("%s: %w", n.Pod, err)
	}
	found := false
	for _, f := range files {
		if !chaos.WantedLog(f.name, f.mod, since) {
			continue
		}
		if !found {
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return false, err
			}
			found = true
		}
		path := filepath.Join(dst, f.name)
		if err := t.copyFile(ctx, n, chaos.LogDir+"/"+f.name, path); err != nil {
			return false, err
		}
		os.Chtimes(path, f.mod, f.mod)
	}
	if !found {
		return false, nil
	}
	return nonEmpty(filepath.Join(dst, results.ControllerLog)) || nonEmpty(filepath.Join(dst, results.StateChangeLog)), nil
}

// copyFile copies a file of the node's container into path, by exec.
func (t *Cluster) copyFile(ctx context.Context, n Node, src, path string) error {
	w, err := os.Create(path)
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	mw := results.MaskWriter(w) // no secret a node logged is kept
	err = t.api.ExecStream(ctx, n.Pod, n.Container, []string{"cat", src}, mw, &stderr)
	if merr := mw.Close(); err == nil {
		err = merr
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy %s of %s: %w (%s)", src, n.Pod, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func nonEmpty(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Size() > 0
}
