package results

import (
	"strings"
	"testing"
)

func TestParseLoss(t *testing.T) {
	for in, want := range map[string]float64{"30%": 0.3, "30": 0.3, " 2.5 % ": 0.025, "99%": 0.99} {
		if got, err := ParseLoss(in); err != nil || got != want {
			t.Errorf("ParseLoss(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "0%", "100%", "-5%", "abc", "NaN", "30%%"} {
		if _, err := ParseLoss(in); err == nil || !strings.Contains(err.Error(), "want a percentage between 0 and 100") {
			t.Errorf("ParseLoss(%q): error %v", in, err)
		}
	}
	if got := LossText(0.3); got != "30%" {
		t.Errorf("LossText(0.3) = %q", got)
	}
}
