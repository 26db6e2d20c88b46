package analysis

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kbf-project/kbf/results"
)

// ErrFindings marks trials that ran and whose records broke what a
// client's settings promise (Findings.Fail). ErrNoValidTrial marks trials
// that ran, none of them valid. ErrBroken marks trials, or a client's
// records in one, that could not be read. A command's exit status is
// decided from these alone, so kbf run, report, plot and bench agree.
var (
	ErrFindings     = errors.New("the run found a problem")
	ErrNoValidTrial = errors.New("no trial was valid")
	ErrBroken       = errors.New("unreadable")
)

// Outcome is what a command's trials come to: it is built one trial at a
// time (Add, Broke) and turned into the command's error once (Err). It is
// the one place trials become an exit status, for every command that
// analyses them.
type Outcome struct {
	// Judged counts the trials that had a verdict (a foreign probe CSV has
	// none); Valid those judged valid.
	Judged, Valid int
	// Findings name each trial whose findings fail it, and why.
	Findings []string
	// Broken are the trials, or the clients' records in them, that could
	// not be read.
	Broken []error
}

// Add counts one analysed trial, named as a reader finds it (its
// directory, or "trial 2").
func (o *Outcome) Add(name string, tr *Trial) {
	if tr.Findings.Fail() {
		o.Findings = append(o.Findings, fmt.Sprintf("%s: %s", name, tr.Findings.Why()))
	}
	// A client's records that cannot be read are a bad file of the
	// trial's: said beside the others, never a silent 0.
	for _, c := range tr.Clients {
		if c.Err != "" {
			o.Broke(fmt.Errorf("%s: client %s: %s", name, c.Name, c.Err))
		}
	}
	if tr.Verdict != nil {
		o.Judged++
		if tr.Verdict.Valid() {
			o.Valid++
		}
	}
}

// AddMeasured counts a trial known by its findings and whether it was
// valid, as a benchmark keeps it.
func (o *Outcome) AddMeasured(name string, f Findings, valid bool) {
	if f.Fail() {
		o.Findings = append(o.Findings, fmt.Sprintf("%s: %s", name, f.Why()))
	}
	o.Judged++
	if valid {
		o.Valid++
	}
}

// Broke counts a trial, or part of one, that could not be read.
func (o *Outcome) Broke(errs ...error) { o.Broken = append(o.Broken, errs...) }

// Err is the trials' outcome as an error, nil when all is well. Findings
// come first, whatever else happened (a lost record is never hidden by a
// broken trial beside it); then the trials that could not be read, which
// wrap ErrBroken; then, when every judged trial ran and none was valid,
// ErrNoValidTrial.
func (o *Outcome) Err() error {
	var errs []error
	if len(o.Findings) > 0 {
		errs = append(errs, fmt.Errorf("%w: %s", ErrFindings, strings.Join(o.Findings, "; ")))
	}
	for _, b := range o.Broken {
		errs = append(errs, brokenError{b})
	}
	if len(errs) > 0 {
		return results.BrokenTrials(errs)
	}
	if o.Judged > 0 && o.Valid == 0 {
		return fmt.Errorf("%w: %d of %d trials not valid (see each report's verdict line)", ErrNoValidTrial, o.Judged, o.Judged)
	}
	return nil
}

// brokenError is an unreadable trial: its own message, and ErrBroken.
type brokenError struct{ err error }

func (b brokenError) Error() string   { return b.err.Error() }
func (b brokenError) Unwrap() []error { return []error{b.err, ErrBroken} }
