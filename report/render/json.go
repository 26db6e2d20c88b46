package render

import (
	"bytes"
	"encoding/json"
	"io"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
	"github.com/kbf-project/kbf/verdict"
)

// trialJSON is report.json: a trial's analysis, its fields in this order,
// the timeline as timeline.WriteJSON writes it and the digest last. The
// parts keep their own shapes (each stall, the quorum's gap, the steps…
// with its durations in seconds).
type trialJSON struct {
	Dir         string                 `json:"dir,omitempty"`
	Meta        *results.Meta          `json:"meta,omitempty"`
	FaultAt     time.Time              `json:"fault_at,omitzero"`
	Gaps        *gaps.Report           `json:"gaps"`
	Integrity   *integrity.Report      `json:"integrity,omitempty"`
	Stalls      []report.Stall         `json:"stalls,omitempty"`
	Quorum      *report.QuorumGap      `json:"quorum,omitempty"`
	Steps       *report.StepView       `json:"steps,omitempty"`
	Replicas    *report.ReplicaView    `json:"replicas,omitempty"`
	Boundaries  []report.Boundary      `json:"boundaries,omitempty"`
	Notes       []string               `json:"notes,omitempty"`
	Verdict     *verdict.Verdict       `json:"verdict,omitempty"`
	Clients     []report.ClientResult  `json:"clients,omitempty"`
	ClientDiffs []report.ClientDiff    `json:"client_diffs,omitempty"`
	External    *report.ExternalBroker `json:"external,omitempty"`
	Findings    report.Findings        `json:"findings,omitempty"`
	Group       *report.GroupView      `json:"group,omitempty"`
	Timeline    json.RawMessage        `json:"timeline,omitempty"`
	Digest      *report.Digest         `json:"digest,omitempty"`
}

// WriteJSON writes the trial's report as one JSON object (trialJSON).
func WriteJSON(w io.Writer, tr *report.Trial) error {
	out := trialJSON{
		Dir: tr.Dir, Meta: tr.Meta, FaultAt: tr.FaultAt,
		Gaps: tr.Gaps, Integrity: tr.Integrity, Stalls: tr.Stalls, Quorum: tr.Quorum, Steps: tr.Steps,
		Replicas: tr.Replicas, Boundaries: tr.Boundaries, Notes: tr.Notes, Verdict: tr.Verdict,
		Clients: tr.Clients, ClientDiffs: tr.ClientDiffs, External: tr.External, Findings: tr.Findings,
		Group: tr.Group, Digest: tr.Digest(),
	}
	if tr.Timeline != nil {
		var tb bytes.Buffer
		if err := timeline.WriteJSON(&tb, tr.Timeline); err != nil {
			return err
		}
		out.Timeline = tb.Bytes()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteSummaryJSON writes the summary as JSON.
func WriteSummaryJSON(w io.Writer, s *report.Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
