package docker

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/kafkaadmin"
	"github.com/kbf-project/kbf/results"
)

func TestCheckOwnCluster(t *testing.T) {
	const kbfID = "a2JmLWNsdXN0ZXItMDAwMQ"
	addrs := []string{"127.0.0.1:19092", "127.0.0.1:19093"}
	id := func(s string, err error) func(context.Context) (string, error) {
		return func(context.Context) (string, error) { return s, err }
	}
	tests := []struct {
		name    string
		idOf    func(context.Context) (string, error)
		want    string
		wantErr string // "" for none
	}{
		{"kbf's own", id(kbfID, nil), kbfID, ""},
		{"another cluster", id("MkU3OEVBNTcwNTJENDM2Qk", nil), kbfID,
			"probe: the brokers on 127.0.0.1:19092,127.0.0.1:19093 are cluster MkU3OEVBNTcwNTJENDM2Qk, not kbf's (" + kbfID + "): pass --bootstrap"},
		{"nobody answers", id("", errors.New("dial tcp: connection refused")), kbfID,
			"probe: no broker answers on 127.0.0.1:19092,127.0.0.1:19093 (dial tcp: connection refused): is the cluster up?"},
		{"compose file sets no id", id("anything", nil), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckOwnCluster(context.Background(), tt.idOf, tt.want, addrs)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("checkOwnCluster: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("checkOwnCluster: %v, want one line starting %q", err, tt.wantErr)
			}
		})
	}
}

// The cluster id comes from what the brokers really report.
func TestCheckOwnClusterKfake(t *testing.T) {
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("someone-elses"))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	a, err := kafkaadmin.New(kafkaadmin.Config{Brokers: []kafkaadmin.Broker{{ID: 0, Addr: kc.ListenAddrs()[0]}}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := CheckOwnCluster(ctx, a.ClusterID, "someone-elses", kc.ListenAddrs()); err != nil {
		t.Errorf("same id: %v", err)
	}
	if err := CheckOwnCluster(ctx, a.ClusterID, "a2JmLWNsdXN0ZXItMDAwMQ", kc.ListenAddrs()); err == nil ||
		!strings.Contains(err.Error(), "are cluster someone-elses, not kbf's") {
		t.Errorf("other id: %v, want a refusal naming both", err)
	}
}

func TestSameCluster(t *testing.T) {
	base := compose.Options{Image: "kbf/kafka:4.3.1", Config: []compose.Setting{{Key: "a", Value: "1"}}}
	tests := []struct {
		name       string
		edit       func(o *compose.Options)
		sameCl     bool // one cluster
		sameConfig bool // and the same settings: reused as it is
	}{
		{"nothing changed", func(o *compose.Options) {}, true, true},
		{"other settings only", func(o *compose.Options) { o.Config = nil }, true, false},
		{"a disk for another broker", func(o *compose.Options) { o.DiskLimits = map[string]string{"k2": "128m"} }, true, false},
		{"another compose file", func(o *compose.Options) { o.File = "mine.yaml" }, false, false},
		{"more brokers", func(o *compose.Options) { o.Brokers = 5 }, false, false},
		{"three controllers", func(o *compose.Options) { o.Controllers = 3 }, false, false},
		{"another image", func(o *compose.Options) { o.Image = "apache/kafka:4.3.1" }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.edit(&o)
			if got := SameCluster(base, o); got != tt.sameCl {
				t.Errorf("SameCluster = %v, want %v", got, tt.sameCl)
			}
			if got := same(base, o); got != tt.sameConfig {
				t.Errorf("same = %v, want %v", got, tt.sameConfig)
			}
		})
	}
}

