// Package docker is the trial protocol's target (cluster.Cluster) for a
// Kafka cluster kbf runs in Docker, kbf's embedded one or a user's compose
// file: compose brings it up and describes it, chaos injects the faults
// into its containers, kafkaadmin asks its brokers and its quorum.
//
// It states what it can do up front (Supports): the network faults need
// root on the host, a full disk needs the faulted broker's log directory
// to be a tmpfs of its own (ForFault gives it one). A node that logs only
// to its standard output, as the official image does by default, has its
// logs read from that output, split by logger.
package docker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/platform/adminhealth"
	"github.com/kbf-project/kbf/results"
)

// Cluster is a compose cluster as the trial protocol asks of it. The
// embedded compose.Cluster answers what compose knows (the nodes, the
// addresses, Down and Close for the commands that manage it).
type Cluster struct {
	*compose.Cluster
	// Health answers the protocol's health questions through the brokers'
	// admin API, as every target's does; Up is the cluster's own.
	adminhealth.Health
	inj  *chaos.Injector
	opts compose.Options
	// netCheck says whether the host can cut a container's links:
	// chaos.Nsenter's Check, replaced in tests.
	netCheck func() error
	// controllers asks the controllers themselves about their quorum, at
	// their containers' addresses (compose.Cluster.ControllerAddrs).
	controllers *adminhealth.Controllers
	// disks are the FUSE layers under brokers' log directories
	// (ForDiskFault); nil without.
	disks *chaos.Disks
}

var _ cluster.Cluster = (*Cluster)(nil)

// New makes the target of the cluster opts describes, contacting neither
// Docker nor Kafka. Configuration errors wrap compose.ErrInvalid.
func New(opts compose.Options) (*Cluster, error) {
	if err := diskMounts(&opts); err != nil {
		return nil, err
	}
	cl, err := compose.New(opts)
	if err != nil {
		return nil, err
	}
	disks := newDisks(opts)
	inj := chaos.New(cl.Docker(), cl.ContainerName).WithDisk(cl.Exec, cl.LogDir).WithDisks(disks)
	ctl := adminhealth.NewControllers(opts.Security, cl.ControllerAddrs)
	return &Cluster{Cluster: cl, Health: adminhealth.New(cl.Admin()), inj: inj, opts: opts, netCheck: chaos.Nsenter{}.Check, controllers: ctl, disks: disks}, nil
}

// ForFault shapes opts for a fault of kind on broker: the broker of a
// disk-full fault gets a log directory of its own, a tmpfs of size, which
// the fault fills; the other faults' clusters have none, nor has a
// cluster whose broker is found only at the fault (broker "").
func ForFault(opts *compose.Options, kind results.FaultKind, broker, size string) {
	if kind == results.FaultDiskFull && broker != "" {
		opts.DiskLimits = map[string]string{broker: size}
	}
}

// Supports says whether the target can inject kind into broker: a network
// fault or a packet loss needs root and the host's nsenter and iptables, a disk-full fault
// a tmpfs log directory for the broker (ForFault).
func (t *Cluster) Supports(kind results.FaultKind, broker string) error {
	switch {
	case kind.Network(), kind == results.FaultPacketLoss:
		if err := t.netCheck(); err != nil {
			return cluster.Unsupportedf("fault %s: %v", kind, err)
		}
	case kind == results.FaultExternal:
		// kbf's own cluster is kbf's to fault, and its recovery restarts
		// what a fault stopped: a fault made by something else would be
		// undone behind that something's back. Reached by its addresses,
		// the same cluster is a remote target, which undoes nothing.
		return cluster.Unsupportedf("fault %s: kbf faults its own Docker cluster itself; kbf run --fault external --bootstrap ADDRS measures a fault something else makes", kind)
	case kind == results.FaultDiskFull && t.opts.DiskLimits[broker] == "":
		return cluster.Unsupportedf("fault %s: %s's log directory is no tmpfs of its own to fill", kind, broker)
	case kind.FaultFS():
		return t.supportsDisk(kind, broker)
	}
	return nil
}

// Quorum asks the controllers themselves about the metadata quorum, at
// their containers' addresses on the cluster's network, and the brokers
// where the host does not reach those (Docker Desktop): a broker forwards
// the question to the controller it believes leads, which after a
// controller fault is the dead one for seconds more.
func (t *Cluster) Quorum() cluster.Quorum {
	return adminhealth.Quorum(t.Cluster.Admin, t.Cluster.Service, "no service of the cluster", t.controllers)
}

// Observer is nil: kbf faults its own Docker cluster itself (Supports).
func (t *Cluster) Observer() cluster.Observer { return nil }

// Close closes the controllers' clients, then the Docker and Kafka ones.
func (t *Cluster) Close() error {
	if t.controllers != nil {
		t.controllers.Close()
	}
	return errors.Join(t.closeDisks(), t.Cluster.Close())
}

