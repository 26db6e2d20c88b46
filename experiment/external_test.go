package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

var t0 = time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)

func whole(at time.Duration) cluster.View {
	return cluster.View{At: t0.Add(at), Brokers: map[int32]bool{1: false, 2: false, 3: false}, Partitions: []cluster.Partition{
		{Partition: 0, Leader: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}},
		{Partition: 1, Leader: 2, Replicas: []int32{2, 3, 1}, ISR: []int32{2, 3, 1}},
	}}
}

// TestClusterSign walks sequences of views as a broker's death shows in
// them, and checks the first sign is dated by the first view that shows
// it, and names the broker.
func TestClusterSign(t *testing.T) {
	moved := func(v cluster.View) cluster.View {
		v.Partitions[0].Leader, v.Partitions[0].ISR = 2, []int32{2, 3}
		v.Partitions[1].ISR = []int32{2, 3}
		return v
	}
	tests := []struct {
		name   string
		views  []func(cluster.View) cluster.View // one view a second after the first
		wantAt time.Duration
		wantID int32
		what   string // "" when no sign
	}{
		{"nothing changes", []func(cluster.View) cluster.View{func(v cluster.View) cluster.View { return v }, func(v cluster.View) cluster.View { return v }}, 0, 0, ""},
		{"fenced then moved", []func(cluster.View) cluster.View{
			func(v cluster.View) cluster.View { return v },
			func(v cluster.View) cluster.View { v.Brokers[1] = true; return v },
			func(v cluster.View) cluster.View { v.Brokers[1] = true; return moved(v) },
		}, 2 * time.Second, 1, "broker 1 fenced"},
		{"gone from the metadata", []func(cluster.View) cluster.View{
			func(v cluster.View) cluster.View { delete(v.Brokers, 3); return v },
		}, time.Second, 3, "broker 3 gone"},
		{"a leader moved before any broker is fenced", []func(cluster.View) cluster.View{
			func(v cluster.View) cluster.View { return v },
			func(v cluster.View) cluster.View { return moved(v) },
		}, 2 * time.Second, 1, "partition 0's leader moved from 1 to 2"},
		{"a follower out of the ISR", []func(cluster.View) cluster.View{
			func(v cluster.View) cluster.View { v.Partitions[1].ISR = []int32{2, 1}; return v },
		}, time.Second, 3, "partition 1's ISR lost 3"},
		{"a view that failed names no broker: none gone", []func(cluster.View) cluster.View{
			func(v cluster.View) cluster.View { v.Brokers = nil; return v },
		}, 0, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := whole(0)
			var got results.Sign
			found := false
			for i, f := range tc.views {
				now := f(whole(time.Duration(i+1) * time.Second))
				if got, found = ClusterSign(before, now); found {
					break
				}
			}
			if tc.what == "" {
				if found {
					t.Fatalf("sign %+v, want none", got)
				}
				return
			}
			switch {
			case !found:
				t.Fatal("no sign")
			case !got.At.Equal(t0.Add(tc.wantAt)):
				t.Errorf("at %v, want %v", got.At.Sub(t0), tc.wantAt)
			case got.NodeID != tc.wantID:
				t.Errorf("broker %d, want %d (%s)", got.NodeID, tc.wantID, got.What)
			case !strings.Contains(got.What, tc.what) || got.Source != results.SignCluster:
				t.Errorf("%s %q, want cluster %q", got.Source, got.What, tc.what)
			}
		})
	}
}

