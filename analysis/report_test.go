package analysis

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/internal/testsupport/golden"
	"github.com/kbf-project/kbf/internal/testsupport/testtrial"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// testdata is testdata/ made absolute before any test changes directory.
var testdata = func() string {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		panic(err)
	}
	return dir
}()

// The recorded trials, as kbf run wrote them against a real three-broker
// cluster: each archive holds one directory, trial-01.
const (
	sigkillArchive = "sigkill.tar.gz" // SIGKILL of k1 (node 1), the leader of orders-0
	sigtermArchive = "sigterm.tar.gz" // SIGTERM of the same broker
	// The same cluster on Kafka 4.3.1 with the replica view (replicas.csv),
	// client.log kept from 3 s before the fault.
	sigkillReplicasArchive   = "sigkill-replicas.tar.gz"
	isolateArchive           = "isolate.tar.gz"            // k1 cut from every node and client
	isolateControllerArchive = "isolate-controller.tar.gz" // k1 cut from the controller only
	isolateClientsArchive    = "isolate-clients.tar.gz"    // k1 cut from the clients only
	recordedTrial            = "trial-01"
)

// unpack unpacks testdata/<archive> into a new temporary directory, makes
// that the working directory for the rest of the test, and returns the
// recorded trial's directory relative to it, "trial-01". A relative path
// keeps the machine's temporary directory out of the reports, as running
// `kbf report trial-01` from the run's directory would.
func unpack(t *testing.T, archive string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata, archive))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	if err := testtrial.Untar(f, dir); err != nil {
		t.Fatalf("unpack %s: %v", archive, err)
	}
	t.Chdir(dir)
	return recordedTrial
}