// Up brings the cluster up, or reuses it, and waits until it is whole.
// compose's Up takes the cluster's lock (compose.Cluster.Lock); a disk
// fault's layers take it before they are mounted: a cluster another kbf
// uses is refused untouched.
func (t *Cluster) Up(ctx context.Context) (cluster.UpInfo, error) {
	if t.disks != nil {
		if err := t.Lock(); err != nil {
			return cluster.UpInfo{}, err
		}
		// The layers serve the brokers' log directories: mounted before
		// the brokers start, and what they hold then taken as written
		// back, so that a power loss takes only the trial's writes.
		if err := t.mountDisks(ctx); err != nil {
			return cluster.UpInfo{}, err
		}
	}
	up, err := t.Cluster.Up(ctx)
	if err != nil {
		return cluster.UpInfo{}, err
	}
	if t.disks != nil {
		t.disks.Settle()
	}
	return cluster.UpInfo{Reused: up.Reused, Took: up.Took, Changes: up.Changes()}, nil
}

// Inject injects f into its broker's container.
func (t *Cluster) Inject(ctx context.Context, f cluster.Fault) (results.Fault, error) {
	return t.inj.Inject(ctx, f)
}

// Restart starts, unpauses or heals a faulted container.
func (t *Cluster) Restart(ctx context.Context, service string) error {
	return t.inj.Restart(ctx, service)
}

// CollectLogs copies a node's log files since since into dst. A node that
// logs only to its standard output (a user's compose file with the
// official image's default) has them split from that output by logger.
func (t *Cluster) CollectLogs(ctx context.Context, service string, since time.Time, dst string) error {
	err := t.inj.CollectLogs(ctx, service, since, dst)
	if !t.Cluster.LogsToStdout(service) {
		return err
	}
	// No log4j configuration is given, so the image's own decides: the
	// official image's sends everything to the standard output, an image
	// with Kafka's distribution configuration writes the controller's and
	// the state changes' loggers to their files only. The files win where
	// they hold those loggers' lines.
	if err == nil && (nonEmpty(filepath.Join(dst, results.ControllerLog)) || nonEmpty(filepath.Join(dst, results.StateChangeLog))) {
		return nil
	}
	return t.Cluster.CollectOutput(ctx, service, dst)
}

func nonEmpty(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Size() > 0
}

// Identify checks that the brokers on the cluster's addresses report the
// cluster id its nodes were formatted with, so that kbf never probes a
// stranger's cluster that happens to hold its ports.
func (t *Cluster) Identify(ctx context.Context) error {
	return CheckOwnCluster(ctx, t.Admin().ClusterID, t.ClusterID(), t.Bootstrap())
}

// CheckOwnCluster checks that the brokers at addrs report the cluster id
// want (from idOf). An empty want checks nothing.
func CheckOwnCluster(ctx context.Context, idOf func(context.Context) (string, error), want string, addrs []string) error {
	if want == "" {
		return nil
	}
	got, err := idOf(ctx)
	if err != nil {
		return fmt.Errorf("probe: no broker answers on %s (%w): is the cluster up? kbf up starts it",
			strings.Join(addrs, ","), err)
	}
	if got != want {
		return fmt.Errorf("probe: the brokers on %s are cluster %s, not kbf's (%s): pass --bootstrap to probe that cluster anyway, or free the ports for kbf up",
			strings.Join(addrs, ","), got, want)
	}
	return nil
}

// Pool keeps a benchmark's clusters across its trials. A trial on a
// cluster with the same nodes (compose file, size, image, node settings)
// reuses it; one whose node settings differ from every kept cluster's gets
// a cluster of its own beside them, up to Clusters of kbf's embedded one
// (project kbf-2 on ports 19192…, kbf-3 on 19292…), so that two settings'
// trials alternate without a node recreated between them. Past Clusters,
// the least recently used cluster takes the new settings (Up recreates
// only the nodes whose settings changed). A trial on another cluster
// (another compose file, size or image) takes every kept one down first,
// since they would share the machine and its ports.
type Pool struct {
	// Clusters is how many of kbf's embedded clusters may be up at once;
	// 0 means 1. A user's compose file is always one.
	Clusters int
	// Lane is the pool's place among pools that run trials side by side
	// (kbf bench --parallel): lane 0 is kbf's own cluster as above; the
	// pool of lane i > 0 keeps one cluster, the i-th beside kbf's
	// (project kbf-(i+1), its own ports), and takes it down on Shrink.
	Lane  int
	slots []*slot
	clock int
}

// slot is one kept cluster: its target, the options it was asked for
// (before the slot's project and ports), and when it was last used.
type slot struct {
	t     *Cluster
	asked compose.Options
	used  int
}

