package integrity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes r as a summary line, then, for each partition with
// findings, its counts and first offenders:
//
//	integrity: 1500 acknowledged, 1 lost, 0 duplicated, 0 reordered, 0 failed but present
//	p0: 1 lost
//	p0 lost seq 17 (acked offset 1059 at 03:26:09.100)
//
// Times are UTC, to the millisecond.
func WriteText(w io.Writer, r *Report) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "integrity: %d acknowledged, %d lost, %d duplicated, %d reordered, %d failed but present",
		r.Acknowledged, r.Lost, r.Duplicated, r.Reordered, r.FailedPresent)
	if r.OffsetMismatch > 0 {
		fmt.Fprintf(&b, ", %d acked offset mismatch", r.OffsetMismatch)
	}
	if r.Unrecorded > 0 {
		fmt.Fprintf(&b, ", %d unrecorded", r.Unrecorded)
	}
	b.WriteByte('\n')
	for i := range r.Partitions {
		p := &r.Partitions[i]
		if p.findings() {
			writePartition(&b, p)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writePartition(b *bytes.Buffer, p *Partition) {
	var counts []string
	for _, c := range []struct {
		n    int
		what string
	}{
		{p.Lost, "lost"}, {p.Duplicated, "duplicated"}, {p.Reordered, "reordered"},
		{p.FailedPresent, "failed but present"}, {p.OffsetMismatch, "acked offset mismatch"},
		{p.Unrecorded, "unrecorded (in the log, not in the probe file)"},
	} {
		if c.n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	fmt.Fprintf(b, "p%d: %s\n", p.Partition, strings.Join(counts, ", "))

	more := func(shown, n int, what string) {
		if n > shown {
			fmt.Fprintf(b, "p%d ... and %d more %s\n", p.Partition, n-shown, what)
		}
	}
	for _, o := range p.First.Lost {
		fmt.Fprintf(b, "p%d lost seq %d (acked offset %s at %s)\n",
			p.Partition, o.Seq, offset(o.AckedOffset), o.AckedAt.UTC().Format("15:04:05.000"))
	}
	more(len(p.First.Lost), p.Lost, "lost")
	for _, o := range p.First.Duplicated {
		offs := make([]string, len(o.Offsets))
		for i, v := range o.Offsets {
			offs[i] = fmt.Sprint(v)
		}
		fmt.Fprintf(b, "p%d duplicated seq %d at offsets %s\n", p.Partition, o.Seq, strings.Join(offs, ", "))
	}
	more(len(p.First.Duplicated), p.Duplicated, "duplicated")
	for _, o := range p.First.Reordered {
		fmt.Fprintf(b, "p%d reordered seq %d at offset %d, after seq %d at offset %d\n",
			p.Partition, o.Seq, o.Offset, o.After, o.AfterOffset)
	}
	more(len(p.First.Reordered), p.Reordered, "reordered")
	for _, o := range p.First.FailedPresent {
		fmt.Fprintf(b, "p%d failed but present seq %d at offset %d (the probe saw: %s)\n",
			p.Partition, o.Seq, o.Offset, o.Err)
	}
	more(len(p.First.FailedPresent), p.FailedPresent, "failed but present")
	for _, o := range p.First.OffsetMismatch {
		fmt.Fprintf(b, "p%d acked offset mismatch seq %d: acked at offset %d, in the log at %d\n",
			p.Partition, o.Seq, o.AckedOffset, o.LogOffset)
	}
	more(len(p.First.OffsetMismatch), p.OffsetMismatch, "acked offset mismatches")
}

func offset(o int64) string {
	if o < 0 {
		return "unknown"
	}
	return fmt.Sprint(o)
}

// WriteJSON writes r as indented JSON, with "ok" as Report.OK says.
func WriteJSON(w io.Writer, r *Report) error {
	b, err := json.MarshalIndent(struct {
		OK bool `json:"ok"`
		Counts
		Partitions []Partition `json:"partitions"`
	}{r.OK(), r.Counts, r.Partitions}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode integrity report: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