// TestSupports checks what the target says it can do, and that the
// protocol's check refuses what it cannot, before anything starts: no
// Docker is contacted.
func TestSupports(t *testing.T) {
	noRoot := func() error { return errors.New("network faults need root") }
	tests := []struct {
		name     string
		opts     compose.Options
		kind     results.FaultKind
		broker   string
		diskSize string
		net      func() error
		wantErr  string // "" when supported
	}{
		{name: "sigkill", kind: results.FaultSIGKILL, broker: "k1"},
		{name: "disk-full with its tmpfs", kind: results.FaultDiskFull, broker: "k2", diskSize: "64m"},
		{name: "disk-full without a tmpfs", kind: results.FaultDiskFull, broker: "k2", wantErr: "fault disk-full: k2's log directory is no tmpfs of its own to fill"},
		{name: "isolate as root", kind: results.FaultIsolate, broker: "k1", net: func() error { return nil }},
		{name: "isolate not as root", kind: results.FaultIsolate, broker: "k1", net: noRoot, wantErr: "fault isolate: network faults need root"},
		{name: "packet-loss as root", kind: results.FaultPacketLoss, broker: "k1", net: func() error { return nil }},
		{name: "packet-loss not as root", kind: results.FaultPacketLoss, broker: "k1", net: noRoot, wantErr: "fault packet-loss: network faults need root"},
		{name: "cpu-starve", kind: results.FaultCPUStarve, broker: "k1", net: noRoot},
		{name: "isolate-controller, one controller", kind: results.FaultIsolateController, broker: "k1", net: func() error { return nil }},
		{name: "controller-kill, one controller", kind: results.FaultControllerKill, broker: "k1",
			wantErr: "fault controller-kill: needs a quorum of three dedicated controllers, the cluster has 1"},
		{name: "controller-kill, three controllers", kind: results.FaultControllerKill, broker: "k1", opts: compose.Options{Controllers: 3}},
		{name: "rolling, two brokers", kind: results.FaultRolling, broker: "k1", opts: compose.Options{Brokers: 2, Topics: []compose.Topic{}},
			wantErr: "fault rolling: needs at least 3 brokers, the cluster has 2"},
		{name: "not a broker", kind: results.FaultSIGKILL, broker: "c1", wantErr: "broker c1: not a broker of the cluster (k1 k2 k3)"},
		{name: "external on kbf's own cluster", kind: results.FaultExternal, broker: "k1",
			wantErr: "fault external: kbf faults its own Docker cluster itself; kbf run --fault external --bootstrap ADDRS measures a fault something else makes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Env = map[string]string{} // the process's KBF_* must not reshape the cluster
			if tt.diskSize != "" {
				ForFault(&opts, tt.kind, tt.broker, tt.diskSize)
			}
			tg, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			if tt.net != nil {
				tg.netCheck = tt.net
			}
			o := &experiment.Options{Kill: tt.kind, Broker: tt.broker}
			err = experiment.Check(o, tg)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr || !errors.Is(err, cluster.ErrUnsupported) {
				t.Errorf("Check: %v, want %q wrapping ErrUnsupported", err, tt.wantErr)
			}
		})
	}
}

func TestForFault(t *testing.T) {
	var opts compose.Options
	ForFault(&opts, results.FaultSIGKILL, "k1", "128m")
	if opts.DiskLimits != nil {
		t.Errorf("sigkill: disk limits %v, want none", opts.DiskLimits)
	}
	ForFault(&opts, results.FaultDiskFull, "k3", "32m")
	if len(opts.DiskLimits) != 1 || opts.DiskLimits["k3"] != "32m" {
		t.Errorf("disk-full: disk limits %v, want k3's 32m", opts.DiskLimits)
	}
}

