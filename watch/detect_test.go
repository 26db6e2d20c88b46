package watch

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

var t0 = time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)

// steadyAt is a partition acking and read up to at, steady since since.
func steadyAt(part int32, since, at time.Time) probe.PartitionStats {
	return probe.PartitionStats{Partition: part, LastAck: at, LastRecv: at, FirstAck: since,
		AckSteadySince: since, RecvSteadySince: since}
}

func view(at time.Time, brokers []int32, isr ...[]int32) cluster.View {
	v := cluster.View{At: at, Brokers: map[int32]bool{}}
	for _, b := range brokers {
		v.Brokers[b] = false
	}
	for i, s := range isr {
		v.Partitions = append(v.Partitions, cluster.Partition{Partition: int32(i), Leader: s[0], Replicas: []int32{1, 2, 3}, ISR: s})
	}
	return v
}

func newDetector() *detector {
	return &detector{stall: 2 * time.Second, settle: 5 * time.Second, bound: 200 * time.Millisecond, most: time.Minute, since: t0}
}

func TestDetectorOpensOnAStallAndEndsOnceSteady(t *testing.T) {
	d := newDetector()
	// Steady for 10 s: no incident.
	for s := 1; s <= 10; s++ {
		now := t0.Add(time.Duration(s) * time.Second)
		if d.progress(now, []probe.PartitionStats{steadyAt(0, t0, now), steadyAt(1, t0, now)}) {
			t.Fatalf("incident opened at %v on steady partitions", now)
		}
	}
	// Partition 1 stops at 10 s; at 13 s its gap passes the 2 s stall, and
	// the sign is taken.
	stop := t0.Add(10 * time.Second)
	now := t0.Add(13 * time.Second)
	if !d.progress(now, []probe.PartitionStats{steadyAt(0, t0, now), steadyAt(1, t0, stop)}) {
		t.Fatal("no incident on a 3 s stall")
	}
	if got := d.open.Start(); !got.Equal(stop) {
		t.Errorf("incident dated %v, want the last ack before the stall %v", got, stop)
	}
	// Acks again from 15 s: not over until steady for the settle (5 s).
	back := t0.Add(15 * time.Second)
	for s := 16; s < 20; s++ {
		now := t0.Add(time.Duration(s) * time.Second)
		if in := d.end(now, []probe.PartitionStats{steadyAt(0, t0, now), steadyAt(1, back, now)}, cluster.View{}, nil); in != nil {
			t.Fatalf("ended at %v, %v after the stall ended: want the settle's 5 s", now, now.Sub(back))
		}
	}
	now = t0.Add(21 * time.Second)
	in := d.end(now, []probe.PartitionStats{steadyAt(0, t0, now), steadyAt(1, back, now)}, cluster.View{}, nil)
	if in == nil {
		t.Fatal("not ended once steady for the settle")
	}
	if in.Recovered.IsZero() || in.Cause() != CauseStall {
		t.Errorf("recovered %v, cause %s: want recovered, %s", in.Recovered, in.Cause(), CauseStall)
	}
	// The stall is the past incident's: it opens none again.
	if d.progress(now.Add(time.Second), []probe.PartitionStats{steadyAt(0, t0, now), steadyAt(1, back, now)}) {
		t.Error("the same stall opened a second incident")
	}
}

