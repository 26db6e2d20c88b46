package load

import (
	"strings"
	"testing"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		size int
		want float64
		err  string
	}{
		{"5000/s", 1024, 5000, ""},
		{"5000", 1024, 5000, ""},
		{"2MB/s", 1000, 2000, ""},
		{"2MiB/s", 1024, 2048, ""},
		{"512KiB/s", 512, 1024, ""},
		{"0/s", 1024, 0, "more than 0"},
		{"-5/s", 1024, 0, "more than 0"},
		{"NaN/s", 1024, 0, "more than 0"},
		{"fast", 1024, 0, "want records/s"},
		{"", 1024, 0, "want records/s"},
		{"2000MB/s", 1024, 0, "at most 1 GiB/s"},
		{"2MB/s", 1, 0, "more than"},
	} {
		got, err := ParseRate(tc.in, tc.size)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseRate(%q, %d) = %v, %v; want %v", tc.in, tc.size, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseRate(%q, %d) = %v, %v; want an error with %q", tc.in, tc.size, got, err, tc.err)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"1024", 1024, true}, {"1KiB", 1024, true}, {"4KB", 4000, true}, {"1MiB", 1 << 20, true}, {"100B", 100, true},
		{"0", 0, false}, {"2MiB", 0, false}, {"big", 0, false}, {"", 0, false},
	} {
		got, err := ParseSize(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Config{Bootstrap: []string{"b:9092"}, Topic: "orders-load", Like: "orders", Rate: 1, Size: 1024}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	same := ok
	same.Topic = "orders"
	if err := same.Validate(); err == nil || !strings.Contains(err.Error(), "topic of its own") {
		t.Errorf("the probe's topic: %v", err)
	}
}
