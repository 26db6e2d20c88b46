package htmlreport

import (
	"encoding/json"
	"io"
	"time"

	"github.com/kbf-project/kbf/analysis"
)

// TrialPage is what one trial's page is drawn from: the analysis, and the
// probe CSV it was analysed from, streamed once more for the lanes.
type TrialPage struct {
	// Report is the trial's analysis; the page shows its figures as they
	// are and derives none.
	Report *analysis.Trial
	// Probe is the trial's probe CSV; ProbeName names it in errors.
	Probe     io.Reader
	ProbeName string
	// Client names the client the probe used, for the legend when several
	// are overlaid; "" takes it from the metadata.
	Client string
	// Replicas is the replica view, when the trial recorded one; nil
	// leaves the replica charts out.
	Replicas *ReplicaView
	// GroupEvents is the group reader's events CSV (results.GroupEventsFile)
	// when the trial had a group reader; GroupEventsName names it in
	// errors. Nil leaves the group's lane without commits.
	GroupEvents     io.Reader
	GroupEventsName string
}

// ReplicaView is what the trial saw of each partition's replicas over
// time. It is kept apart from the format that records it so that the page
// needs only times and offsets.
type ReplicaView struct {
	Samples []ReplicaSample
}

// ReplicaSample is one broker's answer about its replica of a partition:
// its log end offset and, when it answered as the leader, the high
// watermark. LEO and HW are -1 when absent.
type ReplicaSample struct {
	Time      time.Time
	Partition int32
	Broker    int32
	LEO       int64
	HW        int64
}

// RunPage is a run of several trials, overlaid on a common axis: time since
// each trial's fault.
type RunPage struct {
	Title  string
	Trials []TrialPage
}

// BenchPage is a benchmark: each scenario's metrics as distributions, and
// sweeps as lines against the swept value.
type BenchPage struct {
	Title   string
	Metrics []BenchMetric
}

// BenchMetric is one metric of one scenario over its trials. Metrics with
// the same Sweep and Metric form one sweep line, ordered by SweepValue.
type BenchMetric struct {
	Scenario string
	Metric   string
	Unit     string
	// Values are the metric per trial, in trial order.
	Values []float64
	// Median and the interval [Low, High] are the bench's statistics; the
	// page draws them as given.
	Median, Low, High float64
	// Sweep names the setting this scenario sweeps, "" when it is not part
	// of a sweep; SweepValue is the setting's value in this scenario.
	Sweep      string
	SweepValue float64
}

// page is what the embedded JSON holds and the script draws: everything the
// page shows, decided here.
type page struct {
	Kind   string       `json:"kind"` // "trial", "run", "bench" or "tune"
	Title  string       `json:"title"`
	Trials []trialModel `json:"trials,omitempty"`
	// Overlay is a run's lanes: per partition, every trial's points on one
	// axis.
	Overlay []overlayLane `json:"overlay,omitempty"`
	// Summary is a run's ranges across its trials; its keys are paths
	// into the run's report JSON.
	Summary []figure    `json:"summary,omitempty"`
	Bench   *benchModel `json:"bench,omitempty"`
	// Tune is a tune's answer, for a page of kind "tune".
	Tune *TunePage `json:"tune,omitempty"`
}

// trialModel is one trial as the page draws it. Times are seconds since
// Origin.
type trialModel struct {
	Name    string    `json:"name"`
	Client  string    `json:"client,omitempty"`
	Heading string    `json:"heading"`
	Origin  time.Time `json:"origin"`
	// OriginIs says what x = 0 is: "fault" or "first send".
	OriginIs string       `json:"origin_is"`
	Lanes    []lane       `json:"lanes"`
	Events   []event      `json:"events,omitempty"`
	Figures  []figure     `json:"figures"`
	Verdict  string       `json:"verdict,omitempty"`
	Notes    []string     `json:"notes,omitempty"`
	Replicas []replicaSet `json:"replicas,omitempty"`
	// Group is the group reader's lane, nil without one.
	Group *groupLane `json:"group,omitempty"`
	// Txn is the transactional producer's lane, nil without one.
	Txn *txnLane `json:"txn,omitempty"`
	// Heat is, for a trial of more partitions than analysis.Condense, the
	// one chart drawn instead of the lanes; nil otherwise.
	Heat *heatMap `json:"heat,omitempty"`
}

