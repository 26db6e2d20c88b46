package verdict

import (
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// probeRun records a probe run of parts partitions, one record each per
// interval for d, through gaps.Report as the analysis reads probe.csv:
// lag(sent) is each record's time to its ack, a negative lag a record
// never acked; the probe drains for 10 s after its last send. With a
// fault at faultAt the gaps are read with it, as a trial's are.
func probeRun(parts int, interval, d time.Duration, lag func(sentAfter time.Duration) time.Duration, faultAt time.Time) (*results.Meta, *gaps.Report) {
	ready := t0.Add(interval)
	m := &results.Meta{Kind: "probe", Started: t0, Ended: t0.Add(d + 10*time.Second),
		Probe: results.Probe{Interval: interval, Ready: ready, LongestSendGap: interval}}
	g := gaps.NewReport(gaps.Options{Ready: ready, FaultAt: faultAt, End: m.Ended})
	for k := time.Duration(0); k < d; k += interval {
		for p := range int32(parts) {
			msg := &results.Message{Partition: p, Seq: int64(k / interval), Offset: -1, Sent: t0.Add(k)}
			if l := lag(k); l >= 0 && !t0.Add(k+l).After(m.Ended) {
				msg.Acked, msg.Received, msg.Offset = t0.Add(k+l), t0.Add(k+l), int64(k/interval)
			}
			g.Add(msg)
		}
	}
	g.Close()
	return m, g
}

// backlog is the lag of a probe whose acks come at share of its send
// rate, first in first out: the record sent at s waits s × (1/share − 1).
func backlog(share float64) func(time.Duration) time.Duration {
	return func(s time.Duration) time.Duration {
		return 5*time.Millisecond + time.Duration(float64(s)*(1/share-1))
	}
}

func host(cpus int, wall, self, cluster, others time.Duration) *results.Host {
	return &results.Host{CPUs: cpus, Wall: wall, Self: self, Cluster: cluster, Others: others}
}

func TestAcksBehind(t *testing.T) {
	const interval = 100 * time.Millisecond
	w := 30 * time.Second
	tests := []struct {
		name   string
		lag    func(time.Duration) time.Duration
		host   *results.Host
		missed map[int32]*results.MissedSends
		status Status
		detail []string
	}{
		{name: "in step", lag: func(time.Duration) time.Duration { return 5 * time.Millisecond },
			host: host(2, w, 6*time.Second, 20*time.Second, time.Second), status: Valid},
		// A steady lag delays every ack alike: the gaps are right.
		{name: "a steady lag", lag: func(time.Duration) time.Duration { return 280 * time.Millisecond },
			host: host(2, w, 6*time.Second, 20*time.Second, time.Second), status: Valid},
		// The warm-up: acks late at first, then in step.
		{name: "a lag that catches up", lag: func(s time.Duration) time.Duration { return max(2*time.Second-s, 5*time.Millisecond) },
			host: host(2, w, 6*time.Second, 20*time.Second, time.Second), status: Valid},
		// The 1,000 partitions: about 60 % of the records acked,
		// the rest still pending 10 s after sending stopped.
		{name: "a backlog, the host saturated", lag: backlog(0.3),
			host: host(2, w, 20*time.Second, 36*time.Second, time.Second), status: Invalid,
			detail: []string{"records sent after the probe's start-up were never acknowledged by the end", "the floor is the host's CPUs, taken mostly by the cluster: the CPUs 95% busy"}},
		{name: "a backlog, kbf on a whole CPU", lag: backlog(0.3),
			host: host(4, w, 29*time.Second, 30*time.Second, time.Second), status: Invalid,
			detail: []string{"the floor is the probe process's CPU", "(0.97 CPUs)"}},
		{name: "a backlog, the probe missing sends with room", lag: backlog(0.3),
			host: host(4, w, 10*time.Second, 30*time.Second, time.Second), missed: missed(t0.Add(5*time.Second), 40), status: Invalid,
			detail: []string{"the floor is the probe process: it missed 40 send slots while the host had room"}},
		{name: "a backlog, the host with room", lag: backlog(0.3),
			host: host(4, w, 10*time.Second, 40*time.Second, time.Second), status: Invalid,
			detail: []string{"the floor is the cluster: the host had room and the probe kept its sends"}},
		{name: "a backlog, no host samples", lag: backlog(0.3), status: Invalid,
			detail: []string{"the floor is not known"}},
		// Every record acked within the drain, the lag growing: suspect.
		{name: "a growing lag, all acked", lag: backlog(0.8),
			host: host(2, w, 10*time.Second, 20*time.Second, time.Second), status: Suspect,
			detail: []string{"the acks lagged the sends past the bound 1.00 s, by up to 4.98 s (0.48 s in the first second, 4.98 s in the last acked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, g := probeRun(10, interval, 20*time.Second, tt.lag, time.Time{})
			m.Host = tt.host
			m.Probe.Missed = tt.missed
			v := Judge(m, g, time.Time{})
			if v.Status != tt.status {
				t.Fatalf("status %s, want %s: %v", v.Status, tt.status, v)
			}
			var acks *Reason
			for i := range v.Reasons {
				if v.Reasons[i].Kind == AcksBehind {
					acks = &v.Reasons[i]
				}
			}
			if (acks != nil) != (tt.status != Valid) {
				t.Fatalf("reasons %v: %s wanted %v", v.Reasons, AcksBehind, tt.status != Valid)
			}
			for _, d := range tt.detail {
				if !strings.Contains(acks.Detail, d) {
					t.Errorf("%q does not say %q", acks.Detail, d)
				}
			}
		})
	}
}

// TestAcksBehindFault: a fault's stall makes the acks late in the window
// that decides it; outside it the acks are judged as a probe run's are.
func TestAcksBehindFault(t *testing.T) {
	const interval = 100 * time.Millisecond
	stall := func(s time.Duration) time.Duration {
		// The fault at 5 s: what is sent in the 8 s after waits for the
		// new leader at 13 s.
		if s >= 5*time.Second && s < 13*time.Second {
			return 13*time.Second - s
		}
		return 5 * time.Millisecond
	}
	faultAt := t0.Add(5 * time.Second)
	m, g := probeRun(3, interval, 20*time.Second, stall, faultAt)
	m.Kind = "trial"
	m.Fault = &results.Fault{Broker: "k1", Kind: "sigkill", SignalSent: faultAt, Finished: faultAt}
	if v := Judge(m, g, faultAt); v.Status != Valid {
		t.Errorf("a stall alone: %v, want valid", v)
	}
	// The same stall, and a backlog after it: not valid.
	m, g = probeRun(3, interval, 20*time.Second, func(s time.Duration) time.Duration {
		if s >= 13*time.Second {
			return (s - 13*time.Second) * 2
		}
		return stall(s)
	}, faultAt)
	m.Kind = "trial"
	m.Fault = &results.Fault{Broker: "k1", Kind: "sigkill", SignalSent: faultAt, Finished: faultAt}
	if v := Judge(m, g, faultAt); v.Status == Valid || !strings.Contains(v.String(), "outside the window that decides the stall") {
		t.Errorf("a backlog after the stall: %v, want it found", v)
	}
}

// TestAcksBehindDegrading: a fault that slows the broker (disk-slow) makes
// every ack after it late, a backlog included, and that is what the trial
// measures, not a probe that fell behind; the same backlog after a SIGKILL
// is found, and one before the slow disk too.
func TestAcksBehindDegrading(t *testing.T) {
	const interval = 100 * time.Millisecond
	faultAt := t0.Add(5 * time.Second)
	slowAfter := func(from time.Duration) func(time.Duration) time.Duration {
		return func(s time.Duration) time.Duration {
			if s >= from {
				return 200*time.Millisecond + (s - from) // 0.2 s each, and a backlog growing
			}
			return 5 * time.Millisecond
		}
	}
	for _, tc := range []struct {
		name  string
		kind  results.FaultKind
		from  time.Duration
		valid bool
	}{
		{name: "disk-slow, late after the fault", kind: results.FaultDiskSlow, from: 5 * time.Second, valid: true},
		{name: "sigkill, the same late acks", kind: results.FaultSIGKILL, from: 5 * time.Second},
		{name: "disk-slow, late before the fault", kind: results.FaultDiskSlow, from: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, g := probeRun(3, interval, 20*time.Second, slowAfter(tc.from), faultAt)
			m.Kind = "trial"
			m.Fault = &results.Fault{Broker: "k1", Kind: tc.kind, SignalSent: faultAt, Finished: faultAt}
			v := Judge(m, g, faultAt)
			behind := strings.Contains(v.String(), string(AcksBehind))
			if behind == tc.valid {
				t.Errorf("%v: acks-behind %v, want %v", v, behind, !tc.valid)
			}
		})
	}
}
