package analysis

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

var t0 = time.Date(2026, 11, 30, 3, 26, 0, 0, time.UTC)

// replicaTrial builds a replica view: three brokers sampled every 100 ms
// for 6 s around a fault at t0+1s; leo and hw say each sample's values
// (-1 for a timed-out answer, hw -1 when the broker is not leader), and
// state the cluster's leader and ISR at each moment.
type replicaTrial struct {
	leo   func(broker int32, at time.Duration) int64
	hw    func(broker int32, at time.Duration) int64
	state func(at time.Duration) (leader int32, epoch int32, isr []int32)
}

func (rt replicaTrial) csv(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := results.NewReplicaEncoder(&buf)
	for at := time.Duration(0); at <= 6*time.Second; at += 100 * time.Millisecond {
		for b := int32(1); b <= 3; b++ {
			s := results.ReplicaSample{Time: t0.Add(at + time.Duration(b)*time.Millisecond), Partition: 0, Broker: b, LEO: rt.leo(b, at), HW: rt.hw(b, at)}
			if s.LEO < 0 {
				s.LEO, s.HW, s.Err = -1, -1, "timed out"
			}
			enc.Encode(&s)
		}
		l, e, isr := rt.state(at)
		enc.Encode(&results.ReplicaSample{Time: t0.Add(at + 5*time.Millisecond), Partition: 0, Broker: -1, LEO: -1, HW: -1,
			Leader: l, LeaderEpoch: e, ISR: isr})
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// progress is an offset growing by 5 a sample until stop, then held.
func progress(at, stop time.Duration) int64 {
	if at > stop {
		at = stop
	}
	return 100 + int64(at/(100*time.Millisecond))*5
}

// never is a progress that stops past the trial's end.
const never = time.Hour

func TestSummarizeReplicas(t *testing.T) {
	F := t0.Add(time.Second)
	tests := []struct {
		name string
		rt   replicaTrial
		// want: the HW's stop (noHWStop for none), the frozen brokers and
		// when each moved again (0: never, as a dead one), the new leader
		// (-1 none), and the states reported.
		hwStopped, hwMoved time.Duration
		noHWStop           bool
		frozen             map[int32]time.Duration
		takeOver           int32
		takeOverAt         time.Duration
		states             int
		stale              bool
		// leaderless are the times without a leader, [from, to).
		leaderless [][2]time.Duration
	}{
		{
			name: "a dead follower: its LEO frozen, the HW held until the ISR shrinks",
			rt: replicaTrial{
				leo: func(b int32, at time.Duration) int64 {
					if b == 3 {
						if at > time.Second {
							return -1
						}
						return progress(at, never)
					}
					// The leader and the live follower take records, but
					// acks=all holds them: LEO moves on.
					return progress(at, never)
				},
				hw: func(b int32, at time.Duration) int64 {
					if b != 1 {
						return -1
					}
					if at < 4*time.Second {
						return progress(at, time.Second)
					}
					return progress(at, never)
				},
				state: func(at time.Duration) (int32, int32, []int32) {
					if at < 4*time.Second {
						return 1, 0, []int32{1, 2, 3}
					}
					return 1, 0, []int32{1, 2}
				},
			},
			hwStopped: time.Second, hwMoved: 4 * time.Second,
			frozen:   map[int32]time.Duration{3: 0},
			takeOver: -1, states: 2,
		},
		{
			name: "a dead leader: every LEO frozen, the new leader takes over",
			rt: replicaTrial{
				leo: deadLeaderLEO,
				hw:  deadLeaderHW,
				state: func(at time.Duration) (int32, int32, []int32) {
					if at < 3*time.Second {
						return 1, 0, []int32{1, 2, 3}
					}
					return 2, 1, []int32{2, 3}
				},
			},
			hwStopped: time.Second, hwMoved: 3 * time.Second,
			frozen:   map[int32]time.Duration{1: 0, 2: 3 * time.Second, 3: 3 * time.Second},
			takeOver: 2, takeOverAt: 3 * time.Second, states: 2,
		},
		{
			// The leader was the last replica in the ISR: none is left to
			// elect until broker 2, in the ELR, is made leader at 3 s.
			name: "the last replica dead: no leader, the HW unknown, the live replicas' LEOs sampled on",
			rt: replicaTrial{
				leo: deadLeaderLEO,
				hw:  deadLeaderHW,
				state: func(at time.Duration) (int32, int32, []int32) {
					switch {
					case at < 1100*time.Millisecond:
						return 1, 0, []int32{1}
					case at < 3*time.Second:
						return -1, 1, []int32{1}
					}
					return 2, 2, []int32{2}
				},
			},
			hwStopped: time.Second, hwMoved: 3 * time.Second,
			frozen:   map[int32]time.Duration{1: 0, 2: 3 * time.Second, 3: 3 * time.Second},
			takeOver: 2, takeOverAt: 3 * time.Second, states: 3,
			leaderless: [][2]time.Duration{{1100 * time.Millisecond, 3 * time.Second}},
		},
		{
			name: "nothing stops: no stop, no take-over, one state",
			rt: replicaTrial{
				leo: func(b int32, at time.Duration) int64 { return progress(at, never) },
				hw: func(b int32, at time.Duration) int64 {
					if b == 1 {
						return progress(at, never)
					}
					return -1
				},
				state: func(time.Duration) (int32, int32, []int32) { return 1, 0, []int32{1, 2, 3} },
			},
			noHWStop: true, frozen: map[int32]time.Duration{}, takeOver: -1, states: 1,
		},
		{
			name: "a broker cut from the controller answers with the old state: stale, not a change",
			rt: replicaTrial{
				leo: func(b int32, at time.Duration) int64 { return progress(at, never) },
				hw: func(b int32, at time.Duration) int64 {
					if b == 1 {
						return progress(at, never)
					}
					return -1
				},
				state: func(at time.Duration) (int32, int32, []int32) {
					if at < 3*time.Second || (at/(100*time.Millisecond))%2 == 1 {
						return 1, 0, []int32{1, 2, 3}
					}
					return 2, 1, []int32{2, 3}
				},
			},
			noHWStop: true, frozen: map[int32]time.Duration{}, takeOver: -1, states: 2, stale: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := SummarizeReplicas(bytes.NewReader(tt.rt.csv(t)), results.ReplicasFile, F, 4*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if len(v.Partitions) != 1 {
				t.Fatalf("%d partitions, want 1", len(v.Partitions))
			}
			p := v.Partitions[0]
			if len(p.AtFault) != 3 || p.HWAtFault < 0 {
				t.Errorf("at the fault: LEOs %v, HW %d; want three LEOs and a HW", p.AtFault, p.HWAtFault)
			}
			// A sample is taken every 100 ms, a few ms after the tick.
			near := func(got time.Time, want time.Duration) bool {
				d := got.Sub(t0.Add(want))
				return d >= 0 && d < 110*time.Millisecond
			}
			switch {
			case tt.noHWStop && p.HW != nil:
				t.Errorf("HW stop %+v, want none", p.HW)
			case !tt.noHWStop && p.HW == nil:
				t.Errorf("no HW stop, want one from %v to %v", tt.hwStopped, tt.hwMoved)
			case !tt.noHWStop && (!near(p.HW.Stopped, tt.hwStopped) || !near(p.HW.Moved, tt.hwMoved)):
				t.Errorf("HW stopped %v, moved %v; want about t0+%v and t0+%v", p.HW.Stopped, p.HW.Moved, tt.hwStopped, tt.hwMoved)
			}
			got := map[int32]time.Duration{}
			for _, fz := range p.Frozen {
				got[fz.Broker] = fz.Moved.Sub(t0).Truncate(100 * time.Millisecond)
				if fz.Moved.IsZero() {
					got[fz.Broker] = 0
				}
			}
			if len(got) != len(tt.frozen) {
				t.Errorf("frozen %v, want %v", p.Frozen, tt.frozen)
			}
			for b, moved := range tt.frozen {
				if g, ok := got[b]; !ok || g != moved {
					t.Errorf("broker %d: frozen until %v (present %v), want %v", b, g, ok, moved)
				}
			}
			switch {
			case tt.takeOver < 0 && p.TakeOver != nil:
				t.Errorf("take-over %+v, want none", p.TakeOver)
			case tt.takeOver >= 0 && (p.TakeOver == nil || p.TakeOver.Broker != tt.takeOver || !near(p.TakeOver.Time, tt.takeOverAt)):
				t.Errorf("take-over %+v, want broker %d at about t0+%v", p.TakeOver, tt.takeOver, tt.takeOverAt)
			}
			if (p.Stale > 0) != tt.stale {
				t.Errorf("%d stale state answers, want some: %v", p.Stale, tt.stale)
			}
			if len(p.Changes) != tt.states {
				t.Errorf("%d states %+v, want %d", len(p.Changes), p.Changes, tt.states)
			}
			if len(p.Leaderless) != len(tt.leaderless) {
				t.Errorf("without a leader %+v, want %v", p.Leaderless, tt.leaderless)
			}
			for i, l := range tt.leaderless {
				if i < len(p.Leaderless) && (!near(p.Leaderless[i].From, l[0]) || !near(p.Leaderless[i].To, l[1])) {
					t.Errorf("without a leader %+v, want about t0+%v to t0+%v", p.Leaderless[i], l[0], l[1])
				}
				// The live replicas' LEO lines go on through it.
				for _, series := range p.LEOs {
					n := 0
					for _, x := range series.Points {
						if !x.Time.Before(t0.Add(l[0])) && x.Time.Before(t0.Add(l[1])) {
							n++
						}
					}
					if live := series.Broker != 1; live != (n > 0) {
						t.Errorf("broker %d: %d LEO samples without a leader", series.Broker, n)
					}
				}
			}
			var text bytes.Buffer
			if err := WriteText(&text, &Trial{Gaps: gaps.NewReport(gaps.Options{}), Replicas: v, FaultAt: F}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "p0 at the fault: LEO 1:") {
				t.Errorf("text does not give p0's LEOs at the fault:\n%s", text.String())
			}
			if said := strings.Contains(text.String(), "no leader from"); said != (len(tt.leaderless) > 0) {
				t.Errorf("text says no leader: %v, want %v:\n%s", said, len(tt.leaderless) > 0, text.String())
			}
		})
	}
}

func TestSummarizeReplicasBadInput(t *testing.T) {
	in := "time,partition,broker,leo,hw,leader,leader_epoch,isr,elr,last_known_elr,error\n" +
		"2026-11-30T03:26:09.100000000Z,0,1,1042,1040,,,,,,\n" +
		"yesterday,0,1,1042,1040,,,,,,\n"
	_, err := SummarizeReplicas(strings.NewReader(in), results.ReplicasFile, t0, time.Second)
	if err == nil || !strings.Contains(err.Error(), results.ReplicasFile) || !strings.Contains(err.Error(), "3") {
		t.Fatalf("err = %v, want a located error naming the file and line 3", err)
	}
}

func TestReadReplicaViewRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, results.ReplicasFile), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := readReplicaView(context.Background(), results.Trial{Dir: dir}, t0, time.Second)
	if !errors.Is(err, results.ErrNotRegular) {
		t.Fatalf("err = %v, want %v", err, results.ErrNotRegular)
	}
	if v, err := readReplicaView(context.Background(), results.Trial{Dir: t.TempDir()}, t0, time.Second); v != nil || err != nil {
		t.Fatalf("without replicas.csv: %v, %v; want nothing and no error", v, err)
	}
}

