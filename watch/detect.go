package watch

import (
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// Causes of an incident, by its first sign of the cluster's, or the
// probe's stall when the cluster showed none (kbf_incidents_total's
// cause label).
const (
	CauseStall       = "stall"         // the probe stalled; the cluster showed nothing
	CauseBrokerGone  = "broker_gone"   // a broker gone from the metadata
	CauseSilent      = "broker_silent" // a broker stopped answering, the others answer
	CauseFenced      = "broker_fenced" // a broker fenced
	CauseLeaderMoved = "leader_moved"
	CauseISRShrunk   = "isr_shrunk"
	CauseUnreachable = "unreachable" // no broker answered
)

// Causes are every cause, in the order they are told.
var Causes = []string{CauseStall, CauseSilent, CauseBrokerGone, CauseFenced, CauseLeaderMoved, CauseISRShrunk, CauseUnreachable}

// Incident is one incident as the watch saw it: its signs, the first of
// which dates it, and when it ended.
type Incident struct {
	Opened time.Time // when the watch saw the first sign
	Signs  []results.Sign
	// Recovered is when every partition had been steady for the settle
	// time; zero when the incident ended otherwise (Why says how).
	Recovered time.Time
	Ended     time.Time
	Why       string // why it ended, when not recovered
}

// Start is the incident's start: its earliest sign's date.
func (in *Incident) Start() time.Time {
	s := in.Signs[0].At
	for _, g := range in.Signs[1:] {
		if g.At.Before(s) {
			s = g.At
		}
	}
	return s
}

// Cause is the incident's cause (Causes): its first sign of the cluster's,
// else a stall.
func (in *Incident) Cause() string {
	for _, s := range in.Signs {
		if s.Source != results.SignCluster {
			continue
		}
		switch {
		case s.NodeID < 0:
			return CauseUnreachable
		case strings.Contains(s.What, "stopped answering"):
			return CauseSilent
		case strings.Contains(s.What, "gone from the metadata"):
			return CauseBrokerGone
		case strings.Contains(s.What, "fenced"):
			return CauseFenced
		case strings.Contains(s.What, "leader moved"):
			return CauseLeaderMoved
		case strings.Contains(s.What, "ISR lost"):
			return CauseISRShrunk
		}
	}
	return CauseStall
}

// detector finds incidents in the probe's progress and the cluster's
// views; it only decides, and the watch feeds it. Its signs are those of
// an external fault (experiment.ProbeSign, experiment.ClusterSign): an
// incident is one that nobody announced.
type detector struct {
	stall  time.Duration // a gap longer than this is a stall
	settle time.Duration // how long every partition must be steady to end one
	bound  time.Duration // the probe's steady bound (probe.Config.SteadyBound)
	most   time.Duration // an incident longer than this is ended, to bound memory

	since  time.Time    // stalls that began earlier belong to no incident
	before cluster.View // the cluster as last seen with no incident open
	seen   bool         // whether before is set

	open *Incident
}

// progress takes the probe's progress at now and returns true when it
// opens an incident.
func (d *detector) progress(now time.Time, stats []probe.PartitionStats) bool {
	s, ok := experiment.ProbeSign(now, d.since, d.stall, stats)
	if !ok {
		return false
	}
	if d.open != nil {
		if !hasSource(d.open.Signs, results.SignProbe) {
			d.open.Signs = append(d.open.Signs, s)
		}
		return false
	}
	d.open = &Incident{Opened: now, Signs: []results.Sign{s}}
	return true
}

// view takes one look at the cluster (or the error asking for it) with
// the probe's progress at now, and returns true when it opens an
// incident. A view that fails while every partition has stalled is the
// whole cluster unreachable.
func (d *detector) view(now time.Time, v cluster.View, err error, stats []probe.PartitionStats) bool {
	var s results.Sign
	ok := false
	switch {
	case err == nil && !d.seen:
		d.before, d.seen = v, true
		return false
	case err == nil:
		s, ok = experiment.ClusterSign(d.before, v)
		if !ok && d.open == nil {
			d.before = v
		}
	case everyStalled(now, d.stall, stats):
		s = results.Sign{At: now.UTC(), Seen: now.UTC(), Source: results.SignCluster, NodeID: -1,
			What: "no broker answered while every partition stalled: " + err.Error()}
		ok = true
	}
	if !ok {
		return false
	}
	if d.open != nil {
		if !hasSource(d.open.Signs, results.SignCluster) {
			d.open.Signs = append(d.open.Signs, s)
		}
		return false
	}
	d.open = &Incident{Opened: now, Signs: []results.Sign{s}}
	return true
}

// end returns the open incident once it is over — every partition
// steady for the settle time, the last view answered, or open longer
// than most — and closes it; nil while none is open or it goes on. The
// cluster as it is then is the next incident's before.
func (d *detector) end(now time.Time, stats []probe.PartitionStats, last cluster.View, lastErr error) *Incident {
	in := d.open
	if in == nil {
		return nil
	}
	switch {
	case now.Sub(in.Opened) >= d.settle && lastErr == nil && experiment.Recovered(now, d.settle, d.bound, stats) == nil:
		in.Recovered = now.UTC()
	case d.most > 0 && now.Sub(in.Opened) >= d.most:
		in.Why = "not recovered within " + d.most.String() + " of its first sign"
	default:
		return nil
	}
	return d.close(now, last, lastErr)
}

// stop closes the open incident as the watch stops; nil when none.
func (d *detector) stop(now time.Time) *Incident {
	if d.open == nil {
		return nil
	}
	d.open.Why = "the watch stopped before it recovered"
	return d.close(now, cluster.View{}, errStopped)
}

func (d *detector) close(now time.Time, last cluster.View, lastErr error) *Incident {
	in := d.open
	in.Ended = now.UTC()
	slices.SortStableFunc(in.Signs, func(a, b results.Sign) int { return a.At.Compare(b.At) })
	d.open = nil
	d.since = now
	if lastErr == nil {
		d.before = last
	}
	return in
}

func hasSource(ss []results.Sign, src string) bool {
	return slices.ContainsFunc(ss, func(s results.Sign) bool { return s.Source == src })
}

// everyStalled reports whether every partition has neither acked nor been
// read for longer than bound at now.
func everyStalled(now time.Time, bound time.Duration, stats []probe.PartitionStats) bool {
	if len(stats) == 0 {
		return false
	}
	for _, st := range stats {
		if now.Sub(st.LastAck) <= bound && now.Sub(st.LastRecv) <= bound {
			return false
		}
	}
	return true
}
