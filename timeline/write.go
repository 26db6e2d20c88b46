package timeline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kbf-project/kbf/results"
)

// FormatVersion is the version of the JSON WriteJSON writes. ReadJSON refuses
// a newer one.
const FormatVersion = 1

// WriteText writes the timeline for a reader, one event a line:
//
//	03:26:09.115 +0.000s k1       process ended (SIGKILL, exit 137)
//	03:26:17.385 +8.269s c1       Fencing broker 1 at epoch 14 because its session has timed out.
//	03:26:17.460 +8.344s producer orders[0]: leader 1 -> 2 (epoch 1)
//
// Times are UTC, with the date when the events span more than one day. The
// second column, the time since the fault started (Timeline.FaultAt), is
// there only when the timeline has a fault. Missing files and unreadable
// lines follow the events.
func WriteText(w io.Writer, tl *Timeline) error {
	bw := bufio.NewWriter(w)
	layout := "15:04:05.000"
	if n := len(tl.Events); n > 0 {
		y1, m1, d1 := tl.Events[0].Time.UTC().Date()
		y2, m2, d2 := tl.Events[n-1].Time.UTC().Date()
		if y1 != y2 || m1 != m2 || d1 != d2 {
			layout = "2006-01-02 15:04:05.000"
		}
	}
	at := tl.FaultAt()
	rel := make([]string, len(tl.Events))
	relWidth, nodeWidth := 0, 0
	for i, e := range tl.Events {
		if !at.IsZero() {
			rel[i] = fmt.Sprintf("%+.3fs", e.Time.Sub(at).Seconds())
			relWidth = max(relWidth, len(rel[i]))
		}
		nodeWidth = max(nodeWidth, len(e.Node))
	}
	for i, e := range tl.Events {
		bw.WriteString(e.Time.UTC().Format(layout))
		if relWidth > 0 {
			fmt.Fprintf(bw, " %*s", relWidth, rel[i])
		}
		fmt.Fprintf(bw, " %-*s %s\n", nodeWidth, e.Node, e.Summary())
	}
	if len(tl.Missing) > 0 {
		fmt.Fprintf(bw, "missing: %s\n", strings.Join(tl.Missing, ", "))
	}
	if tl.Unparsed > 0 {
		fmt.Fprintf(bw, "unreadable lines: %d\n", tl.Unparsed)
	}
	return bw.Flush()
}

// timelineJSON is the JSON form of a Timeline, as WriteJSON documents it.
type timelineJSON struct {
	FormatVersion int            `json:"format_version"`
	Fault         *results.Fault `json:"fault,omitempty"`
	Events        []Event        `json:"events"`
	Missing       []string       `json:"missing,omitempty"`
	Unparsed      int            `json:"unparsed"`
}

// WriteJSON writes the timeline as one JSON object, indented:
//
//	{
//	  "format_version": 1,
//	  "fault": {...},             // results.Fault, absent when none
//	  "events": [
//	    {"time": "2026-11-30T03:26:17.385Z", "node": "c1", "kind": "fenced",
//	     "broker": 1, "epoch": 14, "text": "[QuorumController id=100] Fencing broker 1 ...",
//	     "source": "c1/controller.log:412"},
//	    ...
//	  ],
//	  "missing": ["k1 state-change.log"],
//	  "unparsed": 0
//	}
//
// An event's fields are Event's, in snake case; a field the source did not
// give is left out. Times are RFC 3339 in UTC. Kinds are Kind.String names.
func WriteJSON(w io.Writer, tl *Timeline) error {
	events := tl.Events
	if events == nil {
		events = []Event{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(timelineJSON{FormatVersion: FormatVersion, Fault: tl.Fault,
		Events: events, Missing: tl.Missing, Unparsed: tl.Unparsed})
}

// ReadJSON reads a timeline WriteJSON wrote.
func ReadJSON(r io.Reader) (*Timeline, error) {
	var j timelineJSON
	if err := json.NewDecoder(r).Decode(&j); err != nil {
		return nil, fmt.Errorf("decode timeline: %w", err)
	}
	if j.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("timeline format version %d: %w (this one reads up to %d)",
			j.FormatVersion, results.ErrNewerFormat, FormatVersion)
	}
	return &Timeline{Fault: j.Fault, Events: j.Events, Missing: j.Missing, Unparsed: j.Unparsed}, nil
}
