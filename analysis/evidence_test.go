package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
	"github.com/kbf-project/kbf/verdict"
)

// kafkaStamp is the time at the head of a Kafka log line.
var kafkaStamp = regexp.MustCompile(`(?m)^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\]`)

// rewriteLogs rewrites every node log of the trial at dir with f.
func rewriteLogs(t *testing.T, dir string, f func(path string, b []byte) []byte) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, results.NodeLogsDir, "*", "*.log"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no node logs under %s: %v", dir, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f(p, b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// shiftStamps moves the stamps of the lines that match (all, when match
// is "") by d.
func shiftStamps(b []byte, match string, d time.Duration) []byte {
	lines := strings.SplitAfter(string(b), "\n")
	for i, l := range lines {
		if match != "" && !strings.Contains(l, match) {
			continue
		}
		lines[i] = kafkaStamp.ReplaceAllStringFunc(l, func(s string) string {
			at, err := time.Parse("[2006-01-02 15:04:05,000]", s)
			if err != nil {
				return s
			}
			return at.Add(d).Format("[2006-01-02 15:04:05,000]")
		})
	}
	return []byte(strings.Join(lines, ""))
}

// TestDamagedEvidence builds damaged copies of the recorded SIGKILL trial
// and checks that what is missing, skewed or damaged is said — in the
// notes and as a suspect verdict, which the digest prints — and never
// explained around: no phase cites a line dated outside the trial, none is
// blamed on the election alone when the detection is unknown, none is
// explained from a client log that is not text.
func TestDamagedEvidence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		// note is in the trial's notes and its verdict's reasons.
		note string
		// check looks at what else the case promises.
		check func(t *testing.T, tr *Trial)
	}{
		{
			name: "controller logs absent",
			damage: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, results.NodeLogsDir, "c1", results.ControllerLog)); err != nil {
					t.Fatal(err)
				}
			},
			note:  "the controller's fence of broker 1 is not in the logs: c1 controller.log missing",
			check: detectionUnknown,
		},
		{
			name: "fence line misdated before the fault",
			damage: func(t *testing.T, dir string) {
				rewriteLogs(t, dir, func(_ string, b []byte) []byte { return shiftStamps(b, "Fencing broker 1", -15*time.Second) })
			},
			note:  "the controller's fence of broker 1 is misdated: [c1/controller.log:",
			check: detectionUnknown,
		},
		{
			name: "node logs an hour late",
			damage: func(t *testing.T, dir string) {
				rewriteLogs(t, dir, func(_ string, b []byte) []byte { return shiftStamps(b, "", time.Hour) })
			},
			note: "line(s) dated after the trial's end",
			check: func(t *testing.T, tr *Trial) {
				for _, st := range tr.Stalls {
					if st.NewLeader == 1 {
						t.Errorf("p%d: the killed broker named as the new leader", st.Partition)
					}
					for _, ph := range st.Phases {
						if strings.HasPrefix(ph.Source, "k") || strings.HasPrefix(ph.Source, "c1") {
							t.Errorf("p%d %s cites %s, a line dated an hour after the trial", st.Partition, ph.Name, ph.Source)
						}
					}
				}
			},
		},
		{
			name: "a node log line dated 2999",
			damage: func(t *testing.T, dir string) {
				rewriteLogs(t, dir, func(name string, b []byte) []byte {
					if !strings.HasSuffix(name, results.ControllerLog) {
						return b
					}
					return regexp.MustCompile(`(?m)^\[2026-(.*Fencing broker 1.*)$`).ReplaceAll(b, []byte("[2999-$1"))
				})
			},
			// time.Duration saturates at 292 years: said in words, never
			// as its largest value.
			note: "973 years after it",
			check: func(t *testing.T, tr *Trial) {
				for _, n := range tr.Notes {
					if strings.Contains(n, "2562047h") {
						t.Errorf("note %q prints a saturated duration", n)
					}
				}
			},
		},
		{
			name: "node logs an hour early",
			damage: func(t *testing.T, dir string) {
				rewriteLogs(t, dir, func(_ string, b []byte) []byte { return shiftStamps(b, "", -time.Hour) })
			},
			note: "the node logs' clock is about 1h0m",
			check: func(t *testing.T, tr *Trial) {
				for _, n := range tr.Notes {
					if strings.Contains(n, "absent, empty or unreadable") {
						t.Errorf("logs an hour early called %q", n)
					}
				}
				if tr.Verdict == nil || tr.Verdict.Status == verdict.Valid {
					t.Errorf("verdict %v, want it not valid: the logs are not the trial's", tr.Verdict)
				}
			},
		},
		{
			name: "node logs dated 1970",
			damage: func(t *testing.T, dir string) {
				rewriteLogs(t, dir, func(_ string, b []byte) []byte {
					return regexp.MustCompile(`(?m)^\[2026-`).ReplaceAll(b, []byte("[1970-"))
				})
			},
			note: "dated 1970-",
			check: func(t *testing.T, tr *Trial) {
				for _, n := range tr.Notes {
					if strings.Contains(n, "absent, empty or unreadable") {
						t.Errorf("logs dated 1970 called %q", n)
					}
				}
				if !hasNote(tr, "they are dated outside the trial") {
					t.Errorf("notes %q do not say the logs are dated outside the trial", tr.Notes)
				}
				if len(tr.Stalls) > 0 && len(tr.Stalls[0].Phases) > 0 {
					t.Errorf("p0 split into phases %q from logs dated 1970", phaseNames(&tr.Stalls[0]))
				}
			},
		},
		{
			name: "binary client.log",
			damage: func(t *testing.T, dir string) {
				junk := bytes.Repeat([]byte{0x7f, 'E', 'L', 'F', 0, 0, 0x12, 0xff}, 4096)
				if err := os.WriteFile(filepath.Join(dir, results.ClientLog), junk, 0o644); err != nil {
					t.Fatal(err)
				}
			},
			note: "client.log: binary (a NUL byte at offset 4)",
			check: func(t *testing.T, tr *Trial) {
				for _, st := range tr.Stalls {
					for _, ph := range st.Phases {
						if (ph.Name == PhaseClient || ph.Name == PhaseFirstAck) && !strings.HasPrefix(ph.Why, "not explained: client.log") {
							t.Errorf("p%d %s explained from a binary client.log: %q", st.Partition, ph.Name, ph.Why)
						}
					}
					if st.Receive.Why != "" {
						t.Errorf("p%d receive explained from a binary client.log: %q", st.Partition, st.Receive.Why)
					}
				}
			},
		},
		{
			name: "garbage client probe.csv",
			damage: func(t *testing.T, dir string) {
				addClient(t, dir, "librdkafka", 100*time.Millisecond)
				junk := "partition,seq,offset,sent,acked,received,error\n\x01\x02garbage,,\n"
				if err := os.WriteFile(filepath.Join(results.ClientDir(dir, "librdkafka"), results.ProbeFile), []byte(junk), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			note: "client librdkafka's records could not be read",
		},
		{
			name: "truncated client probe.csv",
			damage: func(t *testing.T, dir string) {
				addClient(t, dir, "librdkafka", 100*time.Millisecond)
				p := filepath.Join(results.ClientDir(dir, "librdkafka"), results.ProbeFile)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				// Cut inside a line, as a full disk or a killed writer
				// leaves it.
				cut := len(b) / 2
				for b[cut] == '\n' || b[cut-1] == '\n' {
					cut++
				}
				if err := os.WriteFile(p, b[:cut], 0o644); err != nil {
					t.Fatal(err)
				}
			},
			note: "client librdkafka's records could not be read",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := unpack(t, sigkillArchive)
			tc.damage(t, dir)
			tr := analyze(t, dir)
			if !hasNote(tr, tc.note) {
				t.Errorf("notes %q lack %q", tr.Notes, tc.note)
			}
			if tr.Verdict == nil || tr.Verdict.Status == verdict.Valid {
				t.Fatalf("verdict %v, want suspect", tr.Verdict)
			}
			found := false
			for _, r := range tr.Verdict.Reasons {
				found = found || r.Kind == verdict.EvidenceDamaged && strings.Contains(r.Detail, tc.note)
			}
			if !found {
				t.Errorf("verdict %v does not name %q", tr.Verdict, tc.note)
			}
			var digest bytes.Buffer
			if err := (TextOptions{}).WriteDigest(&digest, tr); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(digest.String(), "evidence-damaged") {
				t.Errorf("digest does not name the damage:\n%s", digest.String())
			}
			for _, v := range tr.CheckExplanations() {
				t.Errorf("reported despite the check: %s", v)
			}
			if tc.check != nil {
				tc.check(t, tr)
			}
		})
	}
}

