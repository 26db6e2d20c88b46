package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// The recorded trials of the faults issue 44 added, on kbf's cluster.
const (
	// isolateReplicationArchive: k1 cut from k2 and k3 only, with
	// replica.lag.time.max.ms=10000, healed after the probe.
	isolateReplicationArchive = "isolate-replication.tar.gz"
	// failbackArchive: k1 SIGKILLed, then brought back with the probe
	// running (--failback); client.log kept around the fault and the
	// election only.
	failbackArchive = "failback.tar.gz"
)

// TestIsolateReplication checks the recorded cut between brokers: every
// stall's lag phase ends at the line of the partition's leader shrinking
// its ISR, and names the leader's replica.lag.time.max.ms as it logged it;
// the partition k1 led never acked again, k1 alone in its ISR.
func TestIsolateReplication(t *testing.T) {
	tr := analyze(t, unpack(t, isolateReplicationArchive))
	if tr.Meta.Fault.Kind != results.FaultIsolateReplication {
		t.Fatalf("fault %s", tr.Meta.Fault.Kind)
	}
	if len(tr.Stalls) != 3 {
		t.Fatalf("%d stalls, want 3", len(tr.Stalls))
	}
	for _, st := range tr.Stalls {
		lag, ok := Phases(st.Phases).Named(PhaseLag)
		if !ok {
			t.Fatalf("p%d: no lag phase: %+v", st.Partition, st)
		}
		if !strings.Contains(lag.Evidence, "Shrinking ISR from") || lag.Source == "" {
			t.Errorf("p%d: lag ends at %q [%s]", st.Partition, lag.Evidence, lag.Source)
		}
		s := lag.Settings[0]
		if s.Name != "replica.lag.time.max.ms" || s.Value != "10000" || s.Source != SourceNodeConfig || s.Node == "" {
			t.Errorf("p%d: setting %+v", st.Partition, s)
		}
		if lag.Duration < 10*time.Second {
			t.Errorf("p%d: lag %v, shorter than the setting", st.Partition, lag.Duration)
		}
		switch st.Role {
		case results.RoleLed:
			if !strings.HasSuffix(lag.Evidence, "to 1") || !strings.HasPrefix(lag.Source, "k1/") {
				t.Errorf("p%d: the led partition's shrink %q [%s]: want k1's to itself", st.Partition, lag.Evidence, lag.Source)
			}
			if !st.FirstAck.IsZero() || !strings.Contains(st.Note, "alone in the ISR") {
				t.Errorf("p%d: first ack %v, note %q", st.Partition, st.FirstAck, st.Note)
			}
		case results.RoleFollowed:
			if strings.HasPrefix(lag.Source, "k1/") || st.FirstAck.IsZero() {
				t.Errorf("p%d: the followed partition's shrink [%s], first ack %v", st.Partition, lag.Source, st.FirstAck)
			}
		}
	}
	for _, r := range tr.Verdict.Reasons {
		if r.Kind == verdict.FaultNotConfirmed || r.Kind == verdict.EvidenceDamaged {
			t.Errorf("verdict: %v", r)
		}
	}
}

// TestIsolateReplicationNotConfirmed checks that a cut whose effect no
// line shows (a trial shorter than the lag) is not taken for measured.
func TestIsolateReplicationNotConfirmed(t *testing.T) {
	tr := analyze(t, unpack(t, isolateReplicationArchive))
	ev := &evidence{meta: tr.Meta, tl: tr.Timeline, F: tr.FaultAt.Add(time.Hour)}
	v := verdict.Verdict{Status: verdict.Valid}
	confirmReplicationCut(&v, ev, tr.Meta.Fault)
	if v.Status != verdict.Invalid || len(v.Reasons) != 1 || v.Reasons[0].Kind != verdict.FaultNotConfirmed {
		t.Errorf("verdict %v: want invalid, fault-not-confirmed", v)
	}
}

