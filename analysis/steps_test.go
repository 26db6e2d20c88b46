package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// rollT0 is the hand-made rolling restart's first step: the SIGTERM of k1.
var rollT0 = time.Date(2026, 12, 1, 12, 40, 0, 0, time.UTC)

// rollAt is a time relative to rollT0, in ms.
func rollAt(ms int) time.Time { return rollT0.Add(time.Duration(ms) * time.Millisecond) }

// rollSteps are the steps kbf records for a rolling restart of k1, k2, k3,
// each graceful stop started again and followed by every ISR full; k2's
// stop outlived its grace and was SIGKILLed.
func rollSteps() []results.Step {
	stop := func(node string, id int32, sent, at int, escalated bool, note string) results.Step {
		code := 143
		if escalated {
			code = 137
		}
		return results.Step{Action: results.StepStop, Node: node, NodeID: id, Sent: rollAt(sent), At: rollAt(at), ExitCode: code, Escalated: escalated, Note: note}
	}
	start := func(node string, id int32, sent, at int) results.Step {
		return results.Step{Action: results.StepStart, Node: node, NodeID: id, Sent: rollAt(sent), At: rollAt(at), Note: "rolled"}
	}
	full := func(at int, after string) results.Step {
		return results.Step{Action: results.StepISRFull, At: rollAt(at), Note: "after " + after}
	}
	return []results.Step{
		stop("k1", 1, 0, 1500, false, "the roll's first broker"), start("k1", 1, 3000, 3500), full(8000, "k1"),
		stop("k2", 2, 8100, 10000, true, "rolled"), start("k2", 2, 12000, 12400), full(16000, "k2"),
		stop("k3", 3, 16100, 17500, false, "rolled"), start("k3", 3, 19000, 19400), full(24000, "k3"),
	}
}

// rollStalls are each partition's ack stalls, [from, to) in ms after
// rollT0, where the partition acked nothing; it acks every 20 ms
// otherwise, from 5 s before rollT0 until 34 s after, the probe's end.
var rollStalls = map[int32][][2]int{
	0: {{300, 1360}, {4000, 4350}, {16200, 16500}}, // k1's stop, its return, k3's stop
	1: {{-3000, -2500}, {8400, 9900}},              // a hiccup long before the roll, k2's stop
	2: {{16300, 17200}},                            // k3's stop
}

