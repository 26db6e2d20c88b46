package k8s

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/results"
)

// A network cut is made as on Docker, by packet filters in the broker's
// network namespace, here the pod's: an ephemeral container added to the
// broker's pod shares it, and runs iptables as root with NET_ADMIN. The
// cut's rules go into two chains of kbf's, hooked first into INPUT and
// OUTPUT, so that healing removes exactly what the cut added.
//
// An ephemeral container cannot be removed from its pod, nor run again:
// heal removes the rules through it, then ends it, and it stays in the pod,
// stopped, until the pod is made again. Each trial's cut adds a new one.

// NetContainerPrefix begins the name of every ephemeral container kbf adds
// to a broker's pod to cut its links.
const NetContainerPrefix = "kbf-net-"

// netDone is the file whose creation ends the ephemeral container: kbf
// makes it once it has healed the cut.
const netDone = "/tmp/kbf-net-done"

// netIdle is the ephemeral container's command: it waits, doing nothing,
// for kbf's exec'd iptables, until heal makes netDone.
var netIdle = []string{"sh", "-c", "while [ ! -e " + netDone + " ]; do sleep 1; done"}

// netReadyTimeout bounds the wait for the ephemeral container to run.
const netReadyTimeout = time.Minute

// netRules are the rules of a cut of kind: what is dropped coming in and
// going out. peers are the pod IPs the cut spares (isolate-clients: the
// cluster's other nodes) or cuts (isolate-controller: the controllers;
// isolate-replication: the other brokers).
// Clients on Kubernetes come from anywhere (other pods, the nodes, a load
// balancer), so isolate-clients keeps the cluster's nodes and drops the
// rest.
func netRules(kind results.FaultKind, peers []string) (in, out [][]string, err error) {
	if kind != results.FaultIsolateClients {
		return chaos.CutRules(kind, peers)
	}
	for _, ip := range peers {
		in = append(in, []string{"-s", ip, "-j", "RETURN"})
		out = append(out, []string{"-d", ip, "-j", "RETURN"})
	}
	in = append(in, []string{"!", "-i", "lo", "-j", "DROP"})
	out = append(out, []string{"!", "-o", "lo", "-j", "DROP"})
	return in, out, nil
}

// healCmds unhook, flush and delete the cut's chains, ignoring the ones
// that are not there, then fail (exit 1) if a chain of kbf's is left.
func healCmds() string {
	var b strings.Builder
	for _, c := range chaos.HealCommands() {
		fmt.Fprintf(&b, "iptables -w %s 2>/dev/null\n", strings.Join(c, " "))
	}
	fmt.Fprintf(&b, "if iptables -w -n -L %s >/dev/null 2>&1; then echo 'chain %s is still there' >&2; exit 1; fi\n", chaos.CutChain, chaos.CutChain)
	return b.String()
}

// cutScript clears an old cut, then adds the chains with their rules, and
// hooks them last, so that the whole cut takes effect at once. A command
// that fails says which and undoes what was added.
func cutScript(in, out [][]string) string {
	var b strings.Builder
	b.WriteString(healCmds())
	b.WriteString("undo() {\n" + healCmds() + "}\n")
	for _, c := range chaos.CutCommands(in, out) {
		args := strings.Join(c, " ")
		fmt.Fprintf(&b, "iptables -w %s || { echo 'iptables %s failed' >&2; undo; exit 1; }\n", args, args)
	}
	return b.String()
}

// netCheck is run in the ephemeral container before any cut: iptables must
// be there and allowed to read the pod's filter table.
const netCheck = `command -v iptables >/dev/null || { echo "no iptables in the image" >&2; exit 3; }
iptables -w -n -L INPUT >/dev/null`

// netContainer returns the running ephemeral container of kbf's in n's
// pod, adding one when none runs: in the image Options.NetImage names,
// else the broker's own, as root with NET_ADMIN. It checks that iptables
// runs there, and clears a cut an interrupted run left. What the cluster
// refuses is one line saying what to change.
func (t *Cluster) netContainer(ctx context.Context, n Node) (string, error) {
	t.mu.Lock()
	name := t.netNames[n.Pod]
	t.mu.Unlock()
	if name != "" {
		return name, nil
	}
	p, err := t.api.Pod(ctx, n.Pod)
	if err != nil {
		return "", err
	}
	for _, s := range p.Status.EphemeralContainerStatuses {
		if strings.HasPrefix(s.Name, NetContainerPrefix) && s.State.Running != nil {
			name = s.Name
		}
	}
	image := t.opts.NetImage
	if image == "" {
		image = n.Image
	}
	if name == "" {
		name = fmt.Sprintf("%s%d", NetContainerPrefix, time.Now().Unix())
		root := int64(0)
		no := false
		ec := corev1.EphemeralContainer{
			EphemeralContainerCommon: corev1.EphemeralContainerCommon{
				Name: name, Image: image, Command: netIdle, ImagePullPolicy: corev1.PullIfNotPresent,
				SecurityContext: &corev1.SecurityContext{
					RunAsUser: &root, RunAsNonRoot: &no,
					Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}},
				},
			},
		}
		if err := t.api.AddEphemeralContainer(ctx, n.Pod, ec); err != nil {
			return "", fmt.Errorf("cut %s's links: %w", n.Pod, err)
		}
		if err := t.awaitNetContainer(ctx, n.Pod, name, image); err != nil {
			return "", err
		}
	}
	if _, stderr, err := t.api.Exec(ctx, n.Pod, name, []string{"sh", "-c", netCheck}); err != nil {
		// Of no use: ended rather than left idle as root with NET_ADMIN.
		t.api.Exec(context.WithoutCancel(ctx), n.Pod, name, []string{"touch", netDone})
		msg := strings.TrimSpace(stderr)
		if exitStatus(err) == 3 {
			return "", fmt.Errorf("cut %s's links: image %s has no iptables: name one that has with --net-image", n.Pod, image)
		}
		return "", fmt.Errorf("cut %s's links: iptables in the ephemeral container %s fails (%s: %w): the cluster may refuse NET_ADMIN or root there", n.Pod, name, msg, err)
	}
	if _, stderr, err := t.api.Exec(ctx, n.Pod, name, []string{"sh", "-c", healCmds()}); err != nil {
		return "", fmt.Errorf("cut %s's links: clear an old cut: %w (%s)", n.Pod, err, strings.TrimSpace(stderr))
	}
	t.mu.Lock()
	t.netNames[n.Pod] = name
	t.mu.Unlock()
	return name, nil
}

