package analysis

import (
	"fmt"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// Hiccup is a pause, a cut, a starved CPU or a packet loss kbf undid
// while probing (kbf run --return-after), as the cluster took it: whether the controller fenced
// the broker that was never dead, and how many leaderships moved while it
// hiccuped. Its evidence is the controller's and the brokers' own lines.
type Hiccup struct {
	Broker string
	NodeID int32
	// Kind is the fault; CPUs a cpu-starve's sliver of a CPU, Loss a
	// packet-loss's share of packets (results.Fault).
	Kind results.FaultKind
	CPUs float64
	Loss float64
	// From and Returned bound the fault: when it took effect and when kbf
	// undid it.
	From, Returned time.Time
	// Fence is the controller's fence of the broker from From to the end
	// of probing; nil when it fenced nobody.
	Fence *timeline.Event
	// LeaderMoves are the partitions whose leadership another broker took
	// on from From to the end of probing, each one's first "Leader … starts
	// at leader epoch" line.
	LeaderMoves []timeline.Event
}

// Lasted is how long the hiccup lasted.
func (h *Hiccup) Lasted() time.Duration { return h.Returned.Sub(h.From) }

// Fenced reports whether the controller fenced the broker.
func (h *Hiccup) Fenced() bool { return h.Fence != nil }

// String says the hiccup in one line: "k1 for 2.00 s: not fenced, no
// leadership moved" for a pause or a cut, "k1 starved to 0.05 CPU for
// 2.00 s: …", "k1 losing 30% of its packets for 2.00 s: …".
func (h *Hiccup) String() string {
	fence := "not fenced"
	if h.Fence != nil {
		fence = fmt.Sprintf("fenced %.2f s after it began (%s)", h.Fence.Time.Sub(h.From).Seconds(), h.Fence.Source)
	}
	moves := "no leadership moved"
	if n := len(h.LeaderMoves); n > 0 {
		moves = fmt.Sprintf("%d leadership(s) moved", n)
	}
	return fmt.Sprintf("%s for %.2f s: %s, %s", h.What(), h.Lasted().Seconds(), fence, moves)
}

// What says what hiccuped: the broker, and how for a starved CPU or a
// packet loss ("k1 starved to 0.05 CPU").
func (h *Hiccup) What() string {
	switch h.Kind {
	case results.FaultCPUStarve:
		return fmt.Sprintf("%s starved to %g CPU", h.Broker, h.CPUs)
	case results.FaultPacketLoss:
		return fmt.Sprintf("%s losing %s of its packets", h.Broker, results.LossText(h.Loss))
	}
	return h.Broker
}

// HiccupOf reads the hiccup of the trial of metadata m from its timeline;
// nil for a trial whose fault was not undone while probing.
func HiccupOf(m *results.Meta, tl *timeline.Timeline) *Hiccup {
	if m == nil || m.Fault == nil || m.Fault.Returned.IsZero() || tl == nil {
		return nil
	}
	f := m.Fault
	h := &Hiccup{Broker: f.Broker, NodeID: f.NodeID, Kind: f.Kind, CPUs: f.CPUs, Loss: f.Loss, From: f.At(), Returned: f.Returned}
	end := m.Ended
	if end.IsZero() {
		end = f.Returned
	}
	if e, ok := tl.Fenced(f.NodeID, h.From); ok && !e.Time.After(end) {
		h.Fence = &e
	}
	seen := map[string]bool{}
	for _, e := range tl.All(timeline.OfKind(timeline.KindLeaderStarted)) {
		if e.Time.Before(h.From) || e.Time.After(end) || e.Broker == f.NodeID {
			continue
		}
		key := fmt.Sprintf("%s-%d", e.Topic, e.Partition)
		if !seen[key] {
			seen[key] = true
			h.LeaderMoves = append(h.LeaderMoves, e)
		}
	}
	return h
}
