package analysis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
	"github.com/kbf-project/kbf/verdict"
)

// The stages that read the trial's files: the timeline from its logs, the
// window the fault's gaps are sought in, the gaps (and the audit) from the
// probe CSV and the read-back.

// timelineRead is the timeline stage's result: the logs, dated, and what
// of them could not be read or is dated outside the trial.
type timelineRead struct {
	// tl is nil without meta.json, or when the logs could not be read.
	tl *timeline.Timeline
	// misdated is set when node logs hold lines dated outside the trial.
	misdated bool
	// noLogs is set when the trial has no node logs directory at all.
	noLogs bool
	notes  notes
}

// timelineOf reads the trial's logs into a timeline; faultAt is the fault
// time the command line gives, if any. Node logs that exist but cannot be
// read leave the timeline out, with a note, rather than the whole report:
// the gaps and the audit stand without them.
func timelineOf(ctx context.Context, t results.Trial, faultAt time.Time) timelineRead {
	switch {
	case t.Dir == "":
		return timelineRead{}
	case t.Meta == nil:
		return timelineRead{notes: notes{{text: "no " + results.MetaFile + ": no timeline"}}}
	}
	src, err := timeline.FromDir(t.Dir, t.Meta)
	if err != nil {
		return timelineRead{notes: notes{{text: fmt.Sprintf("node logs unreadable (%v): no timeline, and the stalls are not split into phases", err)}}}
	}
	src.ClientLog = t.ClientLogFile()
	tl, err := timeline.BuildContext(ctx, src, timelineOptions(t.Meta, faultAt))
	if err != nil {
		return timelineRead{notes: notes{{text: fmt.Sprintf("logs unreadable (%v): no timeline, and the stalls are not split into phases", err)}}}
	}
	r := timelineRead{tl: tl}
	for _, d := range tl.Damaged {
		r.notes = append(r.notes, note{text: fmt.Sprintf("%s: none of its lines is read, so nothing is explained from it", d), damaged: true})
	}
	if d := misdated(t.Meta, tl); d != "" {
		r.misdated = true
		r.notes = append(r.notes, note{text: d, damaged: true})
	}
	_, err = os.Stat(filepath.Join(t.Dir, results.NodeLogsDir))
	r.noLogs = errors.Is(err, fs.ErrNotExist)
	return r
}

// timelineOptions bound the timeline of the trial m records. Node events
// are bounded by the trial's end as well as its start: a line dated later
// was not written during the trial, whatever it says, and is never cited.
func timelineOptions(m *results.Meta, faultAt time.Time) timeline.Options {
	topt := timeline.Options{From: m.Started, To: m.Ended, ClientTo: m.Ended}
	// The client's facts matter from just before the fault; the fault's
	// earliest record bounds it before the SIGTERM line is known.
	if f := m.Fault; f != nil {
		from := f.SignalSent
		if !faultAt.IsZero() && faultAt.Before(from) {
			from = faultAt
		}
		topt.ClientFrom = from.Add(-time.Second)
	}
	return topt
}

// skewTolerance is how long after the trial's end a node's log line may be
// dated and still have been written before kbf collected the logs (it
// does so as soon as the probe stops).
const skewTolerance = time.Minute

// misdated names the node log files of tl with lines dated outside the
// trial m records: after its end by more than skewTolerance, or before any
// plausible time (1970); "" when there are none. Their clocks or dates are
// off, so their lines are left out, and the trial is suspect.
func misdated(m *results.Meta, tl *timeline.Timeline) string {
	end := m.Ended
	var outside []string
	for _, d := range tl.Dated {
		switch {
		case d.After > 0 && !end.IsZero() && d.Last.After(end.Add(skewTolerance)):
			outside = append(outside, fmt.Sprintf("%s has %d line(s) dated after the trial's end, up to %s, %s after it",
				d.File, d.After, d.Last.UTC().Format(time.RFC3339), span(end, d.Last)))
		case d.Before > 0 && d.First.Before(results.EarliestTime):
			outside = append(outside, fmt.Sprintf("%s has line(s) dated %s, long before the trial", d.File, d.First.UTC().Format(time.RFC3339)))
		}
	}
	if behind := clockBehind(m, tl); behind != "" {
		outside = append(outside, behind)
	}
	if len(outside) == 0 {
		return ""
	}
	return fmt.Sprintf("node logs dated outside the trial (%s ~ %s), by a node's clock skew or damaged dates: %s; those lines are not cited",
		m.Started.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339), strings.Join(outside, "; "))
}