// TestProbeSign dates a stall by the last ack or read before it, the
// earliest of the stalled partitions', including a stall that already
// ended, and names no broker.
func TestProbeSign(t *testing.T) {
	bound := 200 * time.Millisecond
	st := func(p int32, ack, recv time.Duration) probe.PartitionStats {
		return probe.PartitionStats{Partition: p, LastAck: t0.Add(ack), LastRecv: t0.Add(recv)}
	}
	ended := st(0, 1990*time.Millisecond, 1990*time.Millisecond)
	ended.LastAckGap, ended.AckSteadySince = 4*time.Second, t0.Add(1500*time.Millisecond) // 4 s from -2.5 s
	endedAfter := ended
	endedAfter.AckSteadySince = t0.Add(5500 * time.Millisecond) // 4 s from 1.5 s
	endedAfter.LastAck, endedAfter.LastRecv = t0.Add(5990*time.Millisecond), t0.Add(5990*time.Millisecond)
	tests := []struct {
		name   string
		now    time.Duration
		stats  []probe.PartitionStats
		wantAt time.Duration
		what   string
		found  bool
	}{
		{"all steady", time.Second, []probe.PartitionStats{st(0, 950*time.Millisecond, 990*time.Millisecond), st(1, 900*time.Millisecond, time.Second)}, 0, "", false},
		{"partition 0's acks stalled", time.Second, []probe.PartitionStats{st(0, 500*time.Millisecond, 990*time.Millisecond), st(1, 900*time.Millisecond, time.Second)}, 500 * time.Millisecond, "1 of 2 partitions stalled", true},
		{"the earliest ack stall wins", 2 * time.Second, []probe.PartitionStats{st(0, 1500*time.Millisecond, 1500*time.Millisecond), st(1, 1200*time.Millisecond, 1900*time.Millisecond)}, 1200 * time.Millisecond, "partition 1: no ack", true},
		{"an ack stall wins over an earlier read stall", 2 * time.Second, []probe.PartitionStats{st(0, 1950*time.Millisecond, 1000*time.Millisecond), st(1, 1500*time.Millisecond, 1900*time.Millisecond)}, 1500 * time.Millisecond, "partition 1: no ack", true},
		{"a read stall alone", 2 * time.Second, []probe.PartitionStats{st(0, 1950*time.Millisecond, 1000*time.Millisecond)}, 1000 * time.Millisecond, "no read", true},
		{"a partition never acked is no stall", time.Second, []probe.PartitionStats{{Partition: 0}}, 0, "", false},
		{"a stall that began before ready is the baseline's", 2 * time.Second, []probe.PartitionStats{ended}, 0, "", false},
		{"a stall that ended before kbf looked", 6 * time.Second, []probe.PartitionStats{endedAfter}, 1500 * time.Millisecond, "ended by", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, found := ProbeSign(t0.Add(tc.now), t0, bound, tc.stats)
			if found != tc.found {
				t.Fatalf("found %v (%+v), want %v", found, got, tc.found)
			}
			if !found {
				return
			}
			if !got.At.Equal(t0.Add(tc.wantAt)) || got.NodeID != -1 || !got.Seen.Equal(t0.Add(tc.now)) || !strings.Contains(got.What, tc.what) {
				t.Errorf("got at %v broker %d seen %v %q, want at %v broker -1, %q", got.At.Sub(t0), got.NodeID, got.Seen.Sub(t0), got.What, tc.wantAt, tc.what)
			}
		})
	}
}

