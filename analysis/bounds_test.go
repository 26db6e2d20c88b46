package analysis

import (
	"testing"
	"time"

	"github.com/kbf-project/kbf/timeline"
)

// TestLagBound checks the ISR wait by lag against its derivation: the
// leader's own shrink line lies in (F + L, F + 1.5·L], counted from the
// phase's start, and no bound is stated for a line of the applied ISR or
// an unread setting.
func TestLagBound(t *testing.T) {
	F := time.Date(2026, 12, 6, 17, 11, 40, 0, time.UTC)
	lag := Setting{Name: lagSetting, Node: "k2", Value: "10000", Source: SourceNodeConfig}
	shrink := func(after time.Duration) timeline.Event {
		return timeline.Event{Kind: timeline.KindISRShrink, Time: F.Add(after)}
	}
	for _, tc := range []struct {
		name      string
		s         Setting
		start     time.Time
		e         timeline.Event
		stated    bool
		low, high time.Duration
		beyond    bool
	}{
		{name: "within", s: lag, start: F, e: shrink(12 * time.Second), stated: true, low: 10 * time.Second, high: 15 * time.Second},
		{name: "beyond", s: lag, start: F, e: shrink(16 * time.Second), stated: true, low: 10 * time.Second, high: 15 * time.Second, beyond: true},
		{name: "stall began later", s: lag, start: F.Add(time.Second), e: shrink(12 * time.Second), stated: true, low: 9 * time.Second, high: 14 * time.Second},
		{name: "applied ISR", s: lag, start: F, e: timeline.Event{Kind: timeline.KindISRUpdated, Time: F.Add(12 * time.Second)}},
		{name: "unread setting", s: Setting{Name: lagSetting, Source: SourceUnknown}, start: F, e: shrink(12 * time.Second)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := lagBound(tc.s, F, tc.start, tc.e)
			if b.Stated != tc.stated || b.Basis == "" {
				t.Fatalf("stated %v (%q), want %v", b.Stated, b.Basis, tc.stated)
			}
			if !tc.stated {
				return
			}
			if b.Low != tc.low || b.High != tc.high {
				t.Errorf("bound (%s, %s], want (%s, %s]", b.Low, b.High, tc.low, tc.high)
			}
			b.measure(tc.e.Time.Sub(tc.start))
			if b.Beyond() != tc.beyond {
				t.Errorf("beyond %v (excess %s), want %v", b.Beyond(), b.Excess, tc.beyond)
			}
		})
	}
}
