// Package report is kbf's analysis of a trial. It reads a trial directory
// — the probe CSV, the read-back CSV, the nodes' and clients' logs and the
// metadata — and puts the analyses together: the gaps per partition, the
// timeline, the integrity check and each stall split into phases; for a
// fault of several steps, every stall after the step it followed; or,
// after a controller fault, the KRaft quorum's leaderless gap and what the
// data path did meanwhile; and, across the trials of a run, a summary
// (Summarize). It returns data and draws nothing: report/render writes it
// as text and JSON, plot as SVG and htmlreport as a page. It needs neither
// Docker nor Kafka.
//
// The analysis decides and the renderers draw: a Trial holds each Stall's
// Phases, each with its start and end, its explanation and the Settings
// behind it (the value and where it was read, or SourceUnknown), and the
// Boundaries a picture draws as lines. Settings are named as their owners
// spell them; a command that has flags for them says so through
// render.TextOptions.Flag.
//
// Where to look: report.go runs the analysis (Analyze) and holds the
// Trial; explain.go and why.go split the stalls into phases and explain
// them; check.go holds those explanations to their evidence; quorum.go,
// network.go, steps.go, replicas.go and clients.go are the analyses of
// their names; findings.go and metrics.go are what commands decide exit
// codes and benchmarks by; digest.go and summary.go are a trial at a
// glance and a run's trials side by side.
package report

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

// Options adjust how a trial is read.
type Options struct {
	// FaultAt overrides the fault time the metadata records.
	FaultAt time.Time
	// Window is gaps.Options.Window.
	Window time.Duration
	// Messages, when set, is handed each message of the probe CSV as the
	// analysis reads it, so that a renderer that draws every message (a
	// picture) needs no second pass over the file. m is valid only during
	// the call.
	Messages func(m *results.Message)

	clientLog string // the client log the timeline reads
}

// Trial is one trial's analyses: everything a renderer draws, decided.
type Trial struct {
	Dir     string        `json:"dir,omitempty"`
	Meta    *results.Meta `json:"meta,omitempty"`
	FaultAt time.Time     `json:"fault_at,omitzero"`

	Gaps      *gaps.Report       `json:"gaps"`
	Timeline  *timeline.Timeline `json:"-"`
	Integrity *integrity.Report  `json:"integrity,omitempty"`
	// Stalls are the fault gaps split into phases, by partition; empty
	// without a fault or without logs.
	Stalls []Stall `json:"stalls,omitempty"`
	// Quorum is the controller quorum's leaderless gap after a controller
	// fault, and what the data path did meanwhile; nil for other faults,
	// whose stalls are split into phases instead.
	Quorum *QuorumGap `json:"quorum,omitempty"`
	// Steps are a fault of several steps, step by step; nil for a fault of
	// one, or without the steps in meta.json.
	Steps *StepView `json:"steps,omitempty"`
	// Replicas summarises the replica view around the fault; nil without
	// replicas.csv or a fault.
	Replicas *ReplicaView `json:"replicas,omitempty"`
	// Boundaries are the moments that bound the stalls' phases, in time
	// order, the fault first: what a picture draws as lines.
	Boundaries []Boundary `json:"boundaries,omitempty"`
	// Notes say what could not be analysed and why.
	Notes []string `json:"notes,omitempty"`
	// pending are findings of damaged evidence (damaged) made before the
	// verdict was judged, for it once it is.
	pending []string
	// misdated is set when node logs hold lines dated outside the trial.
	misdated bool
	// Verdict says whether the trial can be trusted; nil without metadata.
	Verdict *verdict.Verdict `json:"verdict,omitempty"`
	// Clients compare every client that probed the trial, franz-go first,
	// when more than one did (results.Trial.Clients); ClientDiffs say, per
	// partition, how far their ack stalls differ and why.
	Clients     []ClientResult `json:"clients,omitempty"`
	ClientDiffs []ClientDiff   `json:"client_diffs,omitempty"`
	// External names the broker an external fault hit, from the
	// evidence; nil for any other fault.
	External *ExternalBroker `json:"external,omitempty"`
	// Findings are every client's audit beside what its settings
	// promised; Findings.Fail decides exit 3 for every command.
	Findings Findings `json:"findings,omitempty"`
	// Metrics are the fault's measures per partition and per role, for
	// the run's summary and the benchmark alike; nil without a fault.
	Metrics *Metrics `json:"-"`
	// roles are what the faulted broker was to each partition (Role).
	roles map[int32]results.Role
	// configs are the nodes' logged configurations, read up front.
	configs *nodeConfigs
}

