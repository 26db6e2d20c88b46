package experiment

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// Baseline is the health a trial waits for before the fault.
type Baseline struct {
	// Period is how long every probed partition must have acked and
	// delivered steadily; zero injects as soon as the fault is due.
	Period time.Duration
	// Gap is the longest ack or receive gap that is steady; zero means
	// max(10 × interval, 200 ms) (probe.Config.SteadyBound).
	Gap time.Duration
	// Timeout is how long past the fault's due time kbf waits for health
	// before it records the trial invalid.
	Timeout time.Duration
}

// DefaultBaseline is kbf run's baseline.
var DefaultBaseline = Baseline{Period: 5 * time.Second, Timeout: time.Minute}

// Unhealthy says why the baseline is not healthy now: which partition,
// which gap, or which replica.
type Unhealthy struct {
	Partition int32
	Why       string
}

// clusterWide is Unhealthy.Partition for a reason of the whole cluster's,
// not one partition's: its CPU still settling.
const clusterWide = -1

func (u Unhealthy) Error() string {
	if u.Partition < 0 { // clusterWide, putBackWide
		return u.Why
	}
	return fmt.Sprintf("p%d %s", u.Partition, u.Why)
}

// The cluster's CPU has settled when, over the last settleSpan, its nodes
// used less than SettledShare of every CPU's time, or, the CPUs below
// settleSaturated busy, no less than settleDrop below the settleSpan
// before: a cluster busy at a steady rate (many partitions, a short
// interval) is settled too. Freshly started JVMs
// compile for tens of seconds after their first ack, and a fault then is
// measured on a machine the cluster itself saturates.
const (
	settleSpan = 3 * time.Second
	// SettledShare is the share of every CPU's time below which the
	// cluster's nodes count as settled whatever their trend.
	SettledShare    = 0.5
	settleDrop      = 0.05
	settleSaturated = 0.9
)

// settling says why the cluster's CPU has not settled by the samples in h,
// and its share over the last settleSpan; "" when it has, or when too few
// samples say (a cluster not measured is not waited for).
func settling(h *results.Host) (string, float64) {
	if len(h.Samples) == 0 {
		return "", 0
	}
	end := h.Samples[len(h.Samples)-1].At
	last, ok := h.Window(end.Add(-settleSpan), end)
	if !ok || last.Span < settleSpan*3/4 || len(last.Nodes) == 0 {
		return "", 0
	}
	share := last.Share(last.Cluster)
	if share < SettledShare {
		return "", share
	}
	// A steady rate is no sign of rest on saturated CPUs: warming JVMs
	// that could use more hold the CPUs busy at a plateau.
	saturated := last.Share(last.Self+last.Cluster+last.Others) >= settleSaturated
	before, ok := h.Window(end.Add(-2*settleSpan), end.Add(-settleSpan))
	if ok && before.Span >= settleSpan*3/4 && !saturated && share >= before.Share(before.Cluster)-settleDrop {
		return "", share
	}
	node, used := last.Busiest()
	why := fmt.Sprintf("the cluster's CPU is settling (%s %.0f %% over the last %.0f s; the cluster %.0f %% of the CPUs",
		node, 100*last.Share(used), settleSpan.Seconds(), 100*share)
	if ok {
		why += fmt.Sprintf(", %.0f %% the %.0f s before", 100*before.Share(before.Cluster), settleSpan.Seconds())
	}
	return why + ")", share
}

// Steady applies the baseline rule at now to the probe's live progress and
// the cluster's partitions: every probed partition has acked and been read
// within bound of now, with no gap longer than bound for the last period,
// and is led by its preferred replica with its whole replica set in sync.
// It returns the first partition that breaks the rule, or nil.
func Steady(now time.Time, period, bound time.Duration, stats []probe.PartitionStats, parts []cluster.Partition) *Unhealthy {
	byID := make(map[int32]cluster.Partition, len(parts))
	for _, p := range parts {
		byID[p.Partition] = p
	}
	for _, st := range stats {
		bad := func(format string, a ...any) *Unhealthy {
			return &Unhealthy{Partition: st.Partition, Why: fmt.Sprintf(format, a...)}
		}
		if u := steadyProbe(now, period, bound, st); u != nil {
			return u
		}
		p, ok := byID[st.Partition]
		switch {
		case !ok:
			return bad("not described by the cluster")
		case len(p.Replicas) == 0 || p.Leader != p.Replicas[0]:
			return bad("led by %d, not its preferred replica (replicas %v)", p.Leader, p.Replicas)
		case !sameSet(p.ISR, p.Replicas):
			return bad("ISR %v, not its whole replica set %v", p.ISR, p.Replicas)
		}
	}
	return nil
}

