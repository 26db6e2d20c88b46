// Package render draws a trial's analysis (a *analysis.Trial) and a run's
// summary (a *analysis.Summary) as text, as the terminal's digest and as
// JSON. It decides nothing: every figure, role, cause and verdict it
// prints is the analysis's, so the text, the JSON, the SVG (package plot)
// and the HTML page (package htmlreport) say the same. It reads no file and
// needs neither Docker nor Kafka.
//
//	tr, err := analysis.Analyze(trial, analysis.Options{})
//	...
//	err = render.TextOptions{Flag: flagName}.WriteText(os.Stdout, tr)
//
// A file here per part of the report: text.go the full text (heading,
// stalls in phases, recovery), digest.go the terminal's digest and the
// audit per client, json.go the JSON and jsondoc.go its parts' shapes
// (report.json's and summary.json's: package analysis's types carry no JSON
// tags), summary.go a run's summary, and clients.go, quorum.go, steps.go
// and replicas.go the sections of the same names.
package render
