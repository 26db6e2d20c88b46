package analysis

import (
	"cmp"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/kbf-project/kbf/results"
)

// Condense is the number of partitions past which the reports show each
// role's stall as a distribution across its partitions, with the worst
// named, instead of a line per partition: a dozen lines still read, a
// thousand do not. report.json keeps every partition whatever the number.
const Condense = 12

// WorstNamed is how many of each role's partitions a condensed report
// names, the longest stalls first.
const WorstNamed = 3

// Condensed reports whether the trial has more partitions than Condense,
// so that every renderer draws it as distributions.
func (tr *Trial) Condensed() bool {
	return tr.Gaps != nil && len(tr.Gaps.Partitions) > Condense
}

// Quantiles are a stall's distribution across partitions: the least, the
// median, the 90th and 99th percentiles and the longest. Each is one
// partition's own figure (the empirical quantile, no interpolation).
type Quantiles struct {
	Min, P50, P90, P99, Max time.Duration
}

// Spread is one role's stalls across its partitions.
type Spread struct {
	// Role is what the faulted broker was to the partitions; "" in a
	// run without a fault, where the figures are the longest gaps.
	Role results.Role
	// Partitions counts the role's partitions; Acked and Received those
	// that had an ack (a read) gap to count, Open those whose gap had
	// not closed by the end (counted at its length then).
	Partitions       int
	Acked, Received  int
	AckOpen, RecOpen int
	Ack, Receive     Quantiles
	// Worst are the role's partitions with the longest ack stalls,
	// longest first, at most WorstNamed.
	Worst []DigestRow
}

// spreads groups the digest's rows by role, in the order led, followed,
// none, then any other.
func spreads(rows []DigestRow) []Spread {
	by := map[results.Role][]DigestRow{}
	var order []results.Role
	for _, r := range rows {
		if _, ok := by[r.Role]; !ok {
			order = append(order, r.Role)
		}
		by[r.Role] = append(by[r.Role], r)
	}
	rank := map[results.Role]int{results.RoleLed: 0, results.RoleFollowed: 1, results.RoleNone: 2}
	slices.SortStableFunc(order, func(a, b results.Role) int {
		ra, oka := rank[a]
		rb, okb := rank[b]
		if !oka {
			ra = 3
		}
		if !okb {
			rb = 3
		}
		return cmp.Compare(ra, rb)
	})
	out := make([]Spread, 0, len(order))
	for _, role := range order {
		rs := by[role]
		s := Spread{Role: role, Partitions: len(rs)}
		var acks, recvs []float64
		for _, r := range rs {
			if r.Ack >= 0 {
				acks = append(acks, r.Ack.Seconds())
				s.Acked++
				if r.AckOpen {
					s.AckOpen++
				}
			}
			if r.Receive >= 0 {
				recvs = append(recvs, r.Receive.Seconds())
				s.Received++
				if r.ReceiveOpen {
					s.RecOpen++
				}
			}
		}
		s.Ack, s.Receive = quantiles(acks), quantiles(recvs)
		worst := slices.Clone(rs)
		slices.SortStableFunc(worst, func(a, b DigestRow) int {
			if c := cmp.Compare(b.Ack, a.Ack); c != 0 {
				return c
			}
			return cmp.Compare(a.Partition, b.Partition)
		})
		s.Worst = worst[:min(len(worst), WorstNamed)]
		out = append(out, s)
	}
	return out
}

// quantiles of xs, in seconds; zero for none. gonum's empirical quantile
// picks one of the values, so every figure is some partition's own.
func quantiles(xs []float64) Quantiles {
	if len(xs) == 0 {
		return Quantiles{}
	}
	slices.Sort(xs)
	q := func(p float64) time.Duration {
		return time.Duration(stat.Quantile(p, stat.Empirical, xs, nil) * float64(time.Second)).Round(time.Microsecond)
	}
	return Quantiles{Min: q(0), P50: q(0.5), P90: q(0.9), P99: q(0.99), Max: q(1)}
}

// Applied is one broker's share of the elect phases' ends: the
// partitions whose elect phase ended at its line (its state-change log's
// leadership, for a partition it now leads; its smaller ISR, for one it
// led on), and the first and last of those ends after the fault.
type Applied struct {
	Broker      int32
	Partitions  int
	First, Last time.Duration
}

// applied is each broker's Applied, by broker id: the election's spread.
func applied(tr *Trial) []Applied {
	by := map[int32]*Applied{}
	for _, st := range tr.Stalls {
		b := st.Leader
		if st.Role == results.RoleLed {
			b = st.NewLeader
		}
		i := slices.IndexFunc(st.Phases, func(ph Phase) bool { return ph.Name == PhaseElect })
		if b < 0 || i < 0 || tr.FaultAt.IsZero() {
			continue
		}
		at := st.Phases[i].End.Sub(tr.FaultAt)
		a := by[b]
		if a == nil {
			a = &Applied{Broker: b, First: at, Last: at}
			by[b] = a
		}
		a.Partitions++
		a.First, a.Last = min(a.First, at), max(a.Last, at)
	}
	out := make([]Applied, 0, len(by))
	for _, a := range by {
		out = append(out, *a)
	}
	slices.SortFunc(out, func(a, b Applied) int { return cmp.Compare(a.Broker, b.Broker) })
	return out
}
