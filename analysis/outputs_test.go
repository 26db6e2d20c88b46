package analysis

import (
	"bytes"
	"testing"
	"time"
)

// TestOutputsGolden keeps every output of every recorded trial as a golden
// file under testdata/outputs/: the full text (with and without flag
// names), the JSON and the digest, for one client and for two, and the
// run's summary as text and JSON. It guards the renderers' bytes while
// the code behind them moves.
func TestOutputsGolden(t *testing.T) {
	flag := func(s string) string {
		if s == "metadata_min_age" || s == "retry_backoff" {
			return "--" + s
		}
		return ""
	}
	var all []*Trial
	for _, tc := range []struct {
		name    string
		archive string
		// lag, when set, adds a librdkafka client whose p0 acks lag.
		lag time.Duration
	}{
		{name: "sigkill", archive: sigkillArchive},
		{name: "sigterm", archive: sigtermArchive},
		{name: "sigkill-replicas", archive: sigkillReplicasArchive},
		{name: "isolate", archive: isolateArchive},
		{name: "isolate-controller", archive: isolateControllerArchive},
		{name: "isolate-clients", archive: isolateClientsArchive},
		// The ISR wait by lag: the broker, cut from the other brokers
		// only, is dropped from the ISR within (L, 1.5·L] of the cut.
		{name: "isolate-replication", archive: isolateReplicationArchive},
		// A trial beyond its bounds: the new group coordinator began its
		// load 0.09 s after it led the partition (docs/bounds.md).
		{name: "group-coordinator-classic", archive: "group-coordinator-classic.tar.gz"},
		// A boundary out of its recipe's order: the producer was told of
		// the new transaction coordinator before its load had ended.
		{name: "txn-coordinator-2", archive: "txn-coordinator-2.tar.gz"},
		// A stall still open when probing stopped, recorded live: k1
		// paused at broker.session.timeout.ms=4000, fenced in 2.58 s,
		// and the producer still waiting on it 31.9 s on, within what
		// the client phase in progress allows.
		{name: "pause-session-4000", archive: pauseSession4000Archive},
		{name: "clients-300ms", archive: sigkillArchive, lag: 300 * time.Millisecond},
		{name: "clients-3ms", archive: sigkillArchive, lag: 3 * time.Millisecond},
		{name: "rolling"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var trial string
			if tc.archive == "" {
				trial = writeRolling(t)
			} else {
				trial = unpack(t, tc.archive)
			}
			if tc.lag > 0 {
				addClient(t, trial, "librdkafka", tc.lag)
			}
			tr := analyze(t, trial)
			all = append(all, tr)
			outputs(t, "outputs/"+tc.name, tr, flag)
		})
	}
	s := Summarize(all)
	var text, js bytes.Buffer
	if err := WriteSummaryText(&text, s); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummaryJSON(&js, s); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "outputs/summary.txt.golden", text.Bytes())
	checkGolden(t, "outputs/summary.json.golden", js.Bytes())
}

// outputs checks tr's text, text with flags, JSON and digest against the
// golden files named after prefix.
func outputs(t *testing.T, prefix string, tr *Trial, flag func(string) string) {
	t.Helper()
	var text, flagged, js, digest bytes.Buffer
	if err := WriteText(&text, tr); err != nil {
		t.Fatal(err)
	}
	if err := (TextOptions{Flag: flag}).WriteText(&flagged, tr); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, tr); err != nil {
		t.Fatal(err)
	}
	if err := (TextOptions{Flag: flag}).WriteDigest(&digest, tr); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, prefix+".txt.golden", text.Bytes())
	checkGolden(t, prefix+".flags.txt.golden", flagged.Bytes())
	checkGolden(t, prefix+".json.golden", js.Bytes())
	checkGolden(t, prefix+".digest.golden", digest.Bytes())
}
