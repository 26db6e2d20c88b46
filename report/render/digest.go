package render

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// WriteDigest writes the trial at a glance (analysis.Trial.Digest): its title, a
// table with one row per partition, one line per distinct cause, the notes
// and the verdict. The full report is WriteText's.
func (o TextOptions) WriteDigest(w io.Writer, tr *analysis.Trial) error {
	var b bytes.Buffer
	writeTitle(&b, tr)
	if tr.Gaps != nil && !tr.FaultAt.IsZero() {
		fmt.Fprintf(&b, "stalls from the fault at %s", tr.FaultAt.UTC().Format("15:04:05.000"))
		if tr.Gaps.Failed > 0 {
			fmt.Fprintf(&b, "; %d sends failed", tr.Gaps.Failed)
		}
		b.WriteString(":\n")
	} else if tr.Gaps != nil {
		b.WriteString("no fault: the longest gaps\n")
	}
	d := tr.Digest()
	causes := d.Causes
	if d.Spreads != nil {
		writeSpreads(&b, d, !tr.FaultAt.IsZero())
		causes = causes[:min(len(causes), maxCauses)]
	} else {
		writeDigestTable(&b, d)
	}
	for _, c := range causes {
		o.writeCause(&b, &c)
	}
	if n := len(d.Causes) - len(causes); n > 0 {
		fmt.Fprintf(&b, "%d more causes in report.json\n", n)
	}
	if tr.Quorum != nil {
		writeQuorumDigest(&b, tr.Quorum)
	}
	writeStepsDigest(&b, tr.Steps)
	writeFailbackDigest(&b, tr.Failback) // failback.go
	writeGroup(&b, tr)
	if l := tr.Expected().Line(); l != "" {
		b.WriteString(l + "\n")
	}
	if tr.AuditVoid != "" {
		fmt.Fprintf(&b, "audit: not counted: %s\n", tr.AuditVoid)
	} else if !d.Audited {
		b.WriteString("no audit: the partitions were not read back\n")
	} else if !tr.Integrity.OK() {
		// A loss is the one finding nobody may miss: its offenders too.
		if err := integrity.WriteText(&b, tr.Integrity); err != nil {
			return err
		}
	}
	writeFindings(&b, tr)
	for _, n := range tr.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if tr.Meta != nil {
		for _, n := range tr.Meta.Notes {
			fmt.Fprintf(&b, "note: %s\n", n)
		}
	}
	if m := tr.Meta; m != nil && m.Fault == nil {
		// A probe run's verdict is judged on the probe and the host
		// alone: the host's load is said beside it.
		if h := verdict.Describe(m.Host); h != "" {
			fmt.Fprintf(&b, "%s\n", h)
		}
	}
	if d.Verdict != "" {
		fmt.Fprintf(&b, "verdict: %s\n", d.Verdict)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeFindings writes each client's audit, and whether it breaks what
// the client's settings promise, when several clients probed or any audit
// counted a record lost, duplicated or reordered: which client found what
// is then the report's to say, in the digest and the full text alike. A
// lone client with nothing to report has its counts in the table.
func writeFindings(b *bytes.Buffer, tr *analysis.Trial) {
	counted := slices.ContainsFunc(tr.Findings, func(f analysis.Finding) bool { return f.Lost+f.Duplicated+f.Reordered+f.CommitsBackwards > 0 })
	if len(tr.Clients) < 2 && !counted {
		return
	}
	b.WriteString("audit, per client (exit 3 when a client breaks what its settings promise):\n")
	for _, f := range tr.Findings {
		fmt.Fprintf(b, "  %s\n", f)
	}
	for _, cr := range tr.Clients {
		switch {
		case cr.Err != "":
			fmt.Fprintf(b, "  %s: not analysed: %s\n", cr.Name, cr.Err)
		case cr.Audit == nil:
			fmt.Fprintf(b, "  %s: not read back, no audit\n", cr.Name)
		}
	}
}

// writeGroup writes the group reader and the transactional producer at a
// glance (analysis.Trial.GroupLines, TxnLines).
func writeGroup(b *bytes.Buffer, tr *analysis.Trial) {
	for _, l := range tr.GroupLines() {
		b.WriteString(l + "\n")
	}
	for _, l := range tr.TxnLines() {
		b.WriteString(l + "\n")
	}
	if l := tr.LoadLine(); l != "" {
		b.WriteString(l + "\n")
	}
}

var digestRole = map[results.Role]string{
	results.RoleLed:      "led",
	results.RoleFollowed: "followed",
	results.RoleNone:     "none",
}

func writeDigestTable(b *bytes.Buffer, d *analysis.Digest) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	head := []string{"", "role", "ack stall", "receive"}
	head = append(head, d.Phases...)
	head = append(head, "acked", "failed")
	if d.Audited {
		head = append(head, "lost", "dup", "reordered")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range d.Rows {
		role := digestRole[r.Role]
		if role == "" {
			role = "-"
		}
		cells := []string{fmt.Sprintf("p%d", r.Partition), role, gapCell(r.Ack, r.AckOpen), gapCell(r.Receive, r.ReceiveOpen)}
		for _, ph := range r.Phases {
			cells = append(cells, gapCell(ph, false))
		}
		cells = append(cells, fmt.Sprintf("%d/%d", r.Acked, r.Sent), fmt.Sprint(r.Failed))
		if d.Audited {
			cells = append(cells, fmt.Sprint(r.Lost), fmt.Sprint(r.Duplicated), fmt.Sprint(r.Reordered))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

// gapCell is a duration in the table: "-" for none, ">" before a gap that
// had not closed when the probe stopped.
func gapCell(d time.Duration, open bool) string {
	if d < 0 {
		return "-"
	}
	s := fmt.Sprintf("%.2f s", d.Seconds())
	if open {
		s = ">" + s
	}
	return s
}

func (o TextOptions) writeCause(b *bytes.Buffer, c *analysis.Cause) {
	b.WriteString(c.Kind)
	if c.Kind != analysis.CauseReceive && c.Kind != analysis.CauseNote {
		r := analysis.Range{Min: c.Min, Max: c.Max, N: 1}
		fmt.Fprintf(b, " %s", r)
	}
	fmt.Fprintf(b, " (%s): %s", causePartitions(c.Partitions), c.Why)
	switch {
	case c.Setting != "":
		fmt.Fprintf(b, "; shorten: %s%s", c.Setting, o.flags(c.Settings))
	case o.flags(c.Settings) != "":
		fmt.Fprintf(b, "; shorten: %s", strings.TrimPrefix(o.flags(c.Settings), "; "))
	}
	b.WriteString("\n")
}
