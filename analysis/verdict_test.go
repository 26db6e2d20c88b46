package analysis

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// TestVerdictInReport checks a trial's verdict, the probe's missed sends
// and the host's load are in the text report, and that a summary leaves
// out the trials that are not valid and says which and why.
func TestVerdictInReport(t *testing.T) {
	good := analyze(t, unpack(t, sigkillArchive))
	bad := analyze(t, unpack(t, sigkillArchive))
	at := bad.FaultAt
	bad.Meta.Probe.Missed = map[int32]*results.MissedSends{0: {Count: 40, First: at, Last: at.Add(780 * time.Millisecond),
		Runs: []results.MissedRun{{From: at, Slots: 40}}}}
	bad.Meta.Host = &results.Host{CPUs: 2, LoadStart: 9, LoadEnd: 12, Wall: 30 * time.Second, Self: 2 * time.Second, Others: 57 * time.Second}
	v := verdict.Judge(bad.Meta, bad.Gaps, bad.FaultAt)
	bad.Verdict = &v

	var b bytes.Buffer
	if err := WriteText(&b, bad); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"probe self-check: p0 missed 40 send slots between",
		"host: 2 CPUs, load average 9.0 → 12.0",
		"verdict: suspect: probe-stalled (the probe missed 8.2% of its send slots in the window that decides the stall (40 of 487)",
		"host-overloaded (the CPUs were 98% busy",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, b.String())
		}
	}
	if good.Verdict == nil || good.Verdict.Status != verdict.Valid {
		t.Errorf("the recorded trial's verdict %v, want valid", good.Verdict)
	}

	s := Summarize([]*Trial{good, bad})
	if s.Trials != 1 || len(s.LeftOut) != 1 || !strings.Contains(s.LeftOut[0], "suspect: probe-stalled") {
		t.Errorf("summary of %d trials, left out %q", s.Trials, s.LeftOut)
	}
	b.Reset()
	if err := WriteSummaryText(&b, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "summary of 1 trials") || !strings.Contains(b.String(), "1 trials left out, not valid:") {
		t.Errorf("summary:\n%s", b.String())
	}
}