// awaitNetContainer waits until the ephemeral container runs, and says in
// one line why it does not: an image the node cannot pull, a runtime that
// refuses it.
func (t *Cluster) awaitNetContainer(ctx context.Context, pod, name, image string) error {
	ctx, cancel := context.WithTimeout(ctx, netReadyTimeout)
	defer cancel()
	last := "not started"
	for {
		p, err := t.api.Pod(ctx, pod)
		if err == nil {
			for _, s := range p.Status.EphemeralContainerStatuses {
				if s.Name != name {
					continue
				}
				switch st := s.State; {
				case st.Running != nil:
					return nil
				case st.Terminated != nil:
					return fmt.Errorf("cut %s's links: the ephemeral container %s ended at once (exit %d, %s %s)", pod, name, st.Terminated.ExitCode, st.Terminated.Reason, st.Terminated.Message)
				case st.Waiting != nil && st.Waiting.Reason != "" && st.Waiting.Reason != "ContainerCreating":
					last = st.Waiting.Reason + " " + st.Waiting.Message
					switch st.Waiting.Reason {
					case "ErrImageNeverPull", "ErrImagePull", "ImagePullBackOff", "InvalidImageName":
						return fmt.Errorf("cut %s's links: the node cannot run image %s in an ephemeral container (%s): name an image the node has, with iptables, with --net-image", pod, image, strings.TrimSpace(last))
					case "CreateContainerError", "CreateContainerConfigError", "RunContainerError":
						return fmt.Errorf("cut %s's links: the runtime refuses the ephemeral container %s (%s)", pod, name, strings.TrimSpace(last))
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cut %s's links: the ephemeral container %s did not run within %v (%s)", pod, name, netReadyTimeout, strings.TrimSpace(last))
		case <-time.After(t.opts.Poll):
		}
	}
}

// PrepareNet readies a network cut of broker before the trial starts: the
// ephemeral container added and iptables checked in it, so that what the
// cluster refuses is said before the fault, and the cut is made at once.
func (t *Cluster) PrepareNet(ctx context.Context, broker string) error {
	n, ok := t.node(broker)
	if !ok {
		return fmt.Errorf("cut %s's links: no such node", broker)
	}
	_, err := t.netContainer(ctx, n)
	return err
}

// cut makes a network fault of kind on n: the rules through n's ephemeral
// container. controllers are the pods an isolate-controller cuts it from.
func (t *Cluster) cut(ctx context.Context, n Node, kind results.FaultKind, controllers []string) error {
	name, err := t.netContainer(ctx, n)
	if err != nil {
		return err
	}
	var peers []string
	switch kind {
	case results.FaultIsolateController:
		for _, c := range controllers {
			if c == n.Pod {
				continue
			}
			ip, err := t.podIP(ctx, c)
			if err != nil {
				return fmt.Errorf("%s %s: controller %s: %w", kind, n.Pod, c, err)
			}
			peers = append(peers, ip)
		}
	case results.FaultIsolateClients, results.FaultIsolateReplication:
		for _, m := range t.nodes {
			if m.Pod == n.Pod || (kind == results.FaultIsolateReplication && !m.Broker) {
				continue
			}
			ip, err := t.podIP(ctx, m.Pod)
			if err != nil {
				return fmt.Errorf("%s %s: node %s: %w", kind, n.Pod, m.Pod, err)
			}
			peers = append(peers, ip)
		}
	}
	in, out, err := netRules(kind, peers)
	if err != nil {
		return fmt.Errorf("%s %s: %w", kind, n.Pod, err)
	}
	if _, stderr, err := t.api.Exec(ctx, n.Pod, name, []string{"sh", "-c", cutScript(in, out)}); err != nil {
		return fmt.Errorf("%s %s: %w (%s)", kind, n.Pod, err, strings.TrimSpace(stderr))
	}
	t.mu.Lock()
	t.cuts[n.Pod] = name
	t.mu.Unlock()
	return nil
}

// heal removes the cut from n's pod, then ends the ephemeral container,
// which stays in the pod, stopped.
func (t *Cluster) heal(ctx context.Context, n Node, name string) error {
	if _, stderr, err := t.api.Exec(ctx, n.Pod, name, []string{"sh", "-c", healCmds() + "touch " + netDone}); err != nil {
		return fmt.Errorf("heal %s: %w (%s)", n.Pod, err, strings.TrimSpace(stderr))
	}
	t.mu.Lock()
	delete(t.cuts, n.Pod)
	delete(t.netNames, n.Pod)
	t.mu.Unlock()
	return nil
}

// podIP is a pod's IP now.
func (t *Cluster) podIP(ctx context.Context, pod string) (string, error) {
	p, err := t.api.Pod(ctx, pod)
	if err != nil {
		return "", err
	}
	if p.Status.PodIP == "" {
		return "", fmt.Errorf("pod %s has no IP", pod)
	}
	return p.Status.PodIP, nil
}
