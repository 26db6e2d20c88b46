package k8s

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// Supports says whether kbf can make kind here: it kills, stops and pauses
// a node's JVM, cuts a broker's links through an ephemeral container (what
// the cluster allows of that is checked on the pod, before the trial:
// PrepareNet), and the controller faults where the quorum has three
// dedicated controllers (experiment.Check counts them). The faults that
// hold a broker down for a while (two-brokers, rolling, last-replica)
// cannot be, since the kubelet restarts a killed container at once; a
// full disk is not made here.
func (t *Cluster) Supports(kind results.FaultKind, _ string) error {
	switch {
	case kind == results.FaultSIGKILL, kind == results.FaultSIGTERM, kind == results.FaultPause,
		kind == results.FaultControllerKill, kind == results.FaultControllerPause, kind.Network():
		return nil
	case kind == results.FaultExternal:
		return cluster.Unsupportedf("fault %s: give --bootstrap alone to measure a fault something else makes", kind)
	case kind.Hinders():
		return cluster.Unsupportedf("fault %s: kbf starves a broker's CPU or drops its packets on its own Docker cluster only", kind)
	case kind.FaultFS():
		return cluster.Unsupportedf("fault %s: needs the broker's log directory on a FUSE layer kbf serves on the Docker host; kbf makes it on its own Docker cluster only", kind)
	case kind.MultiStep():
		return cluster.Unsupportedf("fault %s: the kubelet restarts a killed broker at once, so kbf cannot hold one down as this fault needs", kind)
	}
	return cluster.Unsupportedf("fault %s: kbf does not make it on Kubernetes", kind)
}

// Restart is one container the kubelet restarted, or one pod made again,
// after a fault, as kbf saw it.
type Restart struct {
	Pod  string
	Kind results.FaultKind
	// Exited is when kbf first saw the node's container ended (or its pod
	// gone); Running when it first saw the new one running, to the poll
	// interval (Options.Poll).
	Exited, Running time.Time
	// RestartCount is the container's, after (a new pod's starts at 0).
	RestartCount int32
}

// Took is how long the node was down as kbf saw it.
func (r Restart) Took() time.Duration { return r.Running.Sub(r.Exited) }

// Restarts are the restarts recovery has seen so far, oldest first.
func (t *Cluster) Restarts() []Restart {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Restart(nil), t.done...)
}

// restartWatch follows a node from its fault until it runs again.
type restartWatch struct {
	done chan struct{}
	r    Restart
	err  error
}

// jvm signals the JVMs of the exec'd shell's own container: the java
// processes of its cgroup (a pod that shares its process namespace shows
// the other containers' too), printing each pid signalled. A JVM that is
// the container's PID 1 ignores a signal sent from inside its namespace;
// it is refused with its own exit status, 3.
const jvm = `self=$(cat /proc/self/cgroup); n=0
for p in /proc/[0-9]*; do
  [ "$(cat $p/comm 2>/dev/null)" = java ] || continue
  [ "$(cat $p/cgroup 2>/dev/null)" = "$self" ] || continue
  pid=${p#/proc/}
  [ "$pid" = 1 ] && exit 3
  kill -%s "$pid" && echo "$pid" && n=$((n+1))
done
[ "$n" -gt 0 ]`

// signal sends sig (KILL, STOP, CONT) to the node's JVM through exec.
func (t *Cluster) signal(ctx context.Context, n Node, sig string) error {
	stdout, stderr, err := t.api.Exec(ctx, n.Pod, n.Container, []string{"sh", "-c", fmt.Sprintf(jvm, sig)})
	var fe *ForbiddenError
	switch {
	case errors.As(err, &fe):
		return err
	case strings.TrimSpace(stdout) != "":
		// Signalled. A SIGKILL may end the container before exec's stream
		// closes cleanly.
		return nil
	case err != nil && strings.Contains(err.Error(), "exit code 3"):
		return fmt.Errorf("the JVM is PID 1 of pod %s's container %s, which a signal from inside the pod cannot reach: give the pod shareProcessNamespace: true or an init (tini), as deploy/kubernetes/kafka.yaml does", n.Pod, n.Container)
	case err != nil:
		return fmt.Errorf("exec in %s: %w (%s)", n.Pod, err, strings.TrimSpace(stderr))
	}
	return fmt.Errorf("no java process in pod %s's container %s", n.Pod, n.Container)
}