// Analyze reads the trial t: the timeline first (a graceful stop is dated
// by the broker's own SIGTERM line), then the probe CSV once, for the gaps
// and the audit together, then the stalls.
func Analyze(t results.Trial, opt Options) (*Trial, error) {
	return AnalyzeContext(context.Background(), t, opt)
}

// AnalyzeContext is Analyze, stopping with ctx's error once ctx is done.
func AnalyzeContext(ctx context.Context, t results.Trial, opt Options) (*Trial, error) {
	tr, err := analyzeProbe(ctx, t, opt)
	if err != nil {
		return tr, err
	}
	if len(t.Clients) > 0 {
		if err := tr.analyzeClients(ctx, t); err != nil {
			return tr, err
		}
	}
	tr.Findings = findings(tr)
	return tr, nil
}

// analyzeProbe is one probe's analysis: the franz-go probe's, or an external
// client's (its own probe CSV, read-back and client log).
func analyzeProbe(ctx context.Context, t results.Trial, opt Options) (*Trial, error) {
	tr := &Trial{Dir: t.Dir, Meta: t.Meta}
	opt.clientLog = t.ClientLogFile()
	var fault *results.Fault
	if t.Meta != nil && t.Meta.Fault != nil {
		fault = t.Meta.Fault
		tr.FaultAt = fault.At()
	}
	if t.Dir != "" && t.Meta == nil {
		tr.Notes = append(tr.Notes, "no "+results.MetaFile+": no timeline")
	}
	if t.Dir != "" && t.Meta != nil {
		if err := tr.buildTimeline(opt); err != nil {
			return nil, err
		}
		if tr.Timeline != nil {
			tr.FaultAt = tr.Timeline.FaultAt()
		}
	}
	if !opt.FaultAt.IsZero() {
		tr.FaultAt = opt.FaultAt
	}
	if fault != nil && tr.Timeline != nil {
		tr.configs = readConfigs(tr)
	}
	if fault != nil && fault.Kind.Controller() && tr.Timeline != nil && !tr.FaultAt.IsZero() {
		tr.Quorum = analyzeQuorum(tr, fault)
	}

	gopt := gaps.Options{FaultAt: tr.FaultAt, From: consequence(tr, fault), Window: opt.Window}
	if gopt.Window <= 0 {
		from := tr.FaultAt
		if !gopt.From.IsZero() {
			from = gopt.From
		}
		gopt.Window = faultWindow(t.Meta, from)
	}
	if gopt.Window <= 0 && tr.Quorum != nil {
		gopt.Window = quorumWindow(tr.Quorum, t.Meta)
	}
	if t.Meta != nil && !t.Meta.Ended.IsZero() {
		gopt.End = t.Meta.Ended
	}
	if t.Meta != nil {
		gopt.Ready = t.Meta.Probe.Ready // a probe run's gaps begin after its start-up
	}
	// The audit keeps every message, so it runs only when there is a
	// read-back to weigh them against; the gaps alone stream.
	var audit *integrity.Audit
	if t.Dir != "" {
		logPath, err := t.LogPath()
		if err != nil {
			return nil, err
		}
		if logPath != "" {
			audit = integrity.New()
		} else {
			tr.Notes = append(tr.Notes, "no "+results.LogFile+": the partitions were not read back, so no integrity check")
		}
	}
	tr.Gaps = gaps.NewReport(gopt)
	// A fault of several steps needs every stall, not only the first
	// step's: they are read in the same pass.
	var long *gaps.Longer
	if multiStep(t.Meta) {
		long = gaps.NewLonger(verdict.StallBound(t.Meta), gopt.End)
	}
	last := lastReceived{}
	if err := readProbe(ctx, t, &tr.Notes, func(m *results.Message) {
		tr.Gaps.Add(m)
		if long != nil {
			long.Add(m)
		}
		last.add(m)
		if audit != nil {
			audit.AddMessage(m)
		}
		if opt.Messages != nil {
			opt.Messages(m)
		}
	}); err != nil {
		return nil, err
	}
	tr.Gaps.Close()
	if err := tr.Gaps.Err; err != nil {
		return nil, fmt.Errorf("%s: %w", t.Probe, err)
	}
	if long != nil {
		long.Close()
		tr.Steps = stepView(t.Meta, long)
	}
	if audit != nil {
		if err := readLog(ctx, t, audit); err != nil {
			return nil, err
		}
		tr.Integrity = audit.Close()
	}
	rv, err := readReplicaView(ctx, t, tr.FaultAt, tr.Gaps.Window)
	if err != nil {
		return nil, err
	}
	tr.Replicas = rv
	tr.nameExternal() // external.go
	if t.Meta != nil {
		v := verdict.Judge(t.Meta, tr.Gaps, tr.FaultAt)
		tr.Verdict = &v
		for _, d := range tr.pending {
			tr.Verdict.Add(verdict.Suspect, verdict.EvidenceDamaged, d)
		}
		tr.pending = nil
	}
	if tr.FaultAt.IsZero() {
		return tr, nil
	}
	if fault != nil {
		tr.roles = partitionRoles(tr, fault)
		tr.explainFault(fault, last)
	}
	tr.Metrics = measure(tr, fault)
	return tr, nil
}