// clockBehind says when every line is dated before the trial began, the
// latest more than skewTolerance before it: a node clock behind the
// trial's (kbf's), not logs that are absent. The last line was written
// about when kbf collected the logs, at the trial's end, so the gap from
// it to the end is about how far behind the clock is. After a fault Kafka
// need not act on (a slow disk, a cut from the clients only) the nodes may
// log nothing for minutes, the trial before's lines the latest: no clock
// is judged from that.
func clockBehind(m *results.Meta, tl *timeline.Timeline) string {
	if f := m.Fault; f != nil && (f.Kind.Degrades() || f.Kind == results.FaultIsolateClients) {
		return ""
	}
	kept, last, lastFile := 0, time.Time{}, ""
	for _, d := range tl.Dated {
		kept += d.Kept
		if d.Before > 0 && d.After == 0 && d.Last.After(last) {
			last, lastFile = d.Last, d.File
		}
	}
	if kept > 0 || last.IsZero() || last.Before(results.EarliestTime) || !last.Before(m.Started.Add(-skewTolerance)) {
		return ""
	}
	ref := cmp.Or(m.Ended, m.Started)
	return fmt.Sprintf("every line is dated before the trial began: the node logs' clock is about %s behind the trial's (the latest line, in %s, is dated %s)",
		span(last, ref), lastFile, last.UTC().Format(time.RFC3339))
}

// span is the time from a to b, a before b, as a reader takes it in: to
// the second up to two days, then in days, then in years — never
// time.Duration's "2562047h47m16.854775807s", the most it can hold, for a
// line dated centuries away.
func span(a, b time.Time) string {
	const day = 24 * time.Hour
	d := b.Sub(a)
	switch {
	case d < 2*day:
		return d.Round(time.Second).String()
	case d < 2*365*day:
		return fmt.Sprintf("%d days", d/day)
	}
	years := b.Year() - a.Year()
	if b.YearDay() < a.YearDay() {
		years--
	}
	return fmt.Sprintf("%d years", years)
}

// faultStart is when the fault began, as the analysis dates it, and the
// fault's own record there as a line of evidence: what kbf did to which
// node, as meta.json spells it (results.Fault.Signal). Both are read from
// the record once, for every stage after.
type faultStart struct {
	F      time.Time
	record LogLine
}

// faultStartOf is when the fault f began: as its record dates it, as the
// timeline tl dates it (a graceful stop by the broker's own SIGTERM line),
// or as the command line says (override); zero without one.
func faultStartOf(f *results.Fault, tl *timeline.Timeline, override time.Time) faultStart {
	var s faultStart
	if f != nil {
		s.F = f.At()
		s.record = LogLine{Node: f.Broker, Evidence: f.Signal() + " " + f.Broker, Source: results.MetaFile}
	}
	if tl != nil {
		s.F = tl.FaultAt()
	}
	if !override.IsZero() {
		s.F = override
	}
	s.record.Time = s.F
	return s
}

// consequence is when the fault's consequence for the partitions came,
// when it comes late: a broker cut from the controller only leads on, its
// partitions acking, until the controller fences it a session timeout
// later, and only then can they stall; noise before it is no part of the
// fault. Zero for every other fault, and when the logs show no fence.
func consequence(ev *evidence, f *results.Fault) time.Time {
	if f == nil || f.Kind != results.FaultIsolateController || ev.tl == nil || ev.F.IsZero() {
		return time.Time{}
	}
	if e, ok := ev.tl.Fenced(f.NodeID, ev.F); ok {
		return e.Time
	}
	return time.Time{}
}

// windowOf is how the gaps of the trial m records are sought: after the
// fault at F (from its consequence, when that came late), within the
// command line's window, or else the fault's own (faultWindow, or the
// quorum's gap q), to the trial's end, from the probe's start-up.
func windowOf(m *results.Meta, F, consequence time.Time, q *QuorumGap, window time.Duration) gaps.Options {
	gopt := gaps.Options{FaultAt: F, From: consequence, Window: window}
	if gopt.Window <= 0 {
		gopt.Window = faultWindow(m, cmp.Or(consequence, F))
	}
	if gopt.Window <= 0 && q != nil {
		gopt.Window = quorumWindow(q, m)
	}
	if m != nil && !m.Ended.IsZero() {
		gopt.End = m.Ended
	}
	if m != nil {
		gopt.Ready = m.Probe.Ready // a probe run's gaps begin after its start-up
	}
	return gopt
}

