//go:build integration

// The tests of kbf's own cluster with settings of their own: the last
// replica (unclean leader election on the second trial), a short broker
// session, a full disk (k1's log directory a tmpfs), a quorum of three
// controllers. Each makes the cluster anew, so they run after every test of
// the default cluster, which share it: Go runs a package's tests file by file in the order of their names,
// and this file's sorts after integration_test.go's (and before
// sasl_integration_test.go's, whose cluster is another). Each takes kbf's
// cluster down when it ends: its settings must not outlive it, and the
// next test makes the cluster it needs either way.
//
//	KBF_IMAGE=kbf/kafka:4.3.1 go test -tags integration -p 1 ./cmd/kbf/ -run 'TestIntegration(LastReplica|ShortSession|DiskFull|ControllerKill)$' -v

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/results"
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
// (a loss under acks=1 is reported, not failed: analysis.Finding.Broken).
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
			// The steps come 10 s apart (a fifth of the probing after the
			// fault), which leaves the old leader's return the time to end
			// in recovery, not at the cap: at 7 s apart it did not.
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
func p0After(t *testing.T, tr *analysis.Trial, at time.Time) string {
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
	spec := platform.Spec{Docker: &compose.Options{}, Fault: platform.Fault{Kind: results.FaultDiskFull, Broker: "k1", DiskSize: "128m"}}
	cl := stepsCluster(ctx, t, *spec.Shaped().Docker)
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

// TestIntegrationControllerKill kills, then freezes, the active controller
// of a quorum of three: another must be elected, and the data path must go
// on.
func TestIntegrationControllerKill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 14*time.Minute)
	defer cancel()
	// A quorum of three cannot shrink in place (its voters are in the
	// metadata log): kbf's cluster is made anew for it, and taken down after.
	downAfter(t)
	stepsCluster(ctx, t, compose.Options{Controllers: 3})
	// Recovery waits until the controller the fault hit has caught up with
	// the quorum's leader again, so the second fault finds three voters.
	for _, fault := range []string{"controller-pause", "controller-kill"} {
		t.Run(fault, func(t *testing.T) {
			tr := stepsTrial(ctx, t, nil, "--fault", fault, "--controllers", "3", "--duration", "30s", "--fault-after", "5s")
			steps := tr.Meta.Steps
			if len(steps) == 0 || steps[0].NodeID < 100 {
				t.Fatalf("steps %+v: want the fault of a controller first", steps)
			}
			first := steps[0]
			if fault == "controller-kill" && first.ExitCode != 137 {
				t.Errorf("first step %+v: want exit 137", first)
			}
			// The quorum's own word: another controller became its leader.
			q := tr.Quorum
			if q == nil || q.Elected == nil || q.NewLeader == first.Node {
				t.Errorf("no other controller logged becoming the quorum's leader after %s: %+v", first.At.Format(time.RFC3339Nano), q)
			} else {
				t.Logf("%s of %s at %s; %s became the quorum's leader at epoch %d %.2f s later, by its log [%s]; %d candidacies; the configuration predicts at most about %.2f s",
					fault, first.Node, first.At.Format(time.RFC3339Nano), q.NewLeader, q.NewEpoch, q.Leaderless.Seconds(), q.Elected.Source,
					q.Candidacies, q.Predicted.Seconds())
				if d := q.DataPath; d != nil {
					t.Logf("data path: %s", d)
				}
			}
			// Asked of the controllers themselves (the containers' addresses
			// are routed from the host here): the new leader is learnt
			// within a question's time of its election, so probing settles
			// from then rather than running to the cap, as it did through a
			// broker (which forwards to the leader it last knew).
			learnt := false
			for _, s := range steps {
				if s.Action != results.StepQuorumLeader {
					continue
				}
				learnt = true
				msg := fmt.Sprintf("DescribeQuorum named node %d (%s) %.2f s after the fault", s.NodeID, s.Note, s.At.Sub(first.At).Seconds())
				if q != nil && q.Elected != nil {
					msg += fmt.Sprintf(", %.2f s after its log says it was elected", s.At.Sub(q.Elected.Time).Seconds())
				}
				t.Log(msg)
			}
			ended, notes := tr.Meta.Ended.Sub(first.At), strings.Join(tr.Meta.Notes, "; ")
			t.Logf("probing ended %.1f s after the fault: %s", ended.Seconds(), notes)
			if !learnt {
				t.Errorf("steps %+v: no new quorum leader learnt while probing", steps)
			} else if !strings.Contains(notes, "probing ended") {
				t.Errorf("probing ran to the cap (%.1f s after the fault), not --settle after the new leader: notes %q", ended.Seconds(), notes)
			}
			for _, p := range tr.Gaps.Partitions {
				if g := p.Ack.Fault; g != nil {
					t.Logf("p%d ack gap at the fault %.2f s", p.Partition, g.Duration().Seconds())
				}
			}
			if tr.Integrity == nil || !tr.Integrity.OK() {
				t.Errorf("integrity %+v", tr.Integrity)
			}
			if r := tr.Meta.Recovery; r == nil || r.Err != "" {
				t.Errorf("recovery %+v", r)
			}
		})
	}
}
