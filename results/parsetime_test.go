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

// TestSameDay holds the decoder's parse of a time of the day it last
// parsed to parseFixed's.
func TestSameDay(t *testing.T) {
	var c sameDay
	first := []byte("2026-11-30T03:26:09.080123456Z")
	want, _ := parseFixed(first)
	c.remember(first, want)
	for _, s := range []string{
		"2026-11-30T03:26:09.080123456Z",
		"2026-11-30T00:00:00.000000000Z",
		"2026-11-30T23:59:59.999999999Z",
		"2026-11-30T24:00:00.000000000Z", // no such hour
		"2026-11-30T03:60:09.080123456Z",
		"2026-11-30T03:26:09.08012345xZ",
		"2026-11-30T03:26:09.080123456+",
		"2026-12-01T03:26:09.080123456Z", // another day
	} {
		got, ok := c.parse([]byte(s))
		fixed, fixedOK := parseFixed(s)
		if ok && (!fixedOK || !got.Equal(fixed) || got.Location() != fixed.Location()) {
			t.Errorf("%s: sameDay %v, parseFixed %v %v", s, got, fixed, fixedOK)
		}
		if !ok && fixedOK && s[:10] == "2026-11-30" {
			t.Errorf("%s: sameDay refused the day's time parseFixed reads", s)
		}
	}
	// A day before 1970 counts back from its midnight alike.
	old := []byte("1969-12-31T23:59:59.500000000Z")
	tm, _ := parseFixed(old)
	c.remember(old, tm)
	if got, ok := c.parse([]byte("1969-12-31T00:00:01.000000000Z")); !ok || got.Unix() != -86399 {
		t.Errorf("1969-12-31T00:00:01: %v %v, want Unix -86399", got, ok)
	}
}