func TestDetectorClusterSigns(t *testing.T) {
	full := [][]int32{{1, 2, 3}, {2, 3, 1}}
	for _, tc := range []struct {
		name  string
		now   cluster.View
		err   error
		stats func(now time.Time) []probe.PartitionStats
		cause string
		node  int32
	}{
		{name: "broker gone", now: view(t0, []int32{1, 3}, []int32{1, 3}, []int32{3, 1}), cause: CauseBrokerGone, node: 2},
		{name: "isr shrunk", now: view(t0, []int32{1, 2, 3}, []int32{1, 2}, []int32{2, 3, 1}), cause: CauseISRShrunk, node: 3},
		{name: "leader moved", now: view(t0, []int32{1, 2, 3}, []int32{1, 2, 3}, []int32{3, 2, 1}), cause: CauseLeaderMoved, node: 2},
		{name: "unreachable while every partition stalled", err: errors.New("dial tcp: refused"),
			stats: func(now time.Time) []probe.PartitionStats {
				return []probe.PartitionStats{steadyAt(0, t0, now.Add(-5*time.Second)), steadyAt(1, t0, now.Add(-5*time.Second))}
			}, cause: CauseUnreachable, node: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDetector()
			now := t0.Add(time.Minute)
			stats := []probe.PartitionStats{steadyAt(0, t0, now), steadyAt(1, t0, now)}
			if tc.stats != nil {
				stats = tc.stats(now)
			}
			if d.view(now, view(now, []int32{1, 2, 3}, full...), nil, stats) {
				t.Fatal("the first view opened an incident")
			}
			if !d.view(now, tc.now, tc.err, stats) {
				t.Fatal("no incident")
			}
			s := d.open.Signs[0]
			if s.Source != results.SignCluster || s.NodeID != tc.node || d.open.Cause() != tc.cause {
				t.Errorf("sign %+v, cause %s: want the cluster's naming %d, cause %s", s, d.open.Cause(), tc.node, tc.cause)
			}
		})
	}
}

func TestDetectorUnansweredViewWithTheProbeSteadyIsNoIncident(t *testing.T) {
	d := newDetector()
	now := t0.Add(time.Minute)
	stats := []probe.PartitionStats{steadyAt(0, t0, now)}
	if d.view(now, cluster.View{}, errors.New("timeout"), stats) {
		t.Error("a failed view while the probe acks opened an incident")
	}
}

func TestDetectorBoundsAnIncident(t *testing.T) {
	d := newDetector()
	stop := t0.Add(time.Second)
	now := t0.Add(5 * time.Second)
	if !d.progress(now, []probe.PartitionStats{steadyAt(0, t0, stop)}) {
		t.Fatal("no incident")
	}
	late := now.Add(d.most)
	in := d.end(late, []probe.PartitionStats{steadyAt(0, t0, stop)}, cluster.View{}, nil)
	if in == nil || !in.Recovered.IsZero() || in.Why == "" {
		t.Fatalf("incident %+v: want it ended unrecovered at its bound, saying why", in)
	}
}

func TestWindowKeepsTheLinesSinceACut(t *testing.T) {
	w := newWindow(sentColumn)
	row := func(seq int, sent time.Time) string {
		return "0," + strconv.Itoa(seq) + "," + strconv.Itoa(seq) + "," + sent.Format(time.RFC3339Nano) + ",,,\n"
	}
	in := "partition,seq,offset,sent,acked,received,error\n"
	for i := range 10 {
		in += row(i, t0.Add(time.Duration(i)*time.Second))
	}
	// Written in pieces that split lines, as a buffered writer does.
	for len(in) > 0 {
		n := min(7, len(in))
		if _, err := w.Write([]byte(in[:n])); err != nil {
			t.Fatal(err)
		}
		in = in[n:]
	}
	w.trim(t0.Add(4 * time.Second))
	if w.size() != 6 {
		t.Errorf("%d lines after the trim, want 6 (4 s to 9 s)", w.size())
	}
	got := string(w.since(t0.Add(7 * time.Second)))
	want := "partition,seq,offset,sent,acked,received,error\n" + row(7, t0.Add(7*time.Second)) + row(8, t0.Add(8*time.Second)) + row(9, t0.Add(9*time.Second))
	if got != want {
		t.Errorf("since 7 s:\n%s\nwant:\n%s", got, want)
	}
}