// Inject makes f on its node. sigkill kills the JVM and returns once the
// container has ended (exit code and finish time as the kubelet recorded
// them); sigterm deletes the pod with f.Grace, as a rolling update does,
// and returns once it is gone; pause stops the JVM. Recovery's Restart
// waits for what the kubelet, or the pod's controller, brings back.
func (t *Cluster) Inject(ctx context.Context, f cluster.Fault) (results.Fault, error) {
	rf := results.Fault{Broker: f.Broker, Kind: f.Kind}
	if err := t.Supports(f.Kind, f.Broker); err != nil {
		return rf, err
	}
	n, ok := t.node(f.Broker)
	if !ok {
		return rf, fmt.Errorf("inject %s: %s is no node of the cluster", f.Kind, f.Broker)
	}
	p, err := t.api.Pod(ctx, n.Pod)
	if err != nil {
		return rf, fmt.Errorf("inject %s into %s: %w", f.Kind, n.Pod, err)
	}
	before := containerStatus(p, n.Container)
	if before == nil || before.State.Running == nil {
		return rf, fmt.Errorf("inject %s into %s: container %s is not running", f.Kind, n.Pod, n.Container)
	}
	if f.Kind.Network() {
		rf.SignalSent = time.Now()
		if err := t.cut(ctx, n, f.Kind, f.Controllers); err != nil {
			return rf, err
		}
		rf.Cut = time.Now() // the rules are hooked in: from here on packets drop
		return rf, nil
	}
	kind := f.Kind
	switch kind {
	case results.FaultControllerKill:
		kind = results.FaultSIGKILL
	case results.FaultControllerPause:
		kind = results.FaultPause
	}
	switch kind {
	case results.FaultPause:
		rf.SignalSent = time.Now()
		if err := t.signal(ctx, n, "STOP"); err != nil {
			return rf, fmt.Errorf("pause %s: %w", n.Pod, err)
		}
		rf.Paused = time.Now() // the signal is sent: the JVM stops at once
		t.mu.Lock()
		t.paused[n.Pod] = true
		t.mu.Unlock()
		return rf, nil
	case results.FaultSIGKILL:
		rf.SignalSent = time.Now()
		if err := t.signal(ctx, n, "KILL"); err != nil {
			return rf, fmt.Errorf("sigkill %s: %w", n.Pod, err)
		}
		// The JVM died when the shell's kill ran, just before exec ended.
		return rf, t.awaitEnd(ctx, n, p.UID, before.RestartCount, time.Now(), &rf)
	case results.FaultSIGTERM:
		grace := f.Grace
		if grace == 0 {
			grace = cluster.DefaultGrace
		}
		t.catchOutput(n)
		rf.SignalSent = time.Now()
		if err := t.api.DeletePod(ctx, n.Pod, int64(grace.Round(time.Second)/time.Second)); err != nil {
			return rf, fmt.Errorf("sigterm %s: %w", n.Pod, err)
		}
		err := t.awaitEnd(ctx, n, p.UID, before.RestartCount, time.Time{}, &rf)
		// The kubelet SIGKILLs what outlives its grace: exit 137.
		rf.Escalated = err == nil && rf.ExitCode == 137
		return rf, err
	}
	return rf, fmt.Errorf("inject %s: not made here", f.Kind)
}

