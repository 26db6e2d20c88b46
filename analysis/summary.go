package analysis

import (
	"fmt"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// Range is the least and greatest of a measure over trials.
type Range struct {
	Min time.Duration
	Max time.Duration
	N   int
}

func (r *Range) add(d time.Duration) {
	if r.N == 0 || d < r.Min {
		r.Min = d
	}
	if r.N == 0 || d > r.Max {
		r.Max = d
	}
	r.N++
}

func (r Range) String() string {
	if r.N == 0 {
		return "-"
	}
	lo, hi := fmt.Sprintf("%.2f", r.Min.Seconds()), fmt.Sprintf("%.2f", r.Max.Seconds())
	if lo == hi {
		return lo + " s"
	}
	return lo + "–" + hi + " s"
}

// Summary is a run's trials side by side, as ranges.
type Summary struct {
	Trials int
	Faults []results.FaultKind // each trial's fault kind, "" for none
	// Detect is fault → the controller fences the broker or grants its
	// controlled shutdown.
	Detect Range
	// ElectAndClient is the end of detection → the producer on the new
	// leader, over the partitions the broker led.
	ElectAndClient Range
	// LeaderGap and FollowerGap are the ack gaps at the fault of the
	// partitions the broker led and of those it followed; a partition it
	// neither led nor followed is in AnyGap only.
	LeaderGap   Range
	FollowerGap Range
	// ReceiveGap is the receive gap at the fault, every partition.
	ReceiveGap Range
	// AnyGap is every partition's ack gap at the fault.
	AnyGap Range
	// Phases are the stall phases by name, every partition.
	Phases map[string]*Range
	// FailedSends, Lost and Duplicated add up the trials'.
	FailedSends int
	Lost        int
	Duplicated  int
	Reordered   int
	// Escalated counts graceful stops that ended in a SIGKILL.
	Escalated int
	// LeftOut are the trials not summarized, each with its verdict: only
	// valid trials are.
	LeftOut []string
	// Clients are each client's ranges by role, when several probed.
	Clients []ClientSummary
	// Group is the group reader's ranges, when a trial had one.
	Group *GroupSummary
	// Txn is the transactional probe's ranges, when a trial had one.
	Txn *TxnSummary
}

// TxnSummary is the transactional probe's trials side by side (kbf run
// --producer transactional).
type TxnSummary struct {
	// Commit is the commit stall at the fault, a trial's one; LSO each
	// partition's read_committed stall at the fault.
	Commit, LSO Range
	// Load is the new transaction coordinator's load phase, for the
	// trials whose fault hit the coordinator (TxnRecovery).
	Load Range
	// Committed, Aborted and TimedOut add up the trials' transactions by
	// outcome.
	Committed, Aborted, TimedOut int
}

// addTxn adds the trial's transactional probe, if it had one.
func (s *Summary) addTxn(tr *Trial) {
	v := tr.Txn
	if v == nil {
		return
	}
	if s.Txn == nil {
		s.Txn = &TxnSummary{}
	}
	if c := v.CommitStall; c != nil {
		s.Txn.Commit.add(c.Duration())
	}
	for _, l := range v.LSO {
		if l.Gap != nil {
			s.Txn.LSO.add(l.Gap.Duration())
		}
	}
	if ph, ok := tr.TxnRecovery.Phase(TxnPhaseLoad); ok {
		s.Txn.Load.add(ph.Duration)
	}
	s.Txn.Committed += v.Committed
	s.Txn.Aborted += v.Aborted
	s.Txn.TimedOut += v.TimedOut
}

// GroupSummary is the group reader's trials side by side (kbf run
// --consumer group).
type GroupSummary struct {
	// Stall is each partition's processing gap at the fault; Commit the
	// commit stall at the fault, a trial's one.
	Stall, Commit Range
	// Load is the new coordinator's load of the group, for the trials
	// whose fault hit the group's coordinator (GroupRecovery).
	Load Range
	// Rebalances and Reprocessed add up the trials'.
	Rebalances, Reprocessed int
}

// addGroup adds the trial's group reader, if it had one.
func (s *Summary) addGroup(tr *Trial) {
	g := tr.Group
	if g == nil {
		return
	}
	if s.Group == nil {
		s.Group = &GroupSummary{}
	}
	for _, p := range g.Partitions {
		if f := p.Stalls.Fault; f != nil {
			s.Group.Stall.add(f.Duration())
		}
	}
	if c := g.CommitStall; c != nil {
		s.Group.Commit.add(c.Duration())
	}
	if ph, ok := tr.Recovery.Phase(GroupPhaseLoad); ok {
		s.Group.Load.add(ph.Duration)
	}
	s.Group.Rebalances += g.Rebalances()
	s.Group.Reprocessed += g.Reprocessed
}

// Summarize puts trials side by side.
func Summarize(trials []*Trial) *Summary {
	s := &Summary{Phases: map[string]*Range{}}
	for _, tr := range trials {
		if v := tr.Verdict; v != nil && v.Status != verdict.Valid {
			s.LeftOut = append(s.LeftOut, fmt.Sprintf("%s: %s", tr.Where(), v))
			continue
		}
		s.Trials++
		var kind results.FaultKind
		if tr.Meta != nil && tr.Meta.Fault != nil {
			kind = tr.Meta.Fault.Kind
			if tr.Meta.Fault.Escalated {
				s.Escalated++
			}
		}
		s.Faults = append(s.Faults, kind)
		s.addClients(tr)
		s.addGroup(tr)
		s.addTxn(tr)
		s.FailedSends += tr.Gaps.Failed
		if in := tr.Integrity; in != nil {
			s.Lost += in.Lost
			s.Duplicated += in.Duplicated
			s.Reordered += in.Reordered
		}
		// Detection and the producer's move are the trial's, read from
		// its timeline: a stall that began after them has no phase for
		// them.
		var detected time.Time
		if len(tr.Stalls) > 0 && tr.Detection != nil {
			detected = tr.Detection.Time
			s.Detect.add(detected.Sub(tr.FaultAt))
		}
		for _, st := range tr.Stalls {
			for _, ph := range st.Phases {
				r := s.Phases[ph.Name]
				if r == nil {
					r = &Range{}
					s.Phases[ph.Name] = r
				}
				r.add(ph.Duration)
			}
			if st.Role == results.RoleLed && !detected.IsZero() {
				if e, ok := tr.Timeline.ClientLearnedLeader(results.ClientProducer, tr.Meta.Probe.Topic, st.Partition, tr.FaultAt); ok {
					s.ElectAndClient.add(e.Time.Sub(detected))
				}
			}
		}
		s.addGaps(tr)
	}
	return s
}

// addGaps adds the trial's ack and receive gaps at the fault, by the role
// the analysis gave each partition (Trial.Metrics): a partition the
// faulted broker neither led nor followed counts in neither role's range.
// A trial without a fault has no gap at a fault to add.
func (s *Summary) addGaps(tr *Trial) {
	if tr.Metrics == nil {
		return
	}
	for _, p := range tr.Metrics.Partitions {
		if d, ok := p.Values[MeasureAckStall]; ok {
			s.AnyGap.add(d)
			switch p.Role {
			case results.RoleLed:
				s.LeaderGap.add(d)
			case results.RoleFollowed:
				s.FollowerGap.add(d)
			}
		}
		if d, ok := p.Values[MeasureReceiveStall]; ok {
			s.ReceiveGap.add(d)
		}
	}
}
