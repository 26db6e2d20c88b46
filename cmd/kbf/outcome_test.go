package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/internal/testsupport/testtrial"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

// recordedTrial unpacks a recorded trial of analysis/testdata into a
// directory of its own and returns the trial's directory.
func recordedTrial(t *testing.T, archive string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "analysis", "testdata", archive))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	if err := testtrial.Untar(f, dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, results.TrialDir(1))
}

// logEdit changes a client's read-back: the records its partitions held.
type logEdit func([]results.LogRecord) []results.LogRecord

// duplicate writes partition 1's record of seq 100 a second time, at the
// end of the partition: a retried send written twice.
func duplicate(rs []results.LogRecord) []results.LogRecord {
	end := int64(0)
	for _, r := range rs {
		if r.Partition == 1 {
			end = max(end, r.Offset+1)
		}
	}
	return append(rs, results.LogRecord{Partition: 1, Offset: end, Seq: 100})
}

// lose drops partition 0's record of seq 100, which was acknowledged.
func lose(rs []results.LogRecord) []results.LogRecord {
	out := rs[:0:0]
	for _, r := range rs {
		if r.Partition != 0 || r.Seq != 100 {
			out = append(out, r)
		}
	}
	return out
}

// addRecordedClient gives the trial at dir an external client's records:
// the franz-go probe's own records (the clients probe the same partitions
// at the same interval), with the settings the client's real reference
// probe recorded (clients/testdata/NAME/client.json) and its read-back
// changed by edit. librdkafka's are acks=all and not idempotent, Java's
// acks=all and idempotent.
func addRecordedClient(t *testing.T, dir, name string, edit logEdit) {
	t.Helper()
	info, err := clients.ReadInfo(filepath.Join("..", "..", "clients", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	trials, err := results.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	src := trials[0]
	cdir := results.ClientDir(dir, name)
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		t.Fatal(err)
	}
	probe, err := os.ReadFile(src.Probe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cdir, results.ProbeFile), probe, 0o644); err != nil {
		t.Fatal(err)
	}
	setEdit(t, dir, name, edit)
	m := *src.Meta
	m.Probe = info.Probe()
	m.Probe.StartOffsets = src.Meta.Probe.StartOffsets
	m.Probe.Leaders, m.Probe.Replicas = src.Meta.Probe.Leaders, src.Meta.Probe.Replicas
	if err := results.WriteMeta(cdir, &m); err != nil {
		t.Fatal(err)
	}
}

