//go:build integration

// The tests of the faults of a broker's FUSE layer: a slow disk, a failing
// one, a power loss of one broker and of every broker. kbf run puts the
// brokers' log directories on layers it serves itself, which makes kbf's
// cluster anew, so these run with the reshaping tests (this file sorts
// after integration_test.go), each taking the cluster down when it ends.
// They need root on the Docker host and /dev/fuse:
//
//	KBF_IMAGE=kbf/kafka:4.3.1 go test -tags integration -p 1 ./cmd/kbf/ -run 'TestIntegrationDisk(Slow|Error)$|TestIntegrationPowerLoss' -v

package main

import (
	"context"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/chaos/faultfs"
	"github.com/kbf-project/kbf/results"
)

// diskTrial runs one trial of a fault of the FUSE layer, skipping where no
// layer can be mounted, and takes the cluster down after: its brokers'
// directories must not outlive the test.
func diskTrial(ctx context.Context, t *testing.T, codes []int, args ...string) (*analysis.Trial, int) {
	t.Helper()
	if err := faultfs.Available(); err != nil {
		t.Skipf("the disk faults need a FUSE mount (%v): run as root on the Docker host", err)
	}
	downAfter(t)
	// The defaults first: a flag the caller gives again wins.
	return stepsTrialCode(ctx, t, codes, append([]string{"--duration", "30s", "--fault-after", "5s"}, args...)...)
}

// checkDiskRecovered checks recovery's own account: the layer undone, the
// broker back, every ISR full, the leaders preferred. kbf run stopped the
// brokers on layers when it ended, so the cluster is not asked after.
func checkDiskRecovered(t *testing.T, tr *analysis.Trial) {
	t.Helper()
	if r := tr.Meta.Recovery; r == nil || r.Err != "" || r.ISRFull.IsZero() || !r.LeadersBack {
		t.Errorf("recovery: %+v", r)
	}
}

// TestIntegrationDiskSlow delays every write and fsync of k1 by 200 ms:
// nothing is fenced, acks=all waits for k1's appends, nothing is lost.
func TestIntegrationDiskSlow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	const delay = 200 * time.Millisecond
	tr, _ := diskTrial(ctx, t, nil, "--fault", "disk-slow", "--disk-delay", delay.String())
	f := tr.Meta.Fault
	if f == nil || f.Kind != results.FaultDiskSlow || f.Disk == nil || f.Disk.Delay != delay {
		t.Fatalf("fault %+v: want a disk-slow of %v", f, delay)
	}
	if !f.Finished.IsZero() {
		t.Errorf("k1 ended (exit %d) on a slow disk", f.ExitCode)
	}
	// Every partition has k1 in its ISR: an ack after the fault waits for
	// k1's append, which waits the delay at least once.
	slow := map[int32]int{}
	for _, m := range probeRows(t, tr) {
		if !m.Acked.IsZero() && m.Sent.After(f.SignalSent) && m.Acked.Sub(m.Sent) >= delay {
			slow[m.Partition]++
		}
	}
	for _, p := range tr.Meta.Probe.Partitions {
		if slow[p] == 0 {
			t.Errorf("p%d: no ack after the fault took the disk's delay %v", p, delay)
		}
		t.Logf("p%d: %d acks of %v or more after the fault", p, slow[p], delay)
	}
	checkIntegrity(t, tr)
	checkDiskRecovered(t, tr)
}

// TestIntegrationDiskError fails k1's log directory: Kafka reports the
// directory failed and, its metadata log there, halts; partition 0 gets a
// new leader and nothing acknowledged is lost.
func TestIntegrationDiskError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	tr, _ := diskTrial(ctx, t, nil, "--fault", "disk-error")
	f := tr.Meta.Fault
	if f == nil || f.Kind != results.FaultDiskError {
		t.Fatalf("fault %+v: want a disk-error", f)
	}
	if f.Finished.IsZero() {
		t.Logf("k1 ran on with a failed disk to the end of the probe")
	} else {
		t.Logf("k1 ended %.2f s after its disk failed, exit code %d", f.Finished.Sub(f.SignalSent).Seconds(), f.ExitCode)
	}
	if e, ok := tr.Timeline.LeaderStarted("orders", 0, tr.FaultAt); !ok || e.Broker == f.NodeID {
		t.Errorf("no new leader of orders-0 after the fault (%+v)", e)
	}
	for _, e := range tr.Timeline.Events {
		if e.Node == "k1" && e.Time.After(f.SignalSent) {
			t.Logf("k1: %s", e.Summary())
		}
	}
	checkIntegrity(t, tr)
	checkDiskRecovered(t, tr)
}

