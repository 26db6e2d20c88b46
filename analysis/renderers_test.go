package analysis

import "io"

// The renderers live in report/render, which imports this package, so a
// test of this package cannot import them; renderers_ext_test.go (package
// report_test, which can) hands them over before any test runs. The tests
// here check the analysis through what the renderers make of it, under the
// renderers' own names.
var (
	WriteText        func(w io.Writer, tr *Trial) error
	WriteJSON        func(w io.Writer, tr *Trial) error
	WriteSummaryText func(w io.Writer, s *Summary) error
	WriteSummaryJSON func(w io.Writer, s *Summary) error
	// writeTextFlags and writeDigest are render.TextOptions{Flag:
	// flag}'s WriteText and WriteDigest.
	WriteTextFlags func(flag func(string) string, w io.Writer, tr *Trial) error
	WriteDigest    func(flag func(string) string, w io.Writer, tr *Trial) error
)

// TextOptions stands for render.TextOptions in the tests.
type TextOptions struct{ Flag func(setting string) string }

// WriteText is render.TextOptions.WriteText.
func (o TextOptions) WriteText(w io.Writer, tr *Trial) error { return WriteTextFlags(o.Flag, w, tr) }

// WriteDigest is render.TextOptions.WriteDigest.
func (o TextOptions) WriteDigest(w io.Writer, tr *Trial) error { return WriteDigest(o.Flag, w, tr) }
