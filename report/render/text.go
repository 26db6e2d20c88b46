package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
	"github.com/kbf-project/kbf/verdict"
)

// TextOptions adjust the text report.
type TextOptions struct {
	// Flag returns the command-line flag that sets a setting of the
	// probe's client (metadata_min_age → "--metadata-min-age"), or "" for
	// none. The analysis names settings as their owners spell them and
	// knows no flags; the command that has them says them.
	Flag func(setting string) string
}

// WriteText writes the trial's report with no flag names (TextOptions).
func WriteText(w io.Writer, tr *analysis.Trial) error { return TextOptions{}.WriteText(w, tr) }

// WriteText writes the trial's report: a heading, the gaps, the stalls in
// phases, the integrity check, the recovery and the timeline.
func (o TextOptions) WriteText(w io.Writer, tr *analysis.Trial) error {
	var b bytes.Buffer
	writeHeading(&b, tr)
	b.WriteString("\n")
	if tr.Condensed() {
		o.writeCondensed(&b, tr)
	} else {
		if err := gaps.WriteText(&b, tr.Gaps); err != nil {
			return err
		}
		if len(tr.Stalls) > 0 {
			if tr.Steps != nil {
				b.WriteString("\nstalls, from the first step to the first ack after it:\n")
			} else {
				b.WriteString("\nstalls, from the fault to the first ack:\n")
			}
			for i := range tr.Stalls {
				o.writeStall(&b, &tr.Stalls[i])
			}
		}
	}
	if tr.Quorum != nil {
		writeQuorum(&b, tr.Quorum)
	}
	writeSteps(&b, tr.Steps)
	writeFailback(&b, tr) // failback.go
	writeReplicaView(&b, condensedView(tr), tr.FaultAt)
	writeClients(&b, tr)
	if tr.Group != nil || tr.Txn != nil || tr.Load != nil {
		b.WriteString("\n")
		writeGroup(&b, tr)
		o.writeGroupRecovery(&b, tr.Recovery)
		o.writeGroupRecovery(&b, tr.TxnRecovery)
	}
	if tr.Integrity != nil {
		b.WriteString("\n")
		if err := integrity.WriteText(&b, tr.Integrity); err != nil {
			return err
		}
	} else if tr.AuditVoid != "" {
		fmt.Fprintf(&b, "\naudit: not counted: %s\n", tr.AuditVoid)
	}
	writeFindings(&b, tr)
	if m := tr.Meta; m != nil && m.Recovery != nil {
		writeRecovery(&b, tr)
	}
	if tr.Timeline != nil {
		b.WriteString("\ntimeline:\n")
		if err := timeline.WriteText(&b, tr.Timeline); err != nil {
			return err
		}
	}
	for _, n := range tr.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if tr.Meta != nil {
		for _, n := range tr.Meta.Notes {
			fmt.Fprintf(&b, "note: %s\n", n)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeHeading(b *bytes.Buffer, tr *analysis.Trial) {
	writeTitle(b, tr)
	m := tr.Meta
	if m == nil {
		return
	}
	p := m.Probe
	fmt.Fprintf(b, "probe: topic %s partitions %s, one record each every %v, acks=%s", p.Topic, partitionList(p.Partitions), p.Interval, p.Acks)
	if m.Cluster.KafkaVersion != "" {
		fmt.Fprintf(b, ", Kafka %s", m.Cluster.KafkaVersion)
	}
	if m.Cluster.Image != "" {
		fmt.Fprintf(b, " (%s)", m.Cluster.Image)
	}
	b.WriteString("\n")
	if g := p.LongestSendGap; g > 0 {
		fmt.Fprintf(b, "probe self-check: longest gap between two sends to a partition %.3f s", g.Seconds())
		if tr.ProbeStalled() {
			b.WriteString(": the probe itself stalled, so gaps this short may be its own, not Kafka's")
		}
		b.WriteString("\n")
	}
	if len(p.Partitions) > analysis.Condense {
		writeMissedCondensed(b, p)
	}
	for _, part := range p.Partitions {
		if len(p.Partitions) > analysis.Condense {
			break
		}
		if ms := p.Missed[part]; ms != nil && ms.Count > 0 {
			fmt.Fprintf(b, "probe self-check: p%d missed %d send slots between %s and %s\n", part, ms.Count,
				ms.First.UTC().Format("15:04:05.000"), ms.Last.UTC().Format("15:04:05.000"))
		}
	}
	writeReplicaSampling(b, m)
	if h := verdict.Describe(m.Host); h != "" {
		fmt.Fprintf(b, "%s\n", h)
	}
	if v := tr.Verdict; v != nil {
		fmt.Fprintf(b, "verdict: %s\n", v)
	}
}

// writeTitle writes the heading's first line, the trial and its fault,
// and for a trial with a group reader whether its coordinator was the
// faulted broker.
func writeTitle(b *bytes.Buffer, tr *analysis.Trial) {
	m := tr.Meta
	if m == nil {
		fmt.Fprintf(b, "%s (no metadata)\n", tr.Where())
		return
	}
	name := tr.Dir
	if name == "" {
		name = "probe"
	}
	fmt.Fprintf(b, "%s: %s", name, m.Kind)
	if f := m.Fault; f != nil {
		fmt.Fprintf(b, ", %s", tr.FaultTitle())
		if !f.Finished.IsZero() {
			fmt.Fprintf(b, ", exit code %d", f.ExitCode)
		}
		if f.Escalated {
			b.WriteString(", ESCALATED to SIGKILL after the grace period")
		}
	}
	b.WriteString("\n")
	if h := tr.Hiccup; h != nil {
		fmt.Fprintf(b, "hiccup: %s (undone by --return-after)\n", h)
	}
	if c := tr.Coordinator; c != nil {
		fmt.Fprintf(b, "%s\n", c)
	}
}

// flags says which flags set the client settings among ss: "; flag
// --metadata-min-age"; "" for none.
func (o TextOptions) flags(ss []analysis.Setting) string {
	if o.Flag == nil {
		return ""
	}
	var fs []string
	for _, s := range ss {
		if s.Node != "" || s.Source == analysis.SourceNodeConfig {
			continue
		}
		if f := o.Flag(s.Name); f != "" {
			fs = append(fs, f)
		}
	}
	switch len(fs) {
	case 0:
		return ""
	case 1:
		return "; flag " + fs[0]
	}
	return "; flags " + strings.Join(fs, ", ")
}

var roleText = map[results.Role]string{
	results.RoleLed:      "led by the broker",
	results.RoleFollowed: "the broker followed",
	results.RoleNone:     "the broker held no replica",
}

func (o TextOptions) writeStall(b *bytes.Buffer, st *analysis.Stall) {
	role := roleText[st.Role]
	fmt.Fprintf(b, "p%d (%s", st.Partition, role)
	if st.NewLeader >= 0 {
		fmt.Fprintf(b, "; new leader %d", st.NewLeader)
	}
	b.WriteString(") ")
	if st.Unrelated {
		// Its gap is not the fault's: no stall to total, only the note.
		what := "stalled apart from the fault"
		if st.Noise {
			what = "did not stall beyond its own noise"
		}
		fmt.Fprintf(b, "%s: longest gap in the fault's window %.2f s, longest elsewhere %.2f s\n  note: %s\n",
			what, st.Total.Seconds(), st.Elsewhere.Seconds(), st.Note)
		return
	}
	if st.Began > 0 {
		fmt.Fprintf(b, "acked until %.2f s after the fault, then stalled ", st.Began.Seconds())
	}
	switch {
	case st.FirstAck.IsZero() && st.Began > 0:
		b.WriteString("to the end of the probe: no ack again")
	case st.FirstAck.IsZero():
		b.WriteString("no ack after the fault")
	default:
		fmt.Fprintf(b, "%.2f s", st.Total.Seconds())
	}
	for i, ph := range st.Phases {
		if i == 0 {
			b.WriteString(" = ")
		} else {
			b.WriteString(" + ")
		}
		fmt.Fprintf(b, "%.2f %s", ph.Duration.Seconds(), ph.Name)
	}
	b.WriteString("\n")
	writePhases(b, st.Phases, 9, o.flags)
	if len(st.Phases) > 0 {
		fmt.Fprintf(b, "  expected: %s\n", st.Expected())
	}
	if st.Note != "" {
		fmt.Fprintf(b, "  note: %s\n", st.Note)
		if f := o.flags(st.NoteSettings); f != "" {
			fmt.Fprintf(b, "            shorten: %s\n", strings.TrimPrefix(f, "; "))
		}
	}
	o.writeCut(b, st)
	if st.Receive.Why != "" {
		fmt.Fprintf(b, "  receive: %s\n", st.Receive.Why)
		if st.Receive.Setting != "" {
			fmt.Fprintf(b, "            shorten: %s%s\n", st.Receive.Setting, o.flags(st.Receive.Settings))
		}
	}
}

// undoneBy is what undid each fault kind that has words of its own.
var undoneBy = map[results.FaultKind]string{
	results.FaultPause:           "unpaused",
	results.FaultControllerPause: "unpaused",
	results.FaultCPUStarve:       "CPU given back",
	results.FaultPacketLoss:      "packet loss ended",
	results.FaultDiskFull:        "broker restarted on an empty log directory",
	results.FaultDiskSlow:        "disk back to normal",
	results.FaultDiskError:       "disk back to normal, broker restarted",
	results.FaultPowerLoss:       "broker restarted on what was fsynced",
}

// undone names how recovery undid the fault f: a cut healed, a kind's own
// words (undoneBy), a controller or a broker restarted.
func undone(f *results.Fault) string {
	switch {
	case f == nil:
		return "broker restarted"
	case f.Kind.Network():
		return "cut healed"
	}
	if s, ok := undoneBy[f.Kind]; ok {
		return s
	}
	if f.Kind.Controller() {
		return "controller restarted"
	}
	return "broker restarted"
}

func writeRecovery(b *bytes.Buffer, tr *analysis.Trial) {
	r := tr.Meta.Recovery
	b.WriteString("\nrecovery: ")
	var parts []string
	since := func(t time.Time) string { return fmt.Sprintf("+%.1fs", t.Sub(tr.FaultAt).Seconds()) }
	if !r.Restarted.IsZero() {
		parts = append(parts, undone(tr.Meta.Fault)+" "+since(r.Restarted))
	}
	if !r.QuorumRejoined.IsZero() {
		parts = append(parts, "the controller back in the quorum "+since(r.QuorumRejoined))
	}
	if !r.ISRFull.IsZero() {
		parts = append(parts, "every ISR full "+since(r.ISRFull))
	}
	if !r.PreferredElec.IsZero() {
		parts = append(parts, "preferred leader election "+since(r.PreferredElec))
	}
	if r.LeadersBack {
		parts = append(parts, "leaders back on their preferred replicas")
	} else {
		parts = append(parts, "leaders NOT back on their preferred replicas")
	}
	b.WriteString(strings.Join(parts, ", "))
	if r.Err != "" {
		fmt.Fprintf(b, "; error: %s", r.Err)
	}
	b.WriteString("\n")
}

// writeCut writes what explainCut added to a stall.
func (o TextOptions) writeCut(b *bytes.Buffer, st *analysis.Stall) {
	if st.Start.Why != "" {
		fmt.Fprintf(b, "  began     %s [%s]\n            why: %s\n", st.Start.Evidence, st.Start.Source, st.Start.Why)
	}
	if st.Consumer.Why != "" {
		fmt.Fprintf(b, "  consumer: %s\n            shorten: metadata_max_age (now %s), which makes it refresh metadata even without an error%s\n",
			st.Consumer.Why, settingValue(st.Consumer.Settings), o.flags(st.Consumer.Settings))
	}
}

func settingValue(ss []analysis.Setting) string {
	if len(ss) == 0 || ss[0].Source == analysis.SourceUnknown {
		return "unknown"
	}
	return ss[0].Value
}

// secs is d in seconds, to the hundredth, as the report's figures are.
func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// writeGroupRecovery writes a coordinator's recovery — the group's or the
// transactional id's — phase by phase, each with its evidence, why it took
// its time, the settings that would shorten it with their values and where
// they were read, and its bound.
func (o TextOptions) writeGroupRecovery(b *bytes.Buffer, r *analysis.CoordinatorRecovery) {
	if r == nil {
		return
	}
	what, key, count := "group", "group id", "offsets.topic.num.partitions"
	if r.Topic == "__transaction_state" {
		what, key, count = "transactional id", "transactional id", "transaction.state.log.num.partitions"
	}
	if len(r.Phases) == 0 {
		fmt.Fprintf(b, "%s %s's recovery: %s\n", what, r.Key, r.Note)
		if c := r.Cause; c.Source != "" && what == "group" {
			fmt.Fprintf(b, "  its commits: %s [%s]\n  why: %s\n  shorten: %s%s\n", c.Evidence, c.Source, c.Why, c.Setting, settingValues(c.Settings))
		}
		return
	}
	fmt.Fprintf(b, "%s %s's recovery, from the fault (its %s partition %d, abs(hash(%s)) %% %s = %s [%s]):\n",
		what, r.Key, r.Topic, r.Partition, key, count, r.Partitions.Value, r.Partitions.Where)
	writePhases(b, r.Phases, 14, settingValues)
	if r.Note != "" {
		fmt.Fprintf(b, "  note: %s\n", r.Note)
	}
}

// writePhases writes a recovery's phases (a stall's or a coordinator's),
// each with its evidence, why it took its time, what would shorten it
// (its settings put in words by settings) and its bound; the names are
// padded to width, and what follows a phase's line is indented under its
// duration.
func writePhases(b *bytes.Buffer, phases []analysis.Phase, width int, settings func([]analysis.Setting) string) {
	indent := strings.Repeat(" ", width+3)
	for _, ph := range phases {
		fmt.Fprintf(b, "  %-*s %5.2f s, ends %s", width, ph.Name, ph.Duration.Seconds(), ph.End.UTC().Format("15:04:05.000"))
		if ph.Evidence != "" {
			fmt.Fprintf(b, ": %s", ph.Evidence)
		}
		if ph.Source != "" {
			fmt.Fprintf(b, " [%s]", ph.Source)
		}
		b.WriteString("\n")
		if ph.Why != "" {
			fmt.Fprintf(b, "%swhy: %s\n", indent, ph.Why)
		}
		if ph.Setting != "" {
			fmt.Fprintf(b, "%sshorten: %s%s\n", indent, ph.Setting, settings(ph.Settings))
		}
		writeBound(b, indent, ph)
	}
}

// writeBound writes a phase against its bound (docs/bounds.md): within it,
// how far beyond, or why none is stated; and a phase whose evidence came
// out of its recipe's order, drawn at its own line.
func writeBound(b *bytes.Buffer, indent string, ph analysis.Phase) {
	if ph.Overlap > 0 {
		fmt.Fprintf(b, "%sout of order: its line came %s before the phase before it ended, so it took none of the time\n", indent, secs(ph.Overlap))
	}
	bd := ph.Bound
	switch {
	case bd.Stated && bd.Beyond():
		fmt.Fprintf(b, "%sbound: %s BEYOND, its settings allow (%s, %s]: %s\n", indent, secs(bd.Excess), secs(bd.Low), secs(bd.High), bd.Basis)
	case bd.Stated:
		fmt.Fprintf(b, "%sbound: within (%s, %s]: %s\n", indent, secs(bd.Low), secs(bd.High), bd.Basis)
	case bd.Basis != "":
		fmt.Fprintf(b, "%sbound: none stated: %s\n", indent, bd.Basis)
	}
}

// settingValues is the settings' values and where each was read, for a
// sentence: " (offsets.load.buffer.size = 5242880, k1/server.log:210)".
func settingValues(ss []analysis.Setting) string {
	var parts []string
	for _, s := range ss {
		if s.Source == analysis.SourceUnknown {
			parts = append(parts, fmt.Sprintf("%s unknown: %s", s.Name, s.Where))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s = %s, %s", s.Name, s.Value, s.Where))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
