package analysis

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// ranges names every Range of s, the phases' included.
func ranges(s *Summary) map[string]Range {
	m := map[string]Range{
		"detect": s.Detect, "elect+client": s.ElectAndClient, "leader gap": s.LeaderGap,
		"follower gap": s.FollowerGap, "any gap": s.AnyGap, "receive gap": s.ReceiveGap,
	}
	for name, r := range s.Phases {
		m["phase "+name] = *r
	}
	return m
}

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name     string
		archives []string
		faults   []results.FaultKind
		// n is each range's count: a measure per trial (detection), per
		// partition the broker led (elect+client, leader gap), per other
		// partition, per partition, and per stall phase.
		n map[string]int
		// twice: the trials are one trial twice, so every range is that
		// trial's, counted twice.
		twice bool
	}{
		{
			name:     "sigkill-sigterm",
			archives: []string{sigkillArchive, sigtermArchive},
			faults:   []results.FaultKind{"sigkill", "sigterm"},
			// The SIGTERM trial's partitions kept acking past the
			// controlled shutdown and the new leader's start, so their
			// stalls have no detect or elect phase; p0's has a client
			// phase.
			n: map[string]int{"detect": 2, "elect+client": 2, "leader gap": 2, "follower gap": 4, "any gap": 6, "receive gap": 6,
				// The SIGTERM's p2 stalled no longer than its own noise:
				// no phases, so five first acks, not six.
				"phase detect": 3, "phase elect": 3, "phase client": 2, "phase first ack": 5},
		},
		{
			name:     "sigkill-twice",
			archives: []string{sigkillArchive, sigkillArchive},
			faults:   []results.FaultKind{"sigkill", "sigkill"},
			n: map[string]int{"detect": 2, "elect+client": 2, "leader gap": 2, "follower gap": 4, "any gap": 6, "receive gap": 6,
				"phase detect": 6, "phase elect": 6, "phase client": 2, "phase first ack": 6},
			twice: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var trials []*Trial
			for _, a := range tc.archives {
				// Each trial is analysed before the next unpack moves
				// the working directory.
				trials = append(trials, analyze(t, unpack(t, a)))
			}
			s := Summarize(trials)
			if s.Trials != len(trials) || !slices.Equal(s.Faults, tc.faults) {
				t.Errorf("%d trials %q, want %d %q", s.Trials, s.Faults, len(trials), tc.faults)
			}
			got := ranges(s)
			for name, r := range got {
				if r.Min > r.Max {
					t.Errorf("%s: min %v > max %v", name, r.Min, r.Max)
				}
				if _, ok := tc.n[name]; !ok {
					t.Errorf("%s: unexpected range %+v", name, r)
				}
			}
			if tc.twice {
				once := ranges(Summarize(trials[:1]))
				for name, r := range got {
					if o := once[name]; r.Min != o.Min || r.Max != o.Max || r.N != 2*o.N {
						t.Errorf("%s: %+v from the trial twice, %+v from it once", name, r, o)
					}
				}
			}
			for name, n := range tc.n {
				if got[name].N != n {
					t.Errorf("%s: N %d, want %d", name, got[name].N, n)
				}
			}

			// The gap ranges span the trials' own gaps.
			lo, hi := trials[0].Gaps.Partitions[0].Ack.Fault.Duration(), trials[0].Gaps.Partitions[0].Ack.Fault.Duration()
			for _, tr := range trials[1:] {
				d := tr.Gaps.Partitions[0].Ack.Fault.Duration()
				lo, hi = min(lo, d), max(hi, d)
			}
			if s.LeaderGap.Min != lo || s.LeaderGap.Max != hi {
				t.Errorf("leader gap %v–%v, want p0's %v–%v", s.LeaderGap.Min, s.LeaderGap.Max, lo, hi)
			}
			if s.Lost != 0 || s.Duplicated != 0 || s.Reordered != 0 || s.FailedSends != 0 || s.Escalated != 0 {
				t.Errorf("summary counts %+v, want all zero for clean trials", s)
			}

			var text bytes.Buffer
			if err := WriteSummaryText(&text, s); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "summary-"+tc.name+".txt.golden", text.Bytes())
		})
	}
}

func TestRangeString(t *testing.T) {
	for _, tc := range []struct {
		r    Range
		want string
	}{
		{Range{}, "-"},
		{Range{Min: 1500 * time.Millisecond, Max: 1500 * time.Millisecond, N: 2}, "1.50 s"},
		{Range{Min: 10 * time.Millisecond, Max: 11 * time.Millisecond, N: 3}, "0.01 s"}, // equal once rounded
		{Range{Min: 30 * time.Millisecond, Max: 1110 * time.Millisecond, N: 3}, "0.03–1.11 s"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.r, got, tc.want)
		}
	}
}