// awaitEnd waits until the node's container has ended — its restart count
// past restarts, or its pod uid gone — records the exit in rf, and starts
// watching for the node to run again. died is kbf's own estimate of the
// end (a kill's), zero when it has none: then the end is when kbf saw it.
func (t *Cluster) awaitEnd(ctx context.Context, n Node, uid types.UID, restarts int32, died time.Time, rf *results.Fault) error {
	var exited time.Time
	for {
		p, err := t.api.Pod(ctx, n.Pod)
		switch {
		case apierrors.IsNotFound(err) || err == nil && p.UID != uid:
			// The pod is gone (a deletion): its container's end was its
			// last state, seen or not.
			exited = time.Now()
			if rf.Finished.IsZero() {
				rf.Finished = exited
			}
		case err != nil:
			return fmt.Errorf("wait for %s to end: %w", n.Pod, err)
		default:
			if term := ended(containerStatus(p, n.Container), restarts); term != nil {
				rf.ExitCode = int(term.ExitCode)
				est := died
				if est.IsZero() {
					est = time.Now()
				}
				rf.Finished = finishTime(term.FinishedAt.Time, est, rf.SignalSent)
				if rf.Kind != results.FaultSIGTERM {
					exited = time.Now()
				}
			}
		}
		if !exited.IsZero() {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s to end: %w", n.Pod, ctx.Err())
		case <-time.After(t.opts.Poll):
		}
	}
	w := &restartWatch{done: make(chan struct{}), r: Restart{Pod: n.Pod, Kind: rf.Kind, Exited: exited}}
	t.mu.Lock()
	t.restarts[n.Pod] = w
	t.mu.Unlock()
	go t.watchRestart(n, uid, restarts, w)
	return nil
}

// finishTime is a container's end: the API keeps the kubelet's finish time
// only to the second (kubelet, the second it began), so kbf's estimate est
// is taken within that second, and never before the signal.
func finishTime(kubelet, est, signal time.Time) time.Time {
	if kubelet.IsZero() {
		return est.UTC()
	}
	lo, hi := kubelet, kubelet.Add(time.Second-time.Millisecond)
	at := est
	switch {
	case at.Before(lo):
		at = lo
	case at.After(hi):
		at = hi
	}
	if at.Before(signal) {
		at = signal
	}
	return at.UTC()
}

// ended is the container's terminated state when it has ended since it had
// restarts restarts: terminated now, or restarted already (its last state).
func ended(cs *corev1.ContainerStatus, restarts int32) *corev1.ContainerStateTerminated {
	switch {
	case cs == nil:
		return nil
	case cs.State.Terminated != nil:
		return cs.State.Terminated
	case cs.RestartCount > restarts:
		if cs.LastTerminationState.Terminated != nil {
			return cs.LastTerminationState.Terminated
		}
		return &corev1.ContainerStateTerminated{ExitCode: -1}
	}
	return nil
}

// watchRestart polls until the node runs again: its container restarted
// past restarts, or a new pod of its name (not uid) running it.
func (t *Cluster) watchRestart(n Node, uid types.UID, restarts int32, w *restartWatch) {
	defer close(w.done)
	for {
		p, err := t.api.Pod(t.watchCtx, n.Pod)
		if err == nil {
			cs := containerStatus(p, n.Container)
			if cs != nil && cs.State.Running != nil && (p.UID != uid || cs.RestartCount > restarts) {
				w.r.Running, w.r.RestartCount = time.Now(), cs.RestartCount
				return
			}
		} else if !apierrors.IsNotFound(err) {
			w.err = err
		}
		select {
		case <-t.watchCtx.Done():
			if w.err == nil {
				w.err = t.watchCtx.Err()
			}
			return
		case <-time.After(t.opts.Poll):
		}
	}
}

