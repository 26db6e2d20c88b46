package experiment

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

func TestRecovered(t *testing.T) {
	now := time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC)
	const settle, bound = 5 * time.Second, 200 * time.Millisecond
	// steady is a partition acked and read just now, steady since since.
	steady := func(p int32, since time.Time) probe.PartitionStats {
		return probe.PartitionStats{Partition: p, LastAck: now, LastRecv: now, AckSteadySince: since, RecvSteadySince: since}
	}
	tests := []struct {
		name  string
		stats []probe.PartitionStats
		want  string // "" when recovered
		wantP int32
	}{
		{name: "steady since before the fault", stats: []probe.PartitionStats{steady(0, now.Add(-time.Minute)), steady(1, now.Add(-time.Minute))}},
		{name: "steady for exactly settle", stats: []probe.PartitionStats{steady(0, now.Add(-settle)), steady(1, now.Add(-time.Minute))}},
		{name: "steady for less than settle", stats: []probe.PartitionStats{steady(0, now.Add(-time.Minute)), steady(1, now.Add(-time.Second))}, want: "steady for 1.00 s of 5.00 s", wantP: 1},
		{name: "still stalled", stats: []probe.PartitionStats{{Partition: 0, LastAck: now.Add(-3 * time.Second), LastRecv: now}, steady(1, now.Add(-time.Minute))}, want: "no ack for 3.00 s"},
		{name: "acks back, reads not", stats: []probe.PartitionStats{{Partition: 0, LastAck: now, LastRecv: now.Add(-time.Second)}}, want: "no read for 1.00 s"},
		{name: "never acked", stats: []probe.PartitionStats{{Partition: 0}}, want: "no ack yet"},
		{name: "nothing probed", want: "no partition probed", wantP: clusterWide},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := Recovered(now, settle, bound, tt.stats)
			switch {
			case tt.want == "" && u != nil:
				t.Errorf("not recovered: %v", u)
			case tt.want != "" && u == nil:
				t.Errorf("recovered, want %q", tt.want)
			case tt.want != "" && (u.Partition != tt.wantP || !strings.Contains(u.Why, tt.want)):
				t.Errorf("got %v, want p%d %q", u, tt.wantP, tt.want)
			}
		})
	}
}

