package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// TestHiccupJSON: a hiccup is in report.json as it is in the heading.
func TestHiccupJSON(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 17, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		fence *timeline.Event
		want  string
	}{
		{"not fenced", nil, `"fenced":false`},
		{"fenced", &timeline.Event{Time: t0.Add(9 * time.Second), Text: "Fencing broker 1 at epoch 14 because its session has timed out.", Source: "c1/controller.log:7"},
			`"fence":{"time":"2026-12-06T17:00:09Z","text":"Fencing broker 1 at epoch 14 because its session has timed out.","source":"c1/controller.log:7"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := &analysis.Trial{Hiccup: &analysis.Hiccup{Broker: "k1", NodeID: 1, From: t0, Returned: t0.Add(10 * time.Second), Fence: c.fence}}
			var b bytes.Buffer
			if err := WriteJSON(&b, tr); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Hiccup json.RawMessage `json:"hiccup"`
			}
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, doc.Hiccup); err != nil {
				t.Fatal(err)
			}
			got := compact.String()
			if !strings.Contains(got, `"broker":"k1"`) || !strings.Contains(got, `"lasted_seconds":10`) || !strings.Contains(got, c.want) {
				t.Errorf("hiccup %s, want %s", got, c.want)
			}
		})
	}
}

// TestHiccupJSONKinds: a starved CPU's sliver and a packet loss's share
// are in report.json beside the fault's kind; a pause has neither.
func TestHiccupJSONKinds(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 17, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		h    analysis.Hiccup
		want string
	}{
		{analysis.Hiccup{Kind: results.FaultCPUStarve, CPUs: 0.05}, `"kind":"cpu-starve","cpus":0.05,"from"`},
		{analysis.Hiccup{Kind: results.FaultPacketLoss, Loss: 0.3}, `"kind":"packet-loss","loss":0.3,"from"`},
		{analysis.Hiccup{Kind: results.FaultPause}, `"node_id":1,"kind":"pause","from"`},
	} {
		h := c.h
		h.Broker, h.NodeID, h.From, h.Returned = "k1", 1, t0, t0.Add(2*time.Second)
		var b bytes.Buffer
		if err := WriteJSON(&b, &analysis.Trial{Hiccup: &h}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Hiccup json.RawMessage `json:"hiccup"`
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, doc.Hiccup); err != nil {
			t.Fatal(err)
		}
		if got := compact.String(); !strings.Contains(got, c.want) {
			t.Errorf("hiccup %s, want %s", got, c.want)
		}
	}
}
