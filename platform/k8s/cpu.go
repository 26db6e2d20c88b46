package k8s

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cpuScript prints the CPU time its own container has used, as the
// container's cgroup counts it, once a second: an exec'd process joins the
// container's cgroup, so it reads the node's own counter with no
// permission beyond pods/exec. The first line names the cgroup (its
// directory's inode: a restarted container has a new one), then each line
// is cgroup v2's "usage_usec N" (the first line of cpu.stat) or, from v1's
// cpuacct.usage in nanoseconds, "usage_nsec N". It looks for the counter
// under the path /proc/self/cgroup gives, then at the mount's root, which
// is the container's own when the runtime mounts its cgroup alone or gives
// it a cgroup namespace. No counter is exit status 4.
//
// It ends when its standard input does, which the runtime closes when
// kbf's stream goes (an exec'd process outlives its client otherwise:
// found on the test node), and after an hour in any case (kbf starts it
// again). A background job's standard input is /dev/null unless
// redirected, hence fd 3.
const cpuScript = `exec 3<&0
if command -v cat >/dev/null; then (cat <&3 >/dev/null; kill $$) & fi
f= u=
while IFS= read -r l; do
  p=${l#*:*:}
  case $l in
  0::*) set -- "/sys/fs/cgroup$p/cpu.stat" /sys/fs/cgroup/cpu.stat ;;
  *:cpuacct*) set -- "/sys/fs/cgroup/cpuacct$p/cpuacct.usage" "/sys/fs/cgroup/cpu,cpuacct$p/cpuacct.usage" /sys/fs/cgroup/cpuacct/cpuacct.usage /sys/fs/cgroup/cpu,cpuacct/cpuacct.usage ;;
  *) continue ;;
  esac
  for c; do
    if [ -r "$c" ]; then f=$c; break; fi
  done
  [ -n "$f" ] && break
done </proc/self/cgroup
if [ -z "$f" ]; then echo "no cgroup CPU counter under /sys/fs/cgroup" >&2; exit 4; fi
case $f in *cpuacct.usage) u="usage_nsec " ;; esac
set -- $(ls -di "${f%/*}/" 2>/dev/null)
echo "cgroup ${1:-?}" || exit 0
i=0
while [ $i -lt 3600 ]; do
  read -r v <"$f" || exit 5
  echo "$u$v" || exit 0
  i=$((i+1))
  sleep 1
done`

// cpuNoCounter is cpuScript's exit status when the container shows no
// cgroup CPU counter: asking again will not find one.
const cpuNoCounter = 4

// cpuGaveUp says whether a session that ended with err, having read n
// times, will fail again: exec forbidden, no counter, or the script ended
// by itself before its first reading (a counter it cannot read). A script
// killed (its container ending), or an exec that did not start (the
// container not running yet), is tried again.
func cpuGaveUp(err error, n int) bool {
	var fe *ForbiddenError
	switch st := exitStatus(err); {
	case errors.As(err, &fe), st == cpuNoCounter:
		return true
	case n == 0 && st > 0 && st != 137 && st != 143:
		return true
	}
	return false
}

// cpuFirstWait bounds how long CPUTimes waits for the nodes' first
// readings: a node still unread then is left out, and counted from its
// first reading on.
const cpuFirstWait = 10 * time.Second

// cpuRetry is how long a node's reading waits before it execs again after
// its stream ended: its container was killed, its pod deleted, or the
// connection broke.
const cpuRetry = time.Second

// cpuCounter is one node's CPU time across its containers: a restarted
// container's cgroup counts from zero again, so the node's time is what
// the containers before the current one used since the node was first
// read (base), plus the current one's counter.
type cpuCounter struct {
	seen   bool
	cgroup string        // the current container's cgroup, "" when unknown
	last   time.Duration // the current container's counter at its last reading
	base   time.Duration
}

// add takes a reading of the container in cgroup. The first reading of a
// node is its zero: what its container used before is not the trial's.
// A reading of another cgroup, or a counter gone back (a restart whose
// cgroup was not told), starts a new container, whose whole counter was
// used since the old one ended.
func (c *cpuCounter) add(cgroup string, v time.Duration) {
	switch {
	case !c.seen:
		c.seen, c.base = true, -v
	case cgroup != c.cgroup && cgroup != "" && c.cgroup != "", v < c.last:
		c.base += c.last
	}
	c.cgroup, c.last = cgroup, v
}

// total is the CPU time the node has used since its first reading.
func (c *cpuCounter) total() time.Duration { return c.base + c.last }

// cpuLine is one line of cpuScript's output: the cgroup it reads, or a
// reading of its counter.
type cpuLine struct {
	cgroup string
	usage  time.Duration
	isUse  bool
}

// parseCPULine reads a line of cpuScript's output.
func parseCPULine(line string) (cpuLine, error) {
	key, val, ok := strings.Cut(strings.TrimSpace(line), " ")
	if !ok {
		return cpuLine{}, fmt.Errorf("cgroup CPU line %q: want a key and a value", line)
	}
	if key == "cgroup" {
		if val == "?" {
			val = ""
		}
		return cpuLine{cgroup: val}, nil
	}
	var unit time.Duration
	switch key {
	case "usage_usec":
		unit = time.Microsecond
	case "usage_nsec":
		unit = time.Nanosecond
	default:
		return cpuLine{}, fmt.Errorf("cgroup CPU line %q: unknown key %s", line, key)
	}
	n, err := strconv.ParseInt(val, 10, 64)
	if err != nil || n < 0 {
		return cpuLine{}, fmt.Errorf("cgroup CPU line %q: %s is no count", line, val)
	}
	return cpuLine{usage: time.Duration(n) * unit, isUse: true}, nil
}

