// Package htmlreport writes report.html: one self-contained page per trial,
// per run of several trials and per benchmark, that opens offline. It reads
// what the report already analysed (a *analysis.Trial) and the trial's probe
// CSV once more, streamed, and draws nothing itself: the page model it
// builds is embedded in the page as JSON, and a small script draws it with
// uPlot.
//
//	tr, _ := analysis.Analyze(trial, analysis.Options{})
//	f, _ := os.Open(trial.Probe)
//	htmlreport.WriteTrial(out, htmlreport.TrialPage{Report: tr, Probe: f, ProbeName: trial.Probe})
//
// # The page
//
// Per partition a lane: each message's ack and receive latency against its
// send time in seconds since the fault (log scale), the stall at the fault
// shaded, its phases as labelled spans, the timeline's events as markers
// that show their log line and file:line on hover, and a point's message
// (seq, offset, times) on hover; drag to zoom the time axis, the wheel to
// zoom, Shift and the wheel to pan, a double-click to reset; the lanes of a
// trial zoom together. A table of the figures per partition (the stalls,
// their phases, the longest gap elsewhere, the audit's counts). With a
// ReplicaView, each replica's log end offset and the high watermark per
// partition. A trial of more partitions than analysis.Condense is drawn as
// one heat map instead of a lane each: a row per partition, led, followed
// and the rest, and in each the ack gaps over the run's stall bound (see
// HeatGaps for how few it keeps), the fault and the phases' boundaries
// over them, a cell's gap on hover. A run opens with its summary (analysis.Summarize's ranges), then
// overlays its trials per partition on time since each trial's fault,
// labelled with the client when the trials used several. A
// benchmark draws each metric across scenarios (every trial a point, the
// median, the interval) and each sweep against the swept value. A tune
// (WriteTune, from package tune's answer) draws its trade: each setting's
// SIGKILL stall, median and interval, against the share of its hiccup
// trials that fenced the healthy broker, the Pareto front joined and the
// recommendation ringed, as the tune decided them.
//
// # The numbers
//
// Every figure is embedded with the dotted path of the same number in the
// trial's report.json, and the value encoding/json writes there, so a test
// can check that the page and report.json agree. The analysis is never
// downsampled; only the points drawn are: see Buckets. The script writes
// what it drew into a hidden #kbf-result element; opened as
// report.html#selftest it also hovers a point and a marker in every lane
// and zooms one, for the browser test to check.
//
// # The charting library
//
// uPlot 1.6.32 (MIT; assets/uPlot.iife.min.js, its CSS and its licence,
// from the npm package uplot), inlined into every page. It was chosen for
// being small (51 KB minified, no dependencies), fast on tens of thousands
// of points on a canvas, and for having what the page needs built in —
// drag to zoom, a cursor that gives the nearest point's index, log scales,
// bands, and hooks to draw the stalls, phases and markers — so that the page
// draws with a library rather than with hand-written SVG. Chart.js and
// ECharts are larger (200 KB and 1 MB) and slower on many points; Plotly is
// over 3 MB. To update it, replace the two files and this paragraph.
package htmlreport
