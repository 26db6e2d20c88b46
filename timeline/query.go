package timeline

import (
	"time"

	"github.com/kbf-project/kbf/results"
)

// A Match selects events for First and All.
type Match func(*Event) bool

// OfKind matches events of any of the kinds.
func OfKind(kinds ...Kind) Match {
	return func(e *Event) bool {
		for _, k := range kinds {
			if e.Kind == k {
				return true
			}
		}
		return false
	}
}

// OnNode matches events recorded by node (k2, c1, producer).
func OnNode(node string) Match { return func(e *Event) bool { return e.Node == node } }

// ForBroker matches events that concern broker id.
func ForBroker(id int32) Match { return func(e *Event) bool { return e.Broker == id } }

// ForPartition matches events of one partition.
func ForPartition(topic string, partition int32) Match {
	return func(e *Event) bool { return e.Topic == topic && e.Partition == partition }
}

// First returns the first event at or after t that every match accepts.
func (tl *Timeline) First(t time.Time, match ...Match) (Event, bool) {
	i := firstIndex(tl.Events, t)
next:
	for ; i < len(tl.Events); i++ {
		e := &tl.Events[i]
		for _, m := range match {
			if !m(e) {
				continue next
			}
		}
		return *e, true
	}
	return Event{}, false
}

// All returns the events every match accepts, in time order.
func (tl *Timeline) All(match ...Match) []Event {
	var out []Event
next:
	for i := range tl.Events {
		e := &tl.Events[i]
		for _, m := range match {
			if !m(e) {
				continue next
			}
		}
		out = append(out, *e)
	}
	return out
}

// firstIndex is the index of the first event at or after t.
func firstIndex(events []Event, t time.Time) int {
	lo, hi := 0, len(events)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if events[mid].Time.Before(t) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Fenced returns the controller's fencing of broker id for a session timeout,
// at or after t, or, for a broker restarted under the same id, its new
// incarnation's registration where that removed the previous one from the
// partitions: the session had expired, and the registration came before
// the periodic check that fences.
func (tl *Timeline) Fenced(id int32, t time.Time) (Event, bool) {
	return tl.First(t, ForBroker(id), func(e *Event) bool {
		return e.Kind == KindFenced || (e.Kind == KindNewIncarnation && e.Count > 0)
	})
}

// ControlledShutdown returns the controller's grant of broker id's request
// for a controlled shutdown, at or after t: from here its leaderships move.
func (tl *Timeline) ControlledShutdown(id int32, t time.Time) (Event, bool) {
	return tl.First(t, OfKind(KindControlledShutdown), ForBroker(id))
}

// ShutdownGranted returns the controller's final grant of broker id's
// shutdown, at or after t: "The request from broker N to shut down has been
// granted", or the immediate shutdown of a broker that led nothing.
func (tl *Timeline) ShutdownGranted(id int32, t time.Time) (Event, bool) {
	return tl.First(t, OfKind(KindShutdownGranted, KindImmediateShutdown), ForBroker(id))
}

// LeaderStarted returns the first "Leader T-P ... starts at leader epoch"
// line of the partition at or after t: when its new leader took it on.
func (tl *Timeline) LeaderStarted(topic string, partition int32, t time.Time) (Event, bool) {
	return tl.First(t, OfKind(KindLeaderStarted), ForPartition(topic, partition))
}

// NewLeaderStarted returns the first "Leader T-P ... starts at leader
// epoch" line at or after t by a broker other than b, the partition's
// leader when it was faulted at t, or by b itself once it had registered
// again. A restarted broker reads the metadata that still names it leader
// and logs a start at its old epoch before the controller has fenced its
// previous incarnation (a pod the kubelet restarts, say): that line is no
// election, and nobody can produce to it until it registers.
func (tl *Timeline) NewLeaderStarted(topic string, partition, b int32, t time.Time) (Event, bool) {
	reg, registered := tl.First(t, OfKind(KindRegistered), ForBroker(b))
	return tl.First(t, OfKind(KindLeaderStarted), ForPartition(topic, partition), func(e *Event) bool {
		return e.Broker != b || (registered && !e.Time.Before(reg.Time))
	})
}

// FollowerReturned returns the first "Follower T-P ... starts at leader
// epoch" line at or after t by broker b: b, faulted at t and restarted,
// following the partition again and fetching from its leader.
func (tl *Timeline) FollowerReturned(topic string, partition, b int32, t time.Time) (Event, bool) {
	return tl.First(t, OfKind(KindFollowerStarted), ForPartition(topic, partition), ForBroker(b))
}

// ClientLearnedLeader returns when client first learned a different leader
// for the partition, at or after t, from a metadata refresh or a broker's
// answer naming it (KIP-951). A metadata change that kept the leader (an
// epoch change only) does not count.
func (tl *Timeline) ClientLearnedLeader(client results.Client, topic string, partition int32, t time.Time) (Event, bool) {
	return tl.First(t, OfKind(KindClientLeader, KindClientRedirect), OnNode(string(client)), ForPartition(topic, partition),
		func(e *Event) bool { return e.Leader != e.PrevLeader })
}

// ClientFacts returns the client's own facts (Timeline.Client) of client in
// [from, to] that every match accepts, in time order.
func (tl *Timeline) ClientFacts(client results.Client, from, to time.Time, match ...Match) []Event {
	var out []Event
next:
	for i := firstIndex(tl.Client, from); i < len(tl.Client); i++ {
		e := &tl.Client[i]
		if e.Time.After(to) {
			break
		}
		if e.Node != string(client) {
			continue
		}
		for _, m := range match {
			if !m(e) {
				continue next
			}
		}
		out = append(out, *e)
	}
	return out
}

// ForRequest matches client facts about one Kafka request: Produce,
// Metadata.
func ForRequest(request string) Match { return func(e *Event) bool { return e.Request == request } }

// ISRShrunk returns the first event at or after t that shows the partition's
// ISR without broker id: the leader's "Shrinking ISR" or "ISR updated", a new
// or staying leader's ISR from the metadata log, or the controller's
// partition change.
func (tl *Timeline) ISRShrunk(topic string, partition, id int32, t time.Time) (Event, bool) {
	return tl.First(t, ForPartition(topic, partition),
		func(e *Event) bool { return e.HasISR() && !e.InISR(id) })
}

// ISRJoined returns the first event at or after t that shows the partition's
// ISR with broker id in it: a broker's return to the ISR after it restarted.
func (tl *Timeline) ISRJoined(topic string, partition, id int32, t time.Time) (Event, bool) {
	return tl.First(t, ForPartition(topic, partition), func(e *Event) bool { return e.InISR(id) })
}