// steadyProbe is Steady's rule for one partition's acks and reads.
func steadyProbe(now time.Time, period, bound time.Duration, st probe.PartitionStats) *Unhealthy {
	bad := func(format string, a ...any) *Unhealthy {
		return &Unhealthy{Partition: st.Partition, Why: fmt.Sprintf(format, a...)}
	}
	s := func(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
	for _, c := range []struct {
		what        string
		last, since time.Time
		gap         time.Duration
	}{
		{"ack", st.LastAck, st.AckSteadySince, st.LastAckGap},
		{"read", st.LastRecv, st.RecvSteadySince, st.LastRecvGap},
	} {
		switch {
		case c.last.IsZero():
			return bad("no %s yet", c.what)
		case now.Sub(c.last) > bound:
			return bad("no %s for %s (steady: gaps up to %s)", c.what, s(now.Sub(c.last)), s(bound))
		case now.Sub(c.since) < period && c.gap > 0:
			return bad("%s gap of %s ended %s ago (steady for %s needed)", c.what, s(c.gap), s(now.Sub(c.since)), s(period))
		case now.Sub(c.since) < period:
			return bad("%ss steady for %s of %s", c.what, s(now.Sub(c.since)), s(period))
		}
	}
	return nil
}

// Recovered applies the rule that ends probing early (Options.Settle) at
// now to the probe's live progress: every probed partition has acked and
// been read with no gap longer than bound for the last settle. Unlike
// Steady it asks nothing of the cluster: the faulted broker is still down
// or paused, its replicas out of the ISR, until recovery. It returns the
// first partition not yet recovered, or nil.
func Recovered(now time.Time, settle, bound time.Duration, stats []probe.PartitionStats) *Unhealthy {
	if len(stats) == 0 {
		return &Unhealthy{Partition: clusterWide, Why: "no partition probed"}
	}
	for _, st := range stats {
		if u := steadyProbe(now, settle, bound, st); u != nil {
			return u
		}
	}
	return nil
}

func sameSet(a, b []int32) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// maxWaited bounds results.Baseline.Waited.
const maxWaited = 20

// waitHealthy waits from the fault's due time until the baseline is
// healthy, saying why it waits each time the reason changes. It returns
// the record for meta.json, and an error when ctx ended first; a baseline
// never healthy within the timeout is no error, but a record whose
// Unhealthy says why.
func (t *trial) waitHealthy(ctx context.Context, start time.Time) (*results.Baseline, error) {
	b := t.o.Baseline
	cfg := t.p.Config()
	rec := &results.Baseline{Period: b.Period, Bound: cfg.SteadyBound(), Due: start.Add(t.o.FaultAfter).UTC(), Timeout: b.Timeout}
	if err := sleepUntil(ctx, rec.Due); err != nil {
		return rec, err
	}
	// After the trial before's put-back (putback.go), the timeout counts
	// from whichever is later: the fault's due time or the cluster whole.
	deadline := later(rec.Due, t.steadyFrom).Add(b.Timeout)
	// The probe's progress is cheap and read often, so a gap is seen
	// within a fraction of the bound; the cluster is asked once a second.
	every := min(rec.Bound/4, 100*time.Millisecond)
	var parts []cluster.Partition
	var asked time.Time
	last := ""
	for {
		now := time.Now()
		if now.Sub(asked) >= time.Second {
			var err error
			if parts, err = t.r.Target.Partitions(ctx, cfg.Topic); err != nil {
				parts = nil
				if ctx.Err() != nil {
					return rec, ctx.Err()
				}
			}
			asked = now
		}
		u := Steady(now, b.Period, rec.Bound, t.p.Progress(), parts)
		if u == nil {
			u = t.clientsSteady(now, b.Period, rec.Bound)
		}
		if u == nil {
			u = t.afterPutBack(now, b.Period) // putback.go
		}
		var share float64
		if u == nil && t.host != nil {
			var why string
			if why, share = settling(t.host.snapshot()); why != "" {
				u = &Unhealthy{Partition: clusterWide, Why: why}
			}
		}
		if u == nil {
			rec.Healthy, rec.ClusterCPU = now.UTC(), share
			return rec, nil
		}
		// Say it when the partition or the kind of reason changes, not at
		// every sample; the first reason always, even when it is also the
		// last.
		if key := fmt.Sprintf("%d %s", u.Partition, firstWords(u.Why)); key != last {
			last = key
			t.r.say("baseline: waiting: %s", u)
			if len(rec.Waited) < maxWaited {
				rec.Waited = append(rec.Waited, fmt.Sprintf("%.1fs: %s", now.Sub(start).Seconds(), u))
			}
		}
		if !now.Before(deadline) {
			if u.Partition == clusterWide {
				// The probe is steady and only the cluster's own CPU is
				// still falling: a minute of it is no warm-up kbf can wait
				// out, so the fault goes ahead and the verdict says so.
				rec.Healthy, rec.ClusterCPU, rec.Unsettled = now.UTC(), share, u.Why
				t.r.say("baseline: the cluster's CPU had not settled %v after the fault was due (%s): the fault goes ahead", b.Timeout, u.Why)
				return rec, nil
			}
			rec.Unhealthy = u.Error()
			return rec, nil
		}
		if err := sleepUntil(ctx, now.Add(every)); err != nil {
			return rec, err
		}
	}
}

// firstWords is a reason without its figures, so a growing gap is one
// reason, not one a sample.
func firstWords(s string) string {
	n := 0
	for i, r := range s {
		if r == ' ' {
			n++
			if n == 3 {
				return s[:i]
			}
		}
	}
	return s
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}
