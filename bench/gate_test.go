package bench

import (
	"context"
	"encoding/json"
	"github.com/kbf-project/kbf/analysis"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/kbf-project/kbf/compare"
)

// invalidRunner is fakeRunner whose trials with the given call numbers
// are valid trials made invalid: the fault left out of meta.json, as a
// trial whose fault never happened.
type invalidRunner struct {
	fakeRunner
	invalid map[int]bool
	// version is the Kafka version a scenario's trials record, by its
	// kafka_version, over the recorded trial's.
	version bool
}

func (r *invalidRunner) Trial(ctx context.Context, s Scenario, dir string) (*analysis.Trial, error) {
	return nil, r.record(ctx, s, dir)
}

func (r *invalidRunner) record(ctx context.Context, s Scenario, dir string) error {
	if err := r.fakeRunner.record(ctx, s, dir); err != nil {
		return err
	}
	if r.version && s.KafkaVersion != "" {
		if err := editMeta(dir, func(meta map[string]any) {
			c := meta["cluster"].(map[string]any)
			c["kafka_version"], c["image"] = s.KafkaVersion, s.KafkaImage(nil)
		}); err != nil {
			return err
		}
	}
	if !r.invalid[len(r.calls)] {
		return nil
	}
	return editMeta(dir, func(meta map[string]any) { delete(meta, "fault") })
}

// editMeta edits a trial's meta.json.
func editMeta(dir string, edit func(map[string]any)) error {
	path := filepath.Join(dir, "meta.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var meta map[string]any
	if err := json.Unmarshal(b, &meta); err != nil {
		return err
	}
	edit(meta)
	b, _ = json.Marshal(meta)
	return os.WriteFile(path, b, 0o644)
}

func TestRunUntilDecided(t *testing.T) {
	same := &File{Scenarios: []Scenario{{Name: "a", Fault: "sigkill"}, {Name: "b", Fault: "sigkill"}}}
	sweep := &File{Scenarios: []Scenario{{Name: "s", Fault: "sigkill", Sweep: &Sweep{Key: "broker.session.timeout.ms", Values: []string{"9000", "6000"}}}}}
	need := NeedSamples()
	tests := []struct {
		name     string
		file     *File
		budget   int
		fail     map[int]bool
		invalid  map[int]bool
		answer   string
		verdict  compare.Verdict
		valid    [2]int
		attempts [2]int
		why      string
		// err is part of the error wanted; order, the variants (a or b)
		// of the first calls.
		err, order string
	}{
		// Recorded trials of two faults: every trial of a side alike, the
		// sides far apart, so decided at the first look: the headline
		// stall alone gated, the smallest p of 6 a side (0.0043) is under
		// the sequential gate's 0.01 (every metric gated as a family, it
		// took 7).
		{name: "different faults are different", file: twoScenarios(0), budget: 15, answer: "different", valid: [2]int{need, need}, attempts: [2]int{need, need}},
		{name: "the same fault twice is same", file: same, budget: 15, answer: "same", verdict: compare.Same, valid: [2]int{need, need}, attempts: [2]int{need, need}},
		{name: "a sweep's two values are the two sides", file: sweep, budget: 15, answer: "same", verdict: compare.Same, valid: [2]int{need, need}, attempts: [2]int{need, need}},
		{name: "a budget below what decides is undecided", file: same, budget: 2, answer: "undecided", verdict: compare.Undecided, valid: [2]int{2, 2}, attempts: [2]int{2, 2}, why: "budget of 2 trials a side spent"},
		// Calls 2 and 3 are B's first two: each is replaced before A's
		// second trial.
		{name: "invalid trials are replaced", file: same, budget: 15, invalid: map[int]bool{2: true, 3: true}, answer: "same", verdict: compare.Same, valid: [2]int{need, need}, attempts: [2]int{need, need + 2}},
		// B never counts: its 3 attempts (budget 2 and half again) are
		// spent, and the gate still answers.
		{name: "a side without a valid trial is undecided, not an abort", file: same, budget: 2, invalid: map[int]bool{2: true, 3: true, 4: true}, answer: "undecided", verdict: compare.Undecided, valid: [2]int{1, 0}, attempts: [2]int{1, 3}, why: "none to compare on one side"},
		{name: "a side short of valid trials is fewer samples", file: same, budget: 6, invalid: map[int]bool{4: true, 5: true, 6: true, 7: true, 8: true, 9: true, 10: true, 11: true}, answer: "undecided", verdict: compare.Undecided, valid: [2]int{2, 1}, attempts: [2]int{2, 9}, why: "attempts spent at 2 and 1 valid trials"},
		// Calls 1 and 2 are A's first and B's first: the sides take
		// turns, rather than A spending its attempts first.
		{name: "the sides take turns at replacing", file: same, budget: 15, invalid: map[int]bool{1: true, 2: true}, answer: "same", verdict: compare.Same, valid: [2]int{need, need}, attempts: [2]int{need + 1, need + 1}, order: "abab"},
		// Docker unreachable, say: kbf could not do what was asked, an
		// error; summary.md still holds what the gate made of it.
		{name: "a broken setup stops the trials with an error", file: same, budget: 15, fail: map[int]bool{2: true, 3: true}, answer: "undecided", verdict: compare.Undecided, valid: [2]int{1, 0}, attempts: [2]int{1, 2}, why: "stopped: 2 trials in a row failed", err: "2 trials in a row failed"},
		{name: "every trial failing stops at the second", file: same, budget: 15, fail: map[int]bool{1: true, 2: true}, answer: "undecided", verdict: compare.Undecided, valid: [2]int{0, 0}, attempts: [2]int{1, 1}, err: "the cluster would not come up", order: "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			f := *tt.file
			f.Trials = tt.budget
			r := &invalidRunner{fakeRunner: fakeRunner{t: t, base: dir, fail: tt.fail}, invalid: tt.invalid}
			b := &Bench{File: &f, Dir: dir, Runner: r}
			_, d, err := b.RunUntilDecided(context.Background(), Gate{Gate: compare.SequentialGate, Extra: DefaultExtra})
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			var order string
			for _, c := range r.calls[:min(len(tt.order), len(r.calls))] {
				order += c[:1]
			}
			if order != tt.order {
				t.Errorf("first calls %v, want the variants %s", r.calls, tt.order)
			}
			if d.Answer() != tt.answer || tt.answer != "different" && d.Verdict != tt.verdict {
				t.Errorf("answer %s (%s), want %s (%s): %s", d.Answer(), d.Verdict, tt.answer, tt.verdict, d.Why)
			}
			if d.Valid != tt.valid || d.Attempts != tt.attempts {
				t.Errorf("valid %v of attempts %v, want %v of %v", d.Valid, d.Attempts, tt.valid, tt.attempts)
			}
			if !strings.Contains(d.Why, tt.why) {
				t.Errorf("why %q, want it to say %q", d.Why, tt.why)
			}
			if len(r.calls) != d.Attempts[0]+d.Attempts[1] {
				t.Errorf("%d trials ran, %v attempts counted", len(r.calls), d.Attempts)
			}
			md, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
			if want := "Answer: **" + tt.answer + "**"; !strings.Contains(string(md), want) {
				t.Errorf("summary.md does not hold %q:\n%s", want, md)
			}
		})
	}
}

