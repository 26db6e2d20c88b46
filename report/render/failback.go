package render

import (
	"bytes"
	"fmt"
	"time"

	"github.com/kbf-project/kbf/report"
)

// writeFailback writes the failback (kbf run --failback): its steps, each
// partition's stall over it with the led partitions' phases and their
// lines, and the tail latency of the minute after the election beside the
// baseline's.
func writeFailback(b *bytes.Buffer, tr *report.Trial) {
	v := tr.Failback
	if v == nil {
		return
	}
	fmt.Fprintf(b, "\nfailback of %s (node %d), with the probe running: restarted at %s", v.Broker, v.NodeID, v.Restarted.UTC().Format("15:04:05.000"))
	if !v.ISRFull.IsZero() {
		fmt.Fprintf(b, ", every ISR full %s later", secs(v.ISRFull.Sub(v.Restarted)))
	}
	if !v.Elected.IsZero() {
		fmt.Fprintf(b, ", preferred leaders elected %s after that", secs(v.Elected.Sub(v.ISRFull)))
	}
	b.WriteString("\n")
	if v.Err != "" {
		fmt.Fprintf(b, "  error: %s\n", v.Err)
	}
	for _, p := range v.Partitions {
		role := "follows"
		if p.Led {
			role = "leads"
		}
		fmt.Fprintf(b, "p%-3d %s again  longest ack gap %s", p.Partition, role, secs(p.Stall))
		if p.Stall > 0 {
			fmt.Fprintf(b, " (%s ~ %s)", p.StallStart.UTC().Format("15:04:05.000"), p.StallEnd.UTC().Format("15:04:05.000"))
		}
		fmt.Fprintf(b, "  longest ack %s\n", secs(p.MaxAck))
		for _, ph := range p.Phases {
			fmt.Fprintf(b, "  %-13s %s", ph.Name, secs(ph.Duration))
			if ph.Evidence != "" {
				fmt.Fprintf(b, "  %s [%s]", ph.Evidence, ph.Source)
			}
			fmt.Fprintf(b, "\n                why: %s\n", ph.Why)
		}
		if p.Note != "" {
			fmt.Fprintf(b, "  note: %s\n", p.Note)
		}
	}
	writeAckLatency(b, "baseline", v.Baseline)
	writeAckLatency(b, "after", v.After)
	if r := v.After.Ratio(v.Baseline); r > 0 {
		fmt.Fprintf(b, "p99 ack latency of the minute after the election: %.1f× the baseline's\n", r)
	}
}

func writeAckLatency(b *bytes.Buffer, name string, l report.AckLatency) {
	if l.N == 0 {
		fmt.Fprintf(b, "acks %-8s none sent from %s to %s\n", name, l.From.UTC().Format("15:04:05.000"), l.To.UTC().Format("15:04:05.000"))
		return
	}
	fmt.Fprintf(b, "acks %-8s p50 %s  p99 %s  max %s  (%d records sent %s ~ %s)\n", name, ms(l.P50), ms(l.P99), ms(l.Max), l.N,
		l.From.UTC().Format("15:04:05.000"), l.To.UTC().Format("15:04:05.000"))
}

// ms is d in milliseconds, to the tenth.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