// TestSignWatch feeds the watch recorded progress and views, a tenth of a
// second apart, as the trial does, and checks the signs it takes and the
// broker they name.
func TestSignWatch(t *testing.T) {
	bound := 200 * time.Millisecond
	// acked is every partition's progress with acks and reads up to at,
	// and stalled from there (a stall that ended is in its gap fields).
	acked := func(at time.Duration, parts ...int32) []probe.PartitionStats {
		var out []probe.PartitionStats
		for _, p := range parts {
			out = append(out, probe.PartitionStats{Partition: p, LastAck: t0.Add(at), LastRecv: t0.Add(at)})
		}
		return out
	}
	resumed := func(from, to, now time.Duration) []probe.PartitionStats {
		st := acked(now, 0, 1)
		for i := range st {
			st[i].LastAckGap, st[i].AckSteadySince = to-from, t0.Add(to)
			st[i].LastRecvGap, st[i].RecvSteadySince = to-from, t0.Add(to)
		}
		return st
	}
	fenced := whole(10 * time.Second)
	fenced.Brokers[1] = true
	type tick struct {
		at    time.Duration
		stats []probe.PartitionStats
		view  *viewResult // nil: a tick of the probe's progress alone
	}
	failed := func(at time.Duration, silent bool) *viewResult {
		return &viewResult{asked: t0.Add(at - 2*time.Second), err: errors.New("describe cluster: context deadline exceeded"), silent: silent}
	}
	tests := []struct {
		name    string
		ticks   []tick
		signs   []string // the sources, in the order taken
		atFirst time.Duration
		node    int32
		broker  string
	}{
		{"a kill whose fence came late: the probe's sign names no broker", []tick{
			{1 * time.Second, acked(900*time.Millisecond, 0, 1), nil},
			{1500 * time.Millisecond, acked(1000*time.Millisecond, 0, 1), nil}, // seen
			{1800 * time.Millisecond, acked(1000*time.Millisecond, 0, 1), nil}, // a bound later: taken
		}, []string{results.SignProbe}, time.Second, -1, results.BrokerUnknown},
		{"then the fence names it", []tick{
			{1500 * time.Millisecond, acked(1000*time.Millisecond, 0, 1), nil},
			{1800 * time.Millisecond, acked(1000*time.Millisecond, 0, 1), nil},
			{10 * time.Second, acked(1000*time.Millisecond, 0, 1), &viewResult{asked: t0.Add(10 * time.Second), v: fenced}},
		}, []string{results.SignProbe, results.SignCluster}, time.Second, 1, ""},
		{"the whole cluster paused 4 s, its views failing: no single broker", []tick{
			{1 * time.Second, acked(990*time.Millisecond, 0, 1), nil},
			{1300 * time.Millisecond, acked(1000*time.Millisecond, 0, 1), nil},
			{3 * time.Second, acked(1000*time.Millisecond, 0, 1), failed(3*time.Second, true)},
			{5100 * time.Millisecond, resumed(1000*time.Millisecond, 5010*time.Millisecond, 5100*time.Millisecond), nil},
		}, []string{results.SignProbe, results.SignCluster}, time.Second, -1, results.BrokerCluster},
		{"a view failed through one paused broker while others answer: no cluster sign", []tick{
			{1300 * time.Millisecond, acked(1000*time.Millisecond, 0, 1), nil},
			{3 * time.Second, acked(1000*time.Millisecond, 0, 1), failed(3*time.Second, false)},
		}, []string{results.SignProbe}, time.Second, -1, results.BrokerUnknown},
		{"a view failed while a partition still acks: no cluster sign", []tick{
			{2800 * time.Millisecond, append(acked(1000*time.Millisecond, 0), acked(2750*time.Millisecond, 1)...), nil},
			{3 * time.Second, append(acked(1000*time.Millisecond, 0), acked(2950*time.Millisecond, 1)...), failed(3*time.Second, true)},
		}, []string{results.SignProbe}, time.Second, -1, results.BrokerUnknown},
		{"a stall that ended before its bound is still a sign", []tick{
			{1300 * time.Millisecond, acked(1000*time.Millisecond, 0, 1), nil},
			{1400 * time.Millisecond, resumed(1000*time.Millisecond, 1350*time.Millisecond, 1400*time.Millisecond), nil},
			{1600 * time.Millisecond, resumed(1000*time.Millisecond, 1350*time.Millisecond, 1600*time.Millisecond), nil},
		}, []string{results.SignProbe}, time.Second, -1, results.BrokerUnknown},
		{"no stall, no change: nothing", []tick{
			{1 * time.Second, acked(990*time.Millisecond, 0, 1), &viewResult{asked: t0.Add(time.Second), v: whole(time.Second)}},
			{2 * time.Second, acked(1990*time.Millisecond, 0, 1), nil},
		}, nil, 0, -1, results.BrokerUnknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := signWatch{before: whole(0), since: t0, bound: bound}
			for _, tk := range tc.ticks {
				now := t0.Add(tk.at)
				w.progress(now, tk.stats)
				if tk.view != nil {
					w.view(now, *tk.view, tk.stats)
				}
			}
			var got []string
			for _, s := range w.signs {
				got = append(got, s.Source)
			}
			if !slices.Equal(got, tc.signs) {
				t.Fatalf("signs %v (%+v), want %v", got, w.signs, tc.signs)
			}
			if len(w.signs) > 0 {
				first := slices.MinFunc(w.signs, func(a, b results.Sign) int { return a.At.Compare(b.At) })
				if !first.At.Equal(t0.Add(tc.atFirst)) {
					t.Errorf("dated %v, want %v", first.At.Sub(t0), tc.atFirst)
				}
			}
			if id, name := FaultedNode(w.signs); id != tc.node || name != tc.broker {
				t.Errorf("FaultedNode = %d %q, want %d %q", id, name, tc.node, tc.broker)
			}
		})
	}
}

