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
// end says when the probe is due to stop, to say the time left: read at
// each line, since a baseline that made the fault wait moves it; nil or a
// zero time when it is not known.
func Watch(ctx context.Context, rep Reporter, phase func() string, p Probe, start time.Time, end func() time.Time) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			var e time.Time
			if end != nil {
				e = end()
			}
			rep.Live(progressLine(phase(), now, start, e, p.Progress()))
		}
	}
}

// progressLine is one status line: the phase, the time since the probe
// started and the time left, and each partition's time since its last ack,
// the number a person watches rise through a stall.
func progressLine(phase string, now, start, end time.Time, stats []probe.PartitionStats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %5.1fs", phase, now.Sub(start).Seconds())
	if !end.IsZero() {
		// Past the end the probe is stopping, or recovery is running:
		// nothing is left of the probing, and a negative count would
		// read as a fault.
		fmt.Fprintf(&b, " %5.1fs left", max(end.Sub(now), 0).Seconds())
	}
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