// explainFault splits the stalls of fault f into phases, or, after a
// controller fault, says what the data path did during the quorum's gap.
func (tr *Trial) explainFault(fault *results.Fault, last lastReceived) {
	if tr.Quorum != nil {
		// A controller fault fences no broker and moves no partition:
		// its stalls have no phases to split, and the quorum's gap
		// says what there is.
		tr.Quorum.DataPath = dataPath(tr.Gaps)
		return
	}
	if tr.Timeline == nil {
		return
	}
	if hasNodeEvidence(tr.Timeline) {
		var damaged []string
		tr.Stalls, tr.Boundaries, damaged = explain(tr, fault)
		for _, d := range damaged {
			tr.damaged(d)
		}
		tr.explainCut(fault, last)
	} else if tr.Stalls = tr.cutStalls(fault); tr.Stalls == nil {
		if _, err := os.Stat(filepath.Join(tr.Dir, results.NodeLogsDir)); fault.Kind == results.FaultExternal && errors.Is(err, fs.ErrNotExist) {
			// A cluster kbf reaches by its addresses has no logs kbf can
			// read unless the user gives them (kbf run --logs).
			tr.Notes = append(tr.Notes, "no broker logs given: the stalls are not split into the brokers' phases; the client-side measures (stalls, gaps, the audit) hold")
		} else if tr.misdated {
			tr.Notes = append(tr.Notes, "no event of the trial's time in the node logs under "+results.NodeLogsDir+"/: they are dated outside the trial, so the stalls are not split into phases")
		} else {
			tr.Notes = append(tr.Notes, "no event in the node logs under "+results.NodeLogsDir+"/ (absent, empty or unreadable): the evidence is missing, so the stalls are not split into phases")
		}
	}
	tr.enforceChecks()
}

// consequence is when the fault's consequence for the partitions came,
// when it comes late: a broker cut from the controller only leads on, its
// partitions acking, until the controller fences it a session timeout
// later, and only then can they stall; noise before it is no part of the
// fault. Zero for every other fault, and when the logs show no fence.
func consequence(tr *Trial, f *results.Fault) time.Time {
	if f == nil || f.Kind != results.FaultIsolateController || tr.Timeline == nil || tr.FaultAt.IsZero() {
		return time.Time{}
	}
	if e, ok := tr.Timeline.Fenced(f.NodeID, tr.FaultAt); ok {
		return e.Time
	}
	return time.Time{}
}