// writeRolling lays out a rolling trial in trial-01 under a new working
// directory and returns "trial-01". p1's consumer receives what was acked
// from 9.9 s to 10.2 s at 10.2 s: its receive stall outlasts the ack stall.
func writeRolling(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	steps := rollSteps()
	meta := &results.Meta{
		Kind: "trial", KBFVersion: "dev", Command: []string{"kbf", "run", "--fault", "rolling"},
		Started: rollAt(-6000), Ended: rollAt(34000),
		Cluster: results.Cluster{Brokers: map[string]int32{"k1": 1, "k2": 2, "k3": 3}, KafkaVersion: "4.3.1"},
		Probe: results.Probe{
			Topic: "orders", Partitions: []int32{0, 1, 2}, Interval: 20 * msec, Acks: "all",
			Leaders:  map[int32]int32{0: 1, 1: 2, 2: 3},
			Replicas: map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}},
			Client:   map[string]string{"client": "franz-go v1.22.3"},
		},
		Fault: &results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultRolling,
			SignalSent: steps[0].Sent, Finished: steps[0].At, ExitCode: 143},
		Steps: steps,
	}
	trial := filepath.Join(dir, recordedTrial)
	if err := os.MkdirAll(trial, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteMeta(trial, meta); err != nil {
		t.Fatal(err)
	}
	var probe bytes.Buffer
	enc := results.NewEncoder(&probe)
	for p := int32(0); p < 3; p++ {
		seq := int64(0)
	acks:
		for ms := -5000; ms < 34000; ms += 20 {
			for _, st := range rollStalls[p] {
				if ms >= st[0] && ms < st[1] {
					continue acks
				}
			}
			acked := rollAt(ms)
			received := acked.Add(2 * msec)
			if p == 1 && ms >= 9900 && ms < 10200 {
				received = rollAt(10200)
			}
			enc.Encode(&results.Message{Partition: p, Seq: seq, Offset: seq, Sent: acked.Add(-3 * msec), Acked: acked, Received: received})
			seq++
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(trial, results.ProbeFile), probe.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return recordedTrial
}

func TestRollingSteps(t *testing.T) {
	tr := analyze(t, writeRolling(t))
	v := tr.Steps
	if v == nil {
		t.Fatal("no step view for a rolling trial")
	}
	if v.Bound != 200*msec || len(v.Steps) != 9 || v.Stops != 3 || v.Escalated != 1 {
		t.Fatalf("bound %v, %d steps, %d stops, %d escalated; want 200ms, 9, 3, 1", v.Bound, len(v.Steps), v.Stops, v.Escalated)
	}
	if s := v.Steps[3]; s.Since != 8100*msec || s.Node != "k2" || !s.Escalated || s.Observed {
		t.Errorf("step 4 %+v: want k2's escalated stop 8.1 s after the first", s)
	}
	if !v.Steps[2].Observed || v.Steps[2].From != rollAt(8000) {
		t.Errorf("step 3 %+v: want every ISR full observed at 8 s", v.Steps[2])
	}
	gap := func(g *gaps.Gap) string {
		if g == nil {
			return "-"
		}
		return fmt.Sprintf("%d~%d", g.Start.Sub(rollT0).Milliseconds(), g.End.Sub(rollT0).Milliseconds())
	}
	for _, c := range []struct {
		p       int32
		stalls  int
		stalled time.Duration
		longest string
		after   int
		// acks and receives are the longest stall in each step's window.
		acks, receives [9]string
	}{
		{0, 3, (1080 + 380 + 320) * msec, "280~1360", 1,
			[9]string{"280~1360", "3980~4360", "-", "-", "-", "-", "16180~16500", "-", "-"},
			[9]string{"282~1362", "3982~4362", "-", "-", "-", "-", "16182~16502", "-", "-"}},
		// The hiccup 3 s before the roll is no part of it.
		{1, 1, 1520 * msec, "8380~9900", 4,
			[9]string{"-", "-", "-", "8380~9900", "-", "-", "-", "-", "-"},
			[9]string{"-", "-", "-", "8382~10200", "-", "-", "-", "-", "-"}},
		{2, 1, 920 * msec, "16280~17200", 7,
			[9]string{"-", "-", "-", "-", "-", "-", "16280~17200", "-", "-"},
			[9]string{"-", "-", "-", "-", "-", "-", "16282~17202", "-", "-"}},
	} {
		t.Run(fmt.Sprintf("p%d", c.p), func(t *testing.T) {
			ps := v.Partitions[c.p]
			if ps.Partition != c.p || ps.Stalls != c.stalls || ps.Stalled != c.stalled || gap(ps.Longest) != c.longest || ps.LongestStep != c.after {
				t.Errorf("p%d: %d stalls, %v stalled, longest %s after step %d; want %d, %v, %s after step %d",
					ps.Partition, ps.Stalls, ps.Stalled, gap(ps.Longest), ps.LongestStep, c.stalls, c.stalled, c.longest, c.after)
			}
			for i, st := range ps.Steps {
				if gap(st.Ack) != c.acks[i] || gap(st.Receive) != c.receives[i] {
					t.Errorf("step %d: ack %s receive %s, want %s %s", i+1, gap(st.Ack), gap(st.Receive), c.acks[i], c.receives[i])
				}
			}
		})
	}

	var text, js, digest bytes.Buffer
	if err := WriteText(&text, tr); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, tr); err != nil {
		t.Fatal(err)
	}
	if err := (TextOptions{}).WriteDigest(&digest, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"p0 stalled 1.78 s in 3 stalls, the longest 1.08 s after step 1, sigterm k1 (node 1) at +0.00 s",
		"p1 stalled 1.52 s in 1 stall, the longest 1.52 s after step 4, sigterm k2 (node 2) at +8.10 s",
		"graceful stops 3: 1 ESCALATED to SIGKILL after the grace period: step 4 (k2)",
	} {
		if !strings.Contains(text.String(), want) || !strings.Contains(digest.String(), want) {
			t.Errorf("the report and the digest must both say %q", want)
		}
	}
	checkStepsJSON(t, js.Bytes(), text.String())
	// The bytes themselves are TestOutputsGolden's.
}

// A rolling restart begins with a graceful stop of its first broker, and
// its first stall is that stop's: the recorded SIGTERM of k1, relabelled as
// the first step of a roll (k1 stopped, started again, every ISR full), is
// dated by k1's SIGTERM line and split into the same phases, explained by
// the controlled shutdown, as the SIGTERM itself, not by a fence after
// broker.session.timeout.ms. Its meta.json is written anew, as a kbf of now
// writes it, without the SIGTERM line format version 1 kept; once with the
// first step recorded in the fault, once as a kbf before that wrote it.
func TestRollingFirstStopIsSigterm(t *testing.T) {
	for _, c := range []struct {
		name  string
		first results.StepAction
	}{
		{"recorded", results.StepStop},
		{"from the first step", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := unpack(t, sigtermArchive)
			term := analyze(t, dir)
			meta, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			f, r := meta.Fault, meta.Recovery
			meta.Fault = &results.Fault{Broker: f.Broker, NodeID: f.NodeID, Kind: results.FaultRolling, FirstStep: c.first,
				SignalSent: f.SignalSent, Finished: f.Finished, ExitCode: f.ExitCode}
			meta.Steps = []results.Step{
				{Action: results.StepStop, Node: f.Broker, NodeID: f.NodeID, Sent: f.SignalSent, At: f.Finished, ExitCode: f.ExitCode, Note: "the roll's first broker"},
				{Action: results.StepStart, Node: f.Broker, NodeID: f.NodeID, Sent: r.Restarted, At: r.Restarted, Note: "rolled"},
				{Action: results.StepISRFull, At: r.ISRFull, Note: "after " + f.Broker},
			}
			if err := results.WriteMeta(dir, meta); err != nil {
				t.Fatal(err)
			}
			roll := analyze(t, dir)

			if !roll.FaultAt.Equal(term.FaultAt) {
				t.Errorf("the roll's fault at %v, the SIGTERM's %v", roll.FaultAt, term.FaultAt)
			}
			if !reflect.DeepEqual(roll.Gaps.Partitions, term.Gaps.Partitions) {
				t.Errorf("the roll's gaps differ from the SIGTERM's:\n%+v\n%+v", roll.Gaps.Partitions, term.Gaps.Partitions)
			}
			if len(term.Stalls) == 0 || !reflect.DeepEqual(roll.Stalls, term.Stalls) {
				t.Errorf("the roll's stalls differ from the SIGTERM's:\n%+v\n%+v", roll.Stalls, term.Stalls)
			}
			if !reflect.DeepEqual(roll.Boundaries, term.Boundaries) {
				t.Errorf("the roll's boundaries differ from the SIGTERM's:\n%+v\n%+v", roll.Boundaries, term.Boundaries)
			}
			var kinds []BoundaryKind
			for _, b := range roll.Boundaries {
				kinds = append(kinds, b.Kind)
			}
			if !slices.Contains(kinds, BoundaryControlledShutdown) || slices.Contains(kinds, BoundaryFenced) {
				t.Errorf("boundaries %q: want the controlled shutdown, no fence", kinds)
			}
			if roll.Steps == nil || roll.Verdict == nil || roll.Verdict.Status != term.Verdict.Status {
				t.Errorf("step view %v, verdict %v: want steps, and the SIGTERM's verdict %v", roll.Steps, roll.Verdict, term.Verdict)
			}
		})
	}
}