// TestSummarizeGroup: the group reader's processing gaps and commit
// stalls are ranged over the trials that had one, its rebalances and
// records processed again added up; trials without one add nothing.
func TestSummarizeGroup(t *testing.T) {
	if s := Summarize([]*Trial{analyze(t, unpack(t, sigkillArchive))}); s.Group != nil {
		t.Fatalf("a trial with no group reader summarized as %+v", s.Group)
	}
	at := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	gap := func(d time.Duration) GroupPartition {
		return GroupPartition{Stalls: gaps.Stalls{Fault: &gaps.Gap{Start: at, End: at.Add(d)}}}
	}
	trial := func(stall, commit time.Duration, reprocessed int, changes ...results.GroupEventKind) *Trial {
		tr := analyze(t, unpack(t, sigkillArchive))
		g := &GroupView{Partitions: []GroupPartition{gap(stall), gap(stall / 2), {}}, Reprocessed: reprocessed,
			CommitStall: &CommitStall{Start: at, End: at.Add(commit)}}
		for _, k := range changes {
			g.Changes = append(g.Changes, results.GroupEvent{Kind: k})
		}
		tr.Group = g
		return tr
	}
	s := Summarize([]*Trial{
		trial(8*time.Second, 9*time.Second, 0, results.GroupAssigned),
		trial(10*time.Second, 3*time.Second, 12, results.GroupAssigned, results.GroupRevoked, results.GroupAssigned),
	})
	g := s.Group
	if g == nil {
		t.Fatal("no group summary")
	}
	if g.Stall.N != 4 || g.Stall.Min != 4*time.Second || g.Stall.Max != 10*time.Second {
		t.Errorf("processing gaps %+v, want 4 of 4–10 s", g.Stall)
	}
	if g.Commit.N != 2 || g.Commit.Min != 3*time.Second || g.Commit.Max != 9*time.Second {
		t.Errorf("commit stalls %+v, want 2 of 3–9 s", g.Commit)
	}
	if g.Reprocessed != 12 || g.Rebalances != 2 {
		t.Errorf("reprocessed %d, rebalances %d", g.Reprocessed, g.Rebalances)
	}
	var text bytes.Buffer
	if err := WriteSummaryText(&text, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"group reader: processing gap, any partition   4.00–10.00 s", "group reader: commit stall", "records processed again"} {
		if !bytes.Contains(text.Bytes(), []byte(want)) {
			t.Errorf("summary text has no %q:\n%s", want, text.String())
		}
	}
}

// TestSummarizeTxn: the transactional probe's commit stalls, its
// read_committed stalls and its new coordinator's load are ranged over
// the trials that had one, its transactions added up by outcome; trials
// without one add nothing.
func TestSummarizeTxn(t *testing.T) {
	if s := Summarize([]*Trial{analyze(t, unpack(t, sigkillArchive))}); s.Txn != nil {
		t.Fatalf("a trial with no transactional probe summarized as %+v", s.Txn)
	}
	at := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	lso := func(p int32, d time.Duration) LSOStall {
		return LSOStall{Partition: p, Gap: &gaps.Gap{Start: at, End: at.Add(d)}}
	}
	trial := func(commit, load time.Duration, aborted, timedOut int, stalls ...LSOStall) *Trial {
		tr := analyze(t, unpack(t, sigkillArchive))
		tr.Txn = &TxnView{Committed: 30, Aborted: aborted, TimedOut: timedOut, LSO: append(stalls, LSOStall{Partition: 9}),
			CommitStall: &CommitStall{Start: at, End: at.Add(commit)}}
		if load > 0 {
			tr.TxnRecovery = &TxnRecovery{Faulted: true, Phases: []Phase{{Name: PhaseDetect, Duration: time.Second}, {Name: TxnPhaseLoad, Duration: load}}}
		}
		return tr
	}
	s := Summarize([]*Trial{
		trial(10*time.Second, 400*time.Millisecond, 1, 0, lso(0, 9*time.Second), lso(1, 2*time.Second)),
		trial(8*time.Second, 0, 0, 2, lso(0, 11*time.Second)),
	})
	x := s.Txn
	if x == nil {
		t.Fatal("no transactions' summary")
	}
	if x.Commit.N != 2 || x.Commit.Min != 8*time.Second || x.Commit.Max != 10*time.Second {
		t.Errorf("commit stalls %+v, want 2 of 8–10 s", x.Commit)
	}
	if x.LSO.N != 3 || x.LSO.Min != 2*time.Second || x.LSO.Max != 11*time.Second {
		t.Errorf("read_committed stalls %+v, want 3 of 2–11 s", x.LSO)
	}
	if x.Load.N != 1 || x.Load.Max != 400*time.Millisecond {
		t.Errorf("loads %+v, want the one trial's 0.40 s", x.Load)
	}
	if x.Committed != 60 || x.Aborted != 1 || x.TimedOut != 2 {
		t.Errorf("committed %d, aborted %d, timed out %d; want 60, 1, 2", x.Committed, x.Aborted, x.TimedOut)
	}
	var text bytes.Buffer
	if err := WriteSummaryText(&text, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"transactions: commit stall", "8.00–10.00 s", "transactions: read_committed stall            2.00–11.00 s",
		"transactions' new coordinator: load", "60 committed, 1 aborted, 2 timed out"} {
		if !bytes.Contains(text.Bytes(), []byte(want)) {
			t.Errorf("summary text has no %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteSummaryJSON(&js, s); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Txn *struct {
			Commit struct {
				Min float64 `json:"min_seconds"`
				N   int     `json:"n"`
			} `json:"commit_stall"`
			LSO struct {
				Max float64 `json:"max_seconds"`
			} `json:"read_committed_stall"`
			Aborted  int `json:"aborted"`
			TimedOut int `json:"timed_out"`
		} `json:"transactions"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if d := doc.Txn; d == nil || d.Commit.Min != 8 || d.Commit.N != 2 || d.LSO.Max != 11 || d.Aborted != 1 || d.TimedOut != 2 {
		t.Errorf("summary.json's transactions %+v", d)
	}
}
