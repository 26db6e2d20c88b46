package kafkaadmin

import (
	"strings"
	"testing"
	"time"
)

func TestCaughtUpSince(t *testing.T) {
	restart := time.Date(2026, 12, 1, 4, 0, 0, 123456789, time.UTC)
	q := Quorum{Leader: 101, Epoch: 3, HighWatermark: 900, Voters: []Voter{
		{ID: 100, LogEndOffset: 880, LastCaughtUp: restart.Add(-5 * time.Second)},
		{ID: 101, LogEndOffset: 900, LastCaughtUp: restart.Add(time.Second)},
		{ID: 102, LogEndOffset: 900, LastCaughtUp: restart.Truncate(time.Millisecond)},
	}}
	for _, tc := range []struct {
		id  int32
		ok  bool
		why string
	}{
		{100, false, "voter 100 at offset 880 of the leader's high watermark 900"},
		{101, true, ""},
		{102, true, ""}, // the same millisecond: the leader's clock has no finer
		{103, false, "node 103 is not among the quorum's voters"},
	} {
		ok, why := q.CaughtUpSince(tc.id, restart)
		if ok != tc.ok || !strings.HasPrefix(why, tc.why) {
			t.Errorf("voter %d: %v %q, want %v %q", tc.id, ok, why, tc.ok, tc.why)
		}
	}
}