// TestHealed holds a partition led by another replica than its preferred
// one healthy, as after an external fault nothing moves leaders back, but
// not one whose ISR is short.
func TestHealed(t *testing.T) {
	now := t0.Add(10 * time.Second)
	st := []probe.PartitionStats{{Partition: 0, LastAck: now, LastRecv: now, AckSteadySince: t0, RecvSteadySince: t0}}
	moved := []cluster.Partition{{Partition: 0, Leader: 2, Replicas: []int32{1, 2, 3}, ISR: []int32{2, 3, 1}}}
	if u := healed(now, time.Second, time.Second, st, moved); u != nil {
		t.Errorf("moved leader, full ISR: %v, want healed", u)
	}
	short := []cluster.Partition{{Partition: 0, Leader: 2, Replicas: []int32{1, 2, 3}, ISR: []int32{2, 3}}}
	if u := healed(now, time.Second, time.Second, st, short); u == nil {
		t.Error("short ISR: healed, want not")
	}
	if moved[0].Replicas[0] != 1 {
		t.Error("healed reordered the caller's replicas")
	}
}

// observed is the fake target with a view: whole until the ready file
// exists, then broker 1 fenced, as a kill seen by the controller.
type observed struct {
	*world
	ready string
}

func (o observed) Observer() cluster.Observer { return o }

func (o observed) View(context.Context, string) (cluster.View, error) {
	v := whole(0)
	v.At = time.Now()
	if _, err := os.Stat(o.ready); err == nil {
		v.Brokers[1] = true
	}
	return v, nil
}

// TestExternalTrial runs a trial of an external fault against the fake:
// kbf says it is ready, dates the fault from the view, injects nothing and
// restarts nothing, and recovery only waits for the ISRs.
func TestExternalTrial(t *testing.T) {
	w := newWorld()
	r, _, rep := newRunner(t, w, results.FaultExternal)
	ready := filepath.Join(t.TempDir(), "ready")
	r.Target = observed{w, ready}
	r.Opt.Duration = time.Second
	r.Opt.External = External{ReadyFile: ready, Margin: time.Millisecond}
	dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
	tr, err := analysed(context.Background(), r, 1, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.log(), "up probe logs-c1 logs-k1 isr leaders readback"; got != want {
		t.Errorf("phases:\n got %s\nwant %s", got, want)
	}
	f := tr.Meta.Fault
	if f == nil || f.Kind != results.FaultExternal || f.NodeID != 1 || f.Broker != "k1" || len(f.Signs) == 0 || f.Signs[0].Source != results.SignCluster {
		t.Fatalf("fault %+v, want broker k1 dated by the cluster", f)
	}
	if f.At().Before(f.SignalSent) {
		t.Errorf("dated %v, before kbf was ready at %v", f.At(), f.SignalSent)
	}
	if !strings.Contains(rep.String(), "ready: the baseline is healthy") {
		t.Errorf("no ready line in:\n%s", rep)
	}
	if w.injected {
		t.Error("kbf injected a fault it was to leave to something else")
	}
}

func TestFaultedNode(t *testing.T) {
	probe := results.Sign{Source: results.SignProbe, NodeID: -1}
	cluster := results.Sign{Source: results.SignCluster, NodeID: 1}
	whole := results.Sign{Source: results.SignCluster, NodeID: -1}
	tests := []struct {
		name  string
		signs []results.Sign
		want  int32
		named string
	}{
		{"none", nil, -1, results.BrokerUnknown},
		{"the probe's only: no broker", []results.Sign{probe}, -1, results.BrokerUnknown},
		{"the cluster's names it, though the probe saw it first", []results.Sign{probe, cluster}, 1, ""},
		{"the whole cluster silent", []results.Sign{probe, whole}, -1, results.BrokerCluster},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, named := FaultedNode(tc.signs); got != tc.want || named != tc.named {
				t.Errorf("FaultedNode = %d %q, want %d %q", got, named, tc.want, tc.named)
			}
		})
	}
}

