package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDecodeMeta(t *testing.T) {
	const good = `{"format_version": 2, "kind": "trial", "started": "2026-11-30T03:25:00Z",
 "fault": {"broker": "k1", "node_id": 1, "kind": "sigkill", "signal_sent": "2026-11-30T03:26:09Z"}}`
	// coordinated is a fault's group_coordinator, node 1 (good's broker).
	const coordinated = `"group_coordinator": {"kind": "group", "key": "kbf-g", "node_id": 1, "broker": "k1", "via": "FindCoordinator", "at": "2026-11-30T03:26:08Z"}`
	for _, tc := range []struct {
		name, in string
		err      string // a substring of the one-line error; "" for none
		sentinel error
	}{
		{name: "good", in: good},
		{name: "version 1 with term_logged", in: `{"format_version": 1, "kind": "trial", "started": "2026-11-30T03:25:00Z",
 "fault": {"broker": "k1", "node_id": 1, "kind": "sigterm", "signal_sent": "2026-11-30T03:26:09Z", "term_logged": "2026-11-30T03:26:09.01Z"}}`},
		{name: "empty file", in: "", err: "meta.json: empty file", sentinel: errBadMeta},
		{name: "null", in: "null", err: "meta.json: null: want a JSON object", sentinel: errBadMeta},
		{name: "empty object", in: "{}", err: "meta.json: format_version 0: want 1 to 2", sentinel: errBadMeta},
		{name: "version 0", in: `{"format_version": 0, "kind": "trial"}`, err: "format_version 0", sentinel: errBadMeta},
		{name: "negative version", in: `{"format_version": -3, "kind": "trial"}`, err: "format_version -3", sentinel: errBadMeta},
		{name: "newer", in: `{"format_version": 99}`, err: "format version 99", sentinel: ErrNewerFormat},
		{name: "unknown kind", in: `{"format_version": 2, "kind": "bench", "started": "2026-11-30T03:25:00Z"}`, err: `kind "bench"`, sentinel: errBadMeta},
		{name: "no start", in: `{"format_version": 2, "kind": "probe"}`, err: "started: no time", sentinel: errBadMeta},
		{name: "ended before started", in: `{"format_version": 2, "kind": "probe", "started": "2026-11-30T03:25:00Z", "ended": "2026-11-30T03:24:00Z"}`,
			err: "ended 2026-11-30T03:24:00Z is before started", sentinel: errBadMeta},
		{name: "fault with no times", in: `{"format_version": 2, "kind": "trial", "started": "2026-11-30T03:25:00Z",
 "fault": {"broker": "k1", "node_id": 1, "kind": "sigkill"}}`, err: "fault.signal_sent: no time", sentinel: errBadMeta},
		{name: "unknown fault", in: strings.Replace(good, "sigkill", "meteor", 1), err: `fault.kind "meteor"`, sentinel: errBadMeta},
		{name: "fault without broker", in: strings.Replace(good, `"k1"`, `""`, 1), err: "fault.broker: empty", sentinel: errBadMeta},
		{name: "chosen as the group's coordinator", in: strings.Replace(good, `"signal_sent"`, coordinated+`, "chosen_as": "group coordinator", "signal_sent"`, 1)},
		{name: "the group's coordinator not faulted", in: strings.Replace(good, `"signal_sent"`, strings.Replace(coordinated, `"node_id": 1`, `"node_id": 2`, 1)+`, "signal_sent"`, 1)},
		{name: "chosen as another coordinator", in: strings.Replace(good, `"signal_sent"`, strings.Replace(coordinated, `"node_id": 1`, `"node_id": 2`, 1)+`, "chosen_as": "group coordinator", "signal_sent"`, 1),
			err: `fault.chosen_as "group coordinator": the group's coordinator found (fault.group_coordinator) is not the faulted node 1`, sentinel: errBadMeta},
		{name: "chosen with none found", in: strings.Replace(good, `"signal_sent"`, `"chosen_as": "group coordinator", "signal_sent"`, 1),
			err: `fault.chosen_as "group coordinator"`, sentinel: errBadMeta},
		{name: "chosen as an unknown role", in: strings.Replace(good, `"signal_sent"`, `"chosen_as": "janitor", "signal_sent"`, 1),
			err: `fault.chosen_as "janitor": want "group coordinator"`, sentinel: errBadMeta},
		{name: "a coordinator of no kind", in: strings.Replace(good, `"signal_sent"`, strings.Replace(coordinated, `"kind": "group"`, `"kind": "share"`, 1)+`, "signal_sent"`, 1),
			err: `fault.group_coordinator.kind "share": want "group"`, sentinel: errBadMeta},
		{name: "no coordinator, no reason", in: strings.Replace(good, `"signal_sent"`, strings.Replace(coordinated, `"node_id": 1`, `"node_id": -1`, 1)+`, "signal_sent"`, 1),
			err: "fault.group_coordinator: no node and no error", sentinel: errBadMeta},
		{name: "a coordinator found at no time", in: strings.Replace(good, `"signal_sent"`, strings.Replace(coordinated, `, "at": "2026-11-30T03:26:08Z"`, ``, 1)+`, "signal_sent"`, 1),
			err: "fault.group_coordinator.at: no time", sentinel: errBadMeta},
		{name: "syntax", in: "{\n  \"format_version\": 2,\n  oops\n}", err: "meta.json: line 3, column 3"},
		{name: "wrong type", in: "{\n \"format_version\": \"two\"\n}", err: "meta.json: line 2"},
		{name: "wrong type names the field", in: `{"format_version": "two"}`, err: "format_version: string where int was wanted"},
		{name: "wrong type in the fault", in: strings.Replace(good, `"node_id": 1`, `"node_id": "one"`, 1), err: "fault.node_id: string where int32 was wanted"},
		{name: "a time that is a number", in: strings.Replace(good, `"2026-11-30T03:26:09Z"`, `7`, 1), err: "meta.json: fault.signal_sent: ", sentinel: errBadMeta},
		{name: "a time that is no time", in: strings.Replace(good, `"2026-11-30T03:25:00Z"`, `"yesterday"`, 1), err: `meta.json: started: parsing time "yesterday"`, sentinel: errBadMeta},
		{name: "a start in 2999", in: strings.Replace(good, "2026-11-30T03:25:00Z", "2999-11-30T03:25:00Z", 1), err: "started 2999-11-30T03:25:00Z: not a time a trial ran at", sentinel: errBadMeta},
		{name: "a fault in 2999", in: strings.Replace(good, "2026-11-30T03:26:09Z", "2999-11-30T03:26:09Z", 1), err: "fault.signal_sent 2999-11-30T03:26:09Z: not a time a trial ran at", sentinel: errBadMeta},
		{name: "a fault in 1970", in: strings.Replace(good, "2026-11-30T03:26:09Z", "1970-01-01T00:00:01Z", 1), err: "fault.signal_sent 1970-01-01T00:00:01Z", sentinel: errBadMeta},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := DecodeMeta(strings.NewReader(tc.in), "meta.json")
			if tc.err == "" {
				if err != nil || m == nil {
					t.Fatalf("DecodeMeta: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("decoded %+v, want an error with %q", m, tc.err)
			}
			if !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line with %q", err, tc.err)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("error %v does not wrap %v", err, tc.sentinel)
			}
		})
	}
}