// detectionUnknown checks a trial whose fence is not in the logs: no stall
// that begins at the fault blames its first phase on the election alone.
func detectionUnknown(t *testing.T, tr *Trial) {
	t.Helper()
	for _, st := range tr.Stalls {
		if st.Began > 0 || len(st.Phases) == 0 {
			continue
		}
		first := st.Phases[0]
		if first.Name == PhaseElect || first.Name == PhaseDetect {
			t.Errorf("p%d: first phase %q (%s) with the detection unknown", st.Partition, first.Name, first.Why)
		}
		// Its time is not the election's: "started leading 8.46 s
		// later" would say it was.
		if strings.Contains(first.Why, "started leading") || strings.Contains(first.Why, "applied the smaller ISR") {
			t.Errorf("p%d: %s explained as the election's alone: %s", st.Partition, first.Name, first.Why)
		}
	}
}

func hasNote(tr *Trial, s string) bool {
	for _, n := range tr.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// A node that is broker and controller both holds the controller's
// settings in its own log: the detection reads them there, rather than
// calling them unknown for want of a node that is only a controller.
func TestExplainCombinedNodeSettings(t *testing.T) {
	config := kafkaLine(-10*time.Second, "KafkaConfig values: ", "org.apache.kafka.common.config.AbstractConfig") +
		"\tbroker.session.timeout.ms = 6000\n\tprocess.roles = broker,controller\n\tnode.id = 2\n"
	for _, tc := range []struct {
		name  string
		roles string
		want  SettingSource
	}{
		{"broker and controller", "broker,controller", SourceNodeConfig},
		{"broker only", "broker", SourceUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := handTrial{acks: map[int32][]time.Duration{0: slices.Concat(every(-time.Second, 0, 100*msec), every(6500*msec, 7500*msec, 100*msec))},
				files: map[string]string{
					"logs/k2/controller.log":   strings.ReplaceAll(fenceLine(6100*msec), "id=100", "id=2"),
					"logs/k2/server.log":       strings.ReplaceAll(config, "broker,controller", tc.roles),
					"logs/k2/state-change.log": leaderLine(6300*msec, 0),
				}, ended: 10 * time.Second}
			tr := analyzeHand(t, h.write(t))
			st := stallOf(t, tr, 0)
			if len(st.Phases) == 0 || st.Phases[0].Name != PhaseDetect {
				t.Fatalf("phases %q, want detect first", phaseNames(st))
			}
			s := st.Phases[0].Settings[0]
			if s.Name != "broker.session.timeout.ms" || s.Source != tc.want {
				t.Fatalf("setting %+v, want broker.session.timeout.ms from %s", s, tc.want)
			}
			if tc.want == SourceNodeConfig && (s.Value != "6000" || !strings.HasPrefix(s.Where, "k2/server.log:")) {
				t.Errorf("setting %+v, want 6000 from k2/server.log", s)
			}
		})
	}
}

