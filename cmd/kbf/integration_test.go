//go:build integration

// These tests run kbf itself against the real cluster in Docker (KBF_IMAGE,
// e.g. kbf/kafka:4.3.1 from make image): a plain probe, a pause, the three
// network cuts and a baseline disturbed by a paused broker, on kbf's default
// cluster, which the tests of this package share while its definition fits:
// those that need other settings run last (reshape_integration_test.go,
// named to sort after this file), each taking the cluster down after it.
// They assert what Kafka guarantees and what the timeline must hold, never
// timings tuned to one machine.
//
//	KBF_IMAGE=kbf/kafka:4.3.1 go test -tags integration ./cmd/kbf/ -run Integration -v -timeout 20m

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
	"github.com/kbf-project/kbf/verdict"
)

func TestIntegration(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	// kbf's default cluster, reused from the test before when it is up
	// and whole, and left up for the tests after (the last one that runs
	// kbf's cluster takes it down).
	cl := stepsCluster(ctx, t, compose.Options{})

	// The SIGKILL and SIGTERM trials are TestIntegrationBench's, checked
	// there with checkSigkill and checkSigterm. None of these restarts a
	// broker's JVM, whose compiling for tens of seconds after a restart the
	// next trial's baseline would wait out.
	t.Run("probe", func(t *testing.T) { testProbe(ctx, t) })
	t.Run("pause", func(t *testing.T) { testPause(ctx, t, cl) })
	t.Run("isolate", func(t *testing.T) { testIsolate(ctx, t, cl) })
	t.Run("isolate-controller", func(t *testing.T) { testIsolateController(ctx, t, cl) })
	t.Run("isolate-clients", func(t *testing.T) { testIsolateClients(ctx, t, cl) })
	t.Run("baseline", func(t *testing.T) { testBaselineDisturbed(ctx, t, cl) })
}

