//go:build integration

// The tests of kbf's own cluster with settings of their own: the last
// replica (unclean leader election on the second trial), a short broker
// session, a full disk (k1's log directory a tmpfs). Each makes the cluster
// anew, so they run after every test of the default cluster, which share
// it: Go runs a package's tests file by file in the order of their names,
// and this file's sorts after integration_test.go's (and before
// sasl_integration_test.go's, whose cluster is another). Each takes kbf's
// cluster down when it ends: its settings must not outlive it, and the
// next test makes the cluster it needs either way.
//
//	KBF_IMAGE=kbf/kafka:4.3.1 go test -tags integration -p 1 ./cmd/kbf/ -run 'TestIntegration(LastReplica|ShortSession|DiskFull)$' -v

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/target/docker"
)

// downAfter takes kbf's cluster down once the test is over, whatever it
// found.
func downAfter(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cl, err := compose.New(compose.Options{})
		if err != nil {
			t.Errorf("down: %v", err)
			return
		}
		defer cl.Close()
		if _, err := cl.Down(ctx); err != nil {
			t.Errorf("down: %v", err)
		}
	})
}

// TestIntegrationLastReplica runs the last replica standing on partition
// 0: k2 stopped, k3 stopped (the leader k1 alone in the ISR), k1 stopped,
// k2 and k3 started, k1 started. With ELR (Kafka 4.x) and acks=all no
// acknowledged record may be lost; with unclean election and acks=1 loss is
// possible, and the run exits 3 exactly when the findings fail the trial
// (a loss under acks=1 is reported, not failed: report.Finding.Broken).
func TestIntegrationLastReplica(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	// The unclean setting must not outlive the test.
	downAfter(t)
	stepsCluster(ctx, t, compose.Options{})
	for _, c := range []struct {
		name   string
		args   []string
		unsafe bool // loss is possible
	}{
		{name: "sigkill", args: []string{"--last-step", "sigkill"}},
		{name: "unclean-acks1", args: []string{"--last-step", "sigkill", "--config", "unclean.leader.election.enable=true", "--acks", "1"}, unsafe: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--fault", "last-replica", "--duration", "55s", "--fault-after", "5s"}, c.args...)
			tr, code := stepsTrialCode(ctx, t, []int{exitFindings}, args...)
			steps := stepsOf(t, tr, "sigterm k2", "sigterm k3", "sigkill k1", "start k2", "start k3", "start k1")
			for i, s := range steps {
				t.Logf("step %d: %s %s at %s; then p0: %s", i+1, s.Action, s.Node, s.At.Format("15:04:05.000"), p0After(t, tr, s.At))
			}
			if tr.Integrity == nil {
				t.Fatal("no integrity check: the partitions were not read back")
			}
			t.Logf("integrity %+v, exit %d", tr.Integrity.Counts, code)
			if !c.unsafe && (!tr.Integrity.OK() || tr.Integrity.Lost != 0) {
				t.Errorf("acks=all with ELR: integrity %+v", tr.Integrity.Counts)
			}
			if found := tr.Findings.Fail(); found != (code == exitFindings) {
				t.Errorf("findings %v fail %v but exit %d", tr.Findings, found, code)
			}
		})
	}
}

// p0After describes partition 0's state rows of replicas.csv over the
// second after at: leader, ISR, ELR and last-known ELR, each distinct one.
func p0After(t *testing.T, tr *report.Trial, at time.Time) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tr.Dir, results.ReplicasFile))
	if err != nil {
		return "no replica view"
	}
	var seen []string
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Split(line, ",")
		if len(f) < 11 || f[1] != "0" || f[2] != "" || f[10] != "" { // state rows of p0 that were answered
			continue
		}
		ts, err := time.Parse(time.RFC3339Nano, f[0])
		if err != nil || ts.Before(at) || ts.After(at.Add(3*time.Second)) {
			continue
		}
		s := "leader " + f[5] + " isr [" + f[7] + "] elr [" + f[8] + "] last-known [" + f[9] + "]"
		if len(seen) == 0 || seen[len(seen)-1] != s {
			seen = append(seen, s)
		}
	}
	return strings.Join(seen, " → ")
}

// TestIntegrationShortSession runs a SIGKILL with a 4 s session and a 1 s
// heartbeat: the partitions whose leader lived wait for the fence, now at
// most about 4 s after the kill, below the 7 s floor of the defaults (9 s,
// 2 s). kbf run recreates the nodes with the settings.
func TestIntegrationShortSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	// The short session must not outlive the test.
	downAfter(t)
	tr := trial(ctx, t, "sigkill", "--config", "broker.session.timeout.ms=4000", "--config", "broker.heartbeat.interval.ms=1000")
	if v := tr.Meta.Cluster.Nodes["c1"]["broker.session.timeout.ms"]; v != "4000" {
		t.Errorf("c1's broker.session.timeout.ms read back as %q, want 4000", v)
	}
	st := ackStalls(tr)
	for _, p := range []int32{1, 2} {
		if st[p] == 0 || st[p] >= 7*time.Second {
			t.Errorf("p%d ack stall %v, want under the default's 7 s floor", p, st[p])
		}
	}
	checkIntegrity(t, tr)
}

// TestIntegrationDiskFull fills k1's log directory, a tmpfs of its own:
// Kafka takes the directory offline and the broker halts. Under acks=all
// nothing acknowledged may be lost, partition 0 gets a new leader, every
// partition acks again before the probe stops, and recovery brings k1 back
// on an empty directory with every ISR full.
func TestIntegrationDiskFull(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	// The cluster kbf run makes for the fault (k1's log directory a tmpfs
	// of --disk-size's default), brought up here so that the run uses it
	// rather than reshape another, and taken down after: the tmpfs must not
	// outlive the test.
	downAfter(t)
	opt := compose.Options{}
	docker.ForFault(&opt, results.FaultDiskFull, "k1", "128m")
	cl := stepsCluster(ctx, t, opt)
	tr := stepsTrial(ctx, t, nil, "--fault", "disk-full", "--duration", "30s", "--fault-after", "5s")
	f := tr.Meta.Fault
	if f == nil || f.Kind != results.FaultDiskFull || f.Filled.IsZero() {
		t.Fatalf("fault %+v: want a disk-full with the moment the disk was full", f)
	}
	if f.Finished.IsZero() {
		t.Logf("k1 ran on with a full disk to the end of the probe")
	} else {
		t.Logf("k1 ended %.2f s after its disk was full, exit code %d", f.Finished.Sub(f.Filled).Seconds(), f.ExitCode)
	}
	if e, ok := tr.Timeline.LeaderStarted("orders", 0, tr.FaultAt); !ok || e.Broker == f.NodeID {
		t.Errorf("no new leader of orders-0 after the fault (%+v)", e)
	}
	for _, p := range tr.Gaps.Partitions {
		g := p.Ack.Fault
		if g == nil || g.Open {
			t.Errorf("p%d ack gap at the fault %+v: want one that ended", p.Partition, g)
			continue
		}
		t.Logf("p%d ack stall %.2f s", p.Partition, g.Duration().Seconds())
	}
	for _, e := range tr.Timeline.Events {
		if e.Node == "k1" && e.Time.After(f.SignalSent) {
			t.Logf("k1: %s", e.Summary())
		}
	}
	checkIntegrity(t, tr)
	checkRecovered(ctx, t, cl, tr)
}
