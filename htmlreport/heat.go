package htmlreport

import (
	"cmp"
	"slices"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

// A trial of more partitions than analysis.Condense — the number past which
// the text and JSON reports show distributions rather than a line per
// partition — is drawn as one heat map rather than a lane each: a dozen
// lanes still read, a thousand charts neither read nor load. HeatGaps
// bounds what the map holds: its rows share HeatGaps gaps, each row
// keeping its longest, HeatRowGaps at least, so the page grows with
// neither the trial's length nor, past HeatGaps / HeatRowGaps partitions,
// more than HeatRowGaps gaps a partition.
const (
	HeatGaps    = 20000
	HeatRowGaps = 16
)

// heatMap is a condensed trial's lanes: a row per partition, the led
// ones first, then the followed, then the rest, each by partition number;
// in each row the partition's ack gaps longer than Bound, the stall
// bound the run judged by (analysis.SteadyBound). The page colours each
// column of a row by the longest gap overlapping it, and draws the
// fault and the shared phase boundaries across the rows and each
// partition's own boundaries on its row. Times are seconds since the
// trial's origin.
type heatMap struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Bound float64 `json:"bound"`
	// Phases name the phases the rows' ticks end, in the order the report
	// gives them.
	Phases []string   `json:"phases,omitempty"`
	Marks  []heatMark `json:"marks,omitempty"`
	Rows   []heatRow  `json:"rows"`
}

// heatMark is a boundary every partition shares (the fault, the
// broker's fencing), drawn across the map.
type heatMark struct {
	T        float64 `json:"t"`
	Kind     string  `json:"kind"`
	Phase    string  `json:"phase,omitempty"`
	Evidence string  `json:"evidence,omitempty"`
	Source   string  `json:"source,omitempty"`
}

// heatRow is one partition. Gaps are its ack gaps longer than the
// bound, in time order: from its first send to its first ack, between
// two consecutive acks, and from its last ack to the trial's end; Open
// says the last had not ended when the trial did. Left counts the gaps
// left out for HeatGaps, the shortest, LeftMax the longest of those.
// Ticks are the partition's own phase boundaries: a time and an index
// into heatMap.Phases.
type heatRow struct {
	Partition int32        `json:"partition"`
	Role      string       `json:"role,omitempty"`
	First     float64      `json:"first"`
	Gaps      [][2]float64 `json:"gaps,omitempty"`
	Open      bool         `json:"open,omitempty"`
	Left      int          `json:"left,omitempty"`
	LeftMax   float64      `json:"left_max,omitempty"`
	Ticks     [][2]float64 `json:"ticks,omitempty"`
}

// heatBuilder gathers a heat map while the probe CSV streams: the gaps
// over the bound between acks (analysis.LongGaps: exact whatever order the
// rows come in, and it keeps the gaps, never the times), and each
// partition's first send and first ack, for the gap before the first ack.
type heatBuilder struct {
	bound  time.Duration
	end    time.Time
	long   *analysis.LongGaps
	firsts map[int32]*firsts
}

// firsts are a partition's first send and first ack, Unix ns; ack is 0
// before any.
type firsts struct{ sent, ack int64 }

func newHeatBuilder(tr *analysis.Trial, end time.Time) *heatBuilder {
	long := analysis.NewLongGaps(tr, end)
	return &heatBuilder{bound: long.Bound, end: end, long: long, firsts: map[int32]*firsts{}}
}

func (h *heatBuilder) add(m *results.Message) {
	h.long.Add(m)
	f := h.firsts[m.Partition]
	if f == nil {
		f = &firsts{sent: m.Sent.UnixNano()}
		h.firsts[m.Partition] = f
	}
	f.sent = min(f.sent, m.Sent.UnixNano())
	if !m.Acked.IsZero() && (f.ack == 0 || m.Acked.UnixNano() < f.ack) {
		f.ack = m.Acked.UnixNano()
	}
}

// heatSpan is a gap as the builder keeps it before it is cut to the row's
// share.
type heatSpan struct {
	start, end time.Time
	open       bool
}