// kbfRun runs kbf run, which may exit 6 on a loaded machine: its trial is
// then suspect, and the caller checks the verdict.
func kbfRun(ctx context.Context, t *testing.T, args ...string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(ctx, args, &out, &errOut); code != exitOK && code != exitNoValid {
		t.Fatalf("kbf %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out.String(), errOut.String())
	}
}

// kbf runs the kbf command line and fails the test unless it exits 0.
func kbf(ctx context.Context, t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(ctx, args, &out, &errOut); code != exitOK {
		t.Fatalf("kbf %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out.String(), errOut.String())
	}
	return out.String()
}

// testProbe probes the healthy cluster for 5 s: every record acked and read
// exactly once, in order. Its verdict weighs the host's load as a trial's
// does, so a loaded machine may make it suspect (exit 6).
func testProbe(ctx context.Context, t *testing.T) {
	dir := filepath.Join(t.TempDir(), "probe")
	kbfRun(ctx, t, "probe", "--duration", "5s", "--out", dir)
	f, err := os.Open(filepath.Join(dir, results.ProbeFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := results.NewDecoder(f, results.ProbeFile)
	bySeq := map[int32]map[int64]results.Message{}
	for {
		var m results.Message
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if bySeq[m.Partition] == nil {
			bySeq[m.Partition] = map[int64]results.Message{}
		}
		if _, dup := bySeq[m.Partition][m.Seq]; dup {
			t.Errorf("p%d seq %d recorded twice", m.Partition, m.Seq)
		}
		bySeq[m.Partition][m.Seq] = m
	}
	if len(bySeq) != 3 {
		t.Fatalf("messages on %d partitions, want 3", len(bySeq))
	}
	for p, ms := range bySeq {
		if len(ms) < 50 {
			t.Errorf("p%d: %d messages in 5 s at 20 ms", p, len(ms))
		}
		prev := int64(-1)
		for s := int64(0); s < int64(len(ms)); s++ {
			m, ok := ms[s]
			switch {
			case !ok:
				t.Errorf("p%d: seq %d missing", p, s)
			case m.Err != "" || m.Acked.IsZero() || m.Received.IsZero():
				t.Errorf("p%d seq %d not acked and received: %+v", p, s, m)
			case m.Offset <= prev:
				t.Errorf("p%d seq %d at offset %d, not after %d: out of order", p, s, m.Offset, prev)
			}
			prev = m.Offset
		}
	}
}

// trialFaultAfter is when trial's fault comes (--fault-after).
const trialFaultAfter = 5 * time.Second

// trial runs one kbf run trial and analyses it; flags follow the defaults
// given here, and one given again overrides its default.
func trial(ctx context.Context, t *testing.T, kill string, flags ...string) *analysis.Trial {
	t.Helper()
	out := filepath.Join(t.TempDir(), kill)
	kbfRun(ctx, t, append([]string{"run", "--kill", kill, "--duration", "25s", "--fault-after", trialFaultAfter.String(), "--out", out}, flags...)...)
	trials, err := results.Find(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 1 {
		t.Fatalf("%d trials, want 1", len(trials))
	}
	tr := analyzeTrial(t, trials[0])
	checkTrial(t, tr)
	return tr
}

// analyzeTrial analyses a trial kbf wrote, and prints its whole report if
// the test fails, to read what went wrong.
func analyzeTrial(t *testing.T, found results.Trial) *analysis.Trial {
	t.Helper()
	tr, err := analysis.Analyze(found, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			var b bytes.Buffer
			render.WriteText(&b, tr)
			t.Logf("report of the failed trial:\n%s", b.String())
		}
	})
	return tr
}

// checkTrial checks what every trial must hold: its fault recorded, a
// verdict that is not invalid (a suspect one, on a loaded machine, is
// checked all the same), and every file of its directory.
func checkTrial(t *testing.T, tr *analysis.Trial) {
	t.Helper()
	if tr.Meta.Fault == nil {
		t.Fatalf("no fault recorded; verdict %v", tr.Verdict)
	}
	switch v := tr.Verdict; {
	case v == nil || v.Status == verdict.Invalid:
		t.Fatalf("verdict %v", v)
	case v.Status == verdict.Suspect:
		t.Logf("verdict %v: the trial is checked all the same", v)
	}
	for _, name := range []string{results.ReportFile, results.ReportJSON, results.PlotFile, results.LogFile, results.ClientLog} {
		if _, err := os.Stat(filepath.Join(tr.Dir, name)); err != nil {
			t.Errorf("trial directory lacks %s: %v", name, err)
		}
	}
	logCost(t, tr)
}

// logCost logs where a trial's time went, for the CI's own: the wait for
// the baseline before the fault, the probing after it and whether it ended
// at recovery or at the cap, and the recovery after probing.
func logCost(t *testing.T, tr *analysis.Trial) {
	t.Helper()
	m := tr.Meta
	if tr.FaultAt.IsZero() || m.Ended.IsZero() {
		return
	}
	how := "to the cap"
	for _, n := range m.Notes {
		if strings.HasPrefix(n, "probing ended") {
			how = "ended at recovery"
		}
	}
	rec := ""
	if r := m.Recovery; r != nil && !r.PreferredElec.IsZero() {
		rec = fmt.Sprintf(", recovered %.1f s after probing", r.PreferredElec.Sub(m.Ended).Seconds())
	}
	t.Logf("trial's time: fault %.1f s after the start, probing %.1f s after the fault (%s)%s",
		tr.FaultAt.Sub(m.Started).Seconds(), m.Ended.Sub(tr.FaultAt).Seconds(), how, rec)
}

// toTheCap are the flags of a trial that probes to its cap (--duration),
// its led partition acking again only once the producer's request to the
// faulted broker has timed out, about 20 s after the fault, or not at all
// while the cut lasts: probing stops `after` past the fault, and what is
// outstanding then is waited for 2 s, not the probe's 10, which would only
// lengthen that partition's stall, already longer than anything checked
// here.
func toTheCap(after time.Duration) []string {
	return []string{"--duration", (trialFaultAfter + after).String(), "--drain", "2s"}
}

// checkRecovered checks the cluster is as the trial found it: every ISR
// full and every leader the preferred one.
func checkRecovered(ctx context.Context, t *testing.T, cl *compose.Cluster, tr *analysis.Trial) {
	t.Helper()
	if r := tr.Meta.Recovery; r == nil || r.Err != "" || !r.LeadersBack {
		t.Errorf("recovery: %+v", r)
	}
	parts, err := cl.Describe(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		isr := slices.Clone(p.ISR)
		slices.Sort(isr)
		if !slices.Equal(isr, []int32{1, 2, 3}) {
			t.Errorf("orders-%d ISR %v after recovery, want 1,2,3", p.Partition, p.ISR)
		}
		if p.Leader != p.Partition+1 {
			t.Errorf("orders-%d leader %d after recovery, want %d", p.Partition, p.Leader, p.Partition+1)
		}
	}
}

func checkIntegrity(t *testing.T, tr *analysis.Trial) {
	t.Helper()
	if tr.Integrity == nil {
		t.Fatal("no integrity check: the partitions were not read back")
	}
	if !tr.Integrity.OK() || tr.Integrity.Lost != 0 {
		t.Errorf("acks=all, min.insync.replicas=2, one broker down: integrity %+v", tr.Integrity.Counts)
	}
	if tr.Gaps.Failed != 0 {
		t.Errorf("failed sends %d, want 0", tr.Gaps.Failed)
	}
}

// sessionTimeout is broker.session.timeout.ms as the controller logged it.
func sessionTimeout(t *testing.T, tr *analysis.Trial) time.Duration {
	cfg := timeline.NodeConfigValues(tr.Dir, "c1")
	ms, err := strconv.Atoi(cfg["broker.session.timeout.ms"])
	if err != nil {
		t.Fatalf("controller's broker.session.timeout.ms not in its log: %v", err)
	}
	return time.Duration(ms) * time.Millisecond
}

// checkSigkill checks a SIGKILL trial of the default cluster, left as the
// trial found it: exit 137, the fence, a new leader after it, every
// partition waiting for the fence, nothing lost.
func checkSigkill(ctx context.Context, t *testing.T, cl *compose.Cluster, tr *analysis.Trial) {
	t.Helper()
	f := tr.Meta.Fault
	if f.ExitCode != 137 || f.Finished.IsZero() || f.Escalated {
		t.Errorf("fault %+v: want exit 137 and a finish time", f)
	}
	fence, ok := tr.Timeline.Fenced(f.NodeID, tr.FaultAt)
	if !ok {
		t.Errorf("no fence of broker %d after the fault", f.NodeID)
	}
	if e, ok := tr.Timeline.LeaderStarted("orders", 0, tr.FaultAt); !ok || e.Broker == f.NodeID {
		t.Errorf("no new leader of orders-0 after the fault (%+v)", e)
	} else if ok && fence.Time.After(e.Time) {
		t.Errorf("orders-0's new leader (%v) before the fence (%v)", e.Time, fence.Time)
	}
	// acks=all waits for the whole ISR, which holds the dead broker until
	// the controller fences it after broker.session.timeout.ms (9 s).
	for _, p := range tr.Gaps.Partitions {
		g := p.Ack.Fault
		if g == nil || g.Duration() < 5*time.Second {
			t.Errorf("p%d ack gap at the fault %v, want at least 5 s", p.Partition, g)
		}
	}
	checkIntegrity(t, tr)
	checkRecovered(ctx, t, cl, tr)
}

// checkSigterm checks a SIGTERM trial of the default cluster, left as the
// trial found it: exit 143 without escalation, the controlled shutdown in
// the logs, leadership moved before a session timeout, nothing lost.
func checkSigterm(ctx context.Context, t *testing.T, cl *compose.Cluster, tr *analysis.Trial) {
	t.Helper()
	f := tr.Meta.Fault
	if f.ExitCode != 143 || f.Escalated {
		t.Errorf("fault %+v: want exit 143, not escalated", f)
	}
	if _, ok := tr.Timeline.First(f.SignalSent.Add(-time.Millisecond), timeline.OfKind(timeline.KindSignalReceived), timeline.OnNode(f.Broker)); !ok {
		t.Error("the broker's SIGTERM line was not found")
	}
	tl := tr.Timeline
	if _, ok := tl.ControlledShutdown(f.NodeID, f.SignalSent); !ok {
		t.Error("no controlled-shutdown grant after the signal")
	}
	if _, ok := tl.First(f.SignalSent, timeline.OfKind(timeline.KindShutdownChanges), timeline.ForBroker(f.NodeID)); !ok {
		t.Error("no enterControlledShutdown line after the signal")
	}
	if _, ok := tl.ShutdownGranted(f.NodeID, f.SignalSent); !ok {
		t.Error("no 'request to shut down has been granted' line")
	}
	session := sessionTimeout(t, tr)
	for _, p := range tr.Gaps.Partitions {
		if g := p.Ack.Fault; g != nil && g.Duration() >= session {
			t.Errorf("p%d ack gap %v reaches broker.session.timeout.ms %v: leadership did not move first", p.Partition, g.Duration(), session)
		}
	}
	checkIntegrity(t, tr)
	checkRecovered(ctx, t, cl, tr)
}

// testPause freezes k1: nothing closes its connections, so the controller
// fences it as after a SIGKILL, and every partition stalls until then.
func testPause(ctx context.Context, t *testing.T, cl *compose.Cluster) {
	tr := trial(ctx, t, "pause", toTheCap(15*time.Second)...)
	f := tr.Meta.Fault
	if f.Kind != "pause" || f.SignalSent.IsZero() || !f.Finished.IsZero() {
		t.Errorf("fault %+v: want a pause with no finish time", f)
	}
	if _, ok := tr.Timeline.Fenced(f.NodeID, tr.FaultAt); !ok {
		t.Errorf("no fence of the frozen broker %d", f.NodeID)
	}
	if e, ok := tr.Timeline.LeaderStarted("orders", 0, tr.FaultAt); !ok || e.Broker == f.NodeID {
		t.Errorf("no new leader of orders-0 after the pause (%+v)", e)
	}
	for _, p := range tr.Gaps.Partitions {
		if g := p.Ack.Fault; g == nil || g.Duration() < 5*time.Second {
			t.Errorf("p%d ack gap at the pause %v, want at least 5 s", p.Partition, g)
		}
	}
	checkIntegrity(t, tr)
	checkRecovered(ctx, t, cl, tr)
}

// testBaselineDisturbed pauses k2, the leader of orders-1, for 3 s during
// the baseline: the fault must wait until the cluster has been steady for
// the whole baseline period after the pause, or the trial must be recorded
// invalid with no fault; never a valid trial with the pause inside its
// baseline. What follows the fault is not checked: the fault is a cut
// from the clients, probed 3 s, which restarts no JVM (the next trial's
// baseline would wait out its warm-up) and heals at once.
func testBaselineDisturbed(ctx context.Context, t *testing.T, cl *compose.Cluster) {
	out := filepath.Join(t.TempDir(), "baseline")
	inj := chaos.New(cl.Docker(), cl.ContainerName)
	done := make(chan struct{})
	var pausedAt, resumedAt time.Time
	go func() {
		defer close(done)
		select {
		case <-ctx.Done():
			return
		case <-time.After(3 * time.Second): // inside the 5 s baseline before the fault at 6 s
		}
		f, err := inj.Inject(ctx, cluster.Fault{Broker: "k2", Kind: results.FaultPause})
		if err != nil {
			t.Errorf("pause k2: %v", err)
			return
		}
		pausedAt = f.SignalSent
		time.Sleep(3 * time.Second)
		resumedAt = time.Now() // no ack of the pause's end can come before
		if err := inj.Restart(ctx, "k2"); err != nil {
			t.Errorf("unpause k2: %v", err)
		}
	}()
	kbfRun(ctx, t, "run", "--kill", "isolate-clients", "--duration", "9s", "--fault-after", "6s", "--drain", "2s",
		"--baseline", "5s", "--baseline-timeout", "40s", "--out", out)
	<-done
	if t.Failed() {
		return
	}
	m, err := results.ReadMeta(filepath.Join(out, results.TrialDir(1)))
	if err != nil {
		t.Fatal(err)
	}
	b := m.Baseline
	switch {
	case b == nil:
		t.Fatal("no baseline recorded")
	case b.Unhealthy != "":
		if m.Fault != nil {
			t.Errorf("baseline unhealthy (%s) but a fault was injected", b.Unhealthy)
		}
		t.Logf("recorded invalid: %s", b.Unhealthy)
	case m.Fault == nil:
		t.Error("baseline healthy, but no fault")
	case m.Fault.SignalSent.Before(resumedAt.Add(b.Period)):
		t.Errorf("fault at %v, within the baseline period %v of k2's pause (%v–%v)", m.Fault.SignalSent, b.Period, pausedAt, resumedAt)
	case len(b.Waited) == 0:
		t.Error("the fault was delayed but no reason recorded")
	}
}

// ackStalls are each partition's ack gap at the fault.
func ackStalls(tr *analysis.Trial) map[int32]time.Duration {
	m := map[int32]time.Duration{}
	for _, p := range tr.Gaps.Partitions {
		if g := p.Ack.Fault; g != nil {
			m[p.Partition] = g.Duration()
		}
	}
	return m
}

// testIsolate cuts k1 from everyone, its process running: the controller
// fences it after broker.session.timeout.ms, and every partition stalls
// until then; the led partition longer, its producer waiting out a request
// on the cut connection.
func testIsolate(ctx context.Context, t *testing.T, cl *compose.Cluster) {
	tr := trial(ctx, t, "isolate", toTheCap(15*time.Second)...)
	if f := tr.Meta.Fault; f.Cut.IsZero() || f.ExitCode != 0 {
		t.Errorf("fault %+v: want a cut, the process running", f)
	}
	if _, ok := tr.Timeline.Fenced(tr.Meta.Fault.NodeID, tr.FaultAt); !ok {
		t.Error("the cut broker was never fenced")
	}
	for p, d := range ackStalls(tr) {
		if d < 5*time.Second {
			t.Errorf("p%d ack stall %v, want at least 5 s (the fence)", p, d)
		}
	}
	checkIntegrity(t, tr)
	checkRecovered(ctx, t, cl, tr)
}

// testIsolateController cuts k1 from the controller only: it goes on
// leading until the fence, so partition 0 stalls late, and the partitions
// it only follows keep their ISR (it still fetches from their leaders).
func testIsolateController(ctx context.Context, t *testing.T, cl *compose.Cluster) {
	// Partition 0 stalls only from the fence, about 9 s in: the cap leaves
	// it 10 s more.
	tr := trial(ctx, t, "isolate-controller", toTheCap(20*time.Second)...)
	fence, ok := tr.Timeline.Fenced(tr.Meta.Fault.NodeID, tr.FaultAt)
	if !ok {
		t.Fatal("the broker cut from the controller was never fenced")
	}
	if d := fence.Time.Sub(tr.FaultAt); d < 3*time.Second {
		t.Errorf("fenced %v after the cut, want about broker.session.timeout.ms", d)
	}
	st := ackStalls(tr)
	if st[0] < 3*time.Second {
		t.Errorf("p0 ack stall %v: want the stall of a leader fenced without knowing it", st[0])
	}
	checkIntegrity(t, tr)
	checkRecovered(ctx, t, cl, tr)
}

// testIsolateClients cuts k1 from the clients only: the cluster sees it
// healthy, elects nobody, and partition 0 stalls until the heal while the
// partitions it follows do not.
func testIsolateClients(ctx context.Context, t *testing.T, cl *compose.Cluster) {
	tr := trial(ctx, t, "isolate-clients", toTheCap(15*time.Second)...)
	if _, ok := tr.Timeline.Fenced(tr.Meta.Fault.NodeID, tr.FaultAt); ok {
		t.Error("a broker cut from the clients only was fenced")
	}
	st := ackStalls(tr)
	if st[0] < 10*time.Second {
		t.Errorf("p0 ack stall %v, want it to last the cut", st[0])
	}
	for _, p := range []int32{1, 2} {
		if st[p] > 3*time.Second {
			t.Errorf("p%d ack stall %v: a follower cut from the clients only should not stall it", p, st[p])
		}
	}
	checkIntegrity(t, tr)
	checkRecovered(ctx, t, cl, tr)
}
