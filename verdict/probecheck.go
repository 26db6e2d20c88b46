package verdict

import (
	"fmt"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// The probe's missed send slots are judged by what they could change in
// the answer, not by their share. A send gap is time the probe did not
// run, and so did not send, nor date the acks and reads that came: in the
// middle of a stall it changes nothing (no ack was due, and the records
// sent before it are acked when the stall ends, whenever the probe sent
// last); at a stall's edge it moves the edge by up to its length (the last
// ack before the fault comes earlier, the first after it is dated late);
// outside any stall a gap as long as half the stall bound may make a
// partition look stalled (with the cluster's own latency on top) or
// stretch a short gap past the bound.
const (
	// EdgeTolerance is how far a missed run may lie from a stall's edge
	// and still count as at it, and how long a send gap at an edge may
	// be: the precision a stall is given to, a few intervals.
	EdgeTolerance = 50 * time.Millisecond
	// StarvedShare is the share of its send slots past which the probe is
	// judged stalled wherever the gaps lie: it sent fewer records than it
	// missed, and its process was starved through the window.
	StarvedShare = 0.5
)

// missedRun is one run of missed slots, as a send gap: from a to b, the
// gap it left one interval longer than b − a.
type missedRun struct {
	a, b time.Time
	gap  time.Duration
}

// runsIn are the missed runs of the partition that missed the most,
// cut to [from, to] (all of them when from is zero).
func runsIn(p results.Probe, from, to time.Time) []missedRun {
	ms := mostMissed(p)
	if ms == nil || p.Interval <= 0 {
		return nil
	}
	var out []missedRun
	for _, r := range ms.Runs {
		a, b := r.From, r.From.Add(time.Duration(r.Slots)*p.Interval)
		if !from.IsZero() {
			if a.Before(from) {
				a = from
			}
			if b.After(to) {
				b = to
			}
			if !b.After(a) {
				continue
			}
		}
		out = append(out, missedRun{a: a, b: b, gap: b.Sub(a) + p.Interval})
	}
	return out
}

// stall is one partition's fault gap past the bound, ack or receive.
type stall struct {
	partition int32
	what      string // "ack", "receive"
	g         gaps.Gap
}

// stallsOf are the fault gaps past bound: the stalls the answer gives.
func stallsOf(g *gaps.Report, bound time.Duration) []stall {
	if g == nil {
		return nil
	}
	var out []stall
	for _, p := range g.Partitions {
		for _, s := range []struct {
			what string
			g    *gaps.Gap
		}{{"ack", p.Ack.Fault}, {"receive", p.Receive.Fault}} {
			if s.g != nil && s.g.Duration() > bound {
				out = append(out, stall{partition: p.Partition, what: s.what, g: *s.g})
			}
		}
	}
	return out
}

// harm says what one missed run could change in the answer; "" for
// nothing. Against each stall it lies in the middle of, at an edge of, or
// beside.
func harm(r missedRun, stalls []stall, bound time.Duration) string {
	near := func(t time.Time) bool {
		return !r.b.Before(t.Add(-EdgeTolerance)) && !r.a.After(t.Add(EdgeTolerance))
	}
	inside := len(stalls) > 0
	for _, s := range stalls {
		switch {
		case r.gap > EdgeTolerance && near(s.g.Start):
			return fmt.Sprintf("at the start of p%d's %s stall (%s), which it may move by as much", s.partition, s.what, clock(s.g.Start))
		case r.gap > EdgeTolerance && near(s.g.End):
			return fmt.Sprintf("at the end of p%d's %s stall (%s), which it may move by as much", s.partition, s.what, clock(s.g.End))
		case r.a.Before(s.g.Start) || r.b.After(s.g.End):
			inside = false
		}
	}
	if !inside && r.gap > bound/2 {
		return fmt.Sprintf("outside the stalls, longer than half the bound (%.2f s): with the cluster's own latency it may make a gap past the bound", bound.Seconds())
	}
	return ""
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }

// probeVerdict is the probe's self-check in a span: the first missed run
// that could change the answer, and why; or the share that says the
// probe was starved.
type probeVerdict struct {
	bad  bool
	why  string // what the worst run could change, or the share's reason
	runs int    // the runs judged
}

// judgeRuns weighs each missed run of c's span against the stalls.
func judgeRuns(c selfCheck, runs []missedRun, stalls []stall, bound time.Duration) probeVerdict {
	v := probeVerdict{runs: len(runs)}
	var worst missedRun
	for _, r := range runs {
		if h := harm(r, stalls, bound); h != "" && r.gap > worst.gap {
			worst, v.bad, v.why = r, true, fmt.Sprintf("a send gap of %.3f s from %s lies %s", r.gap.Seconds(), clock(r.a), h)
		}
	}
	switch {
	case v.bad:
	case c.missed >= MinMissed && c.share() > StarvedShare:
		v.bad, v.why = true, fmt.Sprintf("it missed more of its slots than it sent (more than %.0f%%): starved", 100*StarvedShare)
	case c.unplaced >= MinMissed && c.slots > 0 && float64(c.unplaced)/float64(c.slots) > MissedShare:
		// Runs the probe did not list cannot be weighed: judged by their
		// share of the slots, as every run was before runs were placed.
		v.bad, v.why = true, fmt.Sprintf("%d of its missed slots (more than %.0f%% of the slots) lie in runs past the %d it records, which cannot be placed against the stalls",
			c.unplaced, 100*MissedShare, results.MaxMissedRuns)
	}
	return v
}

// mostMissed is the missed sends of the partition that missed the most,
// nil when none missed any: the send loop serves all partitions alike.
func mostMissed(p results.Probe) *results.MissedSends {
	var ms *results.MissedSends
	for _, m := range p.Missed {
		if m != nil && (ms == nil || m.Count > ms.Count) {
			ms = m
		}
	}
	return ms
}
