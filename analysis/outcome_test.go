package analysis

import (
	"errors"
	"strings"
	"testing"

	"fmt"

	"github.com/kbf-project/kbf/verdict"
)

// TestOutcome is the rule every command's exit status follows, kbf run's,
// report's, plot's and bench's: findings first, then what could not be
// read, then no valid trial.
func TestOutcome(t *testing.T) {
	valid := &verdict.Verdict{Status: verdict.Valid}
	invalid := &verdict.Verdict{Status: verdict.Invalid}
	lost := Findings{{Client: "java", Acks: "all", Idempotent: true, Lost: 2}}
	allowed := Findings{{Client: "librdkafka", Acks: "all", Duplicated: 1}}
	for _, tc := range []struct {
		name   string
		trials []*Trial
		broken []error
		want   error
		says   string
	}{
		{name: "clean", trials: []*Trial{{Verdict: valid}}},
		{name: "a duplicate a producer not idempotent may write", trials: []*Trial{{Verdict: valid, Findings: allowed}}},
		{name: "a loss in the second trial", trials: []*Trial{{Verdict: valid}, {Verdict: valid, Findings: lost}},
			want: ErrFindings, says: "trial 2: java: 2 lost under acks=all"},
		{name: "a loss in an invalid trial", trials: []*Trial{{Verdict: invalid, Findings: lost}},
			want: ErrFindings, says: "java: 2 lost"},
		{name: "no valid trial", trials: []*Trial{{Verdict: invalid}, {Verdict: invalid, Findings: allowed}},
			want: ErrNoValidTrial, says: "2 of 2 trials not valid"},
		{name: "a foreign CSV has no verdict, and is not counted as invalid", trials: []*Trial{{}}},
		{name: "an unreadable trial beside a valid one", trials: []*Trial{{Verdict: valid}},
			broken: []error{errors.New("trial-02: probe.csv: line 3: truncated")}, want: ErrBroken, says: "trial-02: probe.csv"},
		{name: "a client's unreadable records", trials: []*Trial{{Verdict: valid, Clients: []ClientResult{{Name: "java", Err: "probe.csv: line 9: bad time"}}}},
			want: ErrBroken, says: "trial 1: client java: probe.csv: line 9"},
		{name: "a loss beside an unreadable trial is still a finding", trials: []*Trial{{Verdict: valid, Findings: lost}},
			broken: []error{errors.New("trial-02: unreadable")}, want: ErrFindings, says: "java: 2 lost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o Outcome
			for i, tr := range tc.trials {
				o.Add(fmt.Sprintf("trial %d", i+1), tr)
			}
			o.Broke(tc.broken...)
			err := o.Err()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Outcome = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Outcome = %v, want %v saying %q", err, tc.want, tc.says)
			}
		})
	}
}
