package render

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/timeline"
)

// WriteJSON writes the trial's report as one JSON object.
func WriteJSON(w io.Writer, tr *report.Trial) error {
	type trialJSON struct {
		*report.Trial
		Timeline json.RawMessage `json:"timeline,omitempty"`
		Digest   *report.Digest  `json:"digest,omitempty"`
	}
	out := trialJSON{Trial: tr, Digest: tr.Digest()}
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
