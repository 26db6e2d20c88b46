package experiment

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kbf-project/kbf/probe"
)

// Watch shows the probe's progress on rep once a second until ctx is done.
// phase names what the trial is doing; it is read from Watch's goroutine.
func Watch(ctx context.Context, rep Reporter, phase func() string, p Probe, start time.Time) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			rep.Live(progressLine(phase(), now, start, p.Progress()))
		}
	}
}

// progressLine is one status line: the phase, the time since the probe
// started, and each partition's time since its last ack.
func progressLine(phase string, now, start time.Time, stats []probe.PartitionStats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %5.1fs", phase, now.Sub(start).Seconds())
	for _, s := range stats {
		age := "-"
		if !s.LastAck.IsZero() {
			age = fmt.Sprintf("%.2fs", now.Sub(s.LastAck).Seconds())
		}
		fmt.Fprintf(&b, "  p%d ack age %s", s.Partition, age)
		if s.Failed > 0 {
			fmt.Fprintf(&b, " (%d failed)", s.Failed)
		}
	}
	return b.String()
}
