package chaos

// Network faults cut some of a broker's links while its process runs on. They
// are packet filters in the broker container's own network namespace: the
// kernels kbf runs on need not have netem (tc), but every Linux with Docker
// has iptables. The rules go into two chains of their own, so healing
// removes exactly what the cut added, and a half-made cut heals as well as
// a whole one. Nothing is sent anywhere: the rules only drop packets that
// the cluster's own nodes and the probe exchange.
//
// The host enters the namespace with nsenter, which needs root; the images
// need nothing, so the official image works as well as kbf's own.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/kbf-project/kbf/results"
)

// The chains a cut adds, hooked first into INPUT and OUTPUT.
const (
	chainIn  = "KBF-CUT-IN"
	chainOut = "KBF-CUT-OUT"
)

// CutChain is the chain a cut's incoming rules go into; its presence
// says a cut of kbf's is in place.
const CutChain = chainIn

// CutCommands are the iptables commands (without "iptables") that make a
// cut of the rules in and out: kbf's two chains with the rules, hooked
// last, so that the whole cut takes effect at once. Run HealCommands
// first: a cut left over would make -N fail.
func CutCommands(in, out [][]string) [][]string {
	cmds := [][]string{{"-N", chainIn}, {"-N", chainOut}}
	for _, r := range in {
		cmds = append(cmds, append([]string{"-A", chainIn}, r...))
	}
	for _, r := range out {
		cmds = append(cmds, append([]string{"-A", chainOut}, r...))
	}
	return append(cmds, []string{"-I", "INPUT", "1", "-j", chainIn}, []string{"-I", "OUTPUT", "1", "-j", chainOut})
}

// HealCommands unhook, flush and delete the cut's chains. Each fails only
// when its rule or chain is absent, so they undo a half-made cut too;
// afterwards CutChain must be gone.
func HealCommands() [][]string {
	return [][]string{
		{"-D", "INPUT", "-j", chainIn}, {"-D", "OUTPUT", "-j", chainOut},
		{"-F", chainIn}, {"-F", chainOut}, {"-X", chainIn}, {"-X", chainOut},
	}
}

// NetnsRunner runs iptables in the network namespace of the process pid.
type NetnsRunner interface {
	// Check says whether the cuts can be made here at all (root, the
	// tools), before a fault is injected.
	Check() error
	Iptables(ctx context.Context, pid int, args ...string) error
}

// Nsenter is the NetnsRunner of the host: nsenter -t PID -n iptables ARGS.
type Nsenter struct{}

// errNetworkFaults says why network faults cannot run here.
var errNetworkFaults = errors.New("network faults need root and the host's nsenter and iptables")

// Check reports whether the host can run network faults.
func (Nsenter) Check() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: run kbf as root (sudo) for this fault", errNetworkFaults)
	}
	for _, tool := range []string{"nsenter", "iptables"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%w: %s is not on PATH (Debian: apt-get install util-linux iptables)", errNetworkFaults, tool)
		}
	}
	return nil
}