// A node that is broker and controller both, SIGKILLed while it led the
// controller quorum: the detection is the quorum's leaderless gap (its
// elections, a split vote included) and then the session's expiry as the
// new leader counts it, each a phase ending at its own line.
func TestExplainCombinedQuorumLeader(t *testing.T) {
	config := kafkaLine(-70*time.Second, "KafkaConfig values: ", "org.apache.kafka.common.config.AbstractConfig") +
		"\tbroker.session.timeout.ms = 9000\n\tcontroller.quorum.fetch.timeout.ms = 2000\n\tprocess.roles = broker,controller\n"
	fence := strings.ReplaceAll(fenceLine(11870*msec), "id=100", "id=2")
	for _, tc := range []struct {
		name   string
		k1     string // k1's quorum states before the fault
		k2     string // k2's first quorum state after it, before its candidacies
		phases []string
	}{
		{"it led the quorum", raftLine(-2*time.Second, 1, leaderState(1, 4), candidateState(1, 4)), "",
			[]string{PhaseQuorum, PhaseDetect, PhaseElect, PhaseFirstAck}},
		{"another led it", raftLine(-2*time.Second, 1, followerState(4, 3), candidateState(1, 4)), "",
			[]string{PhaseDetect, PhaseElect, PhaseFirstAck}},
		// k1 took the lead before the trial's logs begin: k2's pre-vote
		// names the leader it lost.
		{"it led the quorum before the logs begin", "", raftLine(1700*msec, 2, prospectiveState(4, 1), followerState(4, 1)),
			[]string{PhaseQuorum, PhaseDetect, PhaseElect, PhaseFirstAck}},
		{"another led it before the logs begin", "", raftLine(1700*msec, 2, prospectiveState(4, 3), followerState(4, 3)),
			[]string{PhaseDetect, PhaseElect, PhaseFirstAck}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := handTrial{
				acks: map[int32][]time.Duration{0: slices.Concat(every(-time.Second, 0, 100*msec), every(12200*msec, 13200*msec, 100*msec))},
				files: map[string]string{
					"logs/k1/server.log": config + tc.k1,
					// k2 gives up on k1, loses a split vote at epoch 5
					// and wins at epoch 6, 2.83 s after the fault.
					"logs/k2/server.log": config + tc.k2 +
						raftLine(1800*msec, 2, candidateState(2, 5), followerState(4, 1)) +
						raftLine(2600*msec, 2, candidateState(2, 6), candidateState(2, 5)) +
						raftLine(2830*msec, 2, leaderState(2, 6), candidateState(2, 6)),
					"logs/k2/controller.log":   fence,
					"logs/k2/state-change.log": leaderLine(12000*msec, 0),
				},
				ended: 16 * time.Second,
			}
			tr := analyzeHand(t, h.write(t))
			st := stallOf(t, tr, 0)
			if got := phaseNames(st); !slices.Equal(got, tc.phases) {
				t.Fatalf("phases %q, want %q", got, tc.phases)
			}
			for _, v := range tr.CheckExplanations() {
				t.Errorf("reported despite the check: %s", v)
			}
			if st.Phases[0].Name != PhaseQuorum {
				return
			}
			if testing.Verbose() {
				t.Log(writeBoth(t, tr))
			}
			q, d := st.Phases[0], st.Phases[1]
			if q.Duration != 2830*msec || !strings.HasPrefix(q.Source, "k2/server.log:") || !strings.Contains(q.Why, "also led the controller quorum") || !strings.Contains(q.Why, "2 candidacies") {
				t.Errorf("quorum phase %v [%s]: %s", q.Duration, q.Source, q.Why)
			}
			if d.Duration != 9040*msec || !strings.Contains(d.Why, "k2, the controller that took the quorum over") || d.Settings[0].Value != "9000" {
				t.Errorf("detect phase %v: %s (%+v)", d.Duration, d.Why, d.Settings)
			}
			n := 0
			for _, b := range tr.Boundaries {
				if b.Kind == BoundaryQuorumLeader {
					n++
					if b.Broker != 2 || !b.InStall {
						t.Errorf("quorum boundary %+v, want broker 2 in the stall", b)
					}
				}
			}
			if n != 1 {
				t.Errorf("%d quorum-leader boundaries, want one: %+v", n, tr.Boundaries)
			}
		})
	}
}

