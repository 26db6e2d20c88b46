package experiment

import (
	"errors"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/verdict"
)

func TestOutcome(t *testing.T) {
	valid := &verdict.Verdict{Status: verdict.Valid}
	invalid := &verdict.Verdict{Status: verdict.Invalid}
	lost := report.Findings{{Client: "java", Acks: "all", Idempotent: true, Lost: 2}}
	allowed := report.Findings{{Client: "librdkafka", Acks: "all", Duplicated: 1}}
	for _, tc := range []struct {
		name   string
		trials []*report.Trial
		want   error
		says   string
	}{
		{name: "clean", trials: []*report.Trial{{Verdict: valid}}},
		{name: "a duplicate a producer not idempotent may write", trials: []*report.Trial{{Verdict: valid, Findings: allowed}}},
		{name: "a loss in the second trial", trials: []*report.Trial{{Verdict: valid}, {Verdict: valid, Findings: lost}},
			want: ErrFindings, says: "trial 2: java: 2 lost under acks=all"},
		{name: "a loss in an invalid trial", trials: []*report.Trial{{Verdict: invalid, Findings: lost}},
			want: ErrFindings, says: "java: 2 lost"},
		{name: "no valid trial", trials: []*report.Trial{{Verdict: invalid}, {Verdict: invalid, Findings: allowed}},
			want: ErrNoValidTrial, says: "2 of 2 trials not valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Outcome(tc.trials)
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