// Iptables runs one iptables command in the namespace, waiting for the
// xtables lock rather than failing on it.
func (Nsenter) Iptables(ctx context.Context, pid int, args ...string) error {
	cmd := exec.CommandContext(ctx, "nsenter", append([]string{"-t", fmt.Sprint(pid), "-n", "iptables", "-w"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return fmt.Errorf("iptables %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return nil
}

// Link is what a cut needs to know of a container's network: its init
// process and its address and gateway on the cluster's network.
type Link struct {
	Pid     int
	IP      string
	Gateway string
}

// link inspects a running container's network.
func (in *Injector) link(ctx context.Context, service string) (Link, error) {
	ci, err := in.docker.ContainerInspect(ctx, in.container(service))
	if err != nil {
		return Link{}, err
	}
	if ci.State == nil || !ci.State.Running || ci.State.Pid == 0 {
		return Link{}, fmt.Errorf("container %s is not running", in.container(service))
	}
	l := Link{Pid: ci.State.Pid}
	if ci.NetworkSettings != nil {
		for _, ep := range ci.NetworkSettings.Networks {
			if ep != nil && ep.IPAddress != "" {
				l.IP, l.Gateway = ep.IPAddress, ep.Gateway
				break
			}
		}
	}
	if l.IP == "" {
		return Link{}, fmt.Errorf("container %s has no address on a network", in.container(service))
	}
	return l, nil
}

// CutRules are the rules of a cut that the place a broker lives does not
// change: what is dropped in (from) and out (to). isolate drops all but
// the loopback; isolate-controller and isolate-replication drop the peers'
// addresses (the controllers, the other brokers). How the clients' packets
// are told apart (isolate-clients) is each place's own, and is an error
// here, as is a kind that is not a network fault.
func CutRules(kind results.FaultKind, peers []string) (in, out [][]string, err error) {
	switch kind {
	case results.FaultIsolate:
		return [][]string{{"!", "-i", "lo", "-j", "DROP"}}, [][]string{{"!", "-o", "lo", "-j", "DROP"}}, nil
	case results.FaultIsolateController, results.FaultIsolateReplication:
		if len(peers) == 0 {
			if kind == results.FaultIsolateReplication {
				return nil, nil, errors.New("no other broker to cut it from")
			}
			return nil, nil, errors.New("no controller to cut it from")
		}
		for _, ip := range peers {
			in = append(in, []string{"-s", ip, "-j", "DROP"})
			out = append(out, []string{"-d", ip, "-j", "DROP"})
		}
		return in, out, nil
	}
	return nil, nil, fmt.Errorf("%q is not a network fault", kind)
}

// cutRules are the rules of a cut of a container: CutRules, and for
// isolate-clients the network's gateway, since clients reach a broker
// through its published port, so their packets come from the gateway,
// while the nodes talk to each other directly. peers are the nodes the
// cut separates the broker from.
func cutRules(kind results.FaultKind, self Link, peers []Link) (in, out [][]string, err error) {
	if kind != results.FaultIsolateClients {
		ips := make([]string, len(peers))
		for i, p := range peers {
			ips[i] = p.IP
		}
		return CutRules(kind, ips)
	}
	if self.Gateway == "" {
		return nil, nil, errors.New("its network has no gateway: the clients' packets cannot be told apart")
	}
	return [][]string{{"-s", self.Gateway, "-j", "DROP"}}, [][]string{{"-d", self.Gateway, "-j", "DROP"}}, nil
}

// cut applies a network fault to broker, cutting it from controllers (by
// service) for results.FaultIsolateController and from the other brokers
// for results.FaultIsolateReplication. On error, what was added is removed.
func (in *Injector) cut(ctx context.Context, broker string, kind results.FaultKind, controllers, brokers []string) error {
	if in.netns == nil {
		return fmt.Errorf("%s: %w", kind, errNetworkFaults)
	}
	self, err := in.link(ctx, broker)
	if err != nil {
		return fmt.Errorf("%s %s: %w", kind, broker, err)
	}
	peers, err := in.peerLinks(ctx, broker, kind, controllers, brokers)
	if err != nil {
		return err
	}
	inRules, outRules, err := cutRules(kind, self, peers)
	if err != nil {
		return fmt.Errorf("%s %s: %w", kind, broker, err)
	}
	return in.hook(ctx, kind, broker, self.Pid, inRules, outRules)
}

// hook puts the rules in and out into kbf's chains in the namespace of
// pid, clearing an old cut first; on error, what was added is removed.
func (in *Injector) hook(ctx context.Context, kind results.FaultKind, broker string, pid int, inRules, outRules [][]string) error {
	// A cut left over from an interrupted run would make -N fail.
	if err := in.heal(ctx, pid); err != nil {
		return fmt.Errorf("%s %s: clear an old cut: %w", kind, broker, err)
	}
	for _, c := range CutCommands(inRules, outRules) {
		if err := in.netns.Iptables(ctx, pid, c...); err != nil {
			herr := in.heal(context.WithoutCancel(ctx), pid)
			return errors.Join(fmt.Errorf("%s %s: %w", kind, broker, err), herr)
		}
	}
	return nil
}

// peerLinks are the links of the nodes a cut of kind separates broker
// from: the controllers, or the other brokers; none for the other cuts.
func (in *Injector) peerLinks(ctx context.Context, broker string, kind results.FaultKind, controllers, brokers []string) ([]Link, error) {
	role, svcs := "controller", controllers
	switch kind {
	case results.FaultIsolateController:
	case results.FaultIsolateReplication:
		role, svcs = "broker", brokers
	default:
		return nil, nil
	}
	var peers []Link
	for _, c := range svcs {
		if c == broker {
			continue
		}
		l, err := in.link(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %s %s: %w", kind, broker, role, c, err)
		}
		peers = append(peers, l)
	}
	return peers, nil
}

// Heal removes any cut from broker's network; a broker with none is left as
// it is. A stopped container has no namespace left to heal.
func (in *Injector) Heal(ctx context.Context, broker string) error {
	if in.netns == nil {
		return nil
	}
	self, err := in.link(ctx, broker)
	if err != nil {
		return nil // not running: nothing of a cut survives
	}
	if err := in.heal(ctx, self.Pid); err != nil {
		return fmt.Errorf("heal %s: %w", broker, err)
	}
	return nil
}

// heal unhooks, flushes and deletes the cut's chains, ignoring the ones that
// are not there: it undoes a half-made cut too.
func (in *Injector) heal(ctx context.Context, pid int) error {
	for _, c := range HealCommands() {
		in.netns.Iptables(ctx, pid, c...) // fails only when absent
	}
	// What must hold afterwards: no chain of ours is left.
	if err := in.netns.Iptables(ctx, pid, "-L", chainIn, "-n"); err == nil {
		return fmt.Errorf("chain %s is still there", chainIn)
	}
	return nil
}

// healIfCut heals broker when a cut of kbf's is in place, reporting whether
// there was one.
func (in *Injector) healIfCut(ctx context.Context, broker string) (bool, error) {
	if in.netns == nil {
		return false, nil
	}
	self, err := in.link(ctx, broker)
	if err != nil {
		return false, nil // not running: no cut to heal
	}
	if in.netns.Iptables(ctx, self.Pid, "-L", chainIn, "-n") != nil {
		return false, nil
	}
	if err := in.heal(ctx, self.Pid); err != nil {
		return true, fmt.Errorf("heal %s: %w", broker, err)
	}
	return true, nil
}