// TestIntegrationPowerLoss cuts k1's power: what it wrote and did not
// fsync (with the defaults, everything it appended in the trial) is lost,
// but k2 and k3 kept every acknowledged record (acks=all,
// min.insync.replicas=2): none may be lost.
func TestIntegrationPowerLoss(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	tr, _ := diskTrial(ctx, t, nil, "--fault", "power-loss")
	f := tr.Meta.Fault
	if f == nil || f.Kind != results.FaultPowerLoss || f.Disk == nil || f.ExitCode != 137 {
		t.Fatalf("fault %+v: want a power-loss of k1, killed", f)
	}
	if f.Disk.LostFiles == 0 || f.Disk.LostBytes == 0 {
		t.Errorf("power-loss dropped nothing (%+v): with the default flush settings k1's appends were never fsynced", f.Disk)
	}
	t.Logf("k1 lost %d bytes of %d files", f.Disk.LostBytes, f.Disk.LostFiles)
	checkIntegrity(t, tr)
	checkDiskRecovered(t, tr)
}

// TestIntegrationPowerLossAllReplicas cuts every broker's power at once,
// first with the default flush settings, then with every append fsynced
// (log.flush.interval.messages=1, the broker-wide flush.messages). It
// records what the audit found of each: with the defaults a loss is one
// the flush settings allow (not exit 3); with every append fsynced no
// acknowledged record may be lost.
func TestIntegrationPowerLossAllReplicas(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 16*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name   string
		config []string
		fsync  bool
	}{
		{name: "defaults"},
		{name: "every append fsynced", config: []string{"--config", "log.flush.interval.messages=1"}, fsync: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Exit 3: the audit may count acknowledged records lost, which is
			// what this trial measures.
			args := append([]string{"--fault", "power-loss", "--brokers-lost", "all-replicas"}, tc.config...)
			tr, code := diskTrial(ctx, t, []int{exitFindings}, args...)
			f := tr.Meta.Fault
			if f == nil || f.Kind != results.FaultPowerLoss || f.Disk == nil || len(f.Disk.Brokers) != 3 {
				t.Fatalf("fault %+v: want a power-loss of the three brokers", f)
			}
			if tr.Integrity == nil {
				t.Fatal("no integrity check: the partitions were not read back")
			}
			t.Logf("exit %d; lost %d bytes of %d files; audit %+v", code, f.Disk.LostBytes, f.Disk.LostFiles, tr.Integrity.Counts)
			for _, p := range tr.Integrity.Partitions {
				t.Logf("p%d: acknowledged %d, lost %d", p.Partition, p.Acknowledged, p.Lost)
			}
			if tc.fsync && tr.Integrity.Lost != 0 {
				t.Errorf("every append fsynced, yet %d acknowledged records lost", tr.Integrity.Lost)
			}
			// A loss the default flush settings allow, every replica losing
			// power together, is reported with them, not a finding.
			if !tc.fsync && code == exitFindings {
				t.Errorf("exit 3 on a loss the flush settings allow: %s", tr.Findings.Why())
			}
			for _, f := range tr.Findings {
				if f.Client == "franz-go" {
					t.Logf("finding: %s", f)
					if f.PowerLoss == nil || !f.PowerLoss.Every {
						t.Errorf("finding %s: want the power loss of every broker beside it", f)
					}
				}
			}
			checkDiskRecovered(t, tr)
		})
	}
}
