package tune

import (
	"fmt"
	"strings"
)

// The answer's columns of the client settings the grid varies and of the
// deaths beside the SIGKILL (WriteText): a column per setting, its value
// at the row's point, and a stall and its count per death.

func clientHead(a Answer) string {
	if len(a.Rows) == 0 {
		return ""
	}
	var b strings.Builder
	for _, c := range a.Rows[0].Point.Client {
		b.WriteString("\t" + c.Name)
	}
	return b.String()
}

func clientCells(r Row) string {
	var b strings.Builder
	for _, c := range r.Point.Client {
		b.WriteString("\t" + c.Value.String())
	}
	return b.String()
}

func deathHead(a Answer) string {
	if len(a.Rows) == 0 {
		return ""
	}
	var b strings.Builder
	for _, d := range a.Rows[0].Deaths {
		fmt.Fprintf(&b, "\t%s stall (leader)\tn", d.Kind)
	}
	return b.String()
}

func deathCells(r Row) string {
	var b strings.Builder
	for _, d := range r.Deaths {
		fmt.Fprintf(&b, "\t%s\t%d/%d", stallText(d.Stall), d.Stall.N, d.Stall.Attempted)
	}
	return b.String()
}

// writeClientAdvice says the recommended point's client settings as flags
// to copy, where the grid varied them.
func writeClientAdvice(b *strings.Builder, p Point) {
	if len(p.Client) == 0 {
		return
	}
	fmt.Fprintf(b, "  the producer's settings (franz-go's, as kbf run's and kbf probe's flags; a bench scenario's client:): %s\n", ClientFlags(p.Client))
}
