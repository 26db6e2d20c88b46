package htmlreport

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/results"
)

// maxCommits bounds the commits a group lane draws: past it, each of as
// many slices of the trial's span keeps its slowest commit, and every
// failed one is kept.
const maxCommits = 2000

// groupLane is the group reader's lane (kbf run --consumer group): its
// commits' latencies against the time each ended, its assignment changes
// as markers, and the commit stall shaded. Its figures are in the trial's
// table.
type groupLane struct {
	Heading string `json:"heading"`
	// Commits are the commits drawn, in time order: of Total in the file.
	Commits commitPoints `json:"commits"`
	Total   int          `json:"total"`
	Changes []groupMark  `json:"changes,omitempty"`
	// CommitStall is the report's commit stall, nil without one.
	CommitStall *span `json:"commit_stall,omitempty"`
}

// commitPoints are the commits as columns: the time each ended, its
// latency (from its start; null for an autocommit, whose start the client
// does not say) and its error, "" when it succeeded.
type commitPoints struct {
	T   []float64  `json:"t"`
	Ms  []*float64 `json:"ms"`
	Err []string   `json:"err"`
}

// groupMark is one assignment change.
type groupMark struct {
	T    float64 `json:"t"`
	Time string  `json:"time"`
	Text string  `json:"text"`
}

type commit struct {
	t   float64
	ms  *float64
	err string
}

// readCommits reads a trial's group events (results.GroupEventsFile)
// into the lane: the commits, bounded to maxCommits, and the assignment
// changes. since places a time on the page's axis; from and to are the
// trial's span.
func (g *groupLane) readCommits(r io.Reader, name string, since func(time.Time) float64, from, to time.Time) error {
	dec := results.NewGroupEventDecoder(r, name)
	var all []commit
	for {
		var ev results.GroupEvent
		err := dec.Decode(&ev)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if ev.Kind != results.GroupCommit {
			g.Changes = append(g.Changes, groupMark{T: since(ev.Time), Time: ev.Time.UTC().Format("15:04:05.000"), Text: changeText(&ev)})
			continue
		}
		c := commit{t: since(ev.Time), err: ev.Err}
		if !ev.Start.IsZero() && !ev.Start.After(ev.Time) {
			ms := round(float64(ev.Time.Sub(ev.Start))/float64(time.Millisecond), 1e3)
			c.ms = &ms
		}
		all = append(all, c)
	}
	slices.SortStableFunc(all, func(a, b commit) int { return cmp.Compare(a.t, b.t) })
	g.Total = len(all)
	for _, c := range thinCommits(all, since(from), since(to)) {
		g.Commits.T = append(g.Commits.T, c.t)
		g.Commits.Ms = append(g.Commits.Ms, c.ms)
		g.Commits.Err = append(g.Commits.Err, c.err)
	}
	return nil
}

// thinCommits keeps every commit when there are at most maxCommits; else,
// in each of maxCommits slices of [from, to], the slowest, and every
// failed one, in time order.
func thinCommits(all []commit, from, to float64) []commit {
	if len(all) <= maxCommits || to <= from {
		return all
	}
	slowest := make([]int, maxCommits)
	for i := range slowest {
		slowest[i] = -1
	}
	var out []commit
	for i, c := range all {
		if c.err != "" {
			out = append(out, c)
			continue
		}
		b := int(float64(maxCommits) * (c.t - from) / (to - from))
		b = min(max(b, 0), maxCommits-1)
		if j := slowest[b]; j < 0 || latency(all[j]) < latency(c) {
			slowest[b] = i
		}
	}
	for _, j := range slowest {
		if j >= 0 {
			out = append(out, all[j])
		}
	}
	slices.SortStableFunc(out, func(a, b commit) int { return cmp.Compare(a.t, b.t) })
	return out
}

func latency(c commit) float64 {
	if c.ms == nil {
		return -1
	}
	return *c.ms
}

// changeText says an assignment change as the report's group section
// does: its kind, the generation (or member epoch) and the partitions.
func changeText(ev *results.GroupEvent) string {
	parts := make([]string, len(ev.Partitions))
	for i, p := range ev.Partitions {
		parts[i] = fmt.Sprintf("p%d", p)
	}
	s := fmt.Sprintf("%s, generation %d: %s", ev.Kind, ev.Generation, strings.Join(parts, " "))
	if ev.Err != "" {
		s += " (" + ev.Err + ")"
	}
	return s
}
