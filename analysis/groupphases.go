package analysis

import (
	"fmt"
	"time"

	"github.com/kbf-project/kbf/results"
)

// groupRecoveryOf is the group recovery stage: the coordinator recipe
// (coordinatorRecoveryOf) for the probe's consumer group, whose phases after
// the new coordinator was found are its first commit and, where the group
// lost its partitions, the rebalance. v is the group reader's view; stalls
// the partitions', which a group whose coordinator survived waited on.
func groupRecoveryOf(ev *evidence, ff *faultFacts, v *GroupView, stalls []Stall) *GroupRecovery {
	if ff == nil || ff.f.GroupCoordinator == nil || v == nil {
		return nil
	}
	r := coordinatorRecoveryOf(ev, ff, ff.f.GroupCoordinator, &groupRecipe, func(w *coordWalk) {
		groupCommit(w, v)
		groupRebalance(w, v)
	})
	if r != nil && !r.Faulted && len(r.Phases) == 0 && ev.tl != nil {
		r.Note = notCoordinator(ff.f.GroupCoordinator, stalls)
	}
	return r
}

// javaStringHash is Java's String.hashCode of s: h = 31*h + c over its
// UTF-16 code units, in 32-bit arithmetic.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// keyPartition is the internal topic's partition of key among n, as Kafka's
// coordinators place a group id or a transactional id:
// Utils.abs(key.hashCode()) % n, where Utils.abs of the smallest int is 0.
func keyPartition(key string, n int32) int32 {
	h := javaStringHash(key)
	if h == -1<<31 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return h % n
}

// notCoordinator says that the group's coordinator survived the fault and
// where the group's stall came from instead: the partitions' leaders.
func notCoordinator(c *results.Coordinator, stalls []Stall) string {
	if !c.Found() {
		return "the group's coordinator was not found before the fault, so its recovery is not split into phases"
	}
	s := fmt.Sprintf("the group's coordinator, broker %d, was not the faulted broker: the group needed no new coordinator, and its processing stall is the partitions' own", c.NodeID)
	var worst *Stall
	for i := range stalls {
		st := &stalls[i]
		if st.Role == results.RoleLed && (worst == nil || st.Total > worst.Total) {
			worst = st
		}
	}
	if worst != nil {
		s += fmt.Sprintf(": p%d's leader was the faulted broker (its ack stall %s, in phases above)", worst.Partition, secs(worst.Total))
	}
	return s
}

func groupCommit(w *coordWalk, v *GroupView) {
	ev, ok := firstCommit(v.okCommits, w.c.prev)
	if !ok {
		w.c.missing("no successful commit after the fault in " + results.GroupEventsFile)
		return
	}
	why := "the commit the reader was blocked in since before the fault, retried against the new coordinator, answered once it had loaded the group"
	if ev.Start.IsZero() || ev.Start.After(w.ev.F) {
		why = "no commit was in flight at the fault (the reader had nothing new to commit while its records stalled); this is the first the reader issued after, once it processed records again, and the new coordinator answered it"
	}
	w.c.add(GroupPhaseCommit, ev.Time, Explanation{Evidence: fmt.Sprintf("commit of %d partition(s), started %s", len(ev.Offsets), clock(ev.Start)),
		Source:   results.GroupEventsFile,
		Why:      why,
		Setting:  "the client's request retries and backoff (retry_backoff)",
		Settings: []Setting{w.x.clientSetting("retry_backoff")}}, noBound("a commit waits on what the reader does with its records; no setting bounds it"))
}

// firstCommit is the first successful commit that ended after t.
func firstCommit(evs []results.GroupEvent, t time.Time) (results.GroupEvent, bool) {
	for _, e := range evs {
		if e.Kind == results.GroupCommit && !e.Failed() && !e.Time.Before(t) {
			return e, true
		}
	}
	return results.GroupEvent{}, false
}

// groupRebalance adds, where the group lost or gave up its partitions
// after the fault, the rebalance: → its partitions assigned again → the
// first record processed after that.
func groupRebalance(w *coordWalk, v *GroupView) {
	var lost, assigned *results.GroupEvent
	for i := range v.Changes {
		e := &v.Changes[i]
		if e.Time.Before(w.ev.F) {
			continue
		}
		if lost == nil && (e.Kind == results.GroupLost || e.Kind == results.GroupRevoked) {
			lost = e
			continue
		}
		if lost != nil && e.Kind == results.GroupAssigned {
			assigned = e
			break
		}
	}
	if lost == nil || assigned == nil {
		return
	}
	session := sessionSetting(w, v)
	w.c.add(GroupPhaseRebalance, assigned.Time, Explanation{Evidence: fmt.Sprintf("%s at %s (generation %d), assigned %v at generation %d", lost.Kind, clock(lost.Time), lost.Generation, assigned.Partitions, assigned.Generation),
		Source:   results.GroupEventsFile,
		Why:      fmt.Sprintf("the member's partitions were %s while the coordinator was gone (its heartbeats failed), so it joined the group again at the new coordinator", lost.Kind),
		Setting:  "the group's session timeout and heartbeat interval (" + session.Name + "), rebalance.timeout.ms",
		Settings: []Setting{session}}, noBound("a rebalance waits on every member's join; no bound is stated from one member's evidence"))
	if t, ok := v.FirstProcessed(assigned.Time); ok {
		w.c.add(GroupPhaseProcess, t, Explanation{Evidence: "first record processed after the assignment", Source: results.GroupFile,
			Why:     "after the assignment the reader fetches its committed offsets from the new coordinator and the records from the partitions' leaders",
			Setting: "the client's fetch settings (fetch_max_wait)", Settings: []Setting{w.x.clientSetting("fetch_max_wait")}},
			noBound("fetching the first record after the assignment has no bound a setting states"))
	}
}

// sessionSetting is the group's session timeout: the broker's
// group.consumer.session.timeout.ms for the consumer protocol, the client's
// session timeout for the classic one.
func sessionSetting(w *coordWalk, v *GroupView) Setting {
	if v.Settings.Protocol == results.GroupProtocolConsumer {
		return nodeSetting(w.x.brokerConfigOf(w.r.NewCoordinator), nil, "", "group.consumer.session.timeout.ms")
	}
	s := w.x.clientSetting("session_timeout")
	if s.Source == SourceUnknown {
		s.Where = "not in " + results.MetaFile + "; franz-go's default is 45000 ms"
	}
	return s
}
