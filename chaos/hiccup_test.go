package chaos

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

func TestCPUStarveAndGiveBack(t *testing.T) {
	tests := []struct {
		name          string
		was           container.Resources
		starve, after string // the update calls
	}{
		// No limit: a CFS quota of 5 ms every 100 ms, then no quota.
		{"no limit", container.Resources{}, "update kbf-k1 nano=0 quota=5000 period=100000", "update kbf-k1 nano=0 quota=-1 period=100000"},
		// Compose's cpus: the engine refuses a quota beside NanoCPUs.
		{"cpus set", container.Resources{NanoCPUs: 2e9}, "update kbf-k1 nano=50000000 quota=0 period=0", "update kbf-k1 nano=2000000000 quota=0 period=0"},
		// A quota of its own is given back as it was.
		{"quota set", container.Resources{CPUQuota: 150000, CPUPeriod: 100000}, "update kbf-k1 nano=0 quota=5000 period=100000", "update kbf-k1 nano=0 quota=150000 period=100000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe := newFake(nil)
			fe.res = tt.was
			in := newInjector(fe)
			f, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultCPUStarve, CPUs: 0.05})
			if err != nil {
				t.Fatal(err)
			}
			if f.CPUs != 0.05 || !f.Starved.Equal(t0) || !f.At().Equal(t0) {
				t.Errorf("fault record: %+v", f)
			}
			if err := in.Restart(context.Background(), "k1"); err != nil {
				t.Fatalf("give back: %v", err)
			}
			if want := []string{tt.starve, tt.after}; !slices.Equal(fe.calls, want) {
				t.Errorf("calls %q, want %q", fe.calls, want)
			}
			// Given back, the broker runs: a second restart says so.
			if err := in.Restart(context.Background(), "k1"); !errors.Is(err, cluster.ErrAlreadyRunning) {
				t.Errorf("second restart: %v, want cluster.ErrAlreadyRunning", err)
			}
		})
	}
}

func TestCPUStarveRefused(t *testing.T) {
	fe := newFake(nil)
	fe.updateErr = errors.New("Error response from daemon: Conflicting options")
	in := newInjector(fe)
	_, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultCPUStarve, CPUs: 0.05})
	if err == nil || !strings.Contains(err.Error(), "cpu-starve k1 to 0.05 CPU") {
		t.Fatalf("err %v", err)
	}
	// Not starved: nothing to give back, the broker runs.
	if err := in.Restart(context.Background(), "k1"); !errors.Is(err, cluster.ErrAlreadyRunning) {
		t.Errorf("restart: %v, want cluster.ErrAlreadyRunning", err)
	}
	for _, bad := range []float64{0, 0.001, 1.5} {
		if _, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultCPUStarve, CPUs: bad}); err == nil {
			t.Errorf("%g CPU accepted", bad)
		}
	}
}

func TestPacketLossAndMend(t *testing.T) {
	ns := &fakeNetns{}
	in := newNetInjector(ns)
	in.now = func() time.Time { return t0 }
	f, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultPacketLoss, Loss: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	if f.Loss != 0.3 || !f.Cut.Equal(t0) || !f.At().Equal(t0) {
		t.Errorf("fault record: %+v", f)
	}
	got := ns.rules(11)
	wantIn := []string{"! -i lo -m statistic --mode random --probability 0.3000 -j DROP"}
	wantOut := []string{"! -o lo -m statistic --mode random --probability 0.3000 -j DROP"}
	if !slices.Equal(got[chainIn], wantIn) || !slices.Equal(got[chainOut], wantOut) {
		t.Errorf("rules: in %q out %q", got[chainIn], got[chainOut])
	}
	if err := in.Restart(context.Background(), "k1"); err != nil {
		t.Fatalf("mend: %v", err)
	}
	if got := ns.rules(11); len(got[chainIn]) != 0 || len(got["INPUT"]) != 0 {
		t.Errorf("after mend: %v", got)
	}
	for _, bad := range []float64{0, 1, -0.2} {
		if _, err := in.Inject(context.Background(), cluster.Fault{Broker: "k1", Kind: results.FaultPacketLoss, Loss: bad}); err == nil {
			t.Errorf("loss %g accepted", bad)
		}
	}
}
