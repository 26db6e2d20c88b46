package analysis

import (
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// Digest is a trial at a glance: one row per partition and one line per
// distinct cause, shared by the partitions it applies to. It is decided
// here, once, so the terminal's table and the JSON report agree; the full
// explanation stays in the Trial.
type Digest struct {
	// Phases are the phase names the rows have columns for, in stall order.
	Phases []string
	Rows   []DigestRow
	// Causes are the stalls' explanations, each once: the phases, notes
	// and receive gaps that say the same thing on several partitions are
	// one Cause listing them all.
	Causes []Cause
	// Audited is false when the trial was not read back, so the rows carry
	// no audit counts.
	Audited bool
	// Verdict is the trial's verdict in one line; "" without metadata.
	Verdict string
	// Spreads are the rows by role as distributions, when the trial has
	// more partitions than Condense; nil otherwise.
	Spreads []Spread
	// Applied is, with Spreads, when each broker applied the elections
	// and ISR changes that ended the partitions' elect phases: how the
	// change spread across the cluster.
	Applied []Applied
}

// DigestRow is one partition's line of the digest.
type DigestRow struct {
	Partition int32
	Role      results.Role
	// Ack and Receive are the gaps at the fault, or where there was no
	// fault the longest; negative for none; Open when the gap had not
	// closed by the end.
	Ack         time.Duration
	AckOpen     bool
	Receive     time.Duration
	ReceiveOpen bool
	// Phases are the durations under Digest.Phases, in order; absent
	// phases are negative.
	Phases []time.Duration
	// The audit's counts, when Digest.Audited.
	Sent       int
	Acked      int
	Failed     int
	Lost       int
	Duplicated int
	Reordered  int
}

// Cause kinds beside the phase names: a receive gap's own explanation and
// a stall's note (it never ended, or the logs show no boundary).
const (
	CauseReceive = "receive"
	CauseNote    = "note"
)

// Cause is one explanation and the partitions it applies to.
type Cause struct {
	// Kind is the phase name, CauseReceive or CauseNote.
	Kind string
	// Min and Max are the phase's durations over Partitions; zero for a
	// note.
	Min time.Duration
	Max time.Duration
	// Explanation is the first partition's words, without its evidence
	// line (each partition has its own); the others' differ at most in
	// their figures.
	Explanation
	Partitions []int32
}

// phaseOrder is the order of the digest's phase columns.
var phaseOrder = []string{PhaseDetect, PhaseElect, PhaseClient, PhaseReturn, PhaseFirstAck}

// Digest builds the trial's digest.
func (tr *Trial) Digest() *Digest {
	d := &Digest{Audited: tr.Integrity != nil}
	if tr.Verdict != nil {
		d.Verdict = tr.Verdict.String()
	}
	stalls := map[int32]*Stall{}
	present := map[string]bool{}
	for i := range tr.Stalls {
		st := &tr.Stalls[i]
		stalls[st.Partition] = st
		for _, ph := range st.Phases {
			present[ph.Name] = true
		}
	}
	for _, name := range phaseOrder {
		if present[name] {
			d.Phases = append(d.Phases, name)
		}
	}
	// A phase the order does not know still gets its column, after.
	for i := range tr.Stalls {
		for _, ph := range tr.Stalls[i].Phases {
			if !slices.Contains(d.Phases, ph.Name) {
				d.Phases = append(d.Phases, ph.Name)
			}
		}
	}
	audit := map[int32]int{}
	if tr.Integrity != nil {
		for i, p := range tr.Integrity.Partitions {
			audit[p.Partition] = i
		}
	}
	if tr.Gaps != nil {
		for _, p := range tr.Gaps.Partitions {
			row := DigestRow{Partition: p.Partition, Sent: p.Sent, Acked: p.Acked, Failed: p.Failed}
			row.Ack, row.AckOpen = faultStall(p.Ack, !tr.FaultAt.IsZero())
			row.Receive, row.ReceiveOpen = faultStall(p.Receive, !tr.FaultAt.IsZero())
			row.Phases = make([]time.Duration, len(d.Phases))
			for i := range row.Phases {
				row.Phases[i] = -1
			}
			if st := stalls[p.Partition]; st != nil {
				row.Role = st.Role
				for _, ph := range st.Phases {
					row.Phases[slices.Index(d.Phases, ph.Name)] = ph.Duration
				}
			}
			if i, ok := audit[p.Partition]; ok {
				c := tr.Integrity.Partitions[i].Counts
				row.Lost, row.Duplicated, row.Reordered = c.Lost, c.Duplicated, c.Reordered
			}
			d.Rows = append(d.Rows, row)
		}
	}
	d.Causes = causes(tr.Stalls)
	if tr.Condensed() {
		d.Spreads = spreads(d.Rows)
		d.Applied = applied(tr)
	}
	return d
}

// faultStall is the fault gap, or the longest gap where there is none.
// A trial with a fault shows only the fault's gap, so that no other gap
// passes for the stall.
func faultStall(st gaps.Stalls, withFault bool) (time.Duration, bool) {
	g := st.Fault
	if !withFault {
		g = st.Longest
	}
	if g == nil {
		return -1, false
	}
	return g.Duration(), g.Open
}

// causes merges the stalls' explanations: two are one cause when they are
// of the same kind and say the same thing but for their figures (a
// duration, a broker number), and name the same settings.
func causes(stalls []Stall) []Cause {
	var out []Cause
	index := map[string]int{}
	add := func(kind string, e Explanation, part int32, d time.Duration) {
		why, setting := e.Why, e.Setting
		if why == "" && setting == "" {
			return
		}
		// A note's figures are its partition's own (a gap, its times),
		// not a range the line can show: notes merge only when equal.
		same := figureless(why)
		if kind == CauseNote {
			same = why
		}
		key := kind + "\x00" + same + "\x00" + setting
		if i, ok := index[key]; ok {
			c := &out[i]
			c.Min, c.Max = min(c.Min, d), max(c.Max, d)
			if !slices.Contains(c.Partitions, part) {
				c.Partitions = append(c.Partitions, part)
			}
			return
		}
		index[key] = len(out)
		out = append(out, Cause{Kind: kind, Min: d, Max: d, Explanation: Explanation{Why: why, Setting: setting, Settings: e.Settings}, Partitions: []int32{part}})
	}
	// By phase first, so the lines read in the order the stall ran.
	for _, name := range phaseOrder {
		for i := range stalls {
			st := &stalls[i]
			for _, ph := range st.Phases {
				if ph.Name == name {
					add(ph.Name, ph.Explanation, st.Partition, ph.Duration)
				}
			}
		}
	}
	for i := range stalls {
		st := &stalls[i]
		for _, ph := range st.Phases {
			if !slices.Contains(phaseOrder, ph.Name) {
				add(ph.Name, ph.Explanation, st.Partition, ph.Duration)
			}
		}
	}
	for i := range stalls {
		st := &stalls[i]
		if st.Receive.Why != "" {
			add(CauseReceive, st.Receive, st.Partition, 0)
		}
	}
	for i := range stalls {
		st := &stalls[i]
		if st.Note != "" {
			add(CauseNote, Explanation{Why: st.Note, Settings: st.NoteSettings}, st.Partition, 0)
		}
	}
	return out
}

// figureless is s with every run of digits (and the decimal points
// between them) as one '#', so that explanations differing only in their
// figures compare equal.
func figureless(s string) string {
	var b strings.Builder
	digits := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		isDigit := c >= '0' && c <= '9'
		if c == '.' && digits && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			continue
		}
		if isDigit {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteByte(c)
	}
	return b.String()
}
