package experiment

import (
	"context"
	"fmt"
	"slices"
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
	if len(stats) > progressPartitions {
		writeAges(&b, now, stats)
		return b.String()
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

// progressPartitions is the number of partitions past which the progress
// line gives the ack ages' spread, not each partition's: the line stays
// one terminal line at a thousand partitions. It is analysis.Condense, the
// same bound the reports condense at (the run imports no analysis).
const progressPartitions = 12

// writeAges writes the ack ages of many partitions: the median, the
// oldest and its partition, those not acked yet, and the failed sends.
func writeAges(b *strings.Builder, now time.Time, stats []probe.PartitionStats) {
	var ages []time.Duration
	oldest, none := int32(-1), 0
	var oldestAge time.Duration
	var failed int64
	for _, s := range stats {
		failed += s.Failed
		if s.LastAck.IsZero() {
			none++
			continue
		}
		a := now.Sub(s.LastAck)
		ages = append(ages, a)
		if oldest < 0 || a > oldestAge {
			oldest, oldestAge = s.Partition, a
		}
	}
	var parts []string
	if len(ages) > 0 {
		slices.Sort(ages)
		parts = append(parts, fmt.Sprintf("ack age median %.2fs, oldest %.2fs (p%d)", ages[len(ages)/2].Seconds(), oldestAge.Seconds(), oldest))
	}
	if none > 0 {
		parts = append(parts, fmt.Sprintf("%d not acked yet", none))
	}
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", failed))
	}
	fmt.Fprintf(b, "  %d partitions: %s", len(stats), strings.Join(parts, ", "))
}

// partitionsText is the probed partitions as a line can hold them: each
// up to progressPartitions, else their count, first and last.
func partitionsText(ps []int32) string {
	if len(ps) <= progressPartitions {
		return fmt.Sprint(ps)
	}
	return fmt.Sprintf("%d of them, %d to %d", len(ps), slices.Min(ps), slices.Max(ps))
}