// TestRunUntilDecidedResumes checks that an interrupted gate goes on from
// the trials done, and that what is not two variants is refused.
func TestRunUntilDecidedResumes(t *testing.T) {
	dir := t.TempDir()
	f := &File{Trials: 15, Scenarios: []Scenario{{Name: "a", Fault: "sigkill"}, {Name: "b", Fault: "sigkill"}}}
	ctx, cancel := context.WithCancel(context.Background())
	r := &fakeRunner{t: t, base: dir, interrupt: 5, cancel: cancel}
	g := Gate{Gate: compare.SequentialGate, Extra: DefaultExtra}
	if _, _, err := (&Bench{File: f, Dir: dir, Runner: r}).RunUntilDecided(ctx, g); err == nil {
		t.Fatal("an interrupted gate gave no error")
	}
	r2 := &fakeRunner{t: t, base: dir}
	_, d, err := (&Bench{File: f, Dir: dir, Runner: r2}).RunUntilDecided(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	need := NeedSamples()
	if d.Answer() != "same" || d.Valid != [2]int{need, need} || len(r2.calls) != 2*need-4 || r2.calls[0] != "a/trial-03" {
		t.Errorf("resumed: %s at %v valid, ran %v", d.Answer(), d.Valid, r2.calls)
	}

	three := &File{Trials: 6, Scenarios: []Scenario{{Name: "a", Fault: "sigkill"}, {Name: "b", Fault: "sigkill"}, {Name: "c", Fault: "sigterm"}}}
	if _, _, err := (&Bench{File: three, Dir: t.TempDir(), Runner: r2}).RunUntilDecided(context.Background(), g); err == nil || !strings.Contains(err.Error(), "compares two things") {
		t.Errorf("three scenarios: %v", err)
	}
}

// TestVersionsAsScenarios checks that two scenarios on two Kafka versions
// keep each its own version and image in bench.txt's configuration lines.
func TestVersionsAsScenarios(t *testing.T) {
	dir := t.TempDir()
	f := &File{Trials: 1, Scenarios: []Scenario{{Name: "old", Fault: "sigkill", KafkaVersion: "4.0.2"}, {Name: "new", Fault: "sigkill", KafkaVersion: "4.3.1"}}}
	r := &invalidRunner{fakeRunner: fakeRunner{t: t, base: dir}, version: true}
	if _, err := (&Bench{File: f, Dir: dir, Runner: r}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(filepath.Join(dir, TextFile))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	got := map[string]string{}
	rd := benchfmt.NewReader(fh, TextFile)
	for rd.Scan() {
		if rec, ok := rd.Result().(*benchfmt.Result); ok {
			got[string(rec.Name.Full())] = rec.GetConfig("kafka-version") + " " + rec.GetConfig("image")
		}
	}
	want := map[string]string{
		"Failover/scenario=old/role=leader":   "4.0.2 apache/kafka:4.0.2",
		"Failover/scenario=old/role=follower": "4.0.2 apache/kafka:4.0.2",
		"Failover/scenario=new/role=leader":   "4.3.1 apache/kafka:4.3.1",
		"Failover/scenario=new/role=follower": "4.3.1 apache/kafka:4.3.1",
	}
	if len(got) != len(want) {
		t.Errorf("benchmarks %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
}
