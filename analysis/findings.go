package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
)

// Finding is one client's audit of a trial beside what the client's
// settings promised. acks=all promises that no acknowledged record is lost;
// an idempotent producer, that none is written twice or out of order. A
// count the settings do not rule out (a loss under acks=1, a duplicate from
// a producer that is not idempotent) is reported, but breaks no promise.
type Finding struct {
	Client string
	// Acks is the producer's acks: "all" or "1".
	Acks string
	// Idempotent is whether the producer was idempotent.
	Idempotent bool
	// SettingsUnknown is set when the client's meta.json is missing:
	// whether it was idempotent is not known, and its duplicates and
	// reorders are not judged.
	SettingsUnknown bool
	Acknowledged    int
	Lost            int
	Duplicated      int
	Reordered       int
	// CommitsBackwards counts the group reader's commits that moved a
	// partition's committed offset back (GroupView.Backwards): a
	// consumer group promises that a committed offset only moves forward.
	CommitsBackwards int
	// AbortedRead counts records of aborted transactions read at
	// read_committed, and TxnTorn transactions of unknown outcome read
	// back only in part (TxnView): read_committed promises neither.
	AbortedRead, TxnTorn int
	// GroupSkipped counts the probe's records below a committed offset
	// that the group reader never processed (GroupView.SkippedN): its
	// commits promise at least once. GroupReprocessed counts the records
	// it processed again, which at-least-once allows. GroupPromise says
	// the promise; "" without a group reader.
	GroupSkipped, GroupReprocessed int
	GroupPromise                   string
	// PowerLoss is, in a power-loss trial, who lost power with which
	// flush settings (powerloss.go): a loss its Allowed explains breaks
	// no promise.
	PowerLoss *PowerLoss
}

// Broken reports whether the finding breaks what the client's settings
// promise: an acknowledged record lost under acks=all, or one duplicated
// or reordered by an idempotent producer.
func (f Finding) Broken() bool {
	return len(f.broken()) > 0
}

// broken names the counts that break a promise.
func (f Finding) broken() []string {
	var out []string
	if f.Lost > 0 && f.Acks == "all" && (f.PowerLoss == nil || f.PowerLoss.Allowed == "") {
		out = append(out, fmt.Sprintf("%d lost under acks=all", f.Lost))
	}
	if f.AbortedRead > 0 {
		out = append(out, fmt.Sprintf("%d record(s) of aborted transactions read at read_committed", f.AbortedRead))
	}
	if f.TxnTorn > 0 {
		out = append(out, fmt.Sprintf("%d transaction(s) read back in part at read_committed", f.TxnTorn))
	}
	if f.CommitsBackwards > 0 {
		out = append(out, fmt.Sprintf("%d committed offset(s) went backwards", f.CommitsBackwards))
	}
	if f.GroupSkipped > 0 {
		out = append(out, fmt.Sprintf("%d record(s) below a committed offset never processed by the group reader", f.GroupSkipped))
	}
	if f.Idempotent && !f.SettingsUnknown {
		if f.Duplicated > 0 {
			out = append(out, fmt.Sprintf("%d duplicated by an idempotent producer", f.Duplicated))
		}
		if f.Reordered > 0 {
			out = append(out, fmt.Sprintf("%d reordered by an idempotent producer", f.Reordered))
		}
	}
	return out
}

// allowed names the counts the client's settings allow, and why.
func (f Finding) allowed() []string {
	var out []string
	if f.Lost > 0 && f.Acks != "all" {
		out = append(out, fmt.Sprintf("acks=%s allows an acknowledged record to be lost with its leader", f.Acks))
	}
	if f.Lost > 0 && f.Acks == "all" && f.PowerLoss != nil && f.PowerLoss.Allowed != "" {
		out = append(out, f.PowerLoss.Allowed)
	}
	switch {
	case f.SettingsUnknown && f.Duplicated+f.Reordered > 0:
		out = append(out, "its settings are unknown (its meta.json is missing), so whether its producer was idempotent is not known")
	case !f.Idempotent && f.Duplicated+f.Reordered > 0:
		out = append(out, "a producer that is not idempotent may write a retried record twice or out of order")
	}
	if f.GroupReprocessed > 0 {
		out = append(out, fmt.Sprintf("the group reader processed %d record(s) again, which %s allows", f.GroupReprocessed, f.GroupPromise))
	}
	return out
}

