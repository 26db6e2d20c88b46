package htmlreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"testing"
)

// syntheticTune is a tune's answer as package tune hands it over: four
// settings, 6000 dominated, 4000 the pick, 3000 on the front with fences,
// 2000 with too few trials to be placed, 1500 without a valid SIGKILL.
func syntheticTune() TunePage {
	set := func(name string, ms int64, med float64, n, fenced, counted int, placed, front, pick bool) TuneSetting {
		st := TuneStall{N: n, Attempted: 6, Median: med, Low: med - 0.1, High: med + 0.12}
		if n == 0 {
			st = TuneStall{Attempted: 6}
		}
		share := 0.0
		if counted > 0 {
			share = float64(fenced) / float64(counted)
		}
		return TuneSetting{Name: name, SessionMs: ms, HeartbeatMs: ms * 2 / 9, Stall: st,
			Risks:  []TuneRisk{{N: counted, Attempted: 6, Fenced: fenced, LeaderMoves: fenced}},
			Fenced: fenced, Counted: counted, FenceShare: share, Placed: placed, Front: front, Pick: pick}
	}
	return TunePage{Hiccups: []string{"pause 2s"}, Settings: []TuneSetting{
		set("session-6000", 6000, 6.4, 6, 0, 6, true, false, false),
		set("session-4000", 4000, 4.5, 6, 0, 6, true, true, true),
		set("session-3000", 3000, 3.4, 6, 2, 6, true, true, false),
		set("session-2000", 2000, 2.4, 6, 0, 3, false, false, false),
		set("session-1500", 1500, 0, 0, 0, 6, true, false, false),
	}, Answer: []string{"recommendation: the shortest stall that fenced nobody under every hiccup asked for: session-4000"}}
}

func TestWriteTune(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTune(&b, syntheticTune()); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="kbf-data">(.*?)</script>`).FindSubmatch(b.Bytes())
	if m == nil {
		t.Fatal("no data in the page")
	}
	var pg page
	if err := json.Unmarshal(m[1], &pg); err != nil {
		t.Fatal(err)
	}
	if pg.Kind != "tune" || pg.Title != "kbf tune" || pg.Tune == nil || len(pg.Tune.Settings) != 5 || pg.Bench != nil || len(pg.Trials) != 0 {
		t.Errorf("page %q %q with %+v: want a tune page of 5 settings and nothing else", pg.Kind, pg.Title, pg.Tune)
	}
	want, _ := json.Marshal(syntheticTune())
	got, _ := json.Marshal(pg.Tune)
	if !bytes.Equal(got, want) {
		t.Errorf("the page embeds\n%s\nwant\n%s", got, want)
	}
	if !bytes.Contains(b.Bytes(), []byte("function renderTune(")) || !bytes.Contains(b.Bytes(), []byte("uPlot")) {
		t.Error("the page does not carry the script that draws a tune with uPlot")
	}
}

func TestWriteTuneEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTune(&b, TunePage{}); !errors.Is(err, errEmpty) || b.Len() != 0 {
		t.Errorf("no settings: %v, %d bytes written; want errEmpty and nothing", err, b.Len())
	}
}