// analyze reads the trial at dir as `kbf report` does: results.Find, then
// Analyze and Check.
func analyze(t *testing.T, dir string) *Trial {
	t.Helper()
	trials, err := results.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 1 {
		t.Fatalf("Find(%s) = %d trials, want 1", dir, len(trials))
	}
	tr, err := Analyze(trials[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestHeading checks that each recorded trial's text opens with its
// relative name and its fault, and that its JSON renders.
func TestHeading(t *testing.T) {
	// name is the archive's; fault the trial's.
	for _, c := range []struct{ name, fault string }{
		{"sigkill", "sigkill"},
		{"sigterm", "sigterm"},
		{"sigkill-replicas", "sigkill"},
		{"isolate", "isolate"},
		{"isolate-controller", "isolate-controller"},
		{"isolate-clients", "isolate-clients"},
	} {
		name := c.name
		t.Run(name, func(t *testing.T) {
			tr := analyze(t, unpack(t, name+".tar.gz"))
			var text, js bytes.Buffer
			if err := WriteText(&text, tr); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&js, tr); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(text.String(), recordedTrial+": trial, "+c.fault+" of k1") {
				t.Errorf("text does not open with the trial's relative name and fault:\n%.200s", text.String())
			}
			// The bytes themselves are TestOutputsGolden's.
		})
	}
}

// phaseNames lists a stall's phases by name.
func phaseNames(st *Stall) []string {
	var names []string
	for _, ph := range st.Phases {
		names = append(names, ph.Name)
	}
	return names
}

// checkPhases checks what holds for every stall: no phase runs backwards,
// the phases end in order, and, when an ack came, they add up to Total,
// which runs from the fault (or from the stall's start) to that ack.
func checkPhases(t *testing.T, tr *Trial, st *Stall) {
	t.Helper()
	if st.Unrelated {
		// A gap that is not the fault's has no phases to add up.
		if len(st.Phases) > 0 || st.Note == "" {
			t.Errorf("p%d: not the fault's stall, yet phases %q and note %q", st.Partition, phaseNames(st), st.Note)
		}
		return
	}
	var sum time.Duration
	start := tr.FaultAt.Add(st.Began)
	prev := start
	for _, ph := range st.Phases {
		if ph.Duration < 0 {
			t.Errorf("p%d %s: duration %v < 0", st.Partition, ph.Name, ph.Duration)
		}
		if ph.Overlap > 0 {
			// Out of order: at its own line, before the boundary before it.
			if ph.Duration != 0 || !ph.Start.Equal(ph.End) || !ph.End.Add(ph.Overlap).Equal(prev) {
				t.Errorf("p%d %s, out of order: %v → %v (%v), %v before %v", st.Partition, ph.Name, ph.Start, ph.End, ph.Duration, ph.Overlap, prev)
			}
			continue
		}
		if got := ph.End.Sub(prev); got != ph.Duration {
			t.Errorf("p%d %s: ends %v after the previous boundary, duration says %v", st.Partition, ph.Name, got, ph.Duration)
		}
		sum += ph.Duration
		prev = ph.End
	}
	if st.FirstAck.IsZero() {
		if st.Total != 0 {
			t.Errorf("p%d: no ack after the fault, yet Total %v", st.Partition, st.Total)
		}
		return
	}
	if want := st.FirstAck.Sub(start); st.Total != want {
		t.Errorf("p%d: Total %v, want first ack - stall start = %v", st.Partition, st.Total, want)
	}
	if sum != st.Total {
		t.Errorf("p%d: phases add up to %v, Total %v", st.Partition, sum, st.Total)
	}
}

// ackGap returns partition p's ack gap at the fault.
func ackGap(t *testing.T, tr *Trial, p int32) *gaps.Gap {
	t.Helper()
	for _, gp := range tr.Gaps.Partitions {
		if gp.Partition == p && gp.Ack.Fault != nil {
			return gp.Ack.Fault
		}
	}
	t.Fatalf("no ack gap at the fault for p%d", p)
	return nil
}

func stallOf(t *testing.T, tr *Trial, p int32) *Stall {
	t.Helper()
	for i := range tr.Stalls {
		if tr.Stalls[i].Partition == p {
			return &tr.Stalls[i]
		}
	}
	t.Fatalf("no stall for p%d in %+v", p, tr.Stalls)
	return nil
}

// readCSV reads a whole CSV file of the trial, header included.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestSigkillFacts(t *testing.T) {
	dir := unpack(t, sigkillArchive)
	tr := analyze(t, dir)
	f := tr.Meta.Fault
	if f == nil || f.Kind != "sigkill" || f.NodeID != 1 || f.ExitCode != 137 {
		t.Fatalf("fault %+v, want a sigkill of node 1 with exit code 137", f)
	}
	if !tr.FaultAt.Equal(f.Finished) {
		t.Errorf("fault at %v, want the process's end %v", tr.FaultAt, f.Finished)
	}
	fence, ok := tr.Timeline.Fenced(1, tr.FaultAt)
	if !ok || fence.Node != "c1" || !strings.HasPrefix(fence.Source, "c1/controller.log:") {
		t.Fatalf("fence of broker 1 = %+v, %v; want the controller's line", fence, ok)
	}
	if len(tr.Stalls) != 3 {
		t.Fatalf("%d stalls, want one per partition", len(tr.Stalls))
	}
	for i := range tr.Stalls {
		st := &tr.Stalls[i]
		checkPhases(t, tr, st)
		if st.Began != 0 {
			t.Errorf("p%d: began %v after the fault; every partition stalled at it", st.Partition, st.Began)
		}
		if len(st.Phases) == 0 || st.Phases[0].Name != PhaseDetect || !st.Phases[0].End.Equal(fence.Time) ||
			st.Phases[0].Source != fence.Source {
			t.Errorf("p%d: first phase %+v, want detect ending at the fence %v [%s]", st.Partition, st.Phases, fence.Time, fence.Source)
		}
	}

	p0 := stallOf(t, tr, 0)
	if p0.Role != "leader" || p0.Leader != 1 || p0.NewLeader != 2 {
		t.Errorf("p0: role %q, leader %d, new leader %d; want leader, 1, 2", p0.Role, p0.Leader, p0.NewLeader)
	}
	if got, want := phaseNames(p0), []string{PhaseDetect, PhaseElect, PhaseClient, PhaseFirstAck}; !slices.Equal(got, want) {
		t.Errorf("p0 phases %q, want %q", got, want)
	}
	if g := ackGap(t, tr, 0); !p0.FirstAck.Equal(g.End) {
		t.Errorf("p0 first ack %v, want the ack gap's end %v", p0.FirstAck, g.End)
	}
	elect, ok := tr.Timeline.LeaderStarted("orders", 0, tr.FaultAt)
	if !ok || elect.Broker != 2 || !p0.Phases[1].End.Equal(elect.Time) {
		t.Errorf("p0 elect ends %v, want broker 2's leader line %+v", p0.Phases[1].End, elect)
	}
	for _, p := range []int32{1, 2} {
		st := stallOf(t, tr, p)
		if st.Role != "follower" {
			t.Errorf("p%d: role %q, want follower", p, st.Role)
		}
		if got, want := phaseNames(st), []string{PhaseDetect, PhaseElect, PhaseFirstAck}; !slices.Equal(got, want) {
			t.Errorf("p%d phases %q, want %q", p, got, want)
		}
	}

	in := tr.Integrity
	if in == nil || !in.OK() || in.Lost != 0 || in.OffsetMismatch != 0 || in.Unrecorded != 0 {
		t.Fatalf("integrity %+v, want OK with nothing lost", in)
	}
	// Every acknowledged row of probe.csv, read here without the results
	// package, is in log.csv at the offset its ack named.
	logged := map[string]bool{}
	for _, r := range readCSV(t, filepath.Join(dir, results.LogFile))[1:] {
		logged[r[0]+"/"+r[2]+"@"+r[1]] = true
	}
	acked := 0
	for _, r := range readCSV(t, filepath.Join(dir, results.ProbeFile))[1:] {
		if r[4] == "" || r[6] != "" {
			continue
		}
		acked++
		if !logged[r[0]+"/"+r[1]+"@"+r[2]] {
			t.Errorf("p%s seq %s acked at offset %s is not in %s there", r[0], r[1], r[2], results.LogFile)
		}
	}
	if acked == 0 || in.Acknowledged != acked || in.Logged != len(logged) {
		t.Errorf("integrity counts %d acknowledged, %d logged; the files hold %d acked rows, %d log rows",
			in.Acknowledged, in.Logged, acked, len(logged))
	}
}

func TestSigtermFacts(t *testing.T) {
	dir := unpack(t, sigtermArchive)
	tr := analyze(t, dir)
	f := tr.Meta.Fault
	if f == nil || f.Kind != "sigterm" || f.NodeID != 1 || f.ExitCode != 143 || f.Escalated {
		t.Fatalf("fault %+v, want a sigterm of node 1 that exited by itself with 143", f)
	}
	// The SIGTERM line is read again from k1's server.log, and agrees
	// with what the kbf that recorded the trial parsed into meta.json.
	term, ok := tr.Timeline.First(f.SignalSent.Add(-time.Millisecond), timeline.OfKind(timeline.KindSignalReceived), timeline.OnNode("k1"))
	if !ok || term.Source == results.MetaFile || !tr.FaultAt.Equal(term.Time) {
		t.Errorf("fault at %v, want the broker's SIGTERM line from its log %+v", tr.FaultAt, term)
	}
	if logged, ok := f.LoggedSignal(); !ok || !logged.Equal(tr.FaultAt) {
		t.Errorf("meta.json's term_logged %v (%v), want the same as the log's %v", logged, ok, tr.FaultAt)
	}

	// Detection ends at the controller's grant of the controlled shutdown,
	// not at the later final grant or the fence after the process ended.
	grant, ok := tr.Timeline.ControlledShutdown(1, f.SignalSent)
	if !ok || grant.Node != "c1" || !strings.Contains(grant.Text, "granted a controlled shutdown") {
		t.Fatalf("controlled shutdown of broker 1 = %+v, %v", grant, ok)
	}
	if fence, ok := tr.Timeline.Fenced(1, tr.FaultAt); !ok || !fence.Time.After(f.Finished) {
		t.Fatalf("fence %+v, %v: the recording has the controller fence broker 1 after it exited", fence, ok)
	}
	for i := range tr.Stalls {
		st := &tr.Stalls[i]
		checkPhases(t, tr, st)
		g := ackGap(t, tr, st.Partition)
		for _, ph := range st.Phases {
			if ph.Name == PhaseDetect && !ph.End.Equal(grant.Time) {
				t.Errorf("p%d detect ends %v, want the controlled shutdown %v", st.Partition, ph.End, grant.Time)
			}
		}
		// Every partition acked past the grant, so detection took none
		// of its stall.
		if !g.Start.After(grant.Time) || st.Began != g.Start.Sub(tr.FaultAt) || slices.Contains(phaseNames(st), PhaseDetect) {
			t.Errorf("p%d: stall from %v, began %v, phases %q; want it to begin after the grant at %v, without detect",
				st.Partition, g.Start, st.Began, phaseNames(st), grant.Time)
		}
	}
	if s := Summarize([]*Trial{tr}); s.Detect.N != 1 || s.Detect.Min != grant.Time.Sub(tr.FaultAt) {
		t.Errorf("summary detection %+v, want fault → controlled shutdown = %v", s.Detect, grant.Time.Sub(tr.FaultAt))
	}

	p0 := stallOf(t, tr, 0)
	if p0.Role != "leader" || p0.NewLeader != 2 {
		t.Errorf("p0: role %q, new leader %d; want leader, 2", p0.Role, p0.NewLeader)
	}

	// A graceful stop moves the leaderships before the broker leaves, so no
	// partition waits for the controller to miss its heartbeats: a stall
	// that did would last at least broker.session.timeout.ms less one
	// broker.heartbeat.interval.ms, as the controller logged them.
	cfg := timeline.NodeConfigValues(dir, "c1")
	session, err1 := strconv.Atoi(cfg["broker.session.timeout.ms"])
	heartbeat, err2 := strconv.Atoi(cfg["broker.heartbeat.interval.ms"])
	if err1 != nil || err2 != nil || session != 9000 {
		t.Fatalf("c1 logged broker.session.timeout.ms = %q, broker.heartbeat.interval.ms = %q; want 9000 and a number",
			cfg["broker.session.timeout.ms"], cfg["broker.heartbeat.interval.ms"])
	}
	fenceWait := time.Duration(session-heartbeat) * time.Millisecond
	for _, p := range tr.Gaps.Partitions {
		if d := p.Ack.Fault.Duration(); d >= fenceWait {
			t.Errorf("p%d ack gap %v: as long as a wait for the session timeout (%v)", p.Partition, d, fenceWait)
		}
	}
	if in := tr.Integrity; in == nil || !in.OK() || in.Lost != 0 || in.Acknowledged == 0 {
		t.Errorf("integrity %+v, want OK with nothing lost", in)
	}
}

// editLines rewrites the file at path line by line.
func editLines(t *testing.T, path string, edit func([]string) []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(edit(lines), "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The integrity check can fail: the recorded sigkill trial, with log.csv
// edited, must show what was done to it.
func TestIntegrityCatches(t *testing.T) {
	// p0 seq 100 was acked at offset 100 (the trial's offsets start at 0).
	const row = "0,100,100\n"
	for _, tc := range []struct {
		name            string
		edit            func([]string) []string
		lost, dup       int
		text, wantWhole string
	}{
		{
			name: "row removed",
			edit: func(l []string) []string {
				i := slices.Index(l, row)
				return slices.Delete(l, i, i+1)
			},
			lost: 1, text: "p0: 1 lost\np0 lost seq 100 (acked offset 100 at ",
		},
		{
			name: "row copied to the log's end",
			edit: func(l []string) []string { return append(l, "0,1501,100\n") },
			dup:  1, text: "p0: 1 duplicated\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := unpack(t, sigkillArchive)
			path := filepath.Join(dir, results.LogFile)
			if rows := readCSV(t, path); !slices.ContainsFunc(rows, func(r []string) bool { return strings.Join(r, ",")+"\n" == row }) {
				t.Fatalf("%s holds no row %q to edit", path, row)
			}
			editLines(t, path, tc.edit)
			tr := analyze(t, dir)
			in := tr.Integrity
			if in.Lost != tc.lost || in.Duplicated != tc.dup || in.Reordered != 0 || in.OK() {
				t.Errorf("lost %d, duplicated %d, reordered %d, OK %v; want %d, %d, 0, false",
					in.Lost, in.Duplicated, in.Reordered, in.OK(), tc.lost, tc.dup)
			}
			if tc.lost > 0 && (len(in.Partitions[0].First.Lost) != 1 || in.Partitions[0].First.Lost[0].Seq != 100) {
				t.Errorf("lost offenders %+v, want p0 seq 100", in.Partitions[0].First.Lost)
			}
			var text bytes.Buffer
			if err := WriteText(&text, tr); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), tc.text) {
				t.Errorf("report does not say %q:\n%s", tc.text, text.String())
			}
		})
	}
}

func TestUntarRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		hdr  tar.Header
	}{
		{"parent", tar.Header{Name: "../evil", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}},
		{"parent inside", tar.Header{Name: "trial-01/../../evil", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}},
		{"absolute", tar.Header{Name: "/tmp/evil", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}},
		{"symlink", tar.Header{Name: "trial-01/link", Typeflag: tar.TypeSymlink, Linkname: "/etc"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			tw := tar.NewWriter(zw)
			if err := tw.WriteHeader(&tc.hdr); err != nil {
				t.Fatal(err)
			}
			if tc.hdr.Size > 0 {
				tw.Write([]byte("x"))
			}
			if err := errors.Join(tw.Close(), zw.Close()); err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(t.TempDir(), "dst")
			if err := testtrial.Untar(&b, dst); err == nil || !strings.Contains(err.Error(), tc.hdr.Name) {
				t.Errorf("untar of %q: %v, want an error naming it", tc.hdr.Name, err)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dst), "evil")); err == nil {
				t.Errorf("untar wrote outside its destination")
			}
		})
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join(testdata, name), got)
}