// lane is one partition of one trial.
type lane struct {
	Partition int32  `json:"partition"`
	Role      string `json:"role,omitempty"`
	// Stall and ReceiveStall are the ack and receive gaps at the fault.
	Stall        *span `json:"stall,omitempty"`
	ReceiveStall *span `json:"receive_stall,omitempty"`
	// GroupStall is the group reader's processing gap at the fault.
	GroupStall *span `json:"group_stall,omitempty"`
	// LSOStall is the read_committed stall at the fault, with a
	// transactional producer.
	LSOStall *span   `json:"lso_stall,omitempty"`
	Phases   []phase `json:"phases,omitempty"`
	// Points are none in a trial drawn as a heat map.
	Points points `json:"points,omitzero"`
	// Messages is how many rows the probe CSV held for the partition, of
	// which Points keeps a bounded number.
	Messages int `json:"messages"`
}

// span is an interval in seconds since the origin; Open when it had not
// ended when the probe stopped.
type span struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Open  bool    `json:"open,omitempty"`
}

type phase struct {
	Name     string  `json:"name"`
	Start    float64 `json:"start"`
	End      float64 `json:"end"`
	Evidence string  `json:"evidence,omitempty"`
	Source   string  `json:"source,omitempty"`
	Why      string  `json:"why,omitempty"`
	Setting  string  `json:"setting,omitempty"`
	// Bound is what the phase's settings allow it (analysis.Bound), drawn
	// behind it from start+low to start+high; nil when none is stated.
	Bound *phaseBound `json:"bound,omitempty"`
}

// phaseBound is a phase's bound in seconds, and how far it ran beyond.
type phaseBound struct {
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Excess float64 `json:"excess"`
	Basis  string  `json:"basis"`
}

// event is a timeline event as a marker. Partition is -1 for an event of
// no partition, drawn in every lane.
type event struct {
	T         float64 `json:"t"`
	Time      string  `json:"time"`
	Node      string  `json:"node"`
	Kind      string  `json:"kind"`
	Partition int32   `json:"partition"`
	Text      string  `json:"text"`
	Source    string  `json:"source,omitempty"`
}

// figure is one number the page shows, with where report.json holds it:
// Key is a dotted path into the trial's report.json, so that a test can
// check that the two agree.
type figure struct {
	Row   string  `json:"row"`
	Col   string  `json:"col"`
	Key   string  `json:"key"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"` // "s", or "" for a count
	Text  string  `json:"text,omitempty"` // for a cell that is a word
}

// replicaSet is one partition's replica view: per broker its LEO, and the
// HW as the leader reported it.
type replicaSet struct {
	Partition int32          `json:"partition"`
	Series    []offsetSeries `json:"series"`
}

type offsetSeries struct {
	Label  string    `json:"label"`
	T      []float64 `json:"t"`
	Offset offsets   `json:"offset"`
}

// offsets are a series' offsets; a negative one is a gap, null in the
// page's data, where the chart breaks the line.
type offsets []int64

// MarshalJSON writes the offsets, a gap as null.
func (o offsets) MarshalJSON() ([]byte, error) {
	out := make([]*int64, len(o))
	for i := range o {
		if o[i] >= 0 {
			out[i] = &o[i]
		}
	}
	return json.Marshal(out)
}

// overlayLane is one partition across the trials of a run.
type overlayLane struct {
	Partition int32           `json:"partition"`
	Series    []overlaySeries `json:"series"`
}

// overlaySeries is one trial's lane in an overlay; the script draws it from
// the trial's own points, so a run's page holds each point once.
type overlaySeries struct {
	Label  string `json:"label"`
	Trial  int    `json:"trial"` // index into page.Trials
	Client string `json:"client,omitempty"`
	Stall  *span  `json:"stall,omitempty"`
}

type benchModel struct {
	Distributions []distribution `json:"distributions"`
	Sweeps        []sweep        `json:"sweeps,omitempty"`
}

// distribution is one metric across the scenarios.
type distribution struct {
	Metric    string          `json:"metric"`
	Unit      string          `json:"unit"`
	Scenarios []scenarioStats `json:"scenarios"`
}

type scenarioStats struct {
	Scenario string    `json:"scenario"`
	Values   []float64 `json:"values"`
	Median   float64   `json:"median"`
	Low      float64   `json:"low"`
	High     float64   `json:"high"`
	X        float64   `json:"x,omitempty"` // the swept value, in a sweep
}

// sweep is one metric against a swept setting.
type sweep struct {
	Sweep  string          `json:"sweep"`
	Metric string          `json:"metric"`
	Unit   string          `json:"unit"`
	Points []scenarioStats `json:"points"`
}