// Restart undoes a fault: it heals a cut (the rules removed, the ephemeral
// container ended), continues a paused JVM, or waits until the
// kubelet has restarted a killed container, or the pod's controller made a
// deleted pod again, and says how long the node was down. A node kbf did
// not fault that runs is cluster.ErrAlreadyRunning.
func (t *Cluster) Restart(ctx context.Context, service string) error {
	n, ok := t.node(service)
	if !ok {
		return fmt.Errorf("restart %s: no such node", service)
	}
	t.mu.Lock()
	paused, w, cut := t.paused[n.Pod], t.restarts[n.Pod], t.cuts[n.Pod]
	t.mu.Unlock()
	if cut != "" {
		return t.heal(ctx, n, cut)
	}
	if paused {
		if err := t.signal(ctx, n, "CONT"); err != nil {
			return fmt.Errorf("continue %s: %w", n.Pod, err)
		}
		t.mu.Lock()
		delete(t.paused, n.Pod)
		t.mu.Unlock()
		return nil
	}
	if w == nil {
		return fmt.Errorf("restart %s: %w", n.Pod, cluster.ErrAlreadyRunning)
	}
	select {
	case <-w.done:
	case <-ctx.Done():
		return fmt.Errorf("wait for %s to run again: %w", n.Pod, ctx.Err())
	}
	t.mu.Lock()
	delete(t.restarts, n.Pod)
	if w.err == nil {
		t.done = append(t.done, w.r)
	}
	t.mu.Unlock()
	if w.err != nil {
		return fmt.Errorf("wait for %s to run again: %w", n.Pod, w.err)
	}
	who := "the kubelet restarted"
	if w.r.Kind == results.FaultSIGTERM {
		who = "its controller made again"
	}
	t.say("recovery: %s %s %.1f s after it ended (restart count %d)", who, n.Pod, w.r.Took().Seconds(), w.r.RestartCount)
	if err := t.refreshAddr(ctx, n); err != nil {
		return err
	}
	if w.r.Kind == results.FaultSIGTERM && t.reconnect != nil {
		return t.reconnect(ctx)
	}
	return nil
}

// refreshAddr reads a node's address again: a pod made again has another IP.
func (t *Cluster) refreshAddr(ctx context.Context, n Node) error {
	p, err := t.api.Pod(ctx, n.Pod)
	if err != nil {
		return fmt.Errorf("restart %s: %w", n.Pod, err)
	}
	m, ok, err := nodeOf(p)
	if err != nil || !ok {
		return err
	}
	for i := range t.nodes {
		if t.nodes[i].Pod == n.Pod {
			t.nodes[i] = m
		}
	}
	return nil
}

// catchOutput keeps the output of a pod about to be deleted, followed to
// its end, for CollectLogs: the API forgets a deleted pod's.
func (t *Cluster) catchOutput(n Node) {
	var buf bytes.Buffer
	t.mu.Lock()
	t.caught[n.Pod] = &buf
	t.mu.Unlock()
	rc, err := t.api.Logs(t.watchCtx, n.Pod, n.Container, false, true)
	if err != nil {
		return
	}
	// Read whole before the pod goes; CollectLogs comes long after.
	var mu = &t.mu
	go func() {
		defer rc.Close()
		chunk := make([]byte, 32<<10)
		for {
			k, err := rc.Read(chunk)
			mu.Lock()
			buf.Write(chunk[:k])
			mu.Unlock()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					mu.Lock()
					fmt.Fprintf(&buf, "\n(kbf: the output of %s before its deletion is cut short: %v)\n", n.Pod, err)
					mu.Unlock()
				}
				return
			}
		}
	}()
}

func containerStatus(p *corev1.Pod, name string) *corev1.ContainerStatus {
	for i := range p.Status.ContainerStatuses {
		if p.Status.ContainerStatuses[i].Name == name {
			return &p.Status.ContainerStatuses[i]
		}
	}
	return nil
}

// waitPod polls the node's pod until ok says so.
func (t *Cluster) waitPod(ctx context.Context, n Node, what string, ok func(*corev1.Pod) bool) (*corev1.Pod, error) {
	for {
		p, err := t.api.Pod(ctx, n.Pod)
		var fe *ForbiddenError
		switch {
		case errors.As(err, &fe):
			return nil, err
		case err == nil && ok(p):
			return p, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("pod %s: not %s: %w", n.Pod, what, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}