func TestNumberingCarriesOnAndRetainKeepsTheLast(t *testing.T) {
	dir := t.TempDir()
	if n, err := nextNumber(dir); err != nil || n != 1 {
		t.Fatalf("empty directory: next %d (%v), want 1", n, err)
	}
	for _, n := range []int{1, 2, 5} {
		if err := mkdir(dir, n); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := nextNumber(dir); n != 6 {
		t.Errorf("next %d, want 6", n)
	}
	if err := retain(dir, Retention{Count: 2}, time.Now()); err != nil {
		t.Fatal(err)
	}
	ns, _ := numbers(dir)
	if len(ns) != 2 || ns[0] != 2 || ns[1] != 5 {
		t.Errorf("kept %v, want [2 5]", ns)
	}
	// By age: incident 2's meta.json written two days ago goes, 5 stays.
	old := time.Now().Add(-48 * time.Hour)
	for _, n := range []int{2, 5} {
		if err := os.WriteFile(filepath.Join(dir, results.IncidentDir(n), results.MetaFile), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(filepath.Join(dir, results.IncidentDir(2), results.MetaFile), old, old); err != nil {
		t.Fatal(err)
	}
	if err := retain(dir, Retention{Age: 24 * time.Hour}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if ns, _ := numbers(dir); len(ns) != 1 || ns[0] != 5 {
		t.Errorf("kept %v by age, want [5]", ns)
	}
}

func TestParseRetention(t *testing.T) {
	for in, want := range map[string]Retention{"0": {}, "50": {Count: 50}, "72h": {Age: 72 * time.Hour}, "30d": {Age: 30 * 24 * time.Hour}} {
		if got, err := ParseRetention(in); err != nil || got != want {
			t.Errorf("ParseRetention(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"-1": "negative", "0d": "positive", "soon": "want a count", "-3h": "positive", "": "want a count",
		// Ages a time.Duration cannot hold were wrapped to minutes, and
		// deleted incidents hours old.
		"213504d": "longer than kbf can hold", "106752d": "longer than kbf can hold", "99999999999999999999d": "longer than kbf can hold",
		"2562048h": "longer than kbf can hold", "99999999999999999999": "more incidents than kbf can count", "3x": "want a count"} {
		if _, err := ParseRetention(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRetention(%q): %v, want %q", in, err, want)
		}
	}
	if r, err := ParseRetention("106751d"); err != nil || r.Age != 106751*24*time.Hour {
		t.Errorf("ParseRetention(106751d) = %+v, %v: want the longest age", r, err)
	}
}

func TestProbeRecordHeldToTheWindow(t *testing.T) {
	m := &results.Meta{Started: t0.Add(time.Minute)}
	m.Probe.Interval = 10 * time.Millisecond
	m.Probe.Missed = map[int32]*results.MissedSends{
		0: {Count: 7, First: t0, Last: t0.Add(90 * time.Second), Runs: []results.MissedRun{{From: t0, Slots: 5}, {From: t0.Add(90 * time.Second), Slots: 2}}},
		1: {Count: 3, First: t0, Last: t0, Runs: []results.MissedRun{{From: t0, Slots: 3}}},
	}
	inWindow(m, 40*time.Millisecond)
	if m.Probe.LongestSendGap != 40*time.Millisecond {
		t.Errorf("longest send gap %v, want the window's 40ms", m.Probe.LongestSendGap)
	}
	if _, ok := m.Probe.Missed[1]; ok {
		t.Error("partition 1's missed slots, all before the window, kept")
	}
	if ms := m.Probe.Missed[0]; ms == nil || ms.Count != 2 || len(ms.Runs) != 1 {
		t.Errorf("partition 0's missed slots %+v, want the run of 2 in the window", ms)
	}
	w := newWindow(sentColumn)
	w.Write([]byte("partition,seq,offset,sent,acked,received,error\n"))
	for i, ms := range []int{0, 10, 20, 70, 80} {
		for _, part := range []string{"0", "1"} {
			sent := t0.Add(time.Duration(ms) * time.Millisecond)
			if part == "1" {
				sent = t0.Add(time.Duration(i*10) * time.Millisecond)
			}
			w.Write([]byte(part + "," + strconv.Itoa(i) + ",," + sent.Format(time.RFC3339Nano) + ",,,\n"))
		}
	}
	if g := w.longestSendGap(t0); g != 50*time.Millisecond {
		t.Errorf("longest send gap %v, want partition 0's 50ms", g)
	}
}
