package chaos

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

// netEngine is containers with network addresses, for the cut's inspects.
type netEngine struct {
	Engine
	links map[string]Link
}

func (e netEngine) ContainerInspect(_ context.Context, id string) (container.InspectResponse, error) {
	l, ok := e.links[id]
	if !ok {
		return container.InspectResponse{}, errors.New("no such container: " + id)
	}
	return container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{State: &container.State{Running: true, Pid: l.Pid}},
		NetworkSettings: &container.NetworkSettings{Networks: map[string]*network.EndpointSettings{
			"kbf": {IPAddress: l.IP, Gateway: l.Gateway}}},
	}, nil
}

// fakeNetns plays iptables: it keeps the chains of each namespace and fails
// the way iptables does on a missing chain or an existing one.
type fakeNetns struct {
	mu     sync.Mutex
	chains map[int]map[string][]string // pid → chain → rules
	calls  []string
	failOn string // a command that fails, by prefix
}

func (*fakeNetns) Check() error { return nil }

func (f *fakeNetns) Iptables(_ context.Context, pid int, args ...string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	cmd := strings.Join(args, " ")
	f.calls = append(f.calls, cmd)
	if f.failOn != "" && strings.HasPrefix(cmd, f.failOn) {
		return errors.New("iptables failed")
	}
	if f.chains == nil {
		f.chains = map[int]map[string][]string{}
	}
	ns := f.chains[pid]
	if ns == nil {
		ns = map[string][]string{"INPUT": nil, "OUTPUT": nil}
		f.chains[pid] = ns
	}
	rule := strings.Join(args[2:], " ")
	switch args[0] {
	case "-N":
		if _, ok := ns[args[1]]; ok {
			return errors.New("chain already exists")
		}
		ns[args[1]] = nil
	case "-A":
		ns[args[1]] = append(ns[args[1]], rule)
	case "-I":
		ns[args[1]] = append([]string{strings.Join(args[3:], " ")}, ns[args[1]]...)
	case "-D":
		i := slices.Index(ns[args[1]], rule)
		if i < 0 {
			return errors.New("no such rule")
		}
		ns[args[1]] = slices.Delete(ns[args[1]], i, i+1)
	case "-F", "-X", "-L":
		if _, ok := ns[args[1]]; !ok {
			return errors.New("no chain by that name")
		}
		switch args[0] {
		case "-F":
			ns[args[1]] = nil
		case "-X":
			delete(ns, args[1])
		}
	}
	return nil
}

func (f *fakeNetns) rules(pid int) map[string][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string][]string{}
	for k, v := range f.chains[pid] {
		out[k] = slices.Clone(v)
	}
	return out
}

func newNetInjector(ns *fakeNetns) *Injector {
	e := netEngine{links: map[string]Link{
		"kbf-k1": {Pid: 11, IP: "172.18.0.3", Gateway: "172.18.0.1"},
		"kbf-c1": {Pid: 100, IP: "172.18.0.2", Gateway: "172.18.0.1"},
		"kbf-c2": {Pid: 101, IP: "172.18.0.5", Gateway: "172.18.0.1"},
		"kbf-k2": {Pid: 12, IP: "172.18.0.4", Gateway: "172.18.0.1"},
		"kbf-k3": {Pid: 13, IP: "172.18.0.6", Gateway: "172.18.0.1"},
	}}
	in := New(e, func(s string) string { return "kbf-" + s })
	in.netns = ns
	return in
}

