package render

import (
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

// loadJSON is report.json's load: the real traffic beside the probe
// (analysis.LoadView), times after the fault in seconds.
type loadJSON struct {
	Settings  results.LoadSettings `json:"settings"`
	Seconds   int                  `json:"whole_seconds"`
	AckedPerS float64              `json:"acked_per_s"`
	Sent      int64                `json:"sent"`
	Acked     int64                `json:"acked"`
	Failed    int64                `json:"failed"`
	Received  int64                `json:"received"`
	FirstErr  string               `json:"first_error,omitempty"`
	// LowPerS is the least acknowledged in a second from the fault's on,
	// LowAt that second and LowAfter its start after the fault; BackAt and
	// BackAfter the first second after it back at analysis.BackShare of
	// AckedPerS. Absent without a fault, or when never back.
	LowPerS   *int64    `json:"low_per_s,omitempty"`
	LowAt     time.Time `json:"low_at,omitzero"`
	LowAfter  *float64  `json:"low_after_fault_s,omitempty"`
	BackAt    time.Time `json:"back_at,omitzero"`
	BackAfter *float64  `json:"back_after_fault_s,omitempty"`
	Line      string    `json:"line"`
}

func loadDoc(tr *analysis.Trial) *loadJSON {
	v := tr.Load
	if v == nil {
		return nil
	}
	out := &loadJSON{Settings: v.Settings, Seconds: v.Seconds, AckedPerS: v.Acked, Sent: v.Sent, Acked: v.AckedTotal,
		Failed: v.Failed, Received: v.Received, FirstErr: v.FirstErr, Line: tr.LoadLine()}
	if !v.LowAt.IsZero() {
		low, after := v.Low, v.LowAt.Sub(tr.FaultAt).Seconds()
		out.LowPerS, out.LowAt, out.LowAfter = &low, v.LowAt, &after
	}
	if !v.BackAt.IsZero() {
		after := v.BackAt.Sub(tr.FaultAt).Seconds()
		out.BackAt, out.BackAfter = v.BackAt, &after
	}
	return out
}
