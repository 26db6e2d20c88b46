package analysis

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// StallBound is a stall's time against what its phases' settings allow:
// Low and High sum the stated bounds, Unbounded is the time of the phases
// with none, and Excess sums how far phases ran beyond theirs.
type StallBound struct {
	Low, High, Unbounded, Excess time.Duration
	// Bounded counts the phases with a stated bound, Beyond those past it.
	Bounded, Beyond int
	// Open is, for a stall still open when probing stopped, how long it
	// had lasted; Past how much of that ran beyond everything its phases
	// allow (High and Unbounded, and the bound of the phase in progress,
	// Pending, when it has one): time in a phase no line ended.
	Open, Past time.Duration
	Pending    Phase
}

// Expected is the stall's phases against their bounds.
func (st *Stall) Expected() StallBound {
	b := expectedOf(st.Phases)
	if st.OpenFor > 0 && b.Bounded > 0 {
		b.Open, b.Pending = st.OpenFor, st.Pending
		// Past is said only against a phase in progress with a bound: a
		// stall held by what no setting bounds (a cut that leaves a leader
		// alone in its ISR lasts as long as the cut) is past nothing.
		if st.Pending.Name != "" && st.Pending.Bound.Stated {
			b.Past = max(0, st.OpenFor-b.High-b.Unbounded-st.Pending.Bound.High)
		}
	}
	return b
}

func expectedOf(ps Phases) StallBound {
	var b StallBound
	for _, ph := range ps {
		if !ph.Bound.Stated {
			b.Unbounded += ph.Duration
			continue
		}
		b.Bounded++
		b.Low += ph.Bound.Low
		b.High += ph.Bound.High
		if ph.Bound.Beyond() {
			b.Beyond++
			b.Excess += ph.Bound.Excess
		}
	}
	return b
}

// String says the stall against its bound in words: "settings allow
// 6.00–9.00 s of it, 0.31 s more in phases no setting bounds; 0.92 s
// beyond".
func (b StallBound) String() string {
	if b.Bounded == 0 {
		return "no phase of it has a bound its settings state"
	}
	s := fmt.Sprintf("its settings allow %s–%s", secs(b.Low), secs(b.High))
	if b.Unbounded > 0 {
		s += fmt.Sprintf(", and %s more in phases no setting bounds", secs(b.Unbounded))
	}
	switch {
	case b.Excess > 0:
		s += fmt.Sprintf("; %s beyond, in %d phase(s)", secs(b.Excess), b.Beyond)
	case b.Past == 0:
		s += "; every bounded phase within"
	}
	return s + b.openText()
}

// openText says where a stall still open when probing stopped stood
// against its bounds; "" for one that ended.
func (b StallBound) openText() string {
	if b.Open == 0 {
		return ""
	}
	p := b.Pending
	switch {
	case p.Name == "":
		return fmt.Sprintf("; still stalled when probing stopped, %s after it began, in no phase kbf can bound (its note says what held it)", secs(b.Open))
	case !p.Bound.Stated:
		return fmt.Sprintf("; still stalled when probing stopped, %s after it began, in the %s phase from %s, which has no bound stated", secs(b.Open), p.Name, clock(p.Start))
	}
	pending := fmt.Sprintf(" (the %s phase in progress from %s allowed up to %s)", p.Name, clock(p.Start), secs(p.Bound.High))
	if b.Past > 0 {
		return fmt.Sprintf("; still stalled when probing stopped, %s after it began: at least %s past all of that%s", secs(b.Open), secs(b.Past), pending)
	}
	return fmt.Sprintf("; still stalled when probing stopped, %s after it began, not yet past what its phases allow%s: a longer --duration would show its end", secs(b.Open), pending)
}

// Overrun is one phase that ran past its bound, with where it was: a
// partition's stall ("p0", and the others it shares the line with) or a
// coordinator's recovery.
type Overrun struct {
	Where []string
	Phase Phase
}

// Expectation is the trial's phases against their bounds at a glance:
// decided once here, for the digest, the JSON report and the metrics.
type Expectation struct {
	// Bounded counts the phases with a stated bound, Unbounded those
	// without, over every chain.
	Bounded, Unbounded int
	// Overruns are the phases beyond their bounds, one per cited line.
	Overruns []Overrun
	// Unended are the stalls still open when probing stopped past what
	// their phases allow (StallBound.Past).
	Unended []Unended
}

