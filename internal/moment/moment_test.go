package moment

import (
	"testing"
	"time"
)

func TestEarlierLater(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Millisecond)
	same := t0.In(time.FixedZone("CET", 3600)) // t0's instant, another location
	tests := []struct {
		name           string
		a, b           time.Time
		earlier, later time.Time
	}{
		{name: "a first", a: t0, b: t1, earlier: t0, later: t1},
		{name: "b first", a: t1, b: t0, earlier: t0, later: t1},
		{name: "zero is earliest", a: time.Time{}, b: t0, earlier: time.Time{}, later: t0},
		{name: "same instant keeps a", a: same, b: t0, earlier: same, later: same},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Earlier(tt.a, tt.b); !got.Equal(tt.earlier) || got.Location() != tt.earlier.Location() {
				t.Errorf("Earlier(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.earlier)
			}
			if got := Later(tt.a, tt.b); !got.Equal(tt.later) || got.Location() != tt.later.Location() {
				t.Errorf("Later(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.later)
			}
		})
	}
}