// setEdit rewrites client's read-back (franz-go's: the trial's own) as
// the franz-go probe's read-back changed by edit.
func setEdit(t *testing.T, dir, client string, edit logEdit) {
	t.Helper()
	trials, err := results.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	src := trials[0]
	dec, err := src.OpenLog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var rs []results.LogRecord
	for {
		var r results.LogRecord
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	dec.Close()
	if edit != nil {
		rs = edit(rs)
	}
	var b bytes.Buffer
	enc := results.NewLogEncoder(&b)
	for _, r := range rs {
		enc.Encode(&r)
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	path := src.Log
	if client != analysis.FranzGo {
		path = filepath.Join(results.ClientDir(dir, client), results.LogFile)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readNothing is a read-back of no row.
func readNothing([]results.LogRecord) []results.LogRecord { return nil }

// topicIDs records the probe's topic's ID at the trial's start and at
// its read-back.
func topicIDs(t *testing.T, dir, start, readBack string) {
	t.Helper()
	m, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Probe.TopicID, m.Probe.ReadBackTopicID = start, readBack
	if err := results.WriteMeta(dir, m); err != nil {
		t.Fatal(err)
	}
}

// invalidate marks the trial's baseline unhealthy: its verdict is then
// invalid, as a trial whose fault was never injected.
func invalidate(t *testing.T, dir string) {
	t.Helper()
	m, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Baseline = &results.Baseline{Period: 5 * time.Second, Timeout: time.Minute, Unhealthy: "p0: a gap of 3.00 s"}
	if err := results.WriteMeta(dir, m); err != nil {
		t.Fatal(err)
	}
}

// TestOutcomeAgrees runs recorded trials through the outcome of every
// command — kbf run's (experiment.Outcome over the trial as the run
// analyses it), kbf report's and kbf bench's — and asserts one exit status
// and one set of metric values: the findings and the metrics are decided
// once, in the analysis.
func TestOutcomeAgrees(t *testing.T) {
	for _, tc := range []struct {
		name    string
		archive string
		setup   func(t *testing.T, dir string)
		want    int
		clients int // the findings: one per client read back
		// valid: the trial counts in bench's metrics and the summary.
		valid bool
	}{
		{name: "sigkill", archive: "sigkill.tar.gz", want: exitOK, clients: 1, valid: true},
		{name: "sigterm", archive: "sigterm.tar.gz", want: exitOK, clients: 1, valid: true},
		{
			// The trial the issue saw: a librdkafka duplicate is what a
			// producer that is not idempotent may write.
			name: "three clients, librdkafka duplicated one", archive: "sigkill.tar.gz", want: exitOK, clients: 3, valid: true,
			setup: func(t *testing.T, dir string) {
				addRecordedClient(t, dir, "librdkafka", duplicate)
				addRecordedClient(t, dir, "java", nil)
			},
		},
		{
			name: "three clients, java lost one", archive: "sigkill.tar.gz", want: exitFindings, clients: 3, valid: true,
			setup: func(t *testing.T, dir string) {
				addRecordedClient(t, dir, "librdkafka", nil)
				addRecordedClient(t, dir, "java", lose)
			},
		},
		{
			name: "three clients, java duplicated one", archive: "sigkill.tar.gz", want: exitFindings, clients: 3, valid: true,
			setup: func(t *testing.T, dir string) {
				addRecordedClient(t, dir, "librdkafka", nil)
				addRecordedClient(t, dir, "java", duplicate)
			},
		},
		{
			name: "franz-go duplicated one", archive: "sigterm.tar.gz", want: exitFindings, clients: 1, valid: true,
			setup: func(t *testing.T, dir string) { setEdit(t, dir, analysis.FranzGo, duplicate) },
		},
		{
			// Lost is lost, whether or not the trial can be trusted.
			name: "an invalid trial lost one", archive: "sigkill.tar.gz", want: exitFindings, clients: 1,
			setup: func(t *testing.T, dir string) {
				setEdit(t, dir, analysis.FranzGo, lose)
				invalidate(t, dir)
			},
		},
		{name: "an invalid trial", archive: "sigkill.tar.gz", want: exitNoValid, clients: 1, setup: invalidate},
		{
			// Another kbf recreated the cluster under the trial: its
			// read-back is another topic's, never a loss.
			name: "the topic recreated under it", archive: "sigkill.tar.gz", want: exitNoValid, clients: 0,
			setup: func(t *testing.T, dir string) {
				topicIDs(t, dir, "AAA", "BBB")
				setEdit(t, dir, analysis.FranzGo, readNothing)
			},
		},
		{
			// No IDs recorded to tell a recreated topic from a loss.
			name: "an empty read-back, no topic IDs", archive: "sigkill.tar.gz", want: exitNoValid, clients: 0,
			setup: func(t *testing.T, dir string) { setEdit(t, dir, analysis.FranzGo, readNothing) },
		},
		{
			name: "the same topic lost one", archive: "sigkill.tar.gz", want: exitFindings, clients: 1, valid: true,
			setup: func(t *testing.T, dir string) {
				topicIDs(t, dir, "AAA", "AAA")
				setEdit(t, dir, analysis.FranzGo, lose)
			},
		},
		{
			name: "the same topic read back empty", archive: "sigkill.tar.gz", want: exitFindings, clients: 1,
			setup: func(t *testing.T, dir string) {
				topicIDs(t, dir, "AAA", "AAA")
				setEdit(t, dir, analysis.FranzGo, readNothing)
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := recordedTrial(t, tc.archive)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			// kbf run analyses the trial it ran, as here.
			found, err := results.Find(dir)
			if err != nil {
				t.Fatal(err)
			}
			ran, err := analysis.Analyze(found[0], analysis.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(ran.Findings) != tc.clients {
				t.Fatalf("findings %v, want one for each of %d clients", ran.Findings, tc.clients)
			}
			var ranOutcome analysis.Outcome // as experiment.Runner.Run decides it
			ranOutcome.Add("trial 1", ran)
			runCode := exitCode(ranOutcome.Err())

			analysed, _, broken, err := report.All(context.Background(), dir, func(results.Trial) analysis.Options { return analysis.Options{} })
			if err != nil || len(analysed) != 1 {
				t.Fatalf("report: %d trials, %v", len(analysed), err)
			}
			reportCode := exitCode(report.Outcome(analysed, broken))

			m, err := bench.Measure(dir)
			if err != nil {
				t.Fatal(err)
			}
			benchCode := exitCode((&bench.Set{Records: []bench.Record{{Trial: bench.Trial{Rep: 1}, M: m}}}).Outcome())

			if runCode != tc.want || reportCode != tc.want || benchCode != tc.want {
				t.Errorf("exit: run %d, report %d, bench %d; want %d (findings %v)", runCode, reportCode, benchCode, tc.want, ran.Findings)
			}
			if m.Valid != tc.valid {
				t.Fatalf("bench: valid %v (%s), want %v", m.Valid, m.Reason, tc.valid)
			}
			if !tc.valid {
				return
			}
			s := analysis.Summarize(analysed)
			for _, c := range []struct {
				role string
				gap  analysis.Range
			}{{bench.RoleLeader, s.LeaderGap}, {bench.RoleFollower, s.FollowerGap}} {
				rm, ok := ran.Metrics.Role(results.Role(c.role))
				vals := m.Roles[c.role]
				if !ok || vals == nil {
					t.Fatalf("%s: no metrics (run %v, bench %v)", c.role, ok, vals)
				}
				// bench.txt's value, run's and report's summary: the
				// role's longest ack stall, the same number.
				if got, want := vals["ack-stall-sec"], rm.Values[analysis.MeasureAckStall].Seconds(); got != want || got != c.gap.Max.Seconds() {
					t.Errorf("%s ack stall: bench %v, run %v, summary %v", c.role, got, want, c.gap.Max.Seconds())
				}
				for _, mt := range bench.Metrics {
					d, ok := rm.Values[analysis.Measure(mt.Name)]
					got, has := vals[mt.Unit]
					switch {
					case mt.Name == "lost_acked":
						if got != float64(rm.Lost) {
							t.Errorf("%s %s: bench %v, run %d", c.role, mt.Name, got, rm.Lost)
						}
					case ok != has || got != d.Seconds():
						t.Errorf("%s %s: bench %v (%v), run %v (%v)", c.role, mt.Name, got, has, d.Seconds(), ok)
					}
				}
			}
		})
	}
}

// exitCode is the status kbf exits with for err, as run decides it.
func exitCode(err error) int { return exitFor(context.Background(), err) }
