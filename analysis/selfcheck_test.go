package analysis

import (
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

func TestProbeStalled(t *testing.T) {
	for _, tc := range []struct {
		name     string
		interval time.Duration
		gap      time.Duration
		want     bool
	}{
		{name: "no metadata"},
		{name: "kept time", interval: 20 * msec, gap: 25 * msec},
		{name: "over five intervals, under 100 ms", interval: 10 * msec, gap: 90 * msec},
		{name: "over 100 ms, under five intervals", interval: 50 * msec, gap: 200 * msec},
		{name: "over both", interval: 20 * msec, gap: 101 * msec, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &Trial{}
			if tc.interval > 0 {
				tr.Meta = &results.Meta{Probe: results.Probe{Interval: tc.interval, LongestSendGap: tc.gap}}
			}
			if got := tr.ProbeStalled(); got != tc.want {
				t.Errorf("ProbeStalled() = %v, want %v", got, tc.want)
			}
		})
	}
}
