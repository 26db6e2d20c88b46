package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The reporter on a pipe (a CI log): plain lines, one in five live lines,
// no carriage returns; quiet, nothing at all.
func TestReporter(t *testing.T) {
	tests := []struct {
		name  string
		quiet bool
		want  string
	}{
		{"plain lines off a terminal", false, "trial 1\nlive 5\nlive 10\ndone\n"},
		{"quiet", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			r := newReporter(&b, tt.quiet)
			r.Say("trial 1")
			for i := 1; i <= 12; i++ {
				r.Live(fmt.Sprintf("live %d", i))
			}
			r.Say("done")
			r.clear()
			if got := b.String(); got != tt.want {
				t.Errorf("reporter wrote %q, want %q", got, tt.want)
			}
			if strings.Contains(b.String(), "\r") {
				t.Error("a carriage return in output that is not a terminal")
			}
		})
	}
}