// faultWindow is how long after the fault at F a gap may begin and still
// be the fault's, when the command line does not say: gaps.DefaultWindow
// for a signal, and for a network cut the whole cut, to its heal (or the
// probe's end, whichever came first). A broker cut only from the
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
	if !end.After(F) {
		return 0
	}
	return end.Sub(F)
}

// buildTimeline reads the trial's logs into tr.Timeline. Node logs that
// exist but cannot be read leave the timeline out, with a note, rather than
// the whole report: the gaps and the audit stand without them.
func (tr *Trial) buildTimeline(opt Options) error {
	src, err := timeline.FromDir(tr.Dir, tr.Meta)
	if err != nil {
		tr.Notes = append(tr.Notes, fmt.Sprintf("node logs unreadable (%v): no timeline, and the stalls are not split into phases", err))
		return nil
	}
	src.ClientLog = opt.clientLog
	// Node events are bounded by the trial's end as well as its start: a
	// line dated later was not written during the trial, whatever it
	// says, and is never cited.
	topt := timeline.Options{From: tr.Meta.Started, To: tr.Meta.Ended, ClientTo: tr.Meta.Ended}
	// The client's facts matter from just before the fault; the fault's
	// earliest record bounds it before the SIGTERM line is known.
	if f := tr.Meta.Fault; f != nil {
		from := f.SignalSent
		if !opt.FaultAt.IsZero() && opt.FaultAt.Before(from) {
			from = opt.FaultAt
		}
		topt.ClientFrom = from.Add(-time.Second)
	}
	tl, err := timeline.Build(src, topt)
	if err != nil {
		tr.Notes = append(tr.Notes, fmt.Sprintf("logs unreadable (%v): no timeline, and the stalls are not split into phases", err))
		return nil
	}
	tr.Timeline = tl
	for _, d := range tl.Damaged {
		tr.damaged(fmt.Sprintf("%s: none of its lines is read, so nothing is explained from it", d))
	}
	tr.checkDates()
	return nil
}

// skewTolerance is how long after the trial's end a node's log line may be
// dated and still have been written before kbf collected the logs (it
// does so as soon as the probe stops).
const skewTolerance = time.Minute

// checkDates names the node log files with lines dated outside the trial:
// after its end by more than skewTolerance, or before any plausible time
// (1970). Their clocks or dates are off, so their lines are left out, and
// the trial is suspect.
func (tr *Trial) checkDates() {
	end := tr.Meta.Ended
	var outside []string
	for _, d := range tr.Timeline.Dated {
		switch {
		case d.After > 0 && !end.IsZero() && d.Last.After(end.Add(skewTolerance)):
			outside = append(outside, fmt.Sprintf("%s has %d line(s) dated after the trial's end, up to %s, %s after it",
				d.File, d.After, d.Last.UTC().Format(time.RFC3339), d.Last.Sub(end).Round(time.Second)))
		case d.Before > 0 && d.First.Before(results.EarliestTime):
			outside = append(outside, fmt.Sprintf("%s has line(s) dated %s, long before the trial", d.File, d.First.UTC().Format(time.RFC3339)))
		}
	}
	// Every line dated before the trial began, the latest more than
	// skewTolerance before it: a node clock behind the trial's (kbf's),
	// not logs that are absent. The last line was written about when
	// kbf collected the logs, at the trial's end, so the gap from it to
	// the end is about how far behind the clock is. A fault no node logs
	// (isolate-clients) leaves lines up to the trial's start, not older.
	kept, last, lastFile := 0, time.Time{}, ""
	for _, d := range tr.Timeline.Dated {
		kept += d.Kept
		if d.Before > 0 && d.After == 0 && d.Last.After(last) {
			last, lastFile = d.Last, d.File
		}
	}
	if ref := cmp.Or(end, tr.Meta.Started); kept == 0 && !last.IsZero() && !last.Before(results.EarliestTime) && last.Before(tr.Meta.Started.Add(-skewTolerance)) {
		outside = append(outside, fmt.Sprintf("every line is dated before the trial began: the node logs' clock is about %s behind the trial's (the latest line, in %s, is dated %s)",
			ref.Sub(last).Round(time.Second), lastFile, last.UTC().Format(time.RFC3339)))
	}
	if len(outside) == 0 {
		return
	}
	tr.misdated = true
	tr.damaged(fmt.Sprintf("node logs dated outside the trial (%s ~ %s), by a node's clock skew or damaged dates: %s; those lines are not cited",
		tr.Meta.Started.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339), strings.Join(outside, "; ")))
}

