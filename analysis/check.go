package analysis

import (
	"fmt"
	"slices"
	"time"

	"github.com/kbf-project/kbf/timeline"
)

// The analysis checks its own explanations before it reports them: a
// phase that cites a log line ends at that line's time, a stall's phases
// follow each other from its start to its first ack and add up to it, and
// the boundaries a picture draws are in time order, each at the time of the
// line it cites. An explanation that fails is a bug of the analysis, never
// something to print: its stall loses its phases and says why.

// Violation is one way an explanation disagrees with its own evidence.
type Violation struct {
	// Partition is the stall's partition; -1 for a boundary the trial's
	// partitions share.
	Partition int32
	What      string
}

func (v Violation) String() string {
	if v.Partition < 0 {
		return v.What
	}
	return fmt.Sprintf("p%d: %s", v.Partition, v.What)
}

// evidenceTimes maps each cited source ("c1/controller.log:92") to the
// times of tl's events read from it: one, but for the fault record, which
// dates several.
func evidenceTimes(tl *timeline.Timeline) map[string][]time.Time {
	idx := map[string][]time.Time{}
	if tl == nil {
		return idx
	}
	for _, evs := range [][]timeline.Event{tl.Events, tl.Client} {
		for i := range evs {
			if s := evs[i].Source; s != "" {
				idx[s] = append(idx[s], evs[i].Time)
			}
		}
	}
	return idx
}

// citedAt says what is wrong with a citation of source at t, or "".
func citedAt(idx map[string][]time.Time, what, source string, t time.Time) string {
	times, ok := idx[source]
	if !ok {
		return fmt.Sprintf("%s cites [%s], which the timeline does not hold", what, source)
	}
	for _, at := range times {
		if at.Equal(t) {
			return ""
		}
	}
	return fmt.Sprintf("%s is at %s but its evidence [%s] is stamped %s", what, clock(t), source, clock(times[0]))
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }

// CheckStall returns every way st's phases disagree with the evidence in
// idx (evidenceTimes) and with each other, for a fault at F.
func CheckStall(st *Stall, F time.Time, idx map[string][]time.Time) []Violation {
	var out []Violation
	bad := func(format string, args ...any) {
		out = append(out, Violation{Partition: st.Partition, What: fmt.Sprintf(format, args...)})
	}
	if len(st.Phases) == 0 {
		return nil
	}
	prev := F.Add(st.Began)
	var sum time.Duration
	for _, ph := range st.Phases {
		if ph.Overlap > 0 {
			// Out of order: at its own line, before the boundary before it.
			if !ph.Start.Equal(ph.End) || ph.Duration != 0 || !ph.End.Add(ph.Overlap).Equal(prev) {
				bad("%s, out of order, runs %s → %s (%s), %s before %s", ph.Name, clock(ph.Start), clock(ph.End), ph.Duration, ph.Overlap, clock(prev))
			}
			if w := citedAt(idx, ph.Name, ph.Source, ph.End); ph.Source != "" && w != "" {
				bad("%s", w)
			}
			continue
		}
		if !ph.Start.Equal(prev) {
			bad("%s starts at %s, not where the phase before it ended (%s)", ph.Name, clock(ph.Start), clock(prev))
		}
		if ph.End.Before(prev) {
			bad("%s ends at %s, before the boundary before it (%s)", ph.Name, clock(ph.End), clock(prev))
		}
		if d := ph.End.Sub(prev); ph.Duration != d {
			bad("%s lasts %s, but runs %s → %s (%s)", ph.Name, ph.Duration, clock(prev), clock(ph.End), d)
		}
		if ph.Source != "" {
			if w := citedAt(idx, ph.Name, ph.Source, ph.End); w != "" {
				bad("%s", w)
			}
		}
		if !st.FirstAck.IsZero() && ph.End.After(st.FirstAck) {
			bad("%s ends at %s, after the stall's first ack at %s", ph.Name, clock(ph.End), clock(st.FirstAck))
		}
		sum += ph.Duration
		prev = ph.End
	}
	if !st.FirstAck.IsZero() {
		if !prev.Equal(st.FirstAck) {
			bad("the last phase ends at %s, not at the first ack (%s)", clock(prev), clock(st.FirstAck))
		}
		if sum != st.Total {
			bad("the phases add up to %s, the stall is %s", sum, st.Total)
		}
	}
	return out
}

// CheckBoundaries returns every way bs disagree with the evidence in idx:
// out of time order, or away from the line they cite.
func CheckBoundaries(bs []Boundary, idx map[string][]time.Time) []Violation {
	var out []Violation
	for i, bd := range bs {
		if i > 0 && bd.Time.Before(bs[i-1].Time) {
			out = append(out, Violation{Partition: bd.Partition, What: fmt.Sprintf("boundary %s at %s comes after %s at %s", bd.Kind, clock(bd.Time), bs[i-1].Kind, clock(bs[i-1].Time))})
		}
		if bd.Source != "" {
			if w := citedAt(idx, "boundary "+string(bd.Kind), bd.Source, bd.Time); w != "" {
				out = append(out, Violation{Partition: bd.Partition, What: w})
			}
		}
	}
	return out
}

// CheckExplanations returns every way tr's explanations disagree with their evidence;
// none for a trial the analysis got right.
func (tr *Trial) CheckExplanations() []Violation {
	idx := evidenceTimes(tr.Timeline)
	var out []Violation
	for i := range tr.Stalls {
		out = append(out, CheckStall(&tr.Stalls[i], tr.FaultAt, idx)...)
	}
	return append(out, CheckBoundaries(tr.Boundaries, idx)...)
}

// checksOf is the phases ph with every stall's phases that fail the check
// against the evidence ev dropped, and the boundaries that fail it, saying
// why in the stall's note and in ph's notes: a report never prints an
// explanation its evidence contradicts.
func checksOf(ev *evidence, ph phases) phases {
	idx := evidenceTimes(ev.tl)
	out := phases{stalls: slices.Clone(ph.stalls), boundaries: slices.Clone(ph.boundaries), notes: slices.Clone(ph.notes)}
	for i := range out.stalls {
		st := &out.stalls[i]
		vs := CheckStall(st, ev.F, idx)
		if len(vs) == 0 {
			continue
		}
		st.Phases = nil
		st.Violations = append(slices.Clip(st.Violations), vs...)
		st.Note = joinNote(st.Note, fmt.Sprintf("not split into phases: the analysis contradicted its evidence (%s), a bug of kbf's", vs[0].What))
		out.notes = append(out.notes, note{text: fmt.Sprintf("p%d: phases dropped, they failed the check against their evidence: %s", st.Partition, vs[0].What)})
	}
	vs := CheckBoundaries(out.boundaries, idx)
	if len(vs) == 0 {
		return out
	}
	out.notes = append(out.notes, note{text: fmt.Sprintf("boundaries dropped, they failed the check against their evidence: %s", vs[0].What)})
	out.boundaries = slices.DeleteFunc(out.boundaries, func(bd Boundary) bool {
		return bd.Source != "" && citedAt(idx, "", bd.Source, bd.Time) != ""
	})
	sortBoundaries(out.boundaries)
	return out
}

func joinNote(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}