// TestPoolReuse checks the cases that need no Docker: the same cluster
// with the same settings is the same target; other settings on the same
// cluster make a new target without taking the cluster down (Up then
// recreates only the nodes whose settings changed).
func TestPoolReuse(t *testing.T) {
	var p Pool
	defer p.Close()
	ctx := context.Background()
	opts := compose.Options{Env: map[string]string{}}
	a, err := p.Get(ctx, opts, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Get(ctx, opts, false)
	if err != nil || b != a {
		t.Fatalf("the same options: target %p then %p (%v), want one", a, b, err)
	}
	other := opts
	other.Config = []compose.Setting{{Key: "broker.session.timeout.ms", Value: "6000"}}
	c, err := p.Get(ctx, other, false)
	if err != nil || c == a {
		t.Fatalf("other settings: target %p then %p (%v), want a new one", a, c, err)
	}
	if _, err := p.Get(ctx, compose.Options{Env: map[string]string{}, Brokers: 0, Lead: "k9"}, false); err == nil {
		t.Error("a lead that is no broker: no error")
	}
}

// TestPoolClusters: with room for two clusters, other node settings get a
// cluster of their own beside the first (its project's containers and
// ports), the first is found again as it was, and a third setting takes
// the least recently used one; another lead alone is no other cluster.
func TestPoolClusters(t *testing.T) {
	p := Pool{Clusters: 2}
	defer p.Close()
	ctx := context.Background()
	get := func(opts compose.Options) *Cluster {
		t.Helper()
		tg, err := p.Get(ctx, opts, false)
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	opts := compose.Options{Env: map[string]string{}}
	with := func(v string) compose.Options {
		o := opts
		o.Config = []compose.Setting{{Node: "c1", Key: "broker.session.timeout.ms", Value: v}}
		return o
	}
	a := get(opts)
	b := get(with("6000"))
	if b == a {
		t.Fatal("other node settings: the first cluster's target, want one of its own")
	}
	if got := a.ContainerName("k1"); got != "kbf-k1" {
		t.Errorf("first cluster's k1: container %s, want kbf-k1", got)
	}
	if got := b.ContainerName("k1"); got != "kbf-2-k1" {
		t.Errorf("second cluster's k1: container %s, want kbf-2-k1", got)
	}
	if got := strings.Join(b.Bootstrap(), ","); got != "127.0.0.1:19192,127.0.0.1:19193,127.0.0.1:19194" {
		t.Errorf("second cluster's bootstrap %s, want ports 19192-19194", got)
	}
	if get(opts) != a || get(with("6000")) != b {
		t.Error("the same settings again: a new target, want the kept one")
	}
	lead := opts
	lead.Lead = "k2"
	if c := get(lead); c == b || c.ContainerName("k1") != "kbf-k1" {
		t.Errorf("another lead on the first cluster's nodes: container %s, want the first cluster's", c.ContainerName("k1"))
	}
	if d := get(with("8550")); d.ContainerName("k1") != "kbf-2-k1" {
		t.Errorf("a third setting: container %s, want the least recently used cluster, kbf-2's", d.ContainerName("k1"))
	}
	if len(p.slots) != 2 {
		t.Errorf("%d clusters kept, want 2", len(p.slots))
	}
}

// TestPoolReuses: a cluster is reused, as it is, by a trial of the same
// settings on it only; other node settings, another lead, another cluster
// kept beside it or a fresh cluster are not, and asking changes nothing.
func TestPoolReuses(t *testing.T) {
	p := Pool{Clusters: 2}
	defer p.Close()
	ctx := context.Background()
	opts := compose.Options{Env: map[string]string{}}
	with := func(key, v string) compose.Options {
		o := opts
		o.Config = []compose.Setting{{Node: "c1", Key: key, Value: v}}
		return o
	}
	a, err := p.Get(ctx, opts, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Get(ctx, with("broker.session.timeout.ms", "6000"), false)
	if err != nil {
		t.Fatal(err)
	}
	lead := opts
	lead.Lead = "k2"
	small := opts
	small.Brokers = 4
	for _, tt := range []struct {
		name  string
		last  *Cluster
		opts  compose.Options
		fresh bool
		want  bool
	}{
		{"the same settings", a, opts, false, true},
		{"the second cluster's settings", b, with("broker.session.timeout.ms", "6000"), false, true},
		{"the other cluster's settings", a, with("broker.session.timeout.ms", "6000"), false, false},
		{"other node settings", b, with("broker.session.timeout.ms", "4000"), false, false},
		{"another lead", a, lead, false, false},
		{"another cluster size", a, small, false, false},
		{"fresh", a, opts, true, false},
		{"no trial before", nil, opts, false, false},
	} {
		if got := p.Reuses(tt.last, tt.opts, tt.fresh); got != tt.want {
			t.Errorf("%s: reuses %v, want %v", tt.name, got, tt.want)
		}
	}
	if got, err := p.Get(ctx, opts, false); err != nil || got != a {
		t.Errorf("after asking: target %p (%v), want the kept %p", got, err, a)
	}
}
