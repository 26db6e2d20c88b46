package htmlreport

import (
	"fmt"
	"io"
)

// TunePage is a tune's answer (package tune) as a page: the trade of each
// setting, its SIGKILL stall against the share of its hiccup trials that
// fenced the healthy broker, drawn as a point with the stall's interval,
// the Pareto front joined and the recommendation ringed; the table of the
// text answer; and the answer's own words. Everything in it is the tune's
// decision: the page draws it as given.
type TunePage struct {
	Title string `json:"title"`
	// Hiccups name the hiccups asked for, in the order of each setting's
	// Risks.
	Hiccups  []string      `json:"hiccups"`
	Settings []TuneSetting `json:"settings"`
	// Answer is the recommendation, or what trials to add, as the text
	// answer words it, a line each.
	Answer []string `json:"answer"`
}

// TuneSetting is one setting of the grid, measured and placed.
type TuneSetting struct {
	// Name is the setting's part of its scenarios' names (session-4000);
	// Config its server properties.
	Name        string   `json:"name"`
	SessionMs   int64    `json:"session_ms"`
	HeartbeatMs int64    `json:"heartbeat_ms"`
	Config      []string `json:"config"`
	// Stall is the SIGKILL stall of the partitions the broker led.
	Stall TuneStall `json:"stall"`
	// Risks are the setting's hiccup trials, one per hiccup.
	Risks []TuneRisk `json:"risks"`
	// Fenced of Counted hiccup trials, every hiccup together, fenced the
	// broker that never died; FenceShare is the share the front was
	// decided on.
	Fenced     int     `json:"fenced"`
	Counted    int     `json:"counted"`
	FenceShare float64 `json:"fence_share"`
	// Placed says the setting has the trials to be placed on the front
	// (or to be ruled out by a fence); Front and Pick are the tune's
	// answer.
	Placed bool `json:"placed"`
	Front  bool `json:"front"`
	Pick   bool `json:"pick"`
}

// TuneStall is a SIGKILL stall's statistics, in seconds: the median and
// its interval (equal to it when Intervalless), over N valid trials of
// Attempted.
type TuneStall struct {
	N            int     `json:"n"`
	Attempted    int     `json:"attempted"`
	Median       float64 `json:"median"`
	Low          float64 `json:"low"`
	High         float64 `json:"high"`
	Intervalless bool    `json:"intervalless,omitempty"`
}

// TuneRisk is a setting's trials of one hiccup: of N that count (of
// Attempted), Fenced fenced the broker; LeaderMoves leaderships moved;
// Evidence is the controller's first fence line.
type TuneRisk struct {
	N           int    `json:"n"`
	Attempted   int    `json:"attempted"`
	Fenced      int    `json:"fenced"`
	LeaderMoves int    `json:"leader_moves"`
	Evidence    string `json:"evidence,omitempty"`
}

// WriteTune writes a tune's page on w.
func WriteTune(w io.Writer, p TunePage) error {
	if len(p.Settings) == 0 {
		return fmt.Errorf("tune page: %w", errEmpty)
	}
	title := p.Title
	if title == "" {
		title = "kbf tune"
	}
	return writePage(w, &page{Kind: "tune", Title: title, Tune: &p})
}
