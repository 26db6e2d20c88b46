package analysis

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// withTopicIDs records in the trial at dir the probe's topic's ID at its
// start and at the read-back, or the topic gone then.
func withTopicIDs(t *testing.T, dir, start, readBack string, gone bool) {
	t.Helper()
	m, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Probe.TopicID, m.Probe.ReadBackTopicID, m.Probe.ReadBackTopicGone = start, readBack, gone
	if err := results.WriteMeta(dir, m); err != nil {
		t.Fatal(err)
	}
}

// TestTopicReplaced: a trial whose topic was recreated under it (its ID
// changed between the probe's start and the read-back) or gone at the
// read-back has no audit counted: one line says why, the verdict is
// invalid, and the outcome is never a loss (exit 3) but a trial not valid.
// The recorded sigkill trial is edited as each case says.
func TestTopicReplaced(t *testing.T) {
	// p0 seq 100 was acked at offset 100; removed, it reads as lost.
	const row = "0,100,100\n"
	for _, tc := range []struct {
		name            string
		start, readBack string
		gone            bool
		log             func(t *testing.T, path string)
		want            string
	}{
		{name: "recreated, read back empty", start: "AAA", readBack: "BBB", log: headerOnly,
			want: "the probe's topic orders was recreated during the trial (ID AAA → BBB)"},
		{name: "recreated, a row missing", start: "AAA", readBack: "BBB",
			log: func(t *testing.T, path string) {
				editLines(t, path, func(l []string) []string { i := slices.Index(l, row); return slices.Delete(l, i, i+1) })
			},
			want: "the probe's topic orders was recreated during the trial (ID AAA → BBB): the read-back is another topic's, so loss cannot be counted"},
		{name: "gone", start: "AAA", gone: true,
			log: func(t *testing.T, path string) {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			},
			want: "the probe's topic orders (ID AAA) was gone when the partitions were read back, so loss cannot be counted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := unpack(t, sigkillArchive)
			withTopicIDs(t, dir, tc.start, tc.readBack, tc.gone)
			tc.log(t, filepath.Join(dir, results.LogFile))
			tr := analyze(t, dir)
			if tr.Integrity != nil || !strings.Contains(tr.AuditVoid, tc.want) {
				t.Errorf("audit %+v, void %q; want none, and %q", tr.Integrity, tr.AuditVoid, tc.want)
			}
			if tr.Verdict.Status != verdict.Invalid || !hasReason(tr.Verdict, verdict.TopicReplaced, tc.want) {
				t.Errorf("verdict %s; want invalid: topic-replaced (%s)", tr.Verdict, tc.want)
			}
			var o Outcome
			o.Add("trial-01", tr)
			if err := o.Err(); errors.Is(err, ErrFindings) || !errors.Is(err, ErrNoValidTrial) {
				t.Errorf("outcome %v; want no valid trial, never a finding", err)
			}
			var text bytes.Buffer
			if err := WriteText(&text, tr); err != nil {
				t.Fatal(err)
			}
			if line := "audit: not counted: " + tc.want; !strings.Contains(text.String(), line) {
				t.Errorf("report does not say %q:\n%s", line, text.String())
			}
		})
	}
}

// TestTopicSameReadBack: with the same topic ID at both ends, the
// read-back is the probe's own topic's, and an acknowledged record
// missing from it is lost: counted, a finding (exit 3), whether one row
// is gone or every one (its partitions emptied). A trial from before kbf
// recorded the IDs is audited as before, but a read-back of no row then
// cannot tell a recreated topic from a loss: not counted, suspect.
func TestTopicSameReadBack(t *testing.T) {
	const row = "0,100,100\n"
	removeRow := func(t *testing.T, path string) {
		editLines(t, path, func(l []string) []string { i := slices.Index(l, row); return slices.Delete(l, i, i+1) })
	}
	for _, tc := range []struct {
		name     string
		id       string
		log      func(t *testing.T, path string)
		lost     bool // counted and a finding
		status   verdict.Status
		kind     verdict.Kind
		voidWant string
	}{
		{name: "same topic, a row missing", id: "AAA", log: removeRow, lost: true, status: verdict.Valid},
		{name: "same topic, read back empty", id: "AAA", log: headerOnly, lost: true, status: verdict.Suspect, kind: verdict.EvidenceDamaged},
		{name: "no IDs, a row missing", log: removeRow, lost: true, status: verdict.Valid},
		{name: "no IDs, read back empty", log: headerOnly, status: verdict.Suspect, kind: verdict.EvidenceDamaged,
			voidWant: "log.csv holds no row, though the probe's reader read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := unpack(t, sigkillArchive)
			withTopicIDs(t, dir, tc.id, tc.id, false)
			tc.log(t, filepath.Join(dir, results.LogFile))
			tr := analyze(t, dir)
			var o Outcome
			o.Add("trial-01", tr)
			if got := errors.Is(o.Err(), ErrFindings); got != tc.lost || tr.Findings.Fail() != tc.lost {
				t.Errorf("outcome %v, findings %v; want a loss counted: %v", o.Err(), tr.Findings, tc.lost)
			}
			if tc.lost && (tr.Integrity == nil || tr.Integrity.Lost == 0) {
				t.Errorf("audit %+v: want the loss counted", tr.Integrity)
			}
			if !strings.Contains(tr.AuditVoid, tc.voidWant) || (tc.voidWant == "") != (tr.AuditVoid == "") {
				t.Errorf("void %q, want %q", tr.AuditVoid, tc.voidWant)
			}
			if tr.Verdict.Status != tc.status || (tc.kind != "" && !hasReason(tr.Verdict, tc.kind, "")) {
				t.Errorf("verdict %s; want %s (%s)", tr.Verdict, tc.status, tc.kind)
			}
			if hasReason(tr.Verdict, verdict.TopicReplaced, "") {
				t.Errorf("verdict %s: the topic was not replaced", tr.Verdict)
			}
		})
	}
}

// hasReason reports whether v holds a reason of kind k whose detail
// contains detail.
func hasReason(v *verdict.Verdict, k verdict.Kind, detail string) bool {
	return v != nil && slices.ContainsFunc(v.Reasons, func(r verdict.Reason) bool {
		return r.Kind == k && strings.Contains(r.Detail, detail)
	})
}
