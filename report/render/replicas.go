package render

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

// writeReplicaSampling writes the replica view's sampling as a self-check
// line: the interval aimed at and the longest gap per broker.
func writeReplicaSampling(b *bytes.Buffer, m *results.Meta) {
	s := m.Replicas
	if s == nil {
		return
	}
	fmt.Fprintf(b, "replica view self-check: %d samples, aimed at one per broker every %v; longest gap", s.Rows, s.Interval)
	for _, id := range slices.Sorted(maps.Keys(s.LongestGap)) {
		fmt.Fprintf(b, " broker %d %.3f s,", id, s.LongestGap[id].Seconds())
	}
	fmt.Fprintf(b, " ISR/ELR state %.3f s\n", s.StateLongestGap.Seconds())
}

// writeReplicaView writes the replica view's summary.
func writeReplicaView(b *bytes.Buffer, v *analysis.ReplicaView, F time.Time) {
	if v == nil || len(v.Partitions) == 0 {
		return
	}
	at := func(t time.Time) string {
		return fmt.Sprintf("%s (%+.2fs)", t.UTC().Format("15:04:05.000"), t.Sub(F).Seconds())
	}
	b.WriteString("\nreplicas, from replicas.csv:\n")
	for _, p := range v.Partitions {
		var leos []string
		for _, r := range p.AtFault {
			leos = append(leos, fmt.Sprintf("%d:%d", r.Broker, r.Offset))
		}
		hw := "unknown"
		if p.HWAtFault >= 0 {
			hw = fmt.Sprint(p.HWAtFault)
		}
		fmt.Fprintf(b, "p%d at the fault: LEO %s, HW %s\n", p.Partition, strings.Join(leos, " "), hw)
		if h := p.HW; h != nil {
			fmt.Fprintf(b, "  HW stopped at %d %s, ", h.Offset, at(h.Stopped))
			if h.Moved.IsZero() {
				b.WriteString("never moved again while sampled\n")
			} else {
				fmt.Fprintf(b, "moved again %s\n", at(h.Moved))
			}
		}
		for _, fz := range p.Frozen {
			fmt.Fprintf(b, "  broker %d LEO froze at %d %s, ", fz.Broker, fz.Offset, at(fz.Stopped))
			if fz.Moved.IsZero() {
				b.WriteString("never moved again while sampled\n")
			} else {
				fmt.Fprintf(b, "moved again %s\n", at(fz.Moved))
			}
		}
		if t := p.TakeOver; t != nil {
			fmt.Fprintf(b, "  broker %d answered as leader %s, LEO %d\n", t.Broker, at(t.Time), t.LEO)
		}
		for i, c := range p.Changes {
			word := "state"
			if i == 0 && !c.Time.After(F) {
				word = "state at the fault"
			}
			fmt.Fprintf(b, "  %s %s: leader %d epoch %d ISR %v", word, at(c.Time), c.Leader, c.LeaderEpoch, c.ISR)
			if len(c.ELR) > 0 || len(c.LastKnownELR) > 0 {
				fmt.Fprintf(b, " ELR %v last-known ELR %v", c.ELR, c.LastKnownELR)
			}
			b.WriteString("\n")
		}
		for _, l := range p.Leaderless {
			fmt.Fprintf(b, "  no leader from %s ", at(l.From))
			if l.To.IsZero() {
				b.WriteString("on, none again while sampled")
			} else {
				fmt.Fprintf(b, "to %s", at(l.To))
			}
			b.WriteString(": the HW unknown, each live replica's LEO sampled on\n")
		}
		if p.Stale > 0 {
			fmt.Fprintf(b, "  %d state answer(s) from %s on repeated an older state than the last seen: a broker still serving the metadata it had before it lost the controller\n",
				p.Stale, at(p.FirstStale))
		}
	}
}
