package render

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// A trial of more partitions than analysis.Condense is drawn as each role's
// distribution across its partitions, with the worst named, rather than a
// line per partition: the terminal's digest stays a screen at a thousand
// partitions, and report.json keeps every partition.

// maxCauses is how many of its causes a condensed digest writes; the rest
// are counted, and every cause is in report.json.
const maxCauses = 8

// spreadRole names a spread's role in a table as the digest's rows do;
// a run without a fault has one spread, of every partition.
func spreadRole(r results.Role, faulted bool) string {
	switch s := digestRole[r]; {
	case s != "":
		return s
	case r == "" && !faulted:
		return "all"
	case r == "":
		return "-"
	}
	return string(r)
}

// writeSpreads writes the distributions table: per role, the ack stall
// and the receive stall across partitions, and the worst partitions.
func writeSpreads(b *bytes.Buffer, d *analysis.Digest, faulted bool) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "role\tgap\tpartitions\tmin\tp50\tp90\tp99\tmax\tworst")
	for _, s := range d.Spreads {
		role := spreadRole(s.Role, faulted)
		var worst []string
		for _, r := range s.Worst {
			if r.Ack >= 0 {
				worst = append(worst, fmt.Sprintf("p%d %s", r.Partition, gapCell(r.Ack, r.AckOpen)))
			}
		}
		writeQuantiles(tw, role, "ack", s.Partitions, s.Acked, s.AckOpen, s.Ack, strings.Join(worst, ", "))
		writeQuantiles(tw, role, "receive", s.Partitions, s.Received, s.RecOpen, s.Receive, "")
	}
	tw.Flush()
	var sent, acked, failed, lost, dup, reord int
	for _, r := range d.Rows {
		sent, acked, failed = sent+r.Sent, acked+r.Acked, failed+r.Failed
		lost, dup, reord = lost+r.Lost, dup+r.Duplicated, reord+r.Reordered
	}
	if len(d.Applied) > 0 {
		var per []string
		for _, a := range d.Applied {
			span := secs(a.First)
			if a.Last > a.First {
				span += "–" + secs(a.Last)
			}
			per = append(per, fmt.Sprintf("broker %d %d partitions at %s", a.Broker, a.Partitions, span))
		}
		fmt.Fprintf(b, "elect ended, by the broker that applied the change (after the fault): %s\n", strings.Join(per, "; "))
	}
	fmt.Fprintf(b, "%d partitions: acked %d/%d, failed %d", len(d.Rows), acked, sent, failed)
	if d.Audited {
		fmt.Fprintf(b, ", lost %d, duplicated %d, reordered %d", lost, dup, reord)
	}
	b.WriteString("; every partition's row in report.json\n")
}

func writeQuantiles(tw *tabwriter.Writer, role, gap string, parts, counted, open int, q analysis.Quantiles, worst string) {
	n := fmt.Sprint(parts)
	if counted < parts {
		n = fmt.Sprintf("%d (%d with a gap)", parts, counted)
	}
	if open > 0 {
		n += fmt.Sprintf(" (%d open)", open)
	}
	if counted == 0 {
		fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t-\t-\t-\t\n", role, gap, n)
		return
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", role, gap, n,
		secs(q.Min), secs(q.P50), secs(q.P90), secs(q.P99), secs(q.Max), worst)
}

// partitionList is a list of partitions as a line can hold it: each one
// up to analysis.Condense, else their count and ranges of consecutive ones.
func partitionList(ps []int32) string {
	if len(ps) <= analysis.Condense {
		return fmt.Sprint(ps)
	}
	s := slices.Sorted(slices.Values(ps))
	var runs []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if j > i {
			runs = append(runs, fmt.Sprintf("%d–%d", s[i], s[j]))
		} else {
			runs = append(runs, fmt.Sprint(s[i]))
		}
		i = j + 1
	}
	if len(runs) > 4 {
		runs = append(runs[:4], "…")
	}
	return fmt.Sprintf("%d: %s", len(s), strings.Join(runs, " "))
}

// causePartitions names a cause's partitions: each, or past
// analysis.Condense their count and the first few.
func causePartitions(ps []int32) string {
	names := make([]string, 0, min(len(ps), analysis.Condense))
	for _, p := range ps[:min(len(ps), analysis.Condense)] {
		names = append(names, fmt.Sprintf("p%d", p))
	}
	if len(ps) > analysis.Condense {
		return fmt.Sprintf("%d partitions: %s …", len(ps), strings.Join(names[:3], " "))
	}
	return strings.Join(names, " ")
}

// writeMissedCondensed writes the probe's missed send slots in one line:
// the send loop serves every partition alike, so they missed the same.
func writeMissedCondensed(b *bytes.Buffer, p results.Probe) {
	var most *results.MissedSends
	n := 0
	for _, ms := range p.Missed {
		if ms != nil && ms.Count > 0 {
			n++
			if most == nil || ms.Count > most.Count {
				most = ms
			}
		}
	}
	if most == nil {
		return
	}
	fmt.Fprintf(b, "probe self-check: %d of %d partitions missed send slots, up to %d between %s and %s\n", n, len(p.Partitions), most.Count,
		most.First.UTC().Format("15:04:05.000"), most.Last.UTC().Format("15:04:05.000"))
}

// worstStalls are the stalls a condensed text report explains in full:
// each role's worst partitions.
func worstStalls(tr *analysis.Trial, d *analysis.Digest) []*analysis.Stall {
	named := map[int32]bool{}
	for _, s := range d.Spreads {
		for _, r := range s.Worst {
			named[r.Partition] = true
		}
	}
	var out []*analysis.Stall
	for i := range tr.Stalls {
		if named[tr.Stalls[i].Partition] {
			out = append(out, &tr.Stalls[i])
		}
	}
	return out
}

// writeCondensed writes the gaps and stalls of a trial of many
// partitions: the gaps' heading, each role's distribution, and the
// stalls of each role's worst partitions in full.
func (o TextOptions) writeCondensed(b *bytes.Buffer, tr *analysis.Trial) {
	if err := gaps.WriteHead(b, tr.Gaps); err != nil {
		return
	}
	d := tr.Digest()
	writeSpreads(b, d, !tr.FaultAt.IsZero())
	worst := worstStalls(tr, d)
	if len(worst) == 0 {
		return
	}
	fmt.Fprintf(b, "\nstalls of each role's worst %d partitions, from the fault to the first ack (the %d others' in report.json):\n",
		analysis.WorstNamed, len(tr.Stalls)-len(worst))
	for _, st := range worst {
		o.writeStall(b, st)
	}
}

// condensedView is the replica view a text report writes: every
// partition's, or for a trial of many partitions each role's worst.
func condensedView(tr *analysis.Trial) *analysis.ReplicaView {
	v := tr.Replicas
	if v == nil || !tr.Condensed() {
		return v
	}
	named := map[int32]bool{}
	for _, st := range worstStalls(tr, tr.Digest()) {
		named[st.Partition] = true
	}
	cv := *v
	cv.Partitions = nil
	for _, p := range v.Partitions {
		if named[p.Partition] {
			cv.Partitions = append(cv.Partitions, p)
		}
	}
	return &cv
}
