package results

import (
	"fmt"
	"testing"
	"time"
)

// TestParseFixedAsTimeDate: the fixed form's own arithmetic gives the very
// time.Time that time.Date does (== compares the representation, not only
// the instant), on the first and last moments of days in every month of
// years from 0000 to 9999, leap years and not, and refuses the days a
// month has not, for time.Parse to refuse.
func TestParseFixedAsTimeDate(t *testing.T) {
	for _, y := range []int{0, 1, 4, 100, 399, 400, 1582, 1900, 1969, 1970, 2000, 2024, 2026, 2100, 2400, 9999} {
		for m := time.January; m <= time.December; m++ {
			for _, d := range []int{1, 28, 29, 30, 31} {
				s := fmt.Sprintf("%04d-%02d-%02dT00:00:00.000000000Z", y, m, d)
				if time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Day() != d {
					if got, ok := parseFixed(s); ok {
						t.Errorf("parseFixed(%q) = %v, want it refused", s, got)
					}
					continue
				}
				for _, want := range []time.Time{
					time.Date(y, m, d, 0, 0, 0, 0, time.UTC),
					time.Date(y, m, d, 23, 59, 59, 999_999_999, time.UTC),
				} {
					s := want.Format(timeLayout)
					if got, ok := parseFixed(s); !ok || got != want {
						t.Errorf("parseFixed(%q) = %v, %v; want %v", s, got, ok, want)
					}
				}
			}
		}
	}
}
