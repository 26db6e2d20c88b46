package experiment

import (
	"fmt"
	"strings"

	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/verdict"
)

// Outcome is what a completed run of trials returns: an error wrapping
// ErrFindings, naming each client and what it found, when any trial's
// findings fail it (report.Findings.Fail, the rule kbf report and kbf
// bench follow too; a trial of any verdict counts, for records lost are
// lost); else an error wrapping ErrNoValidTrial when no trial was valid;
// else nil.
func Outcome(trials []*report.Trial) error {
	var findings []string
	valid := 0
	for i, tr := range trials {
		if tr.Findings.Fail() {
			findings = append(findings, fmt.Sprintf("trial %d: %s", i+1, tr.Findings.Why()))
		}
		if tr.Verdict != nil && tr.Verdict.Status == verdict.Valid {
			valid++
		}
	}
	if len(findings) > 0 {
		return fmt.Errorf("%w: %s", ErrFindings, strings.Join(findings, "; "))
	}
	if valid == 0 {
		return fmt.Errorf("%w: %d of %d trials not valid (see each report's verdict line)", ErrNoValidTrial, len(trials), len(trials))
	}
	return nil
}