// cpuWatch follows every node's CPU counter, one long-lived exec per node.
type cpuWatch struct {
	mu       sync.Mutex
	counters map[string]*cpuCounter
	// failed says why a node's CPU is not read; said once.
	failed map[string]error
	said   map[string]bool
	// first is closed at a node's first reading, or when kbf gave up
	// reading it; waited is set once CPUTimes has waited for them.
	first  map[string]chan struct{}
	waited bool
}

// startCPU starts following the nodes' CPU counters, once per target.
func (t *Cluster) startCPU() *cpuWatch {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cpu != nil {
		return t.cpu
	}
	w := &cpuWatch{counters: map[string]*cpuCounter{}, failed: map[string]error{}, said: map[string]bool{}, first: map[string]chan struct{}{}}
	for _, n := range t.nodes {
		w.counters[n.Pod] = &cpuCounter{}
		w.first[n.Pod] = make(chan struct{})
	}
	for _, n := range t.nodes {
		go t.followCPU(w, n, w.counters[n.Pod], w.first[n.Pod])
	}
	t.cpu = w
	return w
}

// followCPU execs cpuScript in the node's container again and again until
// the target is closed, or until the cluster refuses it for good: exec
// forbidden, or no counter to read.
func (t *Cluster) followCPU(w *cpuWatch, n Node, c *cpuCounter, first chan struct{}) {
	var once sync.Once
	reached := func() { once.Do(func() { close(first) }) }
	defer reached()
	for {
		var stderr bytes.Buffer
		out := &cpuWriter{apply: func(l cpuLine) {
			w.mu.Lock()
			c.add(l.cgroup, l.usage)
			w.mu.Unlock()
			reached()
		}}
		err := t.api.ExecStream(t.watchCtx, n.Pod, n.Container, []string{"sh", "-c", cpuScript}, out, &stderr)
		if t.watchCtx.Err() != nil {
			return
		}
		if cpuGaveUp(err, out.readings) || out.err != nil {
			if out.err != nil {
				err = out.err
			} else if msg := strings.TrimSpace(stderr.String()); msg != "" {
				err = fmt.Errorf("%w (%s)", err, msg)
			}
			w.mu.Lock()
			w.failed[n.Pod] = err
			w.mu.Unlock()
			return
		}
		select {
		case <-t.watchCtx.Done():
			return
		case <-time.After(t.cpuRetry):
		}
	}
}

// exitStatus is the exit status of an exec'd command that failed, -1 when
// err is no command's exit.
func exitStatus(err error) int {
	var ee interface{ ExitStatus() int }
	if errors.As(err, &ee) {
		return ee.ExitStatus()
	}
	return -1
}

// cpuWriter parses cpuScript's output as it streams: the cgroup line, then
// readings applied with that cgroup. A line it cannot read stops it.
type cpuWriter struct {
	apply    func(cpuLine)
	buf      []byte
	cgroup   string
	readings int
	err      error
}

func (c *cpuWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.buf = append(c.buf, p...)
	for {
		i := bytes.IndexByte(c.buf, '\n')
		if i < 0 {
			break
		}
		line := string(c.buf[:i])
		c.buf = c.buf[i+1:]
		l, err := parseCPULine(line)
		if err != nil {
			c.err = err
			return 0, err
		}
		if !l.isUse {
			c.cgroup = l.cgroup
			continue
		}
		l.cgroup = c.cgroup
		c.readings++
		c.apply(l)
	}
	if len(c.buf) > 4096 {
		c.err = errors.New("cgroup CPU output: a line longer than 4 KiB")
		return 0, c.err
	}
	return len(p), nil
}

var _ io.Writer = (*cpuWriter)(nil)

// CPUTimes is the CPU time each node has used since kbf first read it, as
// its container's cgroup counts it, through the kubelet's restarts of it:
// the host's load then tells the cluster's own work from other processes'
// when the pods run on the machine kbf runs on (the test node), and
// otherwise says what the nodes used. Read by one exec per node that
// prints the counter once a second (cpuScript). The first call waits, a
// while, for every node's first reading; a node that cannot be read is
// said once and left out.
func (t *Cluster) CPUTimes(ctx context.Context) (map[string]time.Duration, error) {
	w := t.startCPU()
	w.mu.Lock()
	waited := w.waited
	w.waited = true
	w.mu.Unlock()
	if !waited {
		wait, cancel := context.WithTimeout(ctx, cpuFirstWait)
		for _, ch := range w.first {
			select {
			case <-ch:
			case <-wait.Done():
			}
		}
		cancel()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]time.Duration{}
	for pod, c := range w.counters {
		if c.seen {
			out[pod] = c.total()
		}
	}
	for pod, err := range w.failed {
		if !w.said[pod] && !w.counters[pod].seen {
			w.said[pod] = true
			t.say("the CPU of pod %s is not read (%v): the host's load counts it as other processes'", pod, err)
		}
	}
	return out, nil
}
