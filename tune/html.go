package tune

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kbf-project/kbf/htmlreport"
	"github.com/kbf-project/kbf/results"
)

// HTMLFile is the answer's page kbf tune writes into its benchmark
// directory beside File: the trade drawn (htmlreport.WriteTune).
const HTMLFile = "tune.html"

// Page is the answer as htmlreport draws it: each row's stall and fences,
// its fence share, whether it is placed, on the front or the pick, all as
// Decide decided them, and the verdict in the text answer's words.
func Page(a Answer) htmlreport.TunePage {
	p := htmlreport.TunePage{Title: "kbf tune: the trade of broker.session.timeout.ms"}
	if len(a.Rows) > 0 {
		for _, k := range a.Rows[0].Risks {
			p.Hiccups = append(p.Hiccups, k.Hiccup.String())
		}
	}
	for i, r := range a.Rows {
		s := htmlreport.TuneSetting{Name: r.Point.Name(), SessionMs: r.Point.Session.Milliseconds(),
			HeartbeatMs: r.Point.Heartbeat.Milliseconds(), Config: r.Point.Config(),
			Stall: htmlreport.TuneStall{N: r.Kill.N, Attempted: r.Kill.Attempted, Median: r.Kill.Median.Seconds(),
				Low: r.Kill.Low.Seconds(), High: r.Kill.High.Seconds(), Intervalless: r.Kill.Intervalless},
			FenceShare: r.fenceRate(), Front: slices.Contains(a.Front, i), Pick: i == a.Pick}
		_, s.Placed = r.safe(a.Min)
		for _, k := range r.Risks {
			s.Risks = append(s.Risks, htmlreport.TuneRisk{N: k.N, Attempted: k.Attempted, Fenced: k.Fenced,
				LeaderMoves: k.LeaderMoves, Evidence: k.Evidence})
			s.Fenced += k.Fenced
			s.Counted += k.N
		}
		p.Settings = append(p.Settings, s)
	}
	var b strings.Builder
	writeVerdict(&b, a)
	p.Answer = strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	return p
}

// WriteHTML writes the answer's page on w.
func WriteHTML(w io.Writer, a Answer) error { return htmlreport.WriteTune(w, Page(a)) }

// writeHTMLFile writes the answer's page into dir's tune.html.
func writeHTMLFile(dir string, a Answer) error {
	err := results.WriteFileAtomic(filepath.Join(dir, HTMLFile), func(w io.Writer) error { return WriteHTML(w, a) })
	if err != nil {
		return fmt.Errorf("%s: %w", HTMLFile, err)
	}
	return nil
}
