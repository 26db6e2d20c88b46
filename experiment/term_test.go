package experiment

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The reporter on a pipe (a CI log): plain lines, one in five live lines,
// no carriage returns; quiet, nothing at all; with a prefix, on every
// line.
func TestTerm(t *testing.T) {
	tests := []struct {
		name   string
		quiet  bool
		prefix string
		want   string
	}{
		{"plain lines off a terminal", false, "", "trial 1\nlive 5\nlive 10\ndone\n"},
		{"quiet", true, "", ""},
		{"a lane", false, "[kbf-2] ", "[kbf-2] trial 1\n[kbf-2] live 5\n[kbf-2] live 10\n[kbf-2] done\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			r := NewTerm(&b, tt.quiet, tt.prefix)
			r.Say("trial 1")
			for i := 1; i <= 12; i++ {
				r.Live(fmt.Sprintf("live %d", i))
			}
			r.Say("done")
			r.Clear()
			if got := b.String(); got != tt.want {
				t.Errorf("reporter wrote %q, want %q", got, tt.want)
			}
			if strings.Contains(b.String(), "\r") {
				t.Error("a carriage return in output that is not a terminal")
			}
		})
	}
}
