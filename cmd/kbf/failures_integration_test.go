//go:build integration

// These tests run the cut between brokers only and the failback against the
// real cluster in Docker (KBF_IMAGE, e.g. kbf/kafka:4.3.1), one at a time
// and as root (the cut is iptables in the broker's namespace):
//
//	KBF_IMAGE=kbf/kafka:4.3.1 go test -tags integration -p 1 ./cmd/kbf/ -run 'TestIntegrationIsolateReplication|TestIntegrationFailback' -v
//
// They assert what Kafka guarantees and what the report must show, never a
// timing tuned to one machine, and leave the cluster up and whole.

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/results"
)

// lagConfig shortens replica.lag.time.max.ms to 10 s so the cut's stall
// ends within a short trial.
const lagConfig = "replica.lag.time.max.ms=10000"

// TestIntegrationIsolateReplication cuts k1 from k2 and k3 only. Nothing
// fences it, so a leader drops the silent replica from its ISR only after
// replica.lag.time.max.ms: the stalls of the partitions k1 follows end at
// their leader's shrink, and the one it leads, left with an ISR of one
// under min.insync.replicas=2, acks nothing more until the heal.
func TestIntegrationIsolateReplication(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	st, err := compose.ParseSetting(lagConfig)
	if err != nil {
		t.Fatal(err)
	}
	cl := stepsCluster(ctx, t, compose.Options{Config: []compose.Setting{st}})
	tr := stepsTrial(ctx, t, nil, "--fault", "isolate-replication", "--broker", "k1", "--duration", "35s",
		"--fault-after", "5s", "--config", lagConfig)
	f := tr.Meta.Fault
	if f == nil || f.Kind != results.FaultIsolateReplication || f.Cut.IsZero() {
		t.Fatalf("fault %+v: want isolate-replication with the cut's time", f)
	}
	var shrunk time.Time
	for _, s := range tr.Stalls {
		lag, ok := analysis.Phases(s.Phases).Named(analysis.PhaseLag)
		if !ok {
			t.Errorf("p%d (%s): no lag phase: %+v, note %q", s.Partition, s.Role, s.Phases, s.Note)
			continue
		}
		if !strings.Contains(lag.Evidence, "Shrinking ISR") {
			t.Errorf("p%d: the lag phase ends at %q, not a leader's ISR shrink", s.Partition, lag.Evidence)
		}
		if len(lag.Settings) != 1 || lag.Settings[0].Value != "10000" || lag.Settings[0].Source != analysis.SourceNodeConfig {
			t.Errorf("p%d: lag settings %+v: want replica.lag.time.max.ms 10000 read from the node's config", s.Partition, lag.Settings)
		}
		// Kafka drops a replica only once it has not caught up for the
		// whole lag time; it last caught up at most a fetch before the cut.
		if lag.End.Sub(f.Cut) < 9*time.Second {
			t.Errorf("p%d: the ISR shrank %v after the cut, before replica.lag.time.max.ms", s.Partition, lag.End.Sub(f.Cut))
		}
		switch s.Role {
		case results.RoleLed:
			shrunk = lag.End
		case results.RoleFollowed:
			if s.FirstAck.IsZero() {
				t.Errorf("p%d: k1 followed it, yet no ack came after its leader dropped k1", s.Partition)
			}
		}
	}
	if shrunk.IsZero() {
		t.Fatal("no lag phase of the partition k1 led")
	}
	// Alone in the ISR under min.insync.replicas=2, k1 must acknowledge
	// nothing of partition 0 sent after its shrink until the heal.
	healed := tr.Meta.Recovery.Restarted
	for _, m := range probeRows(t, tr) {
		if m.Partition == 0 && !m.Acked.IsZero() && m.Sent.After(shrunk) && m.Acked.Before(healed) {
			t.Errorf("p0 seq %d sent at %s acked at %s, with k1 alone in the ISR", m.Seq, m.Sent.Format(time.RFC3339Nano), m.Acked.Format(time.RFC3339Nano))
		}
	}
	if tr.Integrity == nil || !tr.Integrity.OK() || tr.Integrity.Lost != 0 {
		t.Errorf("acks=all, a cut between brokers: integrity %+v", tr.Integrity)
	}
	checkRecovered(ctx, t, cl, tr)
}

// TestIntegrationFailback kills k1 and brings it back with the probe
// running: the report must show its return on the partition it prefers
// to lead, phase by phase with k1's own line taking the lead back, and the
// latency of the 30 s after the election beside the baseline's.
func TestIntegrationFailback(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cl := stepsCluster(ctx, t, compose.Options{})
	tr := stepsTrial(ctx, t, nil, "--fault", "sigkill", "--broker", "k1", "--duration", "25s", "--fault-after", "5s", "--failback", "--failback-for", "30s")
	fb := tr.Meta.Failback
	if fb == nil || fb.Err != "" || fb.Restarted.IsZero() || fb.ISRFull.IsZero() || fb.Elected.IsZero() || fb.Ended.IsZero() {
		t.Fatalf("failback %+v: want every step recorded, no error", fb)
	}
	if !fb.Restarted.Before(fb.ISRFull) || fb.ISRFull.After(fb.Elected) || fb.Ended.Sub(fb.Elected) < fb.After {
		t.Errorf("failback steps out of order or probing cut short: %+v", fb)
	}
	v := tr.Failback
	if v == nil {
		t.Fatal("no failback in the report")
	}
	led := 0
	for _, p := range v.Partitions {
		if !p.Led {
			continue
		}
		led++
		var names []string
		for _, ph := range p.Phases {
			names = append(names, ph.Name)
		}
		if strings.Join(names, ",") != strings.Join([]string{analysis.PhaseCatchUp, analysis.PhaseElection, analysis.PhaseFirstAnswers}, ",") {
			t.Errorf("p%d: failback phases %q (note %q)", p.Partition, names, p.Note)
			continue
		}
		if el := p.Phases[1]; !strings.HasPrefix(el.Source, "k1/") || !strings.Contains(el.Evidence, "Leader") {
			t.Errorf("p%d: election ends at %q [%s], not k1's line leading it", p.Partition, el.Evidence, el.Source)
		}
		if p.Phases[2].End.Before(fb.Restarted) {
			t.Errorf("p%d: first answer %v before the restart", p.Partition, p.Phases[2].End)
		}
	}
	if led == 0 {
		t.Error("no partition k1 leads again after the failback")
	}
	if v.Baseline.N == 0 || v.After.N == 0 {
		t.Errorf("ack latency: baseline %+v, after %+v: want records in both", v.Baseline, v.After)
	}
	if tr.Integrity == nil || !tr.Integrity.OK() || tr.Integrity.Lost != 0 {
		t.Errorf("acks=all, a failback: integrity %+v", tr.Integrity)
	}
	checkRecovered(ctx, t, cl, tr)
}