// TestMetaDerivedNotWritten: a version 1 file's term_logged is read, used
// as the fault's start, and not written back.
func TestMetaDerivedNotWritten(t *testing.T) {
	dir := t.TempDir()
	in := `{"format_version": 1, "kind": "trial", "started": "2026-11-30T03:25:00Z",
 "fault": {"broker": "k1", "node_id": 1, "kind": "sigterm", "signal_sent": "2026-11-30T03:26:09Z", "term_logged": "2026-11-30T03:26:09.01Z"}}`
	if err := os.WriteFile(filepath.Join(dir, MetaFile), []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	logged := time.Date(2026, 11, 30, 3, 26, 9, 10e6, time.UTC)
	if got, ok := m.Fault.LoggedSignal(); !ok || !got.Equal(logged) {
		t.Errorf("LoggedSignal = %v, %v; want %v", got, ok, logged)
	}
	if !m.Fault.At().Equal(logged) {
		t.Errorf("At = %v, want the logged SIGTERM %v", m.Fault.At(), logged)
	}
	if err := WriteMeta(dir, m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "term_logged") || !strings.Contains(string(b), `"format_version": 2`) {
		t.Errorf("rewritten meta.json:\n%s\nwant version 2 without term_logged", b)
	}
}

// TestMetaFirstStep: a fault of several steps that a kbf wrote before it
// recorded fault.first_step gets it from its first step, which the fault is.
func TestMetaFirstStep(t *testing.T) {
	const head = `{"format_version": 2, "kind": "trial", "started": "2026-11-30T03:25:00Z",
 "fault": {"broker": "k1", "node_id": 1, "kind": "rolling", "signal_sent": "2026-11-30T03:26:09Z"`
	const steps = `"steps": [{"action": "sigterm", "node": "k1", "node_id": 1, "sent": "2026-11-30T03:26:09Z", "at": "2026-11-30T03:26:11Z"},
 {"action": "start", "node": "k1", "node_id": 1, "at": "2026-11-30T03:26:13Z"}]`
	for _, tc := range []struct {
		name, in string
		want     StepAction
	}{
		{"older: from the first step", head + "},\n " + steps + "}", StepStop},
		{"recorded", head + `, "first_step": "sigkill"},` + "\n " + steps + "}", StepKill},
		{"no steps", head + "}}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := DecodeMeta(strings.NewReader(tc.in), "meta.json")
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Fault.FirstStep; got != tc.want {
				t.Errorf("first step %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzDecodeMeta: any input is decoded or refused with one short line,
// never a panic; what is accepted is written and read back the same.
func FuzzDecodeMeta(f *testing.F) {
	f.Add([]byte(`{"format_version": 2, "kind": "trial", "started": "2026-11-30T03:25:00Z",
 "fault": {"broker": "k1", "node_id": 1, "kind": "sigkill", "signal_sent": "2026-11-30T03:26:09Z"}}`))
	f.Add([]byte(`{"format_version": 1, "kind": "probe", "started": "2026-11-30T03:25:00Z", "probe": {"partitions": [0, 1]}}`))
	f.Add([]byte("null"))
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeMeta(bytes.NewReader(data), "meta.json")
		if err != nil {
			if s := err.Error(); strings.Contains(s, "\n") || len(s) > 400 {
				t.Fatalf("error of %d bytes, or of several lines: %.400q", len(s), s)
			}
			return
		}
		dir := t.TempDir()
		if err := WriteMeta(dir, m); err != nil {
			t.Fatalf("accepted %q but cannot write it back: %v", data, err)
		}
		if _, err := ReadMeta(dir); err != nil {
			t.Fatalf("accepted %q, wrote it back, and refused that: %v", data, err)
		}
	})
}

// TestFaultAt: each fault starts at the moment its record says it took
// effect; a freeze, of a broker or of the active controller, when the
// engine had frozen the container, not when kbf asked.
func TestFaultAt(t *testing.T) {
	sent := time.Date(2026, 12, 1, 12, 40, 1, 500e6, time.UTC)
	took := sent.Add(80 * time.Millisecond)
	for _, tc := range []struct {
		name  string
		fault Fault
		want  time.Time
	}{
		{"sigkill", Fault{Kind: FaultSIGKILL, SignalSent: sent, Finished: took}, took},
		{"controller-kill", Fault{Kind: FaultControllerKill, SignalSent: sent, Finished: took}, took},
		{"pause", Fault{Kind: FaultPause, SignalSent: sent, Paused: took}, took},
		{"controller-pause", Fault{Kind: FaultControllerPause, SignalSent: sent, Paused: took}, took},
		{"pause not seen frozen", Fault{Kind: FaultControllerPause, SignalSent: sent}, sent},
		{"sigterm", Fault{Kind: FaultSIGTERM, SignalSent: sent, Finished: took}, sent},
		// A fault of several steps starts as its first step did.
		{"rolling", Fault{Kind: FaultRolling, FirstStep: StepStop, SignalSent: sent, Finished: took}, sent},
		{"two-brokers", Fault{Kind: FaultTwoBrokers, FirstStep: StepKill, SignalSent: sent, Finished: took}, took},
		{"isolate", Fault{Kind: FaultIsolate, SignalSent: sent, Cut: took}, took},
		// A failed disk starts when the layer failed it, not at the halt.
		{"disk-error", Fault{Kind: FaultDiskError, SignalSent: sent, Finished: took.Add(time.Second)}, sent},
		{"disk-slow", Fault{Kind: FaultDiskSlow, SignalSent: sent}, sent},
		{"power-loss", Fault{Kind: FaultPowerLoss, SignalSent: sent, Finished: took}, took},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.fault.At(); !got.Equal(tc.want) {
				t.Errorf("At = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestFaultAction: a fault of several steps did first what its first step
// did, so a rolling restart, which begins with a SIGTERM, is analysed as a
// graceful stop; a fault of one step is what its kind says.
func TestFaultAction(t *testing.T) {
	for _, tc := range []struct {
		kind     FaultKind
		first    StepAction
		want     StepAction
		signal   string
		graceful bool
	}{
		{FaultSIGKILL, "", StepKill, "SIGKILL", false},
		{FaultSIGTERM, "", StepStop, "SIGTERM", true},
		{FaultPause, "", StepPause, "PAUSE", false},
		{FaultIsolate, "", "", "ISOLATE", false},
		{FaultDiskFull, "", "", "DISK-FULL", false},
		{FaultDiskSlow, "", "", "DISK-SLOW", false},
		{FaultDiskError, "", "", "DISK-ERROR", false},
		{FaultPowerLoss, "", StepKill, "POWER-LOSS", false},
		{FaultRolling, StepStop, StepStop, "SIGTERM", true},
		{FaultLastReplica, StepStop, StepStop, "SIGTERM", true},
		{FaultTwoBrokers, StepKill, StepKill, "SIGKILL", false},
		{FaultControllerKill, StepKill, StepKill, "SIGKILL", false},
		{FaultControllerPause, StepPause, StepPause, "PAUSE", false},
		// Not recorded (a fault made by hand): the kind alone does not say.
		{FaultRolling, "", "", "ROLLING", false},
		{FaultControllerKill, "", "", "SIGKILL", false},
		// A fault of one step is its kind, whatever else it holds.
		{FaultSIGKILL, StepStop, StepKill, "SIGKILL", false},
	} {
		t.Run(string(tc.kind)+"/"+string(tc.first), func(t *testing.T) {
			f := &Fault{Kind: tc.kind, FirstStep: tc.first}
			if got := f.Action(); got != tc.want {
				t.Errorf("Action = %q, want %q", got, tc.want)
			}
			if got := f.Graceful(); got != tc.graceful {
				t.Errorf("Graceful = %v, want %v", got, tc.graceful)
			}
			if got := f.Signal(); got != tc.signal {
				t.Errorf("Signal = %q, want %q", got, tc.signal)
			}
		})
	}
}

// TestFaultSignal: a fault is spelt as what was done to the node, so a
// controller's kill reads as the SIGKILL it was.
func TestFaultSignal(t *testing.T) {
	for kind, want := range map[FaultKind]string{
		"":                   "signal",
		FaultSIGKILL:         "SIGKILL",
		FaultSIGTERM:         "SIGTERM",
		FaultPause:           "PAUSE",
		FaultControllerKill:  "SIGKILL",
		FaultControllerPause: "PAUSE",
	} {
		if got := kind.Signal(); got != want {
			t.Errorf("%q: Signal = %q, want %q", kind, got, want)
		}
	}
}