// TestExternalTrialSecrets runs an external trial whose cluster reports
// settings holding secrets, as a remote cluster's brokers (--bootstrap)
// might, and greps every file of the trial for them.
func TestExternalTrialSecrets(t *testing.T) {
	const pw, user = "ext-pw-4c2", "ext-user-pw-a17"
	w := newWorld()
	w.nodes = map[string]map[string]string{
		"1": {"broker.session.timeout.ms": "9000",
			"listener.name.host.plain.sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="` + pw + `" user_probe="` + user + `";`,
			"my.app.secret": pw},
	}
	r, _, _ := newRunner(t, w, results.FaultExternal)
	ready := filepath.Join(t.TempDir(), "ready")
	r.Target = observed{w, ready}
	r.Opt.Duration = time.Second
	r.Opt.External = External{ReadyFile: ready, Margin: time.Millisecond}
	dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
	tr, err := analysed(context.Background(), r, 1, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Meta.Cluster.Nodes["1"]["broker.session.timeout.ms"]; got != "9000" {
		t.Errorf("a setting that is no secret was lost: %q", got)
	}
	files := 0
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, p := range []string{pw, user} {
			if strings.Contains(string(b), p) {
				t.Errorf("%s holds %s", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("the trial wrote no file")
	}
	for _, p := range []string{pw, user} {
		if strings.Contains(fmt.Sprint(tr.Meta.Cluster.Nodes), p) {
			t.Errorf("the trial's metadata in memory holds %s", p)
		}
	}
}

// TestClusterSignPreferredElection: a leader moved back to its preferred
// replica from a broker still registered and in the ISR is no sign; moved
// there from a broker that left the ISR, it is.
func TestClusterSignPreferredElection(t *testing.T) {
	before := whole(0)
	before.Partitions[0].Leader = 2 // broker 1 had died; it is back in the ISR
	now := whole(time.Second)       // the controller moved p0 back to 1
	if s, ok := ClusterSign(before, now); ok {
		t.Errorf("a preferred election is a sign: %+v", s)
	}
	now.Partitions[0].ISR = []int32{1, 3}
	if s, ok := ClusterSign(before, now); !ok || s.NodeID != 2 {
		t.Errorf("the leader moved to the preferred replica from a broker out of the ISR: sign %+v (%v), want one naming 2", s, ok)
	}
}

// TestClusterSignSilent: a broker that stops answering while the others
// answer is a sign naming it, before it is fenced; one already silent in
// the view before is none.
func TestClusterSignSilent(t *testing.T) {
	before, now := whole(0), whole(time.Second)
	now.Silent = []int32{2}
	if s, ok := ClusterSign(before, now); !ok || s.NodeID != 2 || !strings.Contains(s.What, "broker 2 stopped answering") {
		t.Errorf("sign %+v (%v), want broker 2 stopped answering", s, ok)
	}
	before.Silent = []int32{2}
	if s, ok := ClusterSign(before, now); ok {
		t.Errorf("a broker silent before and now is a sign: %+v", s)
	}
}

// TestNoiseStall: a stall the cluster showed no sign of, over within the noise
// the baseline allows, is set aside; a longer one, one still going on, or
// one with the cluster's sign beside it is the fault.
func TestNoiseStall(t *testing.T) {
	since, now := t0, t0.Add(10*time.Second)
	noise := 400 * time.Millisecond
	probeSign := results.Sign{At: t0.Add(time.Second), Source: results.SignProbe, NodeID: -1, What: "partition 0: no ack for 0.27 s"}
	clusterSign := results.Sign{At: t0.Add(2 * time.Second), Source: results.SignCluster, NodeID: 1, What: "broker 1 fenced"}
	// stall is partition 0 stalled from `from` for d, steady after; p1
	// steady throughout.
	stall := func(from, d time.Duration) []probe.PartitionStats {
		return []probe.PartitionStats{
			{Partition: 0, LastAck: now, LastRecv: now, LastAckGap: d, AckSteadySince: t0.Add(from + d), LastRecvGap: d, RecvSteadySince: t0.Add(from + d)},
			{Partition: 1, LastAck: now, LastRecv: now},
		}
	}
	for _, tc := range []struct {
		name  string
		signs []results.Sign
		stats []probe.PartitionStats
		want  bool
		says  string
	}{
		{"a 0.27 s stall, no sign from the cluster: set aside", []results.Sign{probeSign}, stall(time.Second, 270*time.Millisecond), true,
			"a stall of 0.27 s at most (p0 from 22:00:01.000) that the cluster showed no sign of, over within the noise of 0.40 s"},
		{"a stall past the noise: the fault", []results.Sign{probeSign}, stall(time.Second, 900*time.Millisecond), false, ""},
		{"the cluster's sign beside it: the fault", []results.Sign{probeSign, clusterSign}, stall(time.Second, 270*time.Millisecond), false, ""},
		{"no sign at all: nothing to set aside", nil, stall(time.Second, 270*time.Millisecond), false, ""},
		{"a stall before the watch: not this one's", []results.Sign{probeSign}, stall(-2*time.Second, 270*time.Millisecond), false, ""},
		{"still stalled", []results.Sign{probeSign}, []probe.PartitionStats{{Partition: 0, LastAck: t0.Add(-time.Second), LastRecv: now}}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			why, ok := noiseStall(tc.signs, since, noise, tc.stats)
			if ok != tc.want || !strings.Contains(why, tc.says) {
				t.Errorf("noiseStall = %q, %v; want %v saying %q", why, ok, tc.want, tc.says)
			}
		})
	}
}

// hiccupThenFenced is the fake target whose view shows broker 1 fenced
// from fenceAfter past kbf's ready (the ready file's time) on.
type hiccupThenFenced struct {
	*world
	ready      string
	fenceAfter time.Duration
}

func (o hiccupThenFenced) Observer() cluster.Observer { return o }

func (o hiccupThenFenced) View(context.Context, string) (cluster.View, error) {
	v := whole(0)
	v.At = time.Now()
	if r, ok := readyAt(o.ready); ok && time.Since(r) >= o.fenceAfter {
		v.Brokers[1] = true
	}
	return v, nil
}

// readyAt is the time kbf wrote into the ready file at path.
func readyAt(path string) (time.Time, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, false
	}
	r, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b)))
	return r, err == nil
}