// checkStepsJSON checks that report.json's step view holds the numbers the
// text prints, to the text's hundredth of a second.
func checkStepsJSON(t *testing.T, js []byte, text string) {
	t.Helper()
	var out struct {
		Steps struct {
			Bound      float64 `json:"stall_bound_seconds"`
			Escalated  int     `json:"escalated"`
			Partitions []struct {
				Partition   int32   `json:"partition"`
				Stalled     float64 `json:"stalled_seconds"`
				Stalls      int     `json:"stalls"`
				LongestStep int     `json:"longest_step"`
				Longest     struct {
					Seconds float64 `json:"seconds"`
				} `json:"longest"`
			} `json:"partitions"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Steps.Partitions) != 3 {
		t.Fatalf("report.json: %d partitions in the step view, want 3", len(out.Steps.Partitions))
	}
	hundredths := func(s float64) float64 { return math.Round(s*100) / 100 }
	for _, p := range out.Steps.Partitions {
		line := fmt.Sprintf("p%d stalled %.2f s in %d stall", p.Partition, hundredths(p.Stalled), p.Stalls)
		if !strings.Contains(text, line) {
			t.Errorf("report.json says %q; the text does not", line)
		}
		if l := fmt.Sprintf("the longest %.2f s after step %d, ", hundredths(p.Longest.Seconds), p.LongestStep); !strings.Contains(text, l) {
			t.Errorf("report.json says p%d %q; the text does not", p.Partition, l)
		}
	}
	if !strings.Contains(text, fmt.Sprintf("over the stall bound %.2f s", out.Steps.Bound)) {
		t.Errorf("report.json's stall bound %.2f s is not the text's", out.Steps.Bound)
	}
}

// A stall belongs to the step whose window it began in: from a bound
// before the step to a bound before the next step kbf took.
func TestStepOf(t *testing.T) {
	v := &StepView{Bound: 200 * msec, Steps: []StepWindow{
		{N: 1, From: rollAt(0)},
		{N: 2, From: rollAt(3000)},
		{N: 3, From: rollAt(6000), Observed: true},
		{N: 4, From: rollAt(8100)},
	}}
	for _, c := range []struct {
		name       string
		start, end int
		want       int // the step's N; 0: none
	}{
		{"over before the first window", -1000, -200, 0},
		{"in progress when the first window opens", -1000, -150, 1},
		{"the last ack just before the first step", -20, 1000, 1},
		{"the last ack just before the second step", 2850, 4000, 2},
		{"a bound before the second step", 2800, 4000, 2},
		{"just over a bound before the second step", 2799, 4000, 1},
		{"after an observed step: the step before it", 6500, 7000, 2},
		{"after the last step", 20000, 21000, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := 0
			if i, ok := v.stepOf(gaps.Gap{Start: rollAt(c.start), End: rollAt(c.end)}); ok {
				got = v.Steps[i].N
			}
			if got != c.want {
				t.Errorf("step %d, want %d", got, c.want)
			}
		})
	}
}

// A fault of one step has no step view: its report is as it was.
func TestNoStepsForOneStep(t *testing.T) {
	for _, m := range []*results.Meta{
		nil,
		{Fault: &results.Fault{Kind: results.FaultSIGKILL}},
		{Fault: &results.Fault{Kind: results.FaultRolling}}, // cut short before its first step was saved
	} {
		if multiStep(m) {
			t.Errorf("multiStep(%+v) = true, want false", m)
		}
	}
}
