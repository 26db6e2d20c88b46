package render

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

// IncidentHeads are the columns of a watch's index.
var IncidentHeads = []string{"incident", "began (UTC)", "recovered", "broker", "named by", "ack stall", "receive", "longest phase", "verdict"}

// WriteIncidents writes the index of a watch's directory: one line per
// incident (analysis.Trial.Incident), then one per incident that could not
// be read.
func WriteIncidents(w io.Writer, dir string, trs []*analysis.Trial, broken []error) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s: %d incidents", dir, len(trs)+len(broken))
	if len(broken) > 0 {
		fmt.Fprintf(&b, ", %d could not be read", len(broken))
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(IncidentHeads, "\t"))
	for _, tr := range trs {
		fmt.Fprintln(tw, strings.Join(IncidentCells(tr), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, err := range broken {
		fmt.Fprintf(&b, "not read: %v\n", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// IncidentCells are tr's cells under IncidentHeads, as text.
func IncidentCells(tr *analysis.Trial) []string {
	l := tr.Incident()
	name, _ := strings.CutPrefix(filepath.Base(tr.Dir), results.IncidentDirPrefix)
	cells := []string{name, "-", "no", "-", "-", worstCell(l.Ack), worstCell(l.Receive), "-", "-"}
	if !l.Began.IsZero() {
		cells[1] = l.Began.UTC().Format("2006-01-02 15:04:05")
		if !l.Recovered.IsZero() {
			cells[2] = "after " + secondsCell(l.Recovered.Sub(l.Began))
		}
	}
	if l.Broker != "" {
		cells[3], cells[4] = l.Broker, l.By
	}
	if l.Phase != "" {
		cells[7] = l.Phase + " " + secondsCell(l.PhaseDuration)
	}
	if l.Verdict != "" {
		cells[8] = l.Verdict
	}
	return cells
}

func worstCell(w analysis.Worst) string {
	if w.Partition < 0 {
		return "-"
	}
	s := fmt.Sprintf("%s p%d", secondsCell(w.Gap), w.Partition)
	if w.Open {
		s += " (open)"
	}
	return s
}

func secondsCell(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
