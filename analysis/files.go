package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
)

// The result files beside the probe CSV (the group reader's, the
// transactions', the load's) are checked as it is: meta.json says which
// the trial wrote, and one of them missing, or holding no row while the
// probe's reader read records, is damaged evidence — a note that makes
// the verdict suspect, and no figure read from it — never a count of zero.
// Their rows are bounded by the trial (results.Scope): a partition it did
// not probe, or a time outside it, is refused at its line.

// received counts the records the probe's reader read, by its gaps g.
func received(g *gaps.Report) int {
	if g == nil {
		return 0
	}
	n := 0
	for _, p := range g.Partitions {
		n += p.Received
	}
	return n
}

// readEnd is where a reader's window ends: the trial's end as the
// options gopt give it, else the end of what the probe's reader read (g).
func readEnd(gopt gaps.Options, g *gaps.Report) time.Time {
	if gopt.End.IsZero() && g != nil {
		return g.End
	}
	return gopt.End
}

// longestCommitStall is the longest of stalls in progress at some moment
// of the fault's window (gopt), or the longest of all without a fault.
func longestCommitStall(stalls []CommitStall, gopt gaps.Options) *CommitStall {
	var from, to time.Time
	if !gopt.FaultAt.IsZero() {
		from = gopt.FaultAt
		if gopt.From.After(from) {
			from = gopt.From
		}
		w := gopt.Window
		if w <= 0 {
			w = gaps.DefaultWindow
		}
		to = from.Add(w)
	}
	var best *CommitStall
	for i := range stalls {
		s := &stalls[i]
		if !from.IsZero() && (!s.End.After(from) || s.Start.After(to)) {
			continue
		}
		if best == nil || s.Duration() > best.Duration() {
			best = s
		}
	}
	if best == nil {
		return nil
	}
	out := *best
	return &out
}

// missingFile is the damaged note for the trial's file name, which the
// metadata says the trial wrote (as what) but which is not there.
func missingFile(name, what string) notes {
	return notes{{text: fmt.Sprintf("no %s, though meta.json says the trial had %s: its record is missing, so none of its figures is reported", name, what), damaged: true}}
}

// emptyFile is the damaged note for the trial's file name holding no row
// while the probe's reader read n records.
func emptyFile(name, what string, n int) notes {
	return notes{{text: fmt.Sprintf("%s holds no row, though the probe's reader read %d record(s) with %s running: the file is damaged or cut short, so none of its figures is reported", name, n, what), damaged: true}}
}

// emptyReadBack is the damaged note for a read-back (log.csv) of no row
// while the probe's reader read records (g): the partitions emptied from
// where the probe began — every record lost, which the audit reports when
// the topic's ID shows it is the probe's own (countableAudit, which else
// counts nothing) — or a file cut short; either way the trial is not read
// as valid. A power
// loss is the exception: emptying the partitions of what was never
// fsynced is what its trial measures, and the audit, beside the flush
// settings, is the answer (powerloss.go), not damaged evidence.
func emptyReadBack(in *integrity.Report, g *gaps.Report, f *results.Fault) notes {
	if in == nil || in.Counts.Logged > 0 || received(g) == 0 || (f != nil && f.Kind == results.FaultPowerLoss) {
		return nil
	}
	return notes{{text: fmt.Sprintf("%s holds no row, though the probe's reader read %d record(s): the partitions were found empty from where the probe began, or the file is damaged or cut short; its losses are reported as the audit found them", results.LogFile, received(g)), damaged: true}}
}

// readFileRows is readRows for the trial's file at path, written as what
// (meta.json says the trial had it): the rows, or the damaged note when
// the file is missing, or empty while the probe's reader read records (g).
func readFileRows[T any, D interface{ Decode(*T) error }](ctx context.Context, path, what string, g *gaps.Report, newDec func(io.Reader, string) D) ([]T, notes, error) {
	rows, err := readRows[T](ctx, path, newDec)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, missingFile(filepath.Base(path), what), nil
	case err != nil:
		return nil, nil, err
	case len(rows) == 0 && received(g) > 0:
		return nil, emptyFile(filepath.Base(path), what, received(g)), nil
	}
	return rows, nil, nil
}
