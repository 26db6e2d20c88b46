package analysis

import (
	"testing"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

func TestPartitionRoles(t *testing.T) {
	meta := &results.Meta{Probe: results.Probe{
		Topic:      "orders",
		Partitions: []int32{0, 1, 2, 3},
		Leaders:    map[int32]int32{0: 1, 1: 2, 2: 2},
		Replicas:   map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {2, 3, 4}, 3: {3, 4, 5}},
	}}
	tr := &Trial{Meta: meta, FaultAt: time.Date(2026, 11, 30, 16, 42, 9, 0, time.UTC)}
	tr.roles = partitionRoles(&evidence{meta: tr.Meta, F: tr.FaultAt}, tr.Gaps, &results.Fault{Broker: "k1", NodeID: 1})
	for p, want := range map[int32]results.Role{
		0: results.RoleLed,      // it led it
		1: results.RoleFollowed, // among its replicas
		2: results.RoleNone,     // neither led nor followed: not a follower
		3: results.RoleNone,     // leader unknown, no timeline to say it moved
		9: results.RoleNone,     // not probed
	} {
		if got := tr.Role(p); got != want {
			t.Errorf("p%d: role %q, want %q", p, got, want)
		}
	}
}

func TestMetricsRole(t *testing.T) {
	s := time.Second
	m := &Metrics{Partitions: []PartitionMetrics{
		{Partition: 0, Role: results.RoleLed, Lost: 1, Values: map[Measure]time.Duration{
			MeasureAckStall: 8 * s, MeasureDetect: 7 * s, MeasureClient: s, MeasureTotalStall: 9 * s, MeasureLongestStall: 8 * s}},
		{Partition: 1, Role: results.RoleFollowed, Lost: 2, Values: map[Measure]time.Duration{
			MeasureAckStall: 5 * s, MeasureDetect: 4 * s, MeasureTotalStall: 12 * s, MeasureLongestStall: 5 * s}},
		{Partition: 2, Role: results.RoleFollowed, Lost: 3, Values: map[Measure]time.Duration{
			MeasureAckStall: 6 * s, MeasureDetect: 5 * s, MeasureTotalStall: 6 * s, MeasureLongestStall: 6 * s}},
		// Neither led nor followed: counts in no role.
		{Partition: 3, Role: results.RoleNone, Lost: 100, Values: map[Measure]time.Duration{MeasureAckStall: 60 * s}},
		// A follower that did not stall speaks for nothing, but its
		// lost records are the role's.
		{Partition: 4, Role: results.RoleFollowed, Lost: 4, Values: map[Measure]time.Duration{}},
	}}
	for _, tc := range []struct {
		role      results.Role
		partition int32
		want      map[Measure]time.Duration
		lost      int
	}{
		{results.RoleLed, 0, map[Measure]time.Duration{MeasureAckStall: 8 * s, MeasureDetect: 7 * s, MeasureClient: s,
			MeasureTotalStall: 9 * s, MeasureLongestStall: 8 * s}, 1},
		// p2 speaks (the longer ack stall), every stall measure its own;
		// the steps' total is p1's, the worst.
		{results.RoleFollowed, 2, map[Measure]time.Duration{MeasureAckStall: 6 * s, MeasureDetect: 5 * s,
			MeasureTotalStall: 12 * s, MeasureLongestStall: 6 * s}, 9},
	} {
		t.Run(string(tc.role), func(t *testing.T) {
			rm, ok := m.Role(tc.role)
			if !ok || rm.Partition != tc.partition || rm.Lost != tc.lost {
				t.Fatalf("Role = %+v, %v; want partition %d, lost %d", rm, ok, tc.partition, tc.lost)
			}
			if len(rm.Values) != len(tc.want) {
				t.Errorf("values %v, want %v", rm.Values, tc.want)
			}
			for k, d := range tc.want {
				if rm.Values[k] != d {
					t.Errorf("%s = %v, want %v", k, rm.Values[k], d)
				}
			}
		})
	}
	if rm, ok := (&Metrics{}).Role(results.RoleLed); ok {
		t.Errorf("no partitions: Role = %+v, want none", rm)
	}
}

// TestSummaryFollowerGap checks that the summary's follower gap holds the
// partitions the broker followed, and not one it neither led nor followed.
func TestSummaryFollowerGap(t *testing.T) {
	s := time.Second
	tr := &Trial{Gaps: &gaps.Report{}, Metrics: &Metrics{Partitions: []PartitionMetrics{
		{Partition: 0, Role: results.RoleLed, Values: map[Measure]time.Duration{MeasureAckStall: 8 * s}},
		{Partition: 1, Role: results.RoleFollowed, Values: map[Measure]time.Duration{MeasureAckStall: 5 * s, MeasureReceiveStall: 5 * s}},
		{Partition: 2, Role: results.RoleNone, Values: map[Measure]time.Duration{MeasureAckStall: s / 10}},
	}}}
	sum := Summarize([]*Trial{tr})
	for _, c := range []struct {
		name string
		got  Range
		want Range
	}{
		{"leader", sum.LeaderGap, Range{8 * s, 8 * s, 1}},
		{"follower", sum.FollowerGap, Range{5 * s, 5 * s, 1}},
		{"any", sum.AnyGap, Range{s / 10, 8 * s, 3}},
		{"receive", sum.ReceiveGap, Range{5 * s, 5 * s, 1}},
	} {
		if c.got != c.want {
			t.Errorf("%s gap %+v, want %+v", c.name, c.got, c.want)
		}
	}
}

// TestMetricsFromHeartbeat checks the session timeout is the analysis's
// datum, read where the detection's explanation reads it, and that
// from_heartbeat is after_detect plus it — for a kill, not a graceful
// stop, which no session expiry detects.
func TestMetricsFromHeartbeat(t *testing.T) {
	for _, tc := range []struct {
		archive string
		from    bool
	}{
		{sigkillArchive, true},
		{sigtermArchive, false},
	} {
		t.Run(tc.archive, func(t *testing.T) {
			tr := analyze(t, unpack(t, tc.archive))
			rm, ok := tr.Metrics.Role(results.RoleLed)
			if !ok {
				t.Fatal("no leader metrics")
			}
			after, hasAfter := rm.Values[MeasureAfterDetect]
			from, hasFrom := rm.Values[MeasureFromHeartbeat]
			if hasFrom != tc.from {
				t.Fatalf("from_heartbeat %v present %v, want %v", from, hasFrom, tc.from)
			}
			if !tc.from {
				return
			}
			st := tr.Metrics.SessionTimeout
			if st.Name != "broker.session.timeout.ms" || st.Value != "9000" || st.Source == SourceUnknown {
				t.Errorf("session timeout %+v, want 9000 from the controller's logged configuration", st)
			}
			if !hasAfter || from != after+9*time.Second {
				t.Errorf("from_heartbeat %v, want after_detect %v + 9s", from, after)
			}
		})
	}
}
