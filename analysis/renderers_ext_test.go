package analysis_test

import (
	"io"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/report/render"
)

// init hands the renderers to the tests of package analysis
// (renderers_test.go).
func init() {
	analysis.WriteText = render.WriteText
	analysis.WriteJSON = render.WriteJSON
	analysis.WriteSummaryText = render.WriteSummaryText
	analysis.WriteSummaryJSON = render.WriteSummaryJSON
	analysis.WriteTextFlags = func(flag func(string) string, w io.Writer, tr *analysis.Trial) error {
		return render.TextOptions{Flag: flag}.WriteText(w, tr)
	}
	analysis.WriteDigest = func(flag func(string) string, w io.Writer, tr *analysis.Trial) error {
		return render.TextOptions{Flag: flag}.WriteDigest(w, tr)
	}
}
