package render

import (
	"bytes"
	"fmt"
	"time"

	"github.com/kbf-project/kbf/analysis"
)

// writeFailback writes the failback (kbf run --failback): its steps, each
// partition's stall over it with the led partitions' phases and their
// lines, and the tail latency of the minute after the election beside the
// baseline's.
func writeFailback(b *bytes.Buffer, tr *analysis.Trial) {
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

func writeAckLatency(b *bytes.Buffer, name string, l analysis.AckLatency) {
	if l.N == 0 {
		fmt.Fprintf(b, "acks %-8s none sent from %s to %s\n", name, l.From.UTC().Format("15:04:05.000"), l.To.UTC().Format("15:04:05.000"))
		return
	}
	fmt.Fprintf(b, "acks %-8s p50 %s  p99 %s  max %s  (%d records sent %s ~ %s)\n", name, ms(l.P50), ms(l.P99), ms(l.Max), l.N,
		l.From.UTC().Format("15:04:05.000"), l.To.UTC().Format("15:04:05.000"))
}

// ms is d in milliseconds, to the tenth.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// failbackJSON is report.json's failback (analysis.FailbackView), durations
// in seconds.
type failbackJSON struct {
	Broker     string                  `json:"broker"`
	NodeID     int32                   `json:"node_id"`
	Restarted  time.Time               `json:"restarted"`
	ISRFull    time.Time               `json:"isr_full,omitzero"`
	Elected    time.Time               `json:"elected,omitzero"`
	Ended      time.Time               `json:"ended,omitzero"`
	Partitions []failbackPartitionJSON `json:"partitions"`
	Baseline   ackLatencyJSON          `json:"baseline"`
	After      ackLatencyJSON          `json:"after"`
	// P99Ratio is After's p99 over Baseline's; 0 when either has no acks.
	P99Ratio float64 `json:"p99_ratio"`
	Err      string  `json:"error,omitempty"`
}

type failbackPartitionJSON struct {
	Partition  int32               `json:"partition"`
	Led        bool                `json:"led"`
	StallSec   float64             `json:"stall_sec"`
	StallStart time.Time           `json:"stall_start,omitzero"`
	StallEnd   time.Time           `json:"stall_end,omitzero"`
	MaxAckSec  float64             `json:"max_ack_sec"`
	Phases     []failbackPhaseJSON `json:"phases,omitempty"`
	Note       string              `json:"note,omitempty"`
}

type failbackPhaseJSON struct {
	Name string `json:"name"`
	spanJSON
	Evidence string `json:"evidence,omitempty"`
	Source   string `json:"source,omitempty"`
	Why      string `json:"why,omitempty"`
}

type ackLatencyJSON struct {
	From   time.Time `json:"from"`
	To     time.Time `json:"to"`
	N      int       `json:"n"`
	P50Sec float64   `json:"p50_sec"`
	P99Sec float64   `json:"p99_sec"`
	MaxSec float64   `json:"max_sec"`
}

// failbackDoc is v's JSON; nil without a failback.
func failbackDoc(v *analysis.FailbackView) *failbackJSON {
	if v == nil {
		return nil
	}
	lat := func(l analysis.AckLatency) ackLatencyJSON {
		return ackLatencyJSON{From: l.From, To: l.To, N: l.N, P50Sec: l.P50.Seconds(), P99Sec: l.P99.Seconds(), MaxSec: l.Max.Seconds()}
	}
	out := &failbackJSON{Broker: v.Broker, NodeID: v.NodeID, Restarted: v.Restarted, ISRFull: v.ISRFull, Elected: v.Elected, Ended: v.Ended,
		Baseline: lat(v.Baseline), After: lat(v.After), P99Ratio: v.After.Ratio(v.Baseline), Err: v.Err}
	for _, p := range v.Partitions {
		pj := failbackPartitionJSON{Partition: p.Partition, Led: p.Led, StallSec: p.Stall.Seconds(), StallStart: p.StallStart, StallEnd: p.StallEnd,
			MaxAckSec: p.MaxAck.Seconds(), Note: p.Note}
		for _, ph := range p.Phases {
			pj.Phases = append(pj.Phases, failbackPhaseJSON{Name: ph.Name, spanJSON: spanJSON{Start: ph.Start, End: ph.End, Sec: ph.Duration.Seconds()},
				Evidence: ph.Evidence, Source: ph.Source, Why: ph.Why})
		}
		out.Partitions = append(out.Partitions, pj)
	}
	return out
}

// writeFailbackDigest writes the failback in a line or two: each
// partition the broker leads again, its stall over the return and its
// phases, and the p99 ack latency of the minute after the election beside
// the baseline's.
func writeFailbackDigest(b *bytes.Buffer, v *analysis.FailbackView) {
	if v == nil {
		return
	}
	if v.Err != "" {
		fmt.Fprintf(b, "failback of %s: %s\n", v.Broker, v.Err)
	}
	for _, p := range v.Partitions {
		if !p.Led {
			continue
		}
		fmt.Fprintf(b, "failback p%d (%s leads again): longest ack gap %s", p.Partition, v.Broker, secs(p.Stall))
		for _, ph := range p.Phases {
			fmt.Fprintf(b, ", %s %s", ph.Name, secs(ph.Duration))
		}
		b.WriteString("\n")
	}
	if v.After.N > 0 && v.Baseline.N > 0 {
		fmt.Fprintf(b, "failback acks p50/p99: %s/%s in the minute after the election, %s/%s in the baseline (p99 %.1f×)\n",
			ms(v.After.P50), ms(v.After.P99), ms(v.Baseline.P50), ms(v.Baseline.P99), v.After.Ratio(v.Baseline))
	}
}
