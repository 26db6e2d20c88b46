package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kbf-project/kbf/analysis"
)

// Exit codes, decided here only.
const (
	exitOK       = 0
	exitError    = 1 // kbf could not do what was asked
	exitUsage    = 2 // the command line is wrong
	exitFindings = 3 // the run worked and found a problem: lost or duplicated acknowledged records
	exitRegress  = 4 // kbf compare: a regression
	exitTooFew   = 5 // kbf compare: undecided
	exitNoValid  = 6 // every trial ran, none was valid (its verdict says why)
	exitCanceled = 130
)

// exitStatuses are kbf's exit statuses and what each means, the one table
// every command's help is written from (exitHelp) and its error is turned
// into a status by (exitFor).
var exitStatuses = []struct {
	code int
	// is is the error that means it; nil for those decided otherwise.
	is      error
	meaning string
}{
	{exitOK, nil, "done"},
	{exitError, nil, "kbf could not do what was asked, or a trial could not be read (one line says why)"},
	{exitUsage, nil, "the command line, or a file it names, is wrong"},
	{exitFindings, errFindings, "a client's acknowledged records broke what its settings promise: lost under acks=all, or duplicated or reordered by an idempotent producer (in a trial of any verdict)"},
	{exitRegress, errRegression, "a regression: the new side is worse beyond the bound"},
	{exitTooFew, errTooFew, "undecided: too few valid trials, or a scenario, role or metric on one side only; run more"},
	{exitNoValid, analysis.ErrNoValidTrial, "every trial ran, but none was valid (each report's verdict line says why)"},
	{exitCanceled, nil, "interrupted (Ctrl-C or SIGTERM): a fault undone, what was measured kept"},
}

// exitHelp is the "Exit status" paragraph of a command that can end with
// the given codes, in the table's order, wrapped to the help's width.
func exitHelp(codes ...int) string {
	const indent = "       "
	var b strings.Builder
	b.WriteString("Exit status:")
	for _, s := range exitStatuses {
		if !slices.Contains(codes, s.code) {
			continue
		}
		line := fmt.Sprintf("  %-4d", s.code)
		for _, w := range strings.Fields(s.meaning) {
			if len(line)+1+len(w) > helpWidth && strings.TrimSpace(line) != "" {
				b.WriteString("\n" + line)
				line = indent[:len(indent)-1]
			}
			line += " " + w
		}
		b.WriteString("\n" + line)
	}
	return b.String()
}

// exitFor is the exit status of a command that ended with err.
func exitFor(ctx context.Context, err error) int {
	if err == nil {
		return exitOK
	}
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	if msg := err.Error(); strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") {
		return exitUsage
	}
	// The table's order is the precedence: a finding decides the status
	// even beside a broken trial, so CI never misses a loss.
	for _, s := range exitStatuses {
		if s.is != nil && errors.Is(err, s.is) {
			return s.code
		}
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return exitCanceled
	}
	return exitError
}
