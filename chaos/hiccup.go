package chaos

// The hiccups a healthy broker may have besides a pause: its container
// held to a sliver of a CPU (cpu-starve), through the engine's CPU quota,
// and a share of its packets dropped at random (packet-loss), through
// iptables' statistic match in its network namespace, in the cut's own
// chains, so that healing a cut heals it too. Each is undone by Restart,
// which gives the broker its CPU back or removes the rules.

import (
	"context"
	"fmt"
	"strconv"

	"github.com/docker/docker/api/types/container"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// cpuPeriod is the CFS period a cpu-starve's quota is a share of (the
// kernel's and the engine's default, 100 ms).
const cpuPeriod = 100_000

// unlimitedQuota is the CFS quota of no limit; the engine leaves a zero
// quota as it was.
const unlimitedQuota = -1

// StarveResources are the container resources that hold a container to
// cpus of a CPU, given its resources now: its NanoCPUs when it has some
// (the engine refuses a quota beside them), a CFS quota otherwise.
func StarveResources(now container.Resources, cpus float64) container.Resources {
	if now.NanoCPUs > 0 {
		return container.Resources{NanoCPUs: int64(cpus * 1e9)}
	}
	return container.Resources{CPUPeriod: cpuPeriod, CPUQuota: int64(cpus * cpuPeriod)}
}

// RestoreResources are the resources that give a starved container back
// what it had before (was): its NanoCPUs, or its quota, no limit when it
// had none.
func RestoreResources(was container.Resources) container.Resources {
	if was.NanoCPUs > 0 {
		return container.Resources{NanoCPUs: was.NanoCPUs}
	}
	r := container.Resources{CPUQuota: was.CPUQuota, CPUPeriod: was.CPUPeriod}
	if r.CPUQuota <= 0 {
		r.CPUQuota = unlimitedQuota
	}
	if r.CPUPeriod <= 0 {
		r.CPUPeriod = cpuPeriod
	}
	return r
}

// starve holds the broker's container to f.CPUs of a CPU and remembers
// what it had, for Restart.
func (in *Injector) starve(ctx context.Context, f cluster.Fault, rf *results.Fault) error {
	name := in.container(f.Broker)
	ci, err := in.docker.ContainerInspect(ctx, name)
	if err != nil {
		return fmt.Errorf("cpu-starve %s: %w", f.Broker, err)
	}
	var was container.Resources
	if ci.ContainerJSONBase != nil && ci.HostConfig != nil {
		was = ci.HostConfig.Resources
	}
	rf.CPUs = f.CPUs
	rf.SignalSent = in.now()
	if _, err := in.docker.ContainerUpdate(ctx, name, container.UpdateConfig{Resources: StarveResources(was, f.CPUs)}); err != nil {
		return fmt.Errorf("cpu-starve %s to %g CPU: %w", f.Broker, f.CPUs, err)
	}
	rf.Starved = in.now() // the engine answers once the cgroup holds the quota
	in.mu.Lock()
	in.starved[f.Broker] = was
	in.mu.Unlock()
	return nil
}

// unstarve gives a broker starve held back its CPU, reporting whether it
// was starved.
func (in *Injector) unstarve(ctx context.Context, broker string) (bool, error) {
	in.mu.Lock()
	was, ok := in.starved[broker]
	in.mu.Unlock()
	if !ok {
		return false, nil
	}
	if _, err := in.docker.ContainerUpdate(ctx, in.container(broker), container.UpdateConfig{Resources: RestoreResources(was)}); err != nil {
		return true, fmt.Errorf("give %s its CPU back: %w", broker, err)
	}
	in.mu.Lock()
	delete(in.starved, broker)
	in.mu.Unlock()
	return true, nil
}

// LossRules are the rules of a packet-loss of share p (0 to 1): every
// packet in and out on a link but the loopback dropped with probability
// p, each on its own.
func LossRules(p float64) (in, out [][]string) {
	prob := strconv.FormatFloat(p, 'f', 4, 64)
	stat := []string{"-m", "statistic", "--mode", "random", "--probability", prob, "-j", "DROP"}
	return [][]string{append([]string{"!", "-i", "lo"}, stat...)}, [][]string{append([]string{"!", "-o", "lo"}, stat...)}
}

// lose drops f.Loss of the broker's packets, in the cut's chains.
func (in *Injector) lose(ctx context.Context, f cluster.Fault, rf *results.Fault) error {
	if in.netns == nil {
		return fmt.Errorf("%s: %w", f.Kind, errNetworkFaults)
	}
	if err := in.netns.Check(); err != nil {
		return fmt.Errorf("%s %s: %w", f.Kind, f.Broker, err)
	}
	self, err := in.link(ctx, f.Broker)
	if err != nil {
		return fmt.Errorf("%s %s: %w", f.Kind, f.Broker, err)
	}
	rf.Loss = f.Loss
	rf.SignalSent = in.now()
	rin, rout := LossRules(f.Loss)
	if err := in.hook(ctx, f.Kind, f.Broker, self.Pid, rin, rout); err != nil {
		return err
	}
	rf.Cut = in.now() // the rules are hooked in: from here on packets drop
	return nil
}
