package render

import (
	"bytes"
	"fmt"

	"github.com/kbf-project/kbf/analysis"
)

// writeQuorum writes the quorum's gap for the text report: the faulted
// leader, then each line that bounds the gap, timed from the fault.
func writeQuorum(b *bytes.Buffer, q *analysis.QuorumGap) {
	epoch := ""
	if q.Epoch >= 0 {
		epoch = fmt.Sprintf(", leader at epoch %d", q.Epoch)
	}
	if q.Elected != nil {
		fmt.Fprintf(b, "\nquorum: no leader for %.2f s after the fault of its active controller %s (node %d%s):\n",
			q.Leaderless.Seconds(), q.Controller, q.NodeID, epoch)
	} else {
		fmt.Fprintf(b, "\nquorum: no new leader after the fault of its active controller %s (node %d%s):\n", q.Controller, q.NodeID, epoch)
	}
	line := func(name string, l *analysis.LogLine) {
		fmt.Fprintf(b, "  %-9s %+6.2f s, %s: %s %s [%s]\n", name, l.Time.Sub(q.Fault.Time).Seconds(),
			l.Time.UTC().Format("15:04:05.000"), l.Node, l.Evidence, l.Source)
	}
	if q.Led != nil {
		line("led", q.Led)
	}
	line("fault", &q.Fault)
	if q.Noticed != nil {
		line("noticed", q.Noticed)
	}
	if q.Elected != nil {
		line("elected", q.Elected)
	}
	if q.Why != "" {
		fmt.Fprintf(b, "            why: %s\n", q.Why)
	}
	if q.Setting != "" {
		fmt.Fprintf(b, "            shorten: %s\n", q.Setting)
	}
	for _, ph := range q.Phases {
		if ph.Bound.Stated || ph.Bound.Basis != "" {
			fmt.Fprintf(b, "  %-12s %5.2f s\n", ph.Name, ph.Duration.Seconds())
			writeBound(b, "            ", ph)
		}
	}
	if q.Note != "" {
		fmt.Fprintf(b, "  note: %s\n", q.Note)
	}
	if d := q.DataPath; d != nil {
		fmt.Fprintf(b, "  data path: %s\n", d)
	}
}

// writeQuorumDigest writes the quorum's gap in the digest's form of a
// cause: the figure, who, why, and what would shorten it.
func writeQuorumDigest(b *bytes.Buffer, q *analysis.QuorumGap) {
	if q.Elected == nil {
		fmt.Fprintf(b, "quorum (%s): %s\n", q.Controller, q.Note)
	} else {
		fmt.Fprintf(b, "quorum %.2f s (%s -> %s, epoch %d): %s; shorten: %s\n",
			q.Leaderless.Seconds(), q.Controller, q.NewLeader, q.NewEpoch, q.Why, q.Setting)
	}
	if d := q.DataPath; d != nil {
		fmt.Fprintf(b, "data path: %s\n", d)
	}
}