// Get returns the target of opts, reusing a kept one when its nodes are
// the same; fresh asks for a cluster brought up from nothing, the kept
// one removed first.
func (p *Pool) Get(ctx context.Context, opts compose.Options, fresh bool) (*Cluster, error) {
	p.clock++
	if len(p.slots) > 0 && !SameCluster(p.slots[0].asked, opts) {
		err := downAll(ctx, p.slots)
		p.slots = nil
		if err != nil {
			return nil, fmt.Errorf("the last scenario's cluster: %w", err)
		}
	}
	i := slices.IndexFunc(p.slots, func(s *slot) bool { return sameNodes(s.asked, opts) })
	if i < 0 && len(p.slots) < p.max(opts) {
		p.slots = append(p.slots, &slot{})
		i = len(p.slots) - 1
	}
	if i < 0 {
		i = 0
		for j, s := range p.slots {
			if s.used < p.slots[i].used {
				i = j
			}
		}
	}
	sl := p.slots[i]
	sl.used = p.clock
	if err := sl.renew(ctx, opts, fresh, p.Lane+i); err != nil {
		return nil, err
	}
	return sl.t, nil
}

// Reuses reports whether Get(opts, fresh) returns last as it is: a kept
// cluster with the same settings, nothing brought down or made again, so
// that a trial on it needs no Up and may start while the trial before
// on it still puts it back (kbf bench's trials back to back). It changes
// nothing.
func (p *Pool) Reuses(last *Cluster, opts compose.Options, fresh bool) bool {
	if fresh || last == nil || len(p.slots) == 0 || !SameCluster(p.slots[0].asked, opts) {
		return false
	}
	i := slices.IndexFunc(p.slots, func(s *slot) bool { return sameNodes(s.asked, opts) })
	return i >= 0 && p.slots[i].t == last && same(p.slots[i].asked, opts)
}

// renew makes sl's target the i-th cluster of opts, unless it is that
// already and not asked fresh: a fresh one has the kept cluster removed
// first. The kept target's lock passes to its replacement
// (compose.Cluster.HandLockTo), so that no other kbf takes the cluster
// between the two.
func (sl *slot) renew(ctx context.Context, opts compose.Options, fresh bool, i int) error {
	old := sl.t
	if old != nil && !fresh && same(sl.asked, opts) {
		return nil
	}
	if old != nil && fresh {
		// The cluster removed, so that the trial brings it up from nothing.
		if _, err := old.Down(ctx); err != nil {
			return fmt.Errorf("fresh cluster: %w", err)
		}
	}
	t, err := New(slotOptions(opts, i))
	if old != nil {
		if err == nil {
			old.HandLockTo(t.Cluster)
		}
		old.Close()
		sl.t = nil
	}
	if err != nil {
		return err
	}
	sl.t, sl.asked = t, opts
	return nil
}

// max is how many clusters of opts the pool may keep.
func (p *Pool) max(opts compose.Options) int {
	if opts.File != "" || opts.ProjectName != "" || p.Lane > 0 {
		return 1
	}
	return max(p.Clusters, 1)
}

// slotOptions are opts for the pool's i-th cluster: the first is kbf's
// cluster as kbf up makes it; the others have a project and ports of their
// own, 100 ports apart.
func slotOptions(opts compose.Options, i int) compose.Options {
	if i == 0 {
		return opts
	}
	opts.ProjectName = fmt.Sprintf("%s-%d", compose.Project, i+1)
	env := opts.Env
	if env == nil {
		env = map[string]string{}
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
	}
	env = maps.Clone(env)
	for b := 1; b <= max(opts.Brokers, 3); b++ {
		env[fmt.Sprintf("KBF_K%d_PORT", b)] = fmt.Sprint(19091 + 100*i + b)
	}
	opts.Env = env
	return opts
}

// Shrink takes down the clusters the pool brought up beside kbf's own,
// which stays up as kbf up leaves it; a benchmark calls it when done.
func (p *Pool) Shrink(ctx context.Context) error {
	keep := 1
	if p.Lane > 0 {
		keep = 0
	}
	if len(p.slots) <= keep {
		return nil
	}
	err := downAll(ctx, p.slots[keep:])
	p.slots = p.slots[:keep]
	return err
}

// downAll takes the clusters of slots down and closes their clients.
func downAll(ctx context.Context, slots []*slot) error {
	var errs []error
	for _, s := range slots {
		if s.t == nil {
			continue
		}
		if _, err := s.t.Down(ctx); err != nil {
			errs = append(errs, err)
		}
		s.t.Close()
	}
	return errors.Join(errs...)
}

// Close closes the kept targets' clients; their clusters stay up.
func (p *Pool) Close() {
	for _, s := range p.slots {
		if s.t != nil {
			s.t.Close()
		}
	}
	p.slots = nil
}

// SameCluster reports whether a and b describe one cluster, perhaps with
// other settings.
func SameCluster(a, b compose.Options) bool {
	return a.File == b.File && a.ProjectName == b.ProjectName && a.Brokers == b.Brokers && a.Controllers == b.Controllers && a.Image == b.Image
}

// sameNodes reports whether a and b describe one cluster with the same
// nodes: the same settings on each.
func sameNodes(a, b compose.Options) bool {
	return SameCluster(a, b) && slices.Equal(a.Config, b.Config) && maps.Equal(a.DiskLimits, b.DiskLimits) && maps.Equal(a.FaultDisks, b.FaultDisks)
}

// same reports whether a and b describe one cluster with the same settings.
func same(a, b compose.Options) bool { return sameNodes(a, b) && a.Lead == b.Lead }
