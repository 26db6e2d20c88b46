package docker

import (
	"errors"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/chaos/faultfs"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/results"
)

// TestSupportsDisk: a fault of a FUSE layer is made on kbf's own cluster's
// broker whose log directory ForDiskFault put on a layer; anything else is
// refused in one line before the trial. Nothing is mounted: Check contacts
// nothing.
func TestSupportsDisk(t *testing.T) {
	fuse := faultfs.Available()
	tests := []struct {
		name    string
		kind    results.FaultKind
		shaped  string // the broker ForDiskFault is given
		broker  string
		all     bool
		file    bool
		wantErr string
	}{
		{name: "disk-slow on its layer", kind: results.FaultDiskSlow, shaped: "k1", broker: "k1"},
		{name: "power-loss of every broker", kind: results.FaultPowerLoss, shaped: AllBrokers, broker: "k2", all: true},
		{name: "disk-error of a broker on no layer", kind: results.FaultDiskError, shaped: "k1", broker: "k2",
			wantErr: "fault disk-error: k2's log directory is on no FUSE layer kbf serves"},
		{name: "every replica, one on a layer", kind: results.FaultPowerLoss, shaped: "k1", broker: "k1", all: true,
			wantErr: "--brokers-lost all-replicas: fault power-loss: k2's log directory is on no FUSE layer kbf serves"},
		{name: "a compose file", kind: results.FaultDiskSlow, shaped: "k1", broker: "k1", file: true,
			wantErr: "fault disk-slow: kbf serves a FUSE layer under its own cluster's brokers only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := compose.Options{Env: map[string]string{}}
			ForDiskFault(&opts, tt.kind, tt.shaped)
			tg, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			if tt.file {
				tg.opts.File = "shop.yaml" // as a user's file would be: ForDiskFault leaves it alone
			}
			o := &experiment.Options{Kill: tt.kind, Broker: tt.broker, Disk: experiment.DiskFault{AllReplicas: tt.all}}
			err = experiment.Check(o, tg)
			want := tt.wantErr
			if want == "" && fuse != nil {
				want = "fault " + string(tt.kind) + ": a FUSE mount needs"
			}
			if want == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") || !errors.Is(err, cluster.ErrUnsupported) {
				t.Errorf("Check: %v, want one line starting %q wrapping ErrUnsupported", err, want)
			}
		})
	}
}

func TestForDiskFault(t *testing.T) {
	var opts compose.Options
	ForDiskFault(&opts, results.FaultSIGKILL, "k1")
	if opts.FaultDisks != nil {
		t.Errorf("sigkill: fault disks %v", opts.FaultDisks)
	}
	opts = compose.Options{Env: map[string]string{}, Brokers: 4}
	ForDiskFault(&opts, results.FaultPowerLoss, AllBrokers)
	if err := diskMounts(&opts); err != nil {
		t.Fatal(err)
	}
	if len(opts.FaultDisks) != 4 || !strings.HasSuffix(opts.FaultDisks["k4"], "kbf-k4/mnt") {
		t.Errorf("every broker's mount points: %v", opts.FaultDisks)
	}
}