// build lays a row out for each lane, in the report's order of roles,
// and keeps each row's share of HeatGaps. A lane's role is its stall's:
// "" where the logs did not say.
func (h *heatBuilder) build(tr *analysis.Trial, lanes []lane, from, to, origin time.Time) *heatMap {
	since := func(t time.Time) float64 { return round(t.Sub(origin).Seconds(), 1e6) }
	h.long.Close()
	spans := map[int32][]heatSpan{}
	for _, lp := range h.long.Partitions {
		for _, g := range lp.Ack {
			spans[lp.Partition] = append(spans[lp.Partition], heatSpan{g.Start, g.End, g.Open})
		}
	}
	hm := &heatMap{From: since(from), To: since(to), Bound: h.bound.Seconds()}
	share := max(HeatRowGaps, HeatGaps/max(len(lanes), 1))
	for _, l := range lanes {
		p := l.Partition
		row := heatRow{Partition: p, Role: l.Role}
		var ss []heatSpan
		if f := h.firsts[p]; f != nil {
			row.First = since(time.Unix(0, f.sent))
			switch {
			case f.ack == 0:
				ss = []heatSpan{{time.Unix(0, f.sent), h.end, true}}
			case time.Duration(f.ack-f.sent) > h.bound:
				ss = []heatSpan{{time.Unix(0, f.sent), time.Unix(0, f.ack), false}}
			}
		}
		ss = append(ss, spans[p]...)
		ss, row.Left, row.LeftMax = longest(ss, share)
		for _, s := range ss {
			row.Gaps = append(row.Gaps, [2]float64{since(s.start), since(s.end)})
		}
		row.Open = len(ss) > 0 && ss[len(ss)-1].open
		hm.Rows = append(hm.Rows, row)
	}
	rank := map[string]int{string(results.RoleLed): 0, string(results.RoleFollowed): 1, string(results.RoleNone): 2}
	slices.SortStableFunc(hm.Rows, func(a, b heatRow) int {
		ra, ok := rank[a.Role]
		if !ok {
			ra = 3
		}
		rb, ok := rank[b.Role]
		if !ok {
			rb = 3
		}
		if c := cmp.Compare(ra, rb); c != 0 {
			return c
		}
		return cmp.Compare(a.Partition, b.Partition)
	})
	h.boundaries(hm, tr, since)
	return hm
}

// longest keeps the n longest of ss, in time order, and says how many it
// left out and the longest of those, in seconds.
func longest(ss []heatSpan, n int) (kept []heatSpan, left int, leftMax float64) {
	if len(ss) <= n {
		return ss, 0, 0
	}
	byLength := slices.Clone(ss)
	slices.SortStableFunc(byLength, func(a, b heatSpan) int { return cmp.Compare(b.end.Sub(b.start), a.end.Sub(a.start)) })
	kept = byLength[:n]
	slices.SortFunc(kept, func(a, b heatSpan) int { return a.start.Compare(b.start) })
	return kept, len(ss) - n, round(byLength[n].end.Sub(byLength[n].start).Seconds(), 1e6)
}

// boundaries puts the report's boundaries on the map: the shared ones as
// marks, a partition's own as ticks on its row. A fault the logs said
// nothing of is still marked.
func (h *heatBuilder) boundaries(hm *heatMap, tr *analysis.Trial, since func(time.Time) float64) {
	rows := map[int32]*heatRow{}
	for i := range hm.Rows {
		rows[hm.Rows[i].Partition] = &hm.Rows[i]
	}
	fault := false
	for _, b := range tr.Boundaries {
		if b.Partition < 0 {
			hm.Marks = append(hm.Marks, heatMark{T: since(b.Time), Kind: string(b.Kind), Phase: b.Phase, Evidence: b.Evidence, Source: b.Source})
			fault = fault || b.Kind == analysis.BoundaryFault
			continue
		}
		row := rows[b.Partition]
		if row == nil {
			continue
		}
		i := slices.Index(hm.Phases, b.Phase)
		if i < 0 {
			i = len(hm.Phases)
			hm.Phases = append(hm.Phases, b.Phase)
		}
		row.Ticks = append(row.Ticks, [2]float64{since(b.Time), float64(i)})
	}
	if !fault && !tr.FaultAt.IsZero() {
		hm.Marks = slices.Insert(hm.Marks, 0, heatMark{T: since(tr.FaultAt), Kind: string(analysis.BoundaryFault)})
	}
}