// damaged says that evidence the analysis reads is missing, damaged or
// misdated: in the trial's notes, and in its verdict, which it makes
// suspect.
func (tr *Trial) damaged(detail string) {
	tr.Notes = append(tr.Notes, detail)
	if tr.Verdict == nil {
		tr.pending = append(tr.pending, detail)
		return
	}
	tr.Verdict.Add(verdict.Suspect, verdict.EvidenceDamaged, detail)
}

// readProbe decodes the trial's probe CSV, handing each message to add.
// Another program's CSV is noted: how its columns and times were read.
func readProbe(ctx context.Context, t results.Trial, notes *[]string, add func(*results.Message)) error {
	dec, err := t.OpenProbe(ctx)
	if err != nil {
		return err
	}
	defer dec.Close()
	var m results.Message
	for {
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			if f := dec.Foreign(); f != "" {
				*notes = append(*notes, f)
			}
			break
		}
		if err != nil {
			return err
		}
		add(&m)
	}
	return nil
}

func readLog(ctx context.Context, t results.Trial, audit *integrity.Audit) error {
	dec, err := t.OpenLog(ctx)
	if err != nil {
		return err
	}
	defer dec.Close()
	var r results.LogRecord
	for {
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		audit.AddLog(r)
	}
}

// FaultTitle names the trial's fault as every heading does — "sigkill of
// k1 (node 1) at 2026-12-01 22:30:29.370", in UTC — or "" for a trial
// without one.
func (tr *Trial) FaultTitle() string {
	if tr.Meta == nil || tr.Meta.Fault == nil {
		return ""
	}
	f := tr.Meta.Fault
	at := tr.FaultAt.UTC().Format("2006-01-02 15:04:05.000")
	switch {
	case f.Kind == results.FaultExternal && f.NodeID < 0 && f.Broker == results.BrokerCluster:
		return fmt.Sprintf("%s of the whole cluster at %s", f.Kind, at)
	case f.Kind == results.FaultExternal && f.NodeID < 0:
		return fmt.Sprintf("%s of an unknown broker at %s", f.Kind, at)
	}
	return fmt.Sprintf("%s of %s (node %d) at %s", f.Kind, f.Broker, f.NodeID, at)
}

// ProbeStalled reports whether the probe itself stalled between two sends
// to a partition (its longest send gap over five intervals and 100 ms), so
// that gaps as short as that may be its own, not Kafka's.
func (tr *Trial) ProbeStalled() bool {
	if tr.Meta == nil {
		return false
	}
	p := tr.Meta.Probe
	return p.LongestSendGap > 5*p.Interval && p.LongestSendGap > 100*time.Millisecond
}

// ErrNoMessages is reported for a probe CSV without a single message.
var ErrNoMessages = errors.New("no messages: the probe recorded nothing")

// Check returns an error when the trial holds nothing to report.
func (tr *Trial) Check() error {
	if tr.Gaps == nil || tr.Gaps.Sent == 0 {
		return fmt.Errorf("%s: %w", tr.Where(), ErrNoMessages)
	}
	return nil
}

// Where names the trial in messages: its directory, or "probe CSV" for a
// probe CSV read alone.
func (tr *Trial) Where() string {
	if tr.Dir != "" {
		return tr.Dir
	}
	return "probe CSV"
}