// Unended is a partition's stall that no ack ended, run past what its
// phases' settings allow.
type Unended struct {
	Partition  int32
	Open, Past time.Duration
}

// Expected is the trial's phases against their bounds.
func (tr *Trial) Expected() Expectation {
	var x Expectation
	byLine := map[string]int{}
	add := func(where string, ps Phases) {
		for _, ph := range ps {
			switch {
			case !ph.Bound.Stated:
				x.Unbounded++
				continue
			case !ph.Bound.Beyond():
				x.Bounded++
				continue
			}
			x.Bounded++
			key := ph.Name + "|" + ph.Source
			if i, ok := byLine[key]; ok {
				x.Overruns[i].Where = append(x.Overruns[i].Where, where)
				continue
			}
			byLine[key] = len(x.Overruns)
			x.Overruns = append(x.Overruns, Overrun{Where: []string{where}, Phase: ph})
		}
	}
	for _, st := range tr.Stalls {
		add(fmt.Sprintf("p%d", st.Partition), st.Phases)
		if b := st.Expected(); b.Past > 0 {
			x.Unended = append(x.Unended, Unended{Partition: st.Partition, Open: b.Open, Past: b.Past})
		}
	}
	if q := tr.Quorum; q != nil {
		add("quorum", q.Phases)
	}
	if r := tr.Recovery; r != nil {
		add(r.label, r.Phases)
	}
	if r := tr.TxnRecovery; r != nil {
		add(r.label, r.Phases)
	}
	return x
}

// Line is the expectation in one line, for the digest: one line when every
// bounded phase was within its bound, else one per overrun after it; ""
// when no phase has a bound.
func (x Expectation) Line() string {
	if x.Bounded == 0 {
		return ""
	}
	if len(x.Overruns) == 0 && len(x.Unended) == 0 {
		return fmt.Sprintf("bounds: every phase within what its settings allow (%d bounded, %d with no bound stated; docs/bounds.md)", x.Bounded, x.Unbounded)
	}
	var b strings.Builder
	var what []string
	if len(x.Overruns) > 0 {
		what = append(what, fmt.Sprintf("%d phase(s) beyond what their settings allow", len(x.Overruns)))
	}
	if len(x.Unended) > 0 {
		what = append(what, fmt.Sprintf("%d stall(s) still open past all their phases allow", len(x.Unended)))
	}
	fmt.Fprintf(&b, "bounds: %s (%d bounded, %d with no bound stated; docs/bounds.md):", strings.Join(what, "; "), x.Bounded, x.Unbounded)
	for _, o := range x.Overruns {
		ph := o.Phase
		fmt.Fprintf(&b, "\n  %s %s: %s, %s beyond %s [%s]", where(o.Where), ph.Name, secs(ph.Duration), secs(ph.Bound.Excess), boundRange(ph.Bound), ph.Source)
	}
	for _, u := range x.Unended {
		fmt.Fprintf(&b, "\n  p%d: still stalled when probing stopped, %s after it began: at least %s past what its phases allow", u.Partition, secs(u.Open), secs(u.Past))
	}
	return b.String()
}

// boundRange is a bound's range: "(6.00 s, 9.00 s]".
func boundRange(b Bound) string {
	return fmt.Sprintf("(%s, %s]", secs(b.Low), secs(b.High))
}

// where names the chains a line applies to, the first few.
func where(ws []string) string {
	ws = slices.Clone(ws)
	if len(ws) > 4 {
		return strings.Join(ws[:4], ", ") + fmt.Sprintf(" and %d more", len(ws)-4)
	}
	return strings.Join(ws, ", ")
}

// Beyond is how far the trial's phases ran beyond their bounds on a
// partition: its stall's excess and the coordinators' recoveries'.
func beyondOf(st *Stall, rs ...*CoordinatorRecovery) time.Duration {
	var d time.Duration
	if st != nil {
		b := st.Expected()
		d += b.Excess + b.Past
	}
	for _, r := range rs {
		if r != nil {
			d += expectedOf(r.Phases).Excess
		}
	}
	return d
}
