package analysis

import (
	"strings"
	"time"
)

// IncidentLine is an incident's line of a watch's index (kbf report on a
// watch's directory): when it began and recovered, the broker its
// evidence names, its worst stalls and its longest phase.
type IncidentLine struct {
	Began     time.Time // zero: no fault time
	Recovered time.Time // zero: it ended otherwise
	// Broker is the broker the evidence names and By what named it;
	// empty when the trial is no external fault.
	Broker, By   string
	Ack, Receive Worst
	// Phase is the longest phase of any partition's stall, "" for none.
	Phase         string
	PhaseDuration time.Duration
	// Verdict is the verdict's word (valid, suspect, invalid); "" without
	// metadata.
	Verdict string
}

// Worst is the longest gap of one kind across the partitions.
type Worst struct {
	Partition int32 // -1: no partition had one
	Gap       time.Duration
	Open      bool // the gap had not closed by the end
}

// Incident is tr's line of a watch's index.
func (tr *Trial) Incident() IncidentLine {
	l := IncidentLine{Began: tr.FaultAt}
	if tr.Meta != nil && tr.Meta.Fault != nil {
		l.Recovered = tr.Meta.Fault.Recovered
	}
	if e := tr.External; e != nil {
		l.Broker, l.By = e.Broker, e.By
	}
	d := tr.Digest()
	l.Ack, l.Receive = Worst{Partition: -1}, Worst{Partition: -1}
	for _, r := range d.Rows {
		if r.Ack >= 0 && (l.Ack.Partition < 0 || r.Ack > l.Ack.Gap) {
			l.Ack = Worst{r.Partition, r.Ack, r.AckOpen}
		}
		if r.Receive >= 0 && (l.Receive.Partition < 0 || r.Receive > l.Receive.Gap) {
			l.Receive = Worst{r.Partition, r.Receive, r.ReceiveOpen}
		}
	}
	for _, st := range tr.Stalls {
		for _, ph := range st.Phases {
			if ph.Duration > l.PhaseDuration {
				l.Phase, l.PhaseDuration = ph.Name, ph.Duration
			}
		}
	}
	l.Verdict, _, _ = strings.Cut(d.Verdict, ":")
	return l
}
