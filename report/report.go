// Package report reads a trial directory — the probe CSV, the read-back CSV,
// the nodes' and clients' logs and the metadata — and puts the analyses
// together: the gaps per partition, the timeline, the integrity check and
// each stall split into phases. It renders one trial, or a summary across
// the trials of a run, as text or JSON. It needs neither Docker nor Kafka.
package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// Options adjust how a trial is read.
type Options struct {
	// FaultAt overrides the fault time the metadata records.
	FaultAt time.Time
	// Window is gaps.Options.Window.
	Window time.Duration
}

// Trial is one trial's analyses.
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
	// Notes say what could not be analysed and why.
	Notes []string `json:"notes,omitempty"`
}

// Analyze reads the trial t.
func Analyze(t results.Trial, opt Options) (*Trial, error) {
	return AnalyzeContext(context.Background(), t, opt)
}

// AnalyzeContext is Analyze, stopping with ctx's error once ctx is done.
func AnalyzeContext(ctx context.Context, t results.Trial, opt Options) (*Trial, error) {
	tr := &Trial{Dir: t.Dir, Meta: t.Meta}
	var fault *results.Fault
	if t.Meta != nil && t.Meta.Fault != nil {
		fault = t.Meta.Fault
		tr.FaultAt = fault.At()
	}
	if !opt.FaultAt.IsZero() {
		tr.FaultAt = opt.FaultAt
	}

	gopt := gaps.Options{FaultAt: tr.FaultAt, Window: opt.Window}
	if t.Meta != nil && !t.Meta.Ended.IsZero() {
		gopt.End = t.Meta.Ended
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
	if err := readProbe(ctx, t, func(m *results.Message) {
		tr.Gaps.Add(m)
		if audit != nil {
			audit.AddMessage(m)
		}
	}); err != nil {
		return nil, err
	}
	tr.Gaps.Close()
	if err := tr.Gaps.Err; err != nil {
		return nil, fmt.Errorf("%s: %w", t.Probe, err)
	}
	if audit != nil {
		if err := readLog(ctx, t, audit); err != nil {
			return nil, err
		}
		tr.Integrity = audit.Close()
	}
	if t.Dir == "" {
		return tr, nil
	}

	if t.Meta == nil {
		tr.Notes = append(tr.Notes, "no "+results.MetaFile+": no timeline")
		return tr, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	src, err := timeline.FromDir(t.Dir, t.Meta)
	if err != nil {
		return nil, err
	}
	tl, err := timeline.Build(src, timeline.Options{From: t.Meta.Started})
	if err != nil {
		return nil, err
	}
	tr.Timeline = tl
	if fault != nil && !tr.FaultAt.IsZero() {
		if hasNodeLogs(src) {
			tr.Stalls = explain(tr, fault)
		} else {
			tr.Notes = append(tr.Notes, "no node logs under "+results.NodeLogsDir+"/: the stalls are not split into phases")
		}
	}
	return tr, nil
}

// readProbe decodes the trial's probe CSV, handing each message to add.
func readProbe(ctx context.Context, t results.Trial, add func(*results.Message)) error {
	dec, err := t.OpenProbe(ctx)
	if err != nil {
		return err
	}
	defer dec.Close()
	var m results.Message
	for {
		err := dec.Decode(&m)
		if err == io.EOF {
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
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		audit.AddLog(r)
	}
}

// ErrNoMessages is reported for a probe CSV without a single message.
var ErrNoMessages = errors.New("no messages: the probe recorded nothing")

// Check returns an error when the trial holds nothing to report.
func (tr *Trial) Check() error {
	if tr.Gaps == nil || tr.Gaps.Sent == 0 {
		return fmt.Errorf("%s: %w", tr.where(), ErrNoMessages)
	}
	return nil
}

func (tr *Trial) where() string {
	if tr.Dir != "" {
		return tr.Dir
	}
	return "probe CSV"
}