// TestTrialSettles runs trials with --settle against a probe that stalls
// at the fault and recovers after stall (never, when zero), and checks
// when probing ended against what the probe showed: never before the
// recovery plus the margin, and at the cap when it never recovers. The
// cap is far beyond the margin so that a trial ended early cannot be one
// that merely ran out.
func TestTrialSettles(t *testing.T) {
	const settle = 50 * time.Millisecond
	tests := []struct {
		name   string
		settle time.Duration
		stall  time.Duration // 0: never recovers
		exit   time.Duration // when k1 leaves the ISR after the fault; -1 never
		// stale: k1's own view keeps it in the ISR, and the cluster's
		// answer (Partitions) is k1's, as an admin client asking any
		// broker may get it; the others (PartitionsSeenBy) see it leave.
		stale    bool
		mute     int32 // a broker other than k1 that never answers; 0 none
		duration time.Duration
		early    bool
	}{
		{name: "recovers: ends the margin after", settle: settle, stall: 100 * time.Millisecond, duration: time.Minute, early: true},
		{name: "no stall: ends the margin after the fault", settle: settle, stall: -1, duration: time.Minute, early: true},
		{name: "quiet until the broker leaves the ISR: ends the margin after the exit", settle: settle, stall: -1, exit: 300 * time.Millisecond, duration: time.Minute, early: true},
		{name: "the faulted broker still names itself in the ISR: ends the margin after the others show it gone", settle: settle, stall: -1, exit: 300 * time.Millisecond, stale: true, duration: time.Minute, early: true},
		{name: "another broker does not answer: the next is asked", settle: settle, stall: -1, exit: 300 * time.Millisecond, stale: true, mute: 2, duration: time.Minute, early: true},
		{name: "the broker never leaves the ISR: runs to the cap", settle: settle, stall: -1, exit: -1, duration: 400 * time.Millisecond},
		{name: "never recovers: runs to the cap", settle: settle, duration: 400 * time.Millisecond},
		{name: "off: runs to the cap", stall: 100 * time.Millisecond, duration: 400 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			var faultAt time.Time // under w.mu
			inISR := []cluster.Partition{{Partition: 0, Leader: 2, Replicas: []int32{2, 1}, ISR: []int32{2, 1}}, {Partition: 1, Leader: 2, Replicas: []int32{2, 3}, ISR: []int32{2, 3}}}
			out := []cluster.Partition{{Partition: 0, Leader: 2, Replicas: []int32{2, 1}, ISR: []int32{2}}, {Partition: 1, Leader: 2, Replicas: []int32{2, 3}, ISR: []int32{2, 3}}}
			w.parts = inISR // k1 (node 1) follows p0 until it leaves
			w.mute = map[int32]bool{tt.mute: true}
			leave := func() {
				if tt.stale {
					w.seenBy = map[int32][]cluster.Partition{1: inISR, 2: out, 3: out}
					return
				}
				w.parts = out
			}
			w.hooks["inject"] = func(context.Context) error {
				w.mu.Lock()
				faultAt = time.Now()
				if tt.exit == 0 {
					leave()
				}
				w.mu.Unlock()
				if tt.exit > 0 {
					time.AfterFunc(tt.exit, func() { w.mu.Lock(); leave(); w.mu.Unlock() })
				}
				return nil
			}
			w.stats = func(now time.Time) []probe.PartitionStats {
				w.mu.Lock()
				at := faultAt
				injected := !at.IsZero()
				w.mu.Unlock()
				var out []probe.PartitionStats
				for _, p := range []int32{0, 1} {
					st := probe.PartitionStats{Partition: p, LastAck: now, LastRecv: now}
					switch {
					case !injected || tt.stall < 0:
					case tt.stall == 0 || now.Before(at.Add(tt.stall)):
						st.LastAck, st.LastRecv = at, at // stalled since the fault
					default:
						st.AckSteadySince, st.RecvSteadySince = at.Add(tt.stall), at.Add(tt.stall)
						st.LastAckGap, st.LastRecvGap = tt.stall, tt.stall
					}
					out = append(out, st)
				}
				return out
			}
			r, _, _ := newRunner(t, w, results.FaultSIGKILL)
			r.Opt.Duration, r.Opt.Settle = tt.duration, tt.settle
			r.Opt.Baseline.Gap = 20 * time.Millisecond // the steady bound: a stall of 100ms shows
			dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
			if err := r.Trial(context.Background(), 1, dir); err != nil {
				t.Fatal(err)
			}
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			took := m.Ended.Sub(m.Fault.SignalSent)
			w.mu.Lock()
			asked := w.askedBy[1]
			w.mu.Unlock()
			if asked > 0 {
				t.Errorf("the faulted broker was asked %d times whether it had left", asked)
			}
			note := strings.Join(m.Notes, "; ")
			if tt.early {
				if least := max(tt.stall, tt.exit, 0) + tt.settle; took < least || took > tt.duration/2 {
					t.Errorf("probing ended %v after the fault, want at least %v after it and well before the cap %v", took, least, tt.duration)
				}
				if !strings.Contains(note, "probing ended") {
					t.Errorf("notes %q do not say the trial ended early", note)
				}
				return
			}
			if took < tt.duration-r.Opt.FaultAfter {
				t.Errorf("probing ended %v after the fault, want the cap %v", took, tt.duration-r.Opt.FaultAfter)
			}
			if strings.Contains(note, "probing ended") {
				t.Errorf("notes %q say a trial that ran to its cap ended early", note)
			}
		})
	}
}