// TestLogsShowingNothing checks node logs that are all there and of the
// trial's time but hold no line of a fence, shutdown, election or ISR
// change (a slow disk's trial): the note says Kafka took no action, not
// that the evidence is missing.
func TestLogsShowingNothing(t *testing.T) {
	dir := unpack(t, sigkillArchive)
	rewriteLogs(t, dir, func(_ string, b []byte) []byte {
		return regexp.MustCompile(`(?m)^(\[[^\]]+\]) .*$`).ReplaceAll(b, []byte("$1 INFO Deleted time index of a segment (kafka.log.LocalLog$)"))
	})
	tr := analyze(t, dir)
	if !hasNote(tr, "were read whole and show no fence, shutdown, election or ISR change") {
		t.Errorf("notes %q: want them to say the logs show no action of Kafka's", tr.Notes)
	}
	if hasNote(tr, "absent, empty or unreadable") {
		t.Errorf("notes %q call logs that were read whole missing", tr.Notes)
	}
}

// TestClockBehindQuietFault: the nodes' latest line two minutes before
// the trial reads as a clock behind after a SIGKILL, whose fence the
// nodes must log, and not after a slow disk, which Kafka need not act on
// (the lines are the trial before's).
func TestClockBehindQuietFault(t *testing.T) {
	started := time.Date(2026, 12, 6, 20, 55, 27, 0, time.UTC)
	tl := &timeline.Timeline{Dated: []timeline.Dated{{File: "k1/state-change.log", Before: 3, First: started.Add(-3 * time.Minute), Last: started.Add(-2 * time.Minute)}}}
	for kind, want := range map[results.FaultKind]bool{results.FaultSIGKILL: true, results.FaultDiskSlow: false, results.FaultIsolateClients: false} {
		m := &results.Meta{Started: started, Ended: started.Add(30 * time.Second), Fault: &results.Fault{Kind: kind}}
		if got := clockBehind(m, tl) != ""; got != want {
			t.Errorf("%s: clock behind %v, want %v", kind, got, want)
		}
	}
}