// faultWindow is how long after the fault at F a gap may begin and still
// be the fault's, when the command line does not say: gaps.DefaultWindow
// for a signal, and for a network cut the whole cut, to its heal (or the
// probe's end, or a failback's restart, whichever came first). A broker cut only from the
// controller leads on until it is fenced, so the stall the cut causes
// begins seconds after it; a window of a second would miss it and report
// some short gap of no consequence instead.
func faultWindow(m *results.Meta, F time.Time) time.Duration {
	if m == nil || m.Fault == nil || !m.Fault.Kind.Network() || F.IsZero() {
		return 0
	}
	end := m.Ended
	if r := m.Recovery; r != nil && !r.Restarted.IsZero() && (end.IsZero() || r.Restarted.Before(end)) {
		end = r.Restarted
	}
	// A failback heals the cut with the probe running: its stall is the
	// failback's (failback.go), not the cut's.
	if fb := m.Failback; fb != nil && !fb.Restarted.IsZero() && (end.IsZero() || fb.Restarted.Before(end)) {
		end = fb.Restarted
	}
	if !end.After(F) {
		return 0
	}
	return end.Sub(F)
}

// quorumWindow is how long after the fault a gap may begin and still be a
// controller fault's: while the quorum had no leader, and at least
// gaps.DefaultWindow; to the probe's end when no leader was elected.
func quorumWindow(q *QuorumGap, m *results.Meta) time.Duration {
	switch {
	case q.Elected != nil:
		return max(gaps.DefaultWindow, q.Leaderless)
	case !m.Ended.IsZero() && m.Ended.After(q.Fault.Time):
		return max(gaps.DefaultWindow, m.Ended.Sub(q.Fault.Time))
	}
	return 0
}

// probeRead is the gaps stage's result: what one pass over the probe CSV
// gave.
type probeRead struct {
	gaps *gaps.Report
	// steps are a fault of several steps' stalls, step by step; nil for
	// a fault of one.
	steps *StepView
	// audit has weighed every message against the read-back; nil
	// without one.
	audit *integrity.Audit
	last  lastReceived
	notes notes
}

// readBackOf reads the trial's read-back into an audit that weighs each
// probe message as it is read (integrity.Audit.LogDone), so the probe CSV
// is never held: nil, with a note, when the trial has none.
func readBackOf(ctx context.Context, t results.Trial) (*integrity.Audit, notes, error) {
	if t.Dir == "" {
		return nil, nil, nil
	}
	logPath, err := t.LogPath()
	if err != nil {
		return nil, nil, err
	}
	if logPath == "" {
		return nil, notes{{text: "no " + results.LogFile + ": the partitions were not read back, so no integrity check"}}, nil
	}
	dec, err := t.OpenLog(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer dec.Close()
	a := integrity.New()
	var r results.LogRecord
	for {
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			a.LogDone()
			return a, nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		a.AddLog(r)
	}
}

// gapsOf reads the trial's probe CSV once, within the window gopt: the
// gaps, for a fault of several steps every stall, each partition's last
// receive, and each message into audit, when there is one. messages, when
// set, is handed each message too.
func gapsOf(ctx context.Context, t results.Trial, gopt gaps.Options, audit *integrity.Audit, messages func(*results.Message)) (probeRead, error) {
	r := probeRead{gaps: gaps.NewReport(gopt), audit: audit, last: lastReceived{}}
	// A fault of several steps needs every stall, not only the first
	// step's: they are read in the same pass.
	var long *gaps.Longer
	if multiStep(t.Meta) {
		long = gaps.NewLonger(verdict.StallBound(t.Meta), gopt.End)
	}
	foreign, err := readProbe(ctx, t, func(m *results.Message) {
		r.gaps.Add(m)
		if long != nil {
			long.Add(m)
		}
		r.last.add(m)
		if audit != nil {
			audit.AddMessage(m)
		}
		if messages != nil {
			messages(m)
		}
	})
	if err != nil {
		return probeRead{}, err
	}
	if foreign != "" {
		r.notes = append(r.notes, note{text: foreign})
	}
	r.gaps.Close()
	if err := r.gaps.Err; err != nil {
		return probeRead{}, fmt.Errorf("%s: %w", t.Probe, err)
	}
	if long != nil {
		long.Close()
		r.steps = stepView(t.Meta, long)
	}
	return r, nil
}

// readProbe decodes the trial's probe CSV, handing each message to add.
// Another program's CSV is said: how its columns and times were read.
func readProbe(ctx context.Context, t results.Trial, add func(*results.Message)) (foreign string, err error) {
	dec, err := t.OpenProbe(ctx)
	if err != nil {
		return "", err
	}
	defer dec.Close()
	var m results.Message
	for {
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return dec.Foreign(), nil
		}
		if err != nil {
			return "", err
		}
		add(&m)
	}
}

// auditOf is what the audit found; nil without a read-back.
func auditOf(audit *integrity.Audit) *integrity.Report {
	if audit == nil {
		return nil
	}
	return audit.Close()
}
