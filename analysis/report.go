// Package analysis is kbf's analysis of a trial. It reads a trial directory
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
// Where to look: analyze.go runs the analysis (Analyze) as a pipeline of
// stages — timeline, settings, window, gaps, phases, checks, metrics,
// verdict, findings — each taking values and returning values, and
// report.go holds the Trial they make; read.go holds the stages that read
// the trial's files (timeline, window, gaps); phases.go, explain.go and
// why.go split the stalls into phases and explain them; check.go holds
// those explanations to their evidence; quorum.go, network.go, steps.go,
// replicas.go, external.go and clients.go are the analyses of their names;
// findings.go and metrics.go are what commands decide exit codes and
// benchmarks by; digest.go and summary.go are a trial at a glance and a
// run's trials side by side.
package analysis

import (
	"errors"
	"fmt"
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
}

// Trial is one trial's analyses: everything a renderer draws, decided.
// report.json's shape is its renderer's (render.WriteJSON).
type Trial struct {
	Dir     string
	Meta    *results.Meta
	FaultAt time.Time

	Gaps      *gaps.Report
	Timeline  *timeline.Timeline
	Integrity *integrity.Report
	// AuditVoid says, in one line, why the read-back was not audited
	// though there was one: the probe's topic gone or made anew under the
	// trial, or a read-back of no row (countableAudit). Integrity is then
	// nil and no loss is counted; "" otherwise.
	AuditVoid string
	// Stalls are the fault gaps split into phases, by partition; empty
	// without a fault or without logs.
	Stalls []Stall
	// Quorum is the controller quorum's leaderless gap after a controller
	// fault, and what the data path did meanwhile; nil for other faults,
	// whose stalls are split into phases instead.
	Quorum *QuorumGap
	// Steps are a fault of several steps, step by step; nil for a fault of
	// one, or without the steps in meta.json.
	Steps *StepView
	// Replicas summarises the replica view around the fault; nil without
	// replicas.csv or a fault.
	Replicas *ReplicaView
	// Boundaries are the moments that bound the stalls' phases, in time
	// order, the fault first: what a picture draws as lines.
	Boundaries []Boundary
	// Notes say what could not be analysed and why.
	Notes []string
	// Verdict says whether the trial can be trusted; nil without metadata.
	Verdict *verdict.Verdict
	// Clients compare every client that probed the trial, franz-go first,
	// when more than one did (results.Trial.Clients); ClientDiffs say, per
	// partition, how far their ack stalls differ and why.
	Clients     []ClientResult
	ClientDiffs []ClientDiff
	// External names the broker an external fault hit, from the
	// evidence; nil for any other fault.
	External *ExternalBroker
	// Hiccup is a pause or a cut undone while probing (--return-after):
	// whether the broker that never died was fenced; nil for any other
	// trial.
	Hiccup *Hiccup
	// Coordinator is the probe's consumer group's coordinator found just
	// before the fault, and whether the fault hit it; nil without a group.
	Coordinator *GroupCoordinator
	// Findings are every client's audit beside what its settings
	// promised; Findings.Fail decides exit 3 for every command.
	Findings Findings
	// Metrics are the fault's measures per partition and per role, for
	// the run's summary and the benchmark alike; nil without a fault.
	Metrics *Metrics
	// Group is the group reader's trial, beside the probe's own reader;
	// nil without one (kbf run --consumer group).
	Group *GroupView
	// Txn is the transactional probe's trial; nil for an idempotent
	// producer (kbf run --producer transactional).
	Txn *TxnView
	// Load is the real traffic beside the probe; nil without one (kbf
	// run --load).
	Load *LoadView
	// Recovery is the group's recovery from the fault, phase by phase
	// (groupphases.go); nil without a group or a fault.
	Recovery *GroupRecovery
	// TxnRecovery is the transaction coordinator's recovery from the
	// fault, phase by phase (txnphases.go); nil without a transactional
	// probe or a fault.
	TxnRecovery *TxnRecovery
	// Failback is the broker's return measured with the probe running
	// (failback.go); nil for a trial without --failback.
	Failback *FailbackView
	// Detection is the line that shows the controller acting on the
	// fault (its fence, its grant of a controlled shutdown), derived once
	// for every chain and the summary; nil when the logs show none.
	Detection *timeline.Event
	// roles are what the faulted broker was to each partition (Role).
	roles map[int32]results.Role
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
