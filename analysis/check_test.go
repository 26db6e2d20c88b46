package analysis

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/internal/testsupport/testtrial"
	"github.com/kbf-project/kbf/results"
)

// recordedTrials returns every trial recorded under a testdata directory of
// the module: the directories holding a meta.json and the archives of
// them, unpacked into a temporary directory.
func recordedTrials(t *testing.T) map[string]string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{} // the trial's directory → its name
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if !strings.Contains(path, string(filepath.Separator)+"testdata"+string(filepath.Separator)) || d.IsDir() {
			return nil
		}
		switch {
		case d.Name() == results.MetaFile:
			name, _ := filepath.Rel(root, filepath.Dir(path))
			dirs[filepath.Dir(path)] = name
		case strings.HasSuffix(d.Name(), ".tar.gz"):
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			dst := t.TempDir()
			if err := testtrial.Untar(f, dst); err != nil {
				return err
			}
			found, err := results.Find(dst)
			if err != nil {
				return err
			}
			name, _ := filepath.Rel(root, path)
			for _, tr := range found {
				dirs[tr.Dir] = name + ":" + filepath.Base(tr.Dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestCheckRecordedTrials runs the check of explanations against their
// evidence over every recorded trial: the analysis must never have needed
// to drop an explanation, since a dropped one is a bug of its own.
func TestCheckRecordedTrials(t *testing.T) {
	dirs := recordedTrials(t)
	if len(dirs) < 10 {
		t.Fatalf("found %d recorded trials, want the ten or more under testdata", len(dirs))
	}
	checked, wrong := 0, 0
	for dir, name := range dirs {
		trials, err := results.Find(dir)
		if err != nil {
			// A recorded timeline without its probe CSV has no stall to
			// explain.
			t.Logf("%s: %v", name, err)
			continue
		}
		for _, rt := range trials {
			tr, err := Analyze(rt, Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checked++
			var vs []Violation
			for _, st := range tr.Stalls {
				vs = append(vs, st.Violations...)
			}
			vs = append(vs, tr.CheckExplanations()...)
			for _, n := range tr.Notes {
				if strings.Contains(n, "failed the check") {
					vs = append(vs, Violation{Partition: -1, What: n})
				}
			}
			if len(vs) > 0 {
				wrong++
				for _, v := range vs {
					t.Errorf("%s: %s", name, v)
				}
			}
		}
	}
	t.Logf("checked %d recorded trials, %d wrong", checked, wrong)
	if checked < 9 {
		t.Errorf("checked %d recorded trials, want the nine with a probe CSV", checked)
	}
}

// FuzzExplanationsChecked generates hand-made trials — the fence, the new
// leader, the smaller ISR and the producer's learning of the leader at any
// times, each present or not, and each partition's stall anywhere around
// them — and checks that the analysis never builds an explanation its own
// evidence contradicts: none needed dropping, and what it reports passes
// the check.
func FuzzExplanationsChecked(f *testing.F) {
	// Times are milliseconds after the fault; a stall runs [from, to).
	// The seeds are the orders the recorded trials showed and those the
	// analysis once got wrong.
	for _, s := range []struct {
		fence, leader, shrunk, learnt uint16
		from0, to0, from1, to1        uint16
		present                       uint8
		cut                           bool
	}{
		{9000, 9100, 9150, 9300, 0, 9800, 0, 9400, 0xf, false},       // a SIGKILL as recorded
		{600, 800, 900, 700, 500, 3000, 0, 2200, 0xf, false},         // the producer learnt before the leader's line
		{9000, 9100, 9400, 9300, 0, 9800, 0, 9200, 0xf, false},       // the ISR line after the first ack
		{8600, 9300, 10100, 19200, 9100, 19400, 100, 240, 0xf, true}, // the cut: noise long before the fence
		{8600, 9300, 10100, 19200, 9100, 19400, 9130, 9780, 0xf, true},
		{2000, 2100, 2150, 2400, 0, 3000, 0, 2200, 0x1, false}, // the fence only
		{2000, 2100, 2150, 2400, 0, 3000, 0, 2200, 0x0, false}, // no line at all
		{5000, 100, 200, 300, 0, 6000, 0, 6000, 0xf, false},    // every boundary before the fence
	} {
		f.Add(s.fence, s.leader, s.shrunk, s.learnt, s.from0, s.to0, s.from1, s.to1, s.present, s.cut)
	}
	f.Fuzz(func(t *testing.T, fence, leader, shrunk, learnt, from0, to0, from1, to1 uint16, present uint8, cut bool) {
		ms := func(v uint16) time.Duration { return time.Duration(v%20000) * msec }
		acks := func(from, to uint16) []time.Duration {
			a, b := ms(from), ms(to)
			if a > b {
				a, b = b, a
			}
			if b-a < 10*msec {
				b = a + 10*msec
			}
			// Steady acks a second before the fault, up to the stall,
			// and a second after it.
			out := every(-time.Second, a, 100*msec)
			if out[len(out)-1] != a {
				out = append(out, a)
			}
			return append(out, every(b, b+time.Second, 100*msec)...)
		}
		files := map[string]string{"logs/c1/controller.log": "", "logs/k2/state-change.log": ""}
		if present&1 != 0 {
			files["logs/c1/controller.log"] = fenceLine(ms(fence))
		}
		var sc []string
		if present&2 != 0 {
			sc = append(sc, leaderLine(ms(leader), 0))
		}
		if present&4 != 0 {
			sc = append(sc, shrunkLine(ms(shrunk), 1))
		}
		// Kafka writes its lines in time order.
		slices.Sort(sc)
		files["logs/k2/state-change.log"] = strings.Join(sc, "")
		if present&8 != 0 {
			files["client.log"] = learntLine(ms(learnt), 0)
		}
		if present&16 != 0 {
			// k1 is a controller too and led the quorum; k2 takes it
			// over when the fence's time says, less a session.
			files["logs/k1/server.log"] = raftLine(-2*time.Second, 1, leaderState(1, 4), candidateState(1, 4))
			files["logs/k2/server.log"] = raftLine(ms(fence)-9*time.Second, 2, leaderState(2, 5), candidateState(2, 5))
		}
		h := handTrial{acks: map[int32][]time.Duration{0: acks(from0, to0), 1: acks(from1, to1)}, files: files, ended: 22 * time.Second}
		if cut {
			h.fault = &results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultIsolateController,
				SignalSent: handF.Add(-50 * msec), Cut: handF}
		}
		tr := analyzeHand(t, h.write(t))
		for _, st := range tr.Stalls {
			for _, v := range st.Violations {
				t.Errorf("the analysis built an explanation its evidence contradicts: %s", v)
			}
		}
		for _, v := range tr.CheckExplanations() {
			t.Errorf("reported despite the check: %s", v)
		}
		for _, n := range tr.Notes {
			if strings.Contains(n, "failed the check") {
				t.Errorf("note: %s", n)
			}
		}
	})
}

// TestCheckStallPhases checks the invariants CheckStall holds a stall's
// phases to: each starts where the one before it ended, lasts End - Start,
// and the last ends at the first ack.
func TestCheckStallPhases(t *testing.T) {
	F := time.Date(2026, 11, 30, 16, 42, 9, 0, time.UTC)
	at := func(ms int) time.Time { return F.Add(time.Duration(ms) * msec) }
	phase := func(name string, from, to int) Phase {
		return Phase{Name: name, Start: at(from), End: at(to), Duration: at(to).Sub(at(from))}
	}
	for _, tc := range []struct {
		name   string
		began  time.Duration
		phases []Phase
		want   string // in the one violation; "" for none
	}{
		{name: "in order", phases: []Phase{phase(PhaseDetect, 0, 900), phase(PhaseFirstAck, 900, 1000)}},
		{name: "after the stall began", began: 100 * msec, phases: []Phase{phase(PhaseDetect, 100, 900), phase(PhaseFirstAck, 900, 1000)}},
		{name: "a gap between phases", phases: []Phase{phase(PhaseDetect, 0, 800), phase(PhaseFirstAck, 900, 1000)},
			want: "first ack starts at 16:42:09.900, not where the phase before it ended (16:42:09.800)"},
		{name: "a start before the fault", phases: []Phase{phase(PhaseDetect, -100, 900), phase(PhaseFirstAck, 900, 1000)},
			want: "detect starts at 16:42:08.900"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &Stall{Partition: 0, Began: tc.began, Phases: tc.phases, FirstAck: at(1000), Total: at(1000).Sub(F.Add(tc.began))}
			vs := CheckStall(st, F, nil)
			if tc.want == "" {
				if len(vs) > 0 {
					t.Errorf("violations %v, want none", vs)
				}
				return
			}
			if !slices.ContainsFunc(vs, func(v Violation) bool { return strings.Contains(v.What, tc.want) }) {
				t.Errorf("violations %v, want one saying %q", vs, tc.want)
			}
		})
	}
}