func TestNetworkCutAndHeal(t *testing.T) {
	tests := []struct {
		kind        results.FaultKind
		controllers []string
		brokers     []string
		in, out     []string
	}{
		{results.FaultIsolate, nil, nil, []string{"! -i lo -j DROP"}, []string{"! -o lo -j DROP"}},
		{results.FaultIsolateController, []string{"c1", "c2"}, nil,
			[]string{"-s 172.18.0.2 -j DROP", "-s 172.18.0.5 -j DROP"},
			[]string{"-d 172.18.0.2 -j DROP", "-d 172.18.0.5 -j DROP"}},
		{results.FaultIsolateClients, nil, nil, []string{"-s 172.18.0.1 -j DROP"}, []string{"-d 172.18.0.1 -j DROP"}},
		// The controllers and the gateway (the clients) are spared; the
		// broker itself, were it listed, is not cut from itself.
		{results.FaultIsolateReplication, []string{"c1"}, []string{"k1", "k2", "k3"},
			[]string{"-s 172.18.0.4 -j DROP", "-s 172.18.0.6 -j DROP"},
			[]string{"-d 172.18.0.4 -j DROP", "-d 172.18.0.6 -j DROP"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			ns := &fakeNetns{}
			in := newNetInjector(ns)
			in.now = func() time.Time { return t0 }
			f, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: tt.kind, Controllers: tt.controllers, Peers: tt.brokers})
			if err != nil {
				t.Fatal(err)
			}
			if f.Kind != tt.kind || !f.Cut.Equal(t0) || f.At() != t0 {
				t.Errorf("fault record: %+v", f)
			}
			got := ns.rules(11)
			if !slices.Equal(got[chainIn], tt.in) || !slices.Equal(got[chainOut], tt.out) {
				t.Errorf("rules: in %q out %q; want in %q out %q", got[chainIn], got[chainOut], tt.in, tt.out)
			}
			if !slices.Equal(got["INPUT"], []string{"-j " + chainIn}) || !slices.Equal(got["OUTPUT"], []string{"-j " + chainOut}) {
				t.Errorf("hooks: INPUT %q OUTPUT %q", got["INPUT"], got["OUTPUT"])
			}
			if len(ns.rules(100)) != 0 {
				t.Errorf("the controller's namespace was touched: %v", ns.rules(100))
			}
			if err := in.Restart(context.Background(), "k1"); err != nil {
				t.Fatalf("restart (heal): %v", err)
			}
			got = ns.rules(11)
			if _, ok := got[chainIn]; ok || len(got["INPUT"]) != 0 || len(got["OUTPUT"]) != 0 {
				t.Errorf("after heal: %v", got)
			}
			// Healed, the broker runs: a second restart says so.
			if err := in.Restart(context.Background(), "k1"); !errors.Is(err, cluster.ErrAlreadyRunning) {
				t.Errorf("second restart: %v, want cluster.ErrAlreadyRunning", err)
			}
		})
	}
}

func TestNetworkCutFailsHalfWay(t *testing.T) {
	ns := &fakeNetns{failOn: "-I OUTPUT"}
	in := newNetInjector(ns)
	_, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultIsolate})
	if err == nil {
		t.Fatal("want an error")
	}
	got := ns.rules(11)
	if _, ok := got[chainIn]; ok || len(got["INPUT"]) != 0 {
		t.Errorf("a failed cut left rules behind: %v", got)
	}
}

func TestNetworkCutErrors(t *testing.T) {
	tests := []struct {
		name  string
		fault cluster.Fault
		want  string
	}{
		{"no controllers", cluster.Fault{Broker: "k1", Kind: results.FaultIsolateController}, "no controller to cut it from"},
		{"unknown controller", cluster.Fault{Broker: "k1", Kind: results.FaultIsolateController, Controllers: []string{"c9"}}, "controller c9"},
		{"no other broker", cluster.Fault{Broker: "k1", Kind: results.FaultIsolateReplication}, "no other broker to cut it from"},
		{"unknown peer", cluster.Fault{Broker: "k1", Kind: results.FaultIsolateReplication, Peers: []string{"k9"}}, "broker k9"},
		{"unknown broker", cluster.Fault{Broker: "k7", Kind: results.FaultIsolate}, "inject isolate into k7: no such container"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newNetInjector(&fakeNetns{})
			_, err := in.Inject(context.Background(), tt.fault)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}