// TestFailback checks the recorded failback: k1 leads partition 0 again,
// its phases end at the leader's ISR line, k1's own line leading it, and
// the first ack after it; the latencies count the baseline's records and
// the minute's after the election.
func TestFailback(t *testing.T) {
	tr := analyze(t, unpack(t, failbackArchive))
	v := tr.Failback
	if v == nil {
		t.Fatal("no failback")
	}
	fb := tr.Meta.Failback
	if v.Broker != "k1" || v.NodeID != 1 || !v.Restarted.Equal(fb.Restarted) || !v.Elected.Equal(fb.Elected) {
		t.Errorf("failback %+v, meta %+v", v, fb)
	}
	var led []FailbackPartition
	for _, p := range v.Partitions {
		if p.Led {
			led = append(led, p)
		}
		if p.Stall <= 0 || p.MaxAck <= 0 || p.StallEnd.Before(v.Restarted) {
			t.Errorf("p%d: stall %v (%v ~ %v), longest ack %v", p.Partition, p.Stall, p.StallStart, p.StallEnd, p.MaxAck)
		}
	}
	if len(led) != 1 || led[0].Partition != 0 {
		t.Fatalf("led partitions %+v: want p0 alone", led)
	}
	ps := led[0].Phases
	if len(ps) != 3 || ps[0].Name != PhaseCatchUp || ps[1].Name != PhaseElection || ps[2].Name != PhaseFirstAnswers {
		t.Fatalf("phases %+v (note %q)", ps, led[0].Note)
	}
	if !ps[0].Start.Equal(v.Restarted) || !strings.Contains(ps[0].Evidence, "ISR updated to") {
		t.Errorf("catch up %+v", ps[0])
	}
	if !strings.HasPrefix(ps[1].Source, "k1/") || !strings.Contains(ps[1].Evidence, "Leader orders-0 starts") {
		t.Errorf("election %+v", ps[1])
	}
	for i := 1; i < len(ps); i++ {
		if !ps[i].Start.Equal(ps[i-1].End) || ps[i].Duration != ps[i].End.Sub(ps[i].Start) {
			t.Errorf("phase %d %+v does not follow %+v", i, ps[i], ps[i-1])
		}
	}
	if v.Baseline.N == 0 || v.After.N == 0 || v.Baseline.P50 > v.Baseline.P99 || v.After.P99 > v.After.Max {
		t.Errorf("latencies: baseline %+v, after %+v", v.Baseline, v.After)
	}
	if !v.After.From.Equal(fb.Elected) || v.After.To.Sub(v.After.From) != fb.After {
		t.Errorf("after window %v ~ %v, want the minute after %v", v.After.From, v.After.To, fb.Elected)
	}
	// The fault's own stalls end before the failback: its gaps are
	// judged on the window before the restart.
	for _, st := range tr.Stalls {
		if st.FirstAck.IsZero() || st.FirstAck.After(fb.Restarted) {
			t.Errorf("p%d: the fault's stall ends at %v, after the failback's restart %v", st.Partition, st.FirstAck, fb.Restarted)
		}
	}
}

// TestFailbackNone checks that a trial without --failback has none.
func TestFailbackNone(t *testing.T) {
	if tr := analyze(t, unpack(t, isolateReplicationArchive)); tr.Failback != nil {
		t.Errorf("failback %+v", tr.Failback)
	}
}

func TestAckLatencyRatio(t *testing.T) {
	base := AckLatency{Latency: Latency{N: 10, P99: 100 * time.Millisecond}}
	after := AckLatency{Latency: Latency{N: 5, P99: 350 * time.Millisecond}}
	if r := after.Ratio(base); r != 3.5 {
		t.Errorf("ratio %v, want 3.5", r)
	}
	if r := after.Ratio(AckLatency{}); r != 0 {
		t.Errorf("ratio against no baseline %v, want 0", r)
	}
}

func TestConfirmFailback(t *testing.T) {
	v := verdict.Verdict{Status: verdict.Valid}
	confirmFailback(&v, &FailbackView{Partitions: []FailbackPartition{{Partition: 0, Led: true, Note: "no line shows broker 1 back in the ISR after its restart"}, {Partition: 1, Note: "ignored"}}})
	if v.Status != verdict.Suspect || len(v.Reasons) != 1 || !strings.Contains(v.Reasons[0].Detail, "failback p0") {
		t.Errorf("verdict %v", v)
	}
}
