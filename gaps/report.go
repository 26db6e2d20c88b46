package gaps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// WriteText writes r as one line per partition and kind of gap, then the
// partitions' counts:
//
//	fault at 03:26:09.115, failed sends 0
//	p0 ack gap  9.40 s (03:26:09.100 ~ 03:26:18.497), longest elsewhere 0.13 s
//	p0 receive gap  9.40 s (03:26:09.094 ~ 03:26:18.497), longest elsewhere 0.12 s
//	p0 sent 1000, acked 1000, received 1000
//
// Times are UTC, to the millisecond; the fault line carries the date when
// the run spans more than one.
func WriteText(w io.Writer, r *Report) error {
	var b bytes.Buffer
	writeHead(&b, r)
	if len(r.Partitions) == 0 {
		b.WriteString("no messages\n")
	}
	for _, kind := range []struct {
		name string
		get  func(*Partition) *Stalls
	}{
		{"ack", func(p *Partition) *Stalls { return &p.Ack }},
		{"receive", func(p *Partition) *Stalls { return &p.Receive }},
	} {
		for i := range r.Partitions {
			p := &r.Partitions[i]
			writeStalls(&b, p.Partition, kind.name, kind.get(p), r.FaultAt)
		}
	}
	for _, p := range r.Partitions {
		fmt.Fprintf(&b, "p%d sent %d, acked %d, received %d", p.Partition, p.Sent, p.Acked, p.Received)
		if p.Failed > 0 || p.NeverAcked > 0 || p.NotReceived > 0 {
			fmt.Fprintf(&b, ", failed %d, never acked %d, acked but not received %d", p.Failed, p.NeverAcked, p.NotReceived)
		}
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteHead writes the report's heading alone: the fault (or the
// start-up) and the failed sends with their errors, for a reader that
// shows the partitions otherwise (many of them, as a distribution).
func WriteHead(w io.Writer, r *Report) error {
	var b bytes.Buffer
	writeHead(&b, r)
	_, err := w.Write(b.Bytes())
	return err
}

func writeHead(b *bytes.Buffer, r *Report) {
	spansDates := !r.Start.IsZero() && !sameDate(r.Start, r.End)
	if r.FaultAt.IsZero() {
		b.WriteString("no fault recorded; longest gaps")
		if spansDates {
			fmt.Fprintf(b, " (run %s ~ %s)", r.Start.UTC().Format(time.DateOnly), r.End.UTC().Format(time.DateOnly))
		}
		if !r.Ready.IsZero() {
			fmt.Fprintf(b, " after the probe's start-up (to %s, every partition's first ack; %.2f s)", clock(r.Ready), r.Ready.Sub(r.Start).Seconds())
		}
	} else {
		at := clock(r.FaultAt)
		if spansDates {
			at = r.FaultAt.UTC().Format("2006-01-02 15:04:05.000")
		}
		fmt.Fprintf(b, "fault at %s", at)
		if !r.From.IsZero() {
			fmt.Fprintf(b, " (its gaps measured from its consequence at %s)", clock(r.From))
		}
	}
	fmt.Fprintf(b, ", failed sends %d", r.Failed)
	if r.Failed > 0 {
		fmt.Fprintf(b, " (the first sent at %s)", clock(r.FirstFailure))
	}
	b.WriteByte('\n')
	for _, e := range r.Errors {
		fmt.Fprintf(b, "  %d failed: %s\n", e.Count, e.Err)
	}
	if r.OtherErrors > 0 {
		fmt.Fprintf(b, "  %d failed with other errors\n", r.OtherErrors)
	}
}

// writeStalls writes one partition's gap of one kind: the fault gap when
// there is a fault (faultAt not zero), else the longest.
func writeStalls(b *bytes.Buffer, part int32, kind string, st *Stalls, faultAt time.Time) {
	withFault := !faultAt.IsZero()
	fmt.Fprintf(b, "p%d %s gap ", part, kind)
	g := st.Longest
	if withFault {
		g = st.Fault
	}
	if g == nil {
		fmt.Fprintf(b, "none (fewer than two %ss)\n", kind)
		return
	}
	fmt.Fprintf(b, "%5.2f s (%s ~ %s", g.Duration().Seconds(), clock(g.Start), clock(g.End))
	switch {
	case g.FromFault && g.Open:
		fmt.Fprintf(b, ", no %s before or after the fault", kind)
	case g.FromFault:
		fmt.Fprintf(b, ", no %s before the fault", kind)
	case g.Open && g.Start.After(faultAt):
		b.WriteString(", none after it to the end")
	case g.Open:
		fmt.Fprintf(b, ", no %s after the fault", kind)
	}
	b.WriteByte(')')
	if withFault {
		if st.Longest == nil {
			b.WriteString(", longest elsewhere none")
		} else {
			fmt.Fprintf(b, ", longest elsewhere %.2f s", st.Longest.Duration().Seconds())
		}
	}
	b.WriteByte('\n')
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }

func sameDate(a, b time.Time) bool {
	ay, am, ad := a.UTC().Date()
	by, bm, bd := b.UTC().Date()
	return ay == by && am == bm && ad == bd
}

// WriteJSON writes r as indented JSON. Durations are in seconds and times
// RFC 3339 in UTC.
func WriteJSON(w io.Writer, r *Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode gaps report: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// MarshalJSON writes the report's results, with Window in seconds.
func (r *Report) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		FaultAt       time.Time    `json:"fault_at,omitzero"`
		From          time.Time    `json:"window_from,omitzero"`
		WindowSeconds float64      `json:"window_seconds"`
		Ready         time.Time    `json:"ready,omitzero"`
		Start         time.Time    `json:"start,omitzero"`
		End           time.Time    `json:"end,omitzero"`
		Sent          int          `json:"sent"`
		Failed        int          `json:"failed"`
		FirstFailure  time.Time    `json:"first_failure,omitzero"`
		Errors        []ErrorCount `json:"errors,omitempty"`
		OtherErrors   int          `json:"other_errors,omitempty"`
		Partitions    []Partition  `json:"partitions"`
	}{utc(r.FaultAt), utc(r.From), r.Window.Seconds(), utc(r.Ready), utc(r.Start), utc(r.End), r.Sent, r.Failed, utc(r.FirstFailure),
		r.Errors, r.OtherErrors, r.Partitions})
}

// MarshalJSON writes the gap with its length in seconds.
func (g Gap) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Start     time.Time `json:"start"`
		End       time.Time `json:"end"`
		Seconds   float64   `json:"seconds"`
		FromFault bool      `json:"from_fault,omitempty"`
		Open      bool      `json:"open,omitempty"`
	}{utc(g.Start), utc(g.End), g.Duration().Seconds(), g.FromFault, g.Open})
}

func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}
