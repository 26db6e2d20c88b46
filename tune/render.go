package tune

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kbf-project/kbf/results"
)

// WriteText writes the answer in one screen: the table (a point a row,
// its SIGKILL stall, its fences per hiccup, * on the Pareto front), then
// the recommendation as kbf run's flags and server.properties' lines, or
// what trials to add.
func WriteText(w io.Writer, a Answer) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	head := "\tsession ms\theartbeat ms" + clientHead(a) + "\tsigkill stall (leader)\tn" + deathHead(a) // columns.go
	if len(a.Rows) > 0 {
		for _, k := range a.Rows[0].Risks {
			head += fmt.Sprintf("\t%s: fenced\tleader moves", k.Hiccup)
		}
	}
	fmt.Fprintln(tw, head)
	for i, r := range a.Rows {
		mark := " "
		if slices.Contains(a.Front, i) {
			mark = "*"
		}
		if i == a.Pick {
			mark = ">"
		}
		line := fmt.Sprintf("%s\t%d\t%d%s\t%s\t%d/%d%s", mark, r.Point.Session.Milliseconds(), r.Point.Heartbeat.Milliseconds(), clientCells(r),
			stallText(r.Kill), r.Kill.N, r.Kill.Attempted, deathCells(r))
		for _, k := range r.Risks {
			line += fmt.Sprintf("\t%d of %d\t%d", k.Fenced, k.N, k.LeaderMoves)
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("* on the Pareto front (no other setting has a shorter stall without more fences; a setting with too few trials to call it safe is not placed); > the recommendation\n")
	writeEvidence(&b, a)
	writeVerdict(&b, a)
	_, err := io.WriteString(w, b.String())
	return err
}

func stallText(s Stall) string {
	switch {
	case s.N == 0:
		return "—"
	case s.Intervalless:
		return fmt.Sprintf("%.2f s (no interval)", s.Median.Seconds())
	}
	return fmt.Sprintf("%.2f s [%.2f, %.2f]", s.Median.Seconds(), s.Low.Seconds(), s.High.Seconds())
}

// writeEvidence names, per fencing session, the controller's first fence.
func writeEvidence(b *strings.Builder, a Answer) {
	seen := map[string]bool{} // a session's points share its hiccups
	for _, r := range a.Rows {
		for _, k := range r.Risks {
			if line := fmt.Sprintf("%s, %s: %s\n", r.Point.sessionName(), k.Hiccup, k.Evidence); k.Evidence != "" && !seen[line] {
				seen[line] = true
				b.WriteString(line)
			}
		}
	}
}

// writeVerdict writes the recommendation or what to add.
func writeVerdict(b *strings.Builder, a Answer) {
	if a.Pick < 0 {
		fmt.Fprintf(b, "%s: add these trials:\n", a.Why)
		for _, s := range a.Add {
			fmt.Fprintf(b, "  %s\n", s)
		}
		return
	}
	r := a.Rows[a.Pick]
	fmt.Fprintf(b, "recommendation: %s; its SIGKILL stall %s%s\n", a.Why, stallText(r.Kill), deathsText(r))
	var flags []string
	for _, c := range r.Point.Config() {
		flags = append(flags, "--config "+c)
	}
	if len(r.Point.Client) > 0 {
		flags = append(flags, ClientFlags(r.Point.Client))
	}
	fmt.Fprintf(b, "  kbf run %s\n", strings.Join(flags, " "))
	fmt.Fprintf(b, "  server.properties (every node; the controllers read the session, the brokers their heartbeat):\n")
	for _, c := range r.Point.Config() {
		fmt.Fprintf(b, "    %s\n", c)
	}
	writeClientAdvice(b, r.Point) // columns.go
}

// File is the answer kbf tune writes into its benchmark directory.
const File = "tune.txt"

// WriteFile writes the answer into dir's tune.txt, and its page, the
// trade drawn, into tune.html (HTMLFile).
func WriteFile(dir string, a Answer) error {
	err := results.WriteFileAtomic(filepath.Join(dir, File), func(w io.Writer) error { return WriteText(w, a) })
	if err != nil {
		return fmt.Errorf("%s: %w", File, err)
	}
	return writeHTMLFile(dir, a)
}
