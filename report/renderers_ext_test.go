package report_test

import (
	"io"

	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/report/render"
)

// init hands the renderers to the tests of package report
// (renderers_test.go).
func init() {
	report.WriteText = render.WriteText
	report.WriteJSON = render.WriteJSON
	report.WriteSummaryText = render.WriteSummaryText
	report.WriteSummaryJSON = render.WriteSummaryJSON
	report.WriteTextFlags = func(flag func(string) string, w io.Writer, tr *report.Trial) error {
		return render.TextOptions{Flag: flag}.WriteText(w, tr)
	}
	report.WriteDigest = func(flag func(string) string, w io.Writer, tr *report.Trial) error {
		return render.TextOptions{Flag: flag}.WriteDigest(w, tr)
	}
}
