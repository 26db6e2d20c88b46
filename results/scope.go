package results

import (
	"errors"
	"fmt"
	"time"
)

// Scope is what a trial's metadata bounds the rows of its files by: the
// partitions it probed and the times it ran. Every decoder of a trial's
// files checks its rows against it as the probe CSV's does, so a row of a
// partition the trial never probed, or dated outside it, is refused at its
// line rather than taken for a measurement.
type Scope struct {
	// Partitions are the probed partitions; nil accepts any.
	Partitions map[int32]bool
	// From and To are the trial's start and end; zero is the plausible
	// range (EarliestTime, LatestTime).
	From, To time.Time
}

// Scope is the scope of the trial m records.
func (m *Meta) Scope() Scope {
	if m == nil {
		return Scope{}
	}
	return Scope{Partitions: m.PartitionSet(), From: m.Started, To: m.Ended}
}

// partition says what is wrong with a row of partition p; nil when the
// trial probed it.
func (s Scope) partition(p int32) error {
	if s.Partitions != nil && !s.Partitions[p] {
		return fmt.Errorf("%w: %d", ErrUnknownPartition, p)
	}
	return nil
}

// partitions is partition for each of ps.
func (s Scope) partitions(ps ...int32) error {
	for _, p := range ps {
		if err := s.partition(p); err != nil {
			return err
		}
	}
	return nil
}

// within says what is wrong with a row's time t, slack earlier than the
// trial's start allowed (a row that counts a whole second begins before
// it); nil for a zero t or one inside the trial.
func (s Scope) within(t time.Time, slack time.Duration) error {
	if t.IsZero() {
		return nil
	}
	from, to, what := s.From, s.To, "the trial's"
	if from.IsZero() {
		from, what = EarliestTime, "a plausible"
	} else {
		from = from.Add(-slack)
	}
	if to.IsZero() {
		to = LatestTime
	}
	if t.Before(from) || t.After(to) {
		return fmt.Errorf("%s is %w: %s window is %s ~ %s",
			t.UTC().Format(time.RFC3339Nano), errOutsideTrial, what,
			from.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// time reads a row's time from its field f: RFC 3339, within the plausible
// range and the scope; required refuses an empty field.
func (s Scope) time(f []byte, required bool) (time.Time, error) {
	t, err := parseTimeBytes(f)
	if err == nil && !t.IsZero() && (t.Before(EarliestTime) || t.After(LatestTime)) {
		err = fmt.Errorf("%s is outside %d–%d", f, EarliestTime.Year(), LatestTime.Year())
	}
	if err == nil && required && t.IsZero() {
		err = errors.New("empty")
	}
	if err == nil {
		err = s.within(t, 0)
	}
	return t, err
}
