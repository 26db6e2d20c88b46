package render

import (
	"bytes"
	"encoding/json"
	"io"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
	"github.com/kbf-project/kbf/verdict"
)

// trialJSON is report.json: a trial's analysis, its fields in this order,
// the timeline as timeline.WriteJSON writes it and the digest last. The
// parts are the documents' own types (jsondoc.go), with their durations in
// seconds; the gaps, the audit, the verdict and the metadata keep the
// shapes their packages give them.
type trialJSON struct {
	Dir       string            `json:"dir,omitempty"`
	Meta      *results.Meta     `json:"meta,omitempty"`
	FaultAt   time.Time         `json:"fault_at,omitzero"`
	Gaps      *gaps.Report      `json:"gaps"`
	Integrity *integrity.Report `json:"integrity,omitempty"`
	// AuditVoid is why the read-back was not audited (analysis.Trial.AuditVoid).
	AuditVoid   string           `json:"audit_void,omitempty"`
	Stalls      []stallJSON      `json:"stalls,omitempty"`
	Quorum      *quorumJSON      `json:"quorum,omitempty"`
	Steps       *stepsJSON       `json:"steps,omitempty"`
	Replicas    *replicasJSON    `json:"replicas,omitempty"`
	Boundaries  []boundaryJSON   `json:"boundaries,omitempty"`
	Notes       []string         `json:"notes,omitempty"`
	Verdict     *verdict.Verdict `json:"verdict,omitempty"`
	Clients     []clientJSON     `json:"clients,omitempty"`
	ClientDiffs []clientDiffJSON `json:"client_diffs,omitempty"`
	External    *externalJSON    `json:"external,omitempty"`
	Coordinator *coordinatorJSON `json:"group_coordinator,omitempty"`
	Hiccup      *hiccupJSON      `json:"hiccup,omitempty"`
	Findings    []findingJSON    `json:"findings,omitempty"`
	Group       any              `json:"group,omitempty"`
	Txn         *txnJSON         `json:"transactions,omitempty"`
	Load        *loadJSON        `json:"load,omitempty"`
	Timeline    json.RawMessage  `json:"timeline,omitempty"`
	Digest      *digestJSON      `json:"digest,omitempty"`
	// Failback is the broker's return (kbf run --failback): failbackJSON.
	Failback *failbackJSON `json:"failback,omitempty"`
	// Bounds are the trial's phases against what their settings allow.
	Bounds *expectationJSON `json:"bounds,omitempty"`
}

// WriteJSON writes the trial's report as one JSON object (trialJSON).
func WriteJSON(w io.Writer, tr *analysis.Trial) error {
	out := trialJSON{
		Dir: tr.Dir, Meta: tr.Meta, FaultAt: tr.FaultAt,
		Gaps: tr.Gaps, Integrity: tr.Integrity, AuditVoid: tr.AuditVoid, Stalls: each(tr.Stalls, stallDoc), Quorum: quorumDoc(tr.Quorum),
		Steps: stepsDoc(tr.Steps), Replicas: replicasDoc(tr.Replicas), Boundaries: each(tr.Boundaries, boundaryDoc),
		Notes: tr.Notes, Verdict: tr.Verdict, Clients: each(tr.Clients, clientDoc), ClientDiffs: each(tr.ClientDiffs, clientDiffDoc),
		External: externalDoc(tr.External), Coordinator: coordinatorDoc(tr.Coordinator), Findings: each(tr.Findings, findingDoc), Group: groupDoc(tr.Group, tr.Recovery),
		Txn: txnDoc(tr), Load: loadDoc(tr), Digest: digestDoc(tr.Digest()), Hiccup: hiccupDoc(tr.Hiccup), Failback: failbackDoc(tr.Failback),
		Bounds: expectationDoc(tr.Expected()),
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

// WriteSummaryJSON writes the summary as JSON (summaryJSON).
func WriteSummaryJSON(w io.Writer, s *analysis.Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(summaryDoc(s))
}

// hiccupJSON is a pause, a cut, a starved CPU or a packet loss undone
// while probing (analysis.Hiccup):
//
//	{"broker": "k1", "node_id": 1, "kind": "cpu-starve", "cpus": 0.05,
//	 "from": "…", "returned": "…",
//	 "lasted_seconds": 2.0, "fenced": false, "leader_moves": 0}
//
// fence is the controller's fence of the broker, when it came; cpus a
// cpu-starve's sliver, loss a packet-loss's share (0.3 for 30 %).
type hiccupJSON struct {
	Broker      string     `json:"broker"`
	NodeID      int32      `json:"node_id"`
	Kind        string     `json:"kind,omitempty"`
	CPUs        float64    `json:"cpus,omitempty"`
	Loss        float64    `json:"loss,omitempty"`
	From        time.Time  `json:"from"`
	Returned    time.Time  `json:"returned"`
	Lasted      float64    `json:"lasted_seconds"`
	Fenced      bool       `json:"fenced"`
	Fence       *eventJSON `json:"fence,omitempty"`
	LeaderMoves int        `json:"leader_moves"`
}

// eventJSON is a log line cited as evidence: when, what, where.
type eventJSON struct {
	Time   time.Time `json:"time"`
	Text   string    `json:"text"`
	Source string    `json:"source"`
}

func hiccupDoc(h *analysis.Hiccup) *hiccupJSON {
	if h == nil {
		return nil
	}
	out := &hiccupJSON{Broker: h.Broker, NodeID: h.NodeID, Kind: string(h.Kind), CPUs: h.CPUs, Loss: h.Loss, From: h.From, Returned: h.Returned,
		Lasted: h.Lasted().Seconds(), Fenced: h.Fenced(), LeaderMoves: len(h.LeaderMoves)}
	if f := h.Fence; f != nil {
		out.Fence = &eventJSON{Time: f.Time, Text: f.Text, Source: f.Source}
	}
	return out
}
