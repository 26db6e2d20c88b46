package htmlreport

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

// txnLane is the transactional producer's lane (kbf run --producer
// transactional): each transaction's commit latency against the time it
// ended, those that did not commit apart, the commit stall shaded, and the
// coordinator's recovery phases as markers. Each partition's read_committed
// stall is drawn in its own lane; the figures are in the trial's table.
type txnLane struct {
	Heading string `json:"heading"`
	// Commits are the transactions drawn, in time order, of Total: a
	// committed one with no error, one that did not commit with its
	// outcome and error.
	Commits commitPoints `json:"commits"`
	Total   int          `json:"total"`
	// Phases are the coordinator's recovery phases' ends, as markers.
	Phases []groupMark `json:"phases,omitempty"`
	// CommitStall is the report's commit stall, nil without one.
	CommitStall *span `json:"commit_stall,omitempty"`
}

// txnFigures adds the transactional producer's: each partition's
// read_committed stall at the fault, in its lane and the table, and the
// transactions' row; its lane, whose transactions are set with the page.
func txnFigures(tr *analysis.Trial, m *trialModel, since func(time.Time) float64) {
	v := tr.Txn
	if v == nil {
		return
	}
	lanes := map[int32]*lane{}
	for i := range m.Lanes {
		lanes[m.Lanes[i].Partition] = &m.Lanes[i]
	}
	for i, s := range v.LSO {
		if s.Gap == nil {
			continue
		}
		if l := lanes[s.Partition]; l != nil {
			l.LSOStall = &span{Start: since(s.Gap.Start), End: since(s.Gap.End), Open: s.Gap.Open}
		}
		m.Figures = append(m.Figures, figure{Row: "p" + strconv.Itoa(int(s.Partition)), Col: "read_committed stall",
			Key: fmt.Sprintf("transactions.read_committed_stall.%d.sec", i), Value: s.Gap.Duration().Seconds(), Unit: "s"})
	}
	add := func(col, key string, v float64, unit string) {
		m.Figures = append(m.Figures, figure{Row: "transactions", Col: col, Key: key, Value: v, Unit: unit})
	}
	lane := &txnLane{Heading: fmt.Sprintf("transactions (%s, every %d records or %v): each commit's latency at the time it ended; markers: the coordinator's recovery",
		v.Settings.ID, v.Settings.Records, v.Settings.Interval)}
	if c := v.CommitStall; c != nil {
		lane.CommitStall = &span{Start: since(c.Start), End: since(c.End), Open: c.Open}
		add("commit stall", "transactions.commit_stall.sec", c.Duration().Seconds(), "s")
	}
	add("committed", "transactions.committed", float64(v.Committed), "")
	add("aborted", "transactions.aborted", float64(v.Aborted), "")
	add("timed out", "transactions.timed_out", float64(v.TimedOut), "")
	if r := tr.TxnRecovery; r != nil {
		for _, ph := range r.Phases {
			lane.Phases = append(lane.Phases, groupMark{T: since(ph.End), Time: ph.End.UTC().Format("15:04:05.000"),
				Text: fmt.Sprintf("%s ended (%.2f s): %s", ph.Name, ph.Duration.Seconds(), ph.Evidence)})
		}
	}
	m.Txn = lane
}

// setCommits puts the transactions evs in the lane, bounded to
// maxCommits as a group's commits are: a committed one's latency from its
// commit's start, one that did not commit marked by its outcome.
func (l *txnLane) setCommits(evs []results.TxnEvent, since func(time.Time) float64, from, to time.Time) {
	all := make([]commit, 0, len(evs))
	for _, ev := range evs {
		c := commit{t: since(ev.End)}
		if !ev.CommitStart.IsZero() && !ev.CommitStart.After(ev.End) {
			ms := round(float64(ev.End.Sub(ev.CommitStart))/float64(time.Millisecond), 1e3)
			c.ms = &ms
		}
		if ev.Outcome != results.TxnCommitted {
			c.err = string(ev.Outcome)
			if ev.Err != "" {
				c.err += ": " + ev.Err
			}
		}
		all = append(all, c)
	}
	slices.SortStableFunc(all, func(a, b commit) int { return cmp.Compare(a.t, b.t) })
	l.Total = len(all)
	l.Commits = commitPoints{T: []float64{}, Ms: []*float64{}, Err: []string{}}
	for _, c := range thinCommits(all, since(from), since(to)) {
		l.Commits.T = append(l.Commits.T, c.t)
		l.Commits.Ms = append(l.Commits.Ms, c.ms)
		l.Commits.Err = append(l.Commits.Err, c.err)
	}
}