// String is the finding in one line: the counts, the settings, and which
// counts break a promise (a finding) or are allowed.
func (f Finding) String() string {
	idem := "idempotent"
	switch {
	case f.SettingsUnknown:
		idem = "idempotence unknown"
	case !f.Idempotent:
		idem = "not idempotent"
	}
	s := fmt.Sprintf("%s: %d acknowledged, %d lost, %d duplicated, %d reordered (acks=%s, %s)",
		f.Client, f.Acknowledged, f.Lost, f.Duplicated, f.Reordered, f.Acks, idem)
	if b := f.broken(); len(b) > 0 {
		s += ": FINDING, " + strings.Join(b, ", ")
	}
	if a := f.allowed(); len(a) > 0 {
		s += "; not a finding: " + strings.Join(a, "; ")
	}
	switch pl := f.PowerLoss; {
	case pl == nil:
	case pl.Allowed != "" && f.Lost > 0 && f.Acks == "all":
		// Allowed, said above, named who lost power and the settings.
		s += "; " + pl.lostText()
	default:
		s += "; " + pl.String()
	}
	return s
}

// Findings are a trial's audits, one per client whose records were read
// back, franz-go first.
type Findings []Finding

// Fail reports whether the trial's findings make a failed run (exit 3):
// some client broke what its settings promise (Finding.Broken). It is the
// one rule every command's exit status follows. Findings count in a trial
// of any verdict: records lost are lost, whether or not the stall can be
// trusted.
func (fs Findings) Fail() bool { return slices.ContainsFunc(fs, Finding.Broken) }

// Why says, for a failed trial, which client broke which promise; "" when
// none did.
func (fs Findings) Why() string {
	var out []string
	for _, f := range fs {
		if b := f.broken(); len(b) > 0 {
			out = append(out, f.Client+": "+strings.Join(b, ", "))
		}
	}
	return strings.Join(out, "; ")
}

// findingsOf are the trial's audits: the franz-go probe's (its metadata
// m, audit in and group reader grp), then each external client's in crs
// that was read back.
func findingsOf(m *results.Meta, in *integrity.Report, grp *GroupView, crs []ClientResult) Findings {
	var fs Findings
	f, ok := finding(FranzGo, m, in)
	if grp != nil && (len(grp.Backwards) > 0 || grp.SkippedN > 0 || grp.Reprocessed > 0) {
		if !ok {
			f, ok = finding(FranzGo, m, &integrity.Report{})
		}
		f.CommitsBackwards = len(grp.Backwards)
		f.GroupSkipped, f.GroupReprocessed, f.GroupPromise = grp.SkippedN, grp.Reprocessed, grp.Promise
	}
	if ok {
		fs = append(fs, f)
	}
	for _, cr := range crs {
		if cr.Trial == nil {
			continue // franz-go (above), or a client that could not be analysed
		}
		if f, ok := finding(cr.Name, cr.Trial.Meta, cr.Trial.Integrity); ok {
			f.SettingsUnknown = cr.MetaMissing
			if f.SettingsUnknown {
				f.Idempotent = false
			}
			fs = append(fs, f)
		}
	}
	return fs
}

// finding is one client's audit in and settings, from its metadata m;
// false without an audit.
func finding(client string, m *results.Meta, in *integrity.Report) (Finding, bool) {
	if in == nil {
		return Finding{}, false
	}
	f := Finding{Client: client, Acknowledged: in.Acknowledged, Lost: in.Lost, Duplicated: in.Duplicated, Reordered: in.Reordered}
	var p results.Probe
	if m != nil {
		p = m.Probe
	}
	f.Acks, f.Idempotent = promises(client, p)
	return f, true
}

// promises reads a client's acks and idempotence from its recorded
// settings: franz-go's "idempotent", librdkafka's and Java's
// "enable.idempotence". Where the metadata does not say, acks is kbf's
// default, all, and idempotence the client's own default: on under
// acks=all for franz-go (as kbf's probe has always run) and the Java
// client, off for librdkafka and a client kbf does not know.
func promises(client string, p results.Probe) (acks string, idempotent bool) {
	acks = "all"
	switch p.Acks {
	case "1", "0":
		acks = p.Acks
	}
	for _, k := range []string{"idempotent", "enable.idempotence"} {
		if v, ok := p.Client[k]; ok {
			return acks, v == "true"
		}
	}
	switch client {
	case FranzGo, "java":
		return acks, acks == "all"
	}
	return acks, false
}
