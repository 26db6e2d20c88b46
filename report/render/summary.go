package render

import (
	"bytes"
	"fmt"
	"io"

	"github.com/kbf-project/kbf/analysis"
)

// WriteSummaryText writes the summary as the blog did, one measure a line.
func WriteSummaryText(w io.Writer, s *analysis.Summary) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "summary of %d trials (%v)\n", s.Trials, s.Faults)
	row := func(name string, r analysis.Range) {
		fmt.Fprintf(&b, "  %-45s %s\n", name, r) // as wide as the longest label
	}
	row("detection (fault → fence or shutdown granted)", s.Detect)
	row("election + client (→ producer on new leader)", s.ElectAndClient)
	row("ack gap, partitions the broker led", s.LeaderGap)
	row("ack gap, partitions the broker followed", s.FollowerGap)
	row("ack gap, every partition", s.AnyGap)
	row("receive gap, every partition", s.ReceiveGap)
	for _, name := range []string{analysis.PhaseDetect, analysis.PhaseElect, analysis.PhaseClient, analysis.PhaseReturn, analysis.PhaseFirstAck} {
		if r := s.Phases[name]; r != nil {
			row("phase "+name, *r)
		}
	}
	fmt.Fprintf(&b, "  failed sends %d; acknowledged records lost %d, duplicated %d, reordered %d\n",
		s.FailedSends, s.Lost, s.Duplicated, s.Reordered)
	if g := s.Group; g != nil {
		row("group reader: processing gap, any partition", g.Stall)
		row("group reader: commit stall", g.Commit)
		if g.Load.N > 0 {
			row("group's new coordinator: load", g.Load)
		}
		fmt.Fprintf(&b, "  group reader: %d rebalances, %d records processed again\n", g.Rebalances, g.Reprocessed)
	}
	if x := s.Txn; x != nil {
		row("transactions: commit stall", x.Commit)
		row("transactions: read_committed stall", x.LSO)
		if x.Load.N > 0 {
			row("transactions' new coordinator: load", x.Load)
		}
		fmt.Fprintf(&b, "  transactions: %d committed, %d aborted, %d timed out\n", x.Committed, x.Aborted, x.TimedOut)
	}
	writeClientSummary(&b, s)
	if s.Escalated > 0 {
		fmt.Fprintf(&b, "  %d graceful stops outlived their grace period and were SIGKILLed\n", s.Escalated)
	}
	if n := len(s.LeftOut); n > 0 {
		fmt.Fprintf(&b, "  %d trials left out, not valid:\n", n)
		for _, l := range s.LeftOut {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}