// TestExternalTrialSetsAsideAHiccup: an external trial whose probe stalls
// 0.3 s soon after kbf is ready, the cluster showing nothing, and whose
// broker is fenced a second and a half later, is not ended by the hiccup:
// kbf sets it aside, says so, watches on, and dates the fault by the
// fence.
func TestExternalTrialSetsAsideAHiccup(t *testing.T) {
	w := newWorld()
	r, _, rep := newRunner(t, w, results.FaultExternal)
	ready := filepath.Join(t.TempDir(), "ready")
	const fenceAfter = 1500 * time.Millisecond
	r.Target = hiccupThenFenced{w, ready, fenceAfter}
	r.Opt.Duration = 4 * time.Second
	r.Opt.External = External{ReadyFile: ready, Margin: 200 * time.Millisecond}
	w.stats = func(now time.Time) []probe.PartitionStats {
		var out []probe.PartitionStats
		for _, p := range []int32{0, 1} {
			st := probe.PartitionStats{Partition: p, Sent: 1, Acked: 1, Received: 1, LastAck: now, LastRecv: now, LastSent: now}
			if at, ok := readyAt(ready); ok && p == 0 {
				from, to := at.Add(100*time.Millisecond), at.Add(400*time.Millisecond)
				switch {
				case now.After(from) && now.Before(to):
					st.LastAck, st.LastRecv = from, from
				case !now.Before(to):
					st.LastAckGap, st.AckSteadySince = to.Sub(from), to
					st.LastRecvGap, st.RecvSteadySince = to.Sub(from), to
				}
			}
			out = append(out, st)
		}
		return out
	}
	dir := filepath.Join(r.Opt.Out, results.TrialDir(1))
	if err := r.Trial(context.Background(), 1, dir); err != nil {
		t.Fatal(err)
	}
	m, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := m.Fault
	if f == nil || f.NodeID != 1 || len(f.Signs) == 0 || f.Signs[0].Source != results.SignCluster {
		t.Fatalf("fault %+v, want broker 1 dated by the cluster's fence", f)
	}
	at, _ := readyAt(ready)
	if f.At().Before(at.Add(fenceAfter)) {
		t.Errorf("dated %v after ready, before the fence at %v: the hiccup's date kept", f.At().Sub(at), fenceAfter)
	}
	if !strings.Contains(rep.String(), "set aside: a stall of 0.") {
		t.Errorf("no set-aside line in:\n%s", rep)
	}
	if !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.HasPrefix(n, "external fault: set aside a stall of") }) {
		t.Errorf("notes %q do not say what was set aside", m.Notes)
	}
}
