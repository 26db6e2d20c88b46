package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/analysis"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// errFindings marks a completed run whose results show a problem; the
// experiment's own, so a run's findings need no translation.
var errFindings = analysis.ErrFindings

// errRegression and errTooFew are kbf compare's verdicts that fail a gate.
var (
	errRegression = errors.New("regression")
	errTooFew     = errors.New("too few samples")
)

// usageError is a mistake on the command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// usage is err as a usage error; nil for nil.
func usage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// globals are the flags every command has.
type globals struct {
	out, errOut io.Writer
}

func newRootCmd(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "kbf",
		Short: "Measure what a Kafka cluster does when a broker dies",
		Long: `kbf brings up a Kafka KRaft cluster in Docker, probes it with acks=all producers
and a consumer, kills or stops a broker, and reports per partition how long
acks and reads stalled, what the controller and clients did meanwhile, and
whether any acknowledged record was lost.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(g.out)
	root.SetErr(g.errOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	for _, add := range commands {
		root.AddCommand(add(g))
	}
	return root
}

// commands holds each command's constructor; each command file registers its
// own in init, so adding a command touches one file.
var commands []func(*globals) *cobra.Command

func run(ctx context.Context, args []string, out, errOut io.Writer) int {
	g := &globals{out: out, errOut: errOut}
	root := newRootCmd(g)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitFor(ctx, err)
	switch code {
	case exitUsage:
		// An error of several lines gets the prefix on every line.
		fmt.Fprintf(errOut, "kbf: %s (see kbf --help)\n", strings.ReplaceAll(err.Error(), "\n", "\nkbf: "))
	case exitCanceled:
		fmt.Fprintln(errOut, "kbf: interrupted")
	default:
		// An error of several lines (a run's broken trials, each named)
		// gets the prefix on every line.
		fmt.Fprintf(errOut, "kbf: %s\n", strings.ReplaceAll(err.Error(), "\n", "\nkbf: "))
	}
	return code
}