// deadLeaderLEO and deadLeaderHW are a partition whose leader, broker 1,
// dies at 1 s and whose broker 2 leads from 3 s on: every LEO stops with
// the HW at 1 s and moves again with broker 2's leadership.
func deadLeaderLEO(b int32, at time.Duration) int64 {
	switch {
	case b == 1 && at > time.Second:
		return -1
	case at < 3*time.Second:
		return progress(at, time.Second)
	}
	return progress(at, never)
}

func deadLeaderHW(b int32, at time.Duration) int64 {
	switch {
	case b == 1 && at <= time.Second:
		return progress(at, never)
	case b == 2 && at >= 3*time.Second:
		return progress(at, never)
	}
	return -1
}

// Past the Condense partitions a picture may draw, a replica keeps only
// the answers where its LEO changed, and alike state answers are kept as
// one run: the summary of every partition is the same as if each answer
// were kept. Fourteen partitions with the same answers, written highest
// first, so that the lowest displace the highest as they come.
func TestSummarizeReplicasThinned(t *testing.T) {
	const n = Condense + 2
	var buf bytes.Buffer
	enc := results.NewReplicaEncoder(&buf)
	for at := time.Duration(0); at <= 6*time.Second; at += 100 * time.Millisecond {
		for p := int32(n - 1); p >= 0; p-- {
			for b := int32(1); b <= 3; b++ {
				stop := never
				if b == 1 {
					stop = time.Second // broker 1's replica freezes at the fault
				}
				s := results.ReplicaSample{Time: t0.Add(at + time.Duration(b)*time.Millisecond), Partition: p, Broker: b, LEO: progress(at, stop), HW: -1}
				if b == 2 {
					s.HW = progress(at, 3*time.Second) // held 2 s, then on
				}
				enc.Encode(&s)
			}
			isr, stale := []int32{1, 2, 3}, at >= 2*time.Second && at < 2200*time.Millisecond
			if at >= 1800*time.Millisecond && !stale {
				isr = []int32{2, 3}
			}
			enc.Encode(&results.ReplicaSample{Time: t0.Add(at + 5*time.Millisecond), Partition: p, Broker: -1, LEO: -1, HW: -1,
				Leader: 2, LeaderEpoch: 1, ISR: isr})
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	F := t0.Add(time.Second)
	v, err := SummarizeReplicas(bytes.NewReader(buf.Bytes()), results.ReplicasFile, F, 4*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Partitions) != n {
		t.Fatalf("%d partitions, want %d", len(v.Partitions), n)
	}
	summary := func(pr PartitionReplicas) PartitionReplicas {
		pr.Partition, pr.LEOs, pr.HWs = 0, nil, nil
		return pr
	}
	want := summary(v.Partitions[0])
	if len(want.Frozen) != 1 || want.Frozen[0].Broker != 1 || want.HW == nil || want.Stale != 2 || len(want.Changes) != 2 {
		t.Fatalf("partition 0: frozen %+v, HW %+v, %d stale, changes %+v; want broker 1 frozen, the HW held, 2 stale answers, 2 states", want.Frozen, want.HW, want.Stale, want.Changes)
	}
	if at := want.Changes[0].Time; !at.Equal(t0.Add(905 * time.Millisecond)) {
		t.Errorf("the state at the fault dated %v, want its latest answer before the fault, %v", at, t0.Add(905*time.Millisecond))
	}
	for _, pr := range v.Partitions {
		if got := summary(pr); !reflect.DeepEqual(got, want) {
			t.Errorf("partition %d's summary %+v, want partition 0's %+v", pr.Partition, got, want)
		}
		points := len(pr.LEOs[1].Points) // broker 2's, moving at every answer
		frozen := len(pr.LEOs[0].Points) // broker 1's, still from the fault on
		switch {
		case pr.Partition < Condense && (points != 61 || frozen != 61):
			t.Errorf("partition %d: %d and %d answers kept, want all 61", pr.Partition, points, frozen)
		case pr.Partition >= Condense && (points != 61 || frozen != 11):
			t.Errorf("partition %d: %d and %d answers kept, want 61 (every one a change) and 11 (the changes)", pr.Partition, points, frozen)
		}
	}
}
