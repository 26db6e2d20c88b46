package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		check   func(t *testing.T, f *File)
		wantErr string
	}{
		{name: "the example", in: Example, check: func(t *testing.T, f *File) {
			if f.Trials != 6 || len(f.Scenarios) != 3 {
				t.Fatalf("trials %d, %d scenarios", f.Trials, len(f.Scenarios))
			}
			s := f.Scenarios[0]
			if s.Duration != 30*time.Second || s.FaultAfter != 8*time.Second || s.Interval != 20*time.Millisecond || s.Acks != "all" || s.Broker != "k1" {
				t.Errorf("first scenario %+v", s)
			}
			sw := f.Scenarios[2].Sweep
			if sw == nil || sw.Key != "broker.session.timeout.ms" || strings.Join(sw.Values, ",") != "6000,9000" {
				t.Errorf("sweep %+v: the numbers must read as values", sw)
			}
		}},
		{name: "fresh reaches every scenario", in: "trials: 2\nfresh: true\nscenarios: [{name: a, fault: sigkill}, {name: b, fault: sigterm}]\n",
			check: func(t *testing.T, f *File) {
				if !f.Scenarios[0].Fresh || !f.Scenarios[1].Fresh {
					t.Errorf("fresh not passed on: %+v", f.Scenarios)
				}
			}},
		{name: "options passed through", in: "trials: 1\nscenarios:\n  - name: mine\n    fault: netsplit\n    compose: my.yaml\n    brokers: 5\n    controllers: 3\n    client: {retry-backoff: 100ms}\n",
			check: func(t *testing.T, f *File) {
				s := f.Scenarios[0]
				if s.Fault != "netsplit" || s.Compose != "my.yaml" || s.Brokers != 5 || s.Controllers != 3 || s.Client["retry-backoff"] != "100ms" {
					t.Errorf("scenario %+v", s)
				}
			}},
		{name: "settle given, zero and absent", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, settle: 2s}, {name: b, fault: sigkill, settle: 0s}, {name: c, fault: sigkill}]\n",
			check: func(t *testing.T, f *File) {
				a, b, c := f.Scenarios[0].Settle, f.Scenarios[1].Settle, f.Scenarios[2].Settle
				if a == nil || *a != 2*time.Second || b == nil || *b != 0 || c != nil {
					t.Errorf("settle %v %v %v, want 2s, 0s (to the cap) and nil (kbf run's default)", a, b, c)
				}
			}},
		{name: "negative settle", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, settle: -1s}]\n", wantErr: "durations must be positive"},
		{name: "empty", in: "", wantErr: "empty"},
		{name: "image and version", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, image: 'x/kafka:1', kafka_version: 4.0.2}]\n", wantErr: `image "x/kafka:1" and kafka_version "4.0.2": give one`},
		{name: "a version that is not one", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, kafka_version: latest}]\n", wantErr: `kafka_version "latest": want a release such as 4.0.2`},
		{name: "a version of two parts", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, kafka_version: 4.0}]\n", wantErr: `kafka_version "4.0"`},
		{name: "an image with a space", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, image: 'a b'}]\n", wantErr: `image "a b"`},
		{name: "misspelt key", in: "trials: 1\nscenarios: [{name: a, falt: sigkill}]\n", wantErr: "field falt not found"},
		{name: "no trials", in: "scenarios: [{name: a, fault: sigkill}]\n", wantErr: "no trials: say how many"},
		{name: "a billion trials", in: "trials: 1000000000\nscenarios: [{name: a, fault: sigkill}]\n", wantErr: "trials 1000000000: want 1 to 1000"},
		{name: "no scenarios", in: "trials: 3\n", wantErr: "no scenarios"},
		{name: "no name", in: "trials: 1\nscenarios: [{fault: sigkill}]\n", wantErr: "scenario 1: no name"},
		{name: "bad name", in: "trials: 1\nscenarios: [{name: a/b, fault: sigkill}]\n", wantErr: "a name is letters"},
		{name: "twice", in: "trials: 1\nscenarios: [{name: a, fault: sigkill}, {name: a, fault: sigterm}]\n", wantErr: "named twice"},
		{name: "no fault", in: "trials: 1\nscenarios: [{name: a}]\n", wantErr: "no fault"},
		{name: "bad acks", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, acks: \"0\"}]\n", wantErr: `acks "0"`},
		{name: "bad duration", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, duration: soon}]\n", wantErr: "soon"},
		{name: "fault after the end", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, duration: 5s, fault_after: 5s}]\n", wantErr: "fault_after"},
		{name: "bad config", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, config: [broker.session.timeout.ms]}]\n", wantErr: "want KEY=VALUE"},
		{name: "sweep of one value", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, sweep: {key: x, values: [1]}}]\n", wantErr: "at least two values"},
		{name: "sweep value repeated", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, sweep: {key: x, values: [1, 1]}}]\n", wantErr: "repeated"},
		{name: "sweep values alike as directories", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, sweep: {key: x, values: [\"h:1\", h_1]}}]\n", wantErr: "would share the directory"},
		{name: "sweep without key", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, sweep: {values: [1, 2]}}]\n", wantErr: "no key"},
		{name: "sweep of a secret", in: "trials: 1\nscenarios: [{name: a, fault: sigkill, sweep: {key: \"b1:ssl.key.password\", values: [p1, p2]}}]\n", wantErr: "holds a secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(strings.NewReader(tt.in), "bench.yaml")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "bench.yaml: ") {
					t.Fatalf("error %v, want one naming the file and saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, f)
		})
	}
}

func TestFromRun(t *testing.T) {
	f, err := FromRun(Scenario{Fault: "sigkill"}, 6)
	if err != nil || f.Trials != 6 || f.Scenarios[0].Name != "sigkill" {
		t.Fatalf("%+v, %v", f, err)
	}
	if _, err := FromRun(Scenario{Fault: "sigkill"}, 0); err == nil {
		t.Error("no trials accepted")
	}
}

// A scenario's command_config is found from where the scenario file is, as
// a compose file finds its own files; an absolute one is kept.
func TestReadFileCommandConfig(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(t.TempDir(), "abs.properties")
	tests := []struct {
		name, value, want string
	}{
		{"relative", "client.properties", filepath.Join(dir, "client.properties")},
		{"in a subdirectory", "sec/client.properties", filepath.Join(dir, "sec", "client.properties")},
		{"absolute", abs, abs},
		{"none", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "bench.yaml")
			yaml := "trials: 1\nscenarios:\n  - name: s\n    fault: sigkill\n"
			if tt.value != "" {
				yaml += "    command_config: " + tt.value + "\n"
			}
			if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Scenarios[0].CommandConfig; got != tt.want {
				t.Errorf("command_config %q, want %q", got, tt.want)
			}
		})
	}
}

// TestParseExternal: a scenario with fault external takes the cluster's
// addresses and the command that injects each trial's fault, and refuses
// what would set up kbf's own cluster; each bad field is a line of its own,
// naming the file.
func TestParseExternal(t *testing.T) {
	const head = "trials: 1\nscenarios:\n  - name: ext\n"
	tests := []struct {
		name  string
		in    string
		check func(t *testing.T, s Scenario)
		lines []string
	}{
		{name: "every field", in: head + "    fault: external\n    bootstrap: [kafka-0.kafka:9092, '10.0.0.2:9092']\n    on_ready: ./kill.sh\n" +
			"    ready_file: ready\n    logs_command: kubectl logs my-kafka-{id}\n    heal_margin: 3s\n    command_config: client.properties\n",
			check: func(t *testing.T, s Scenario) {
				if len(s.Bootstrap) != 2 || s.Bootstrap[0] != "kafka-0.kafka:9092" || s.OnReady != "./kill.sh" || s.ReadyFile != "ready" ||
					s.LogsCommand != "kubectl logs my-kafka-{id}" || s.HealMargin != 3*time.Second {
					t.Errorf("scenario %+v", s)
				}
			}},
		{name: "a ready file alone", in: head + "    fault: external\n    bootstrap: [b:9092]\n    ready_file: ready\n",
			check: func(t *testing.T, s Scenario) {}},
		{name: "a sweep of a client setting", in: head + "    fault: external\n    bootstrap: [b:9092]\n    on_ready: x\n    sweep: {key: client.retry-backoff, values: [100ms, 1s]}\n",
			check: func(t *testing.T, s Scenario) {}},
		{name: "nothing to reach, nothing to inject", in: head + "    fault: external\n",
			lines: []string{`scenario "ext": bootstrap: fault external needs`, `scenario "ext": on_ready: fault external needs a command`}},
		{name: "addresses that are not host:port", in: head + "    fault: external\n    bootstrap: [kafka, ':9092', 'b:http']\n    on_ready: x\n",
			lines: []string{`bootstrap "kafka": want host:port`, `bootstrap ":9092"`, `bootstrap "b:http"`}},
		{name: "kbf's own cluster's settings", in: head + "    fault: external\n    bootstrap: [b:9092]\n    on_ready: x\n    compose: c.yaml\n    brokers: 5\n    config: [a=1]\n    kafka_version: 4.0.2\n    broker: k1\n",
			lines: []string{"broker k1: the injector picks", "compose: kbf does not run", "brokers: kbf does not run", "kafka_version: kbf does not run", "config: kbf does not run"}},
		{name: "a sweep of a server property", in: head + "    fault: external\n    bootstrap: [b:9092]\n    on_ready: x\n    sweep: {key: broker.session.timeout.ms, values: [6000, 9000]}\n",
			lines: []string{"sweep of broker.session.timeout.ms: kbf sets no server property"}},
		{name: "both kinds of logs, a negative margin", in: head + "    fault: external\n    bootstrap: [b:9092]\n    on_ready: x\n    logs: l\n    logs_command: c {id}\n    heal_margin: -1s\n",
			lines: []string{"logs and logs_command: give one", "heal_margin -1s: must not be negative"}},
		{name: "external's fields with a fault kbf makes", in: head + "    fault: sigkill\n    bootstrap: [b:9092]\n    on_ready: x\n",
			lines: []string{"bootstrap is fault external's; fault sigkill runs on kbf's cluster", "on_ready is fault external's"}},
		{name: "a fresh cluster for an external scenario", in: "trials: 1\nfresh: true\nscenarios:\n  - name: ext\n    fault: external\n    bootstrap: [b:9092]\n    on_ready: x\n",
			lines: []string{"fresh: kbf does not run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(strings.NewReader(tt.in), "bench.yaml")
			if len(tt.lines) > 0 {
				if err == nil {
					t.Fatal("accepted")
				}
				got := strings.Split(err.Error(), "\n")
				if len(got) != len(tt.lines) {
					t.Fatalf("%d lines, want %d: %q", len(got), len(tt.lines), got)
				}
				for i, want := range tt.lines {
					if !strings.HasPrefix(got[i], "bench.yaml: ") || !strings.Contains(got[i], want) {
						t.Errorf("line %d %q, want the file and %q", i, got[i], want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, f.Scenarios[0])
		})
	}
}

// TestReadFileExternal: an external scenario's files are found from where
// the scenario file is, and its on_ready runs there.
func TestReadFileExternal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bench.yaml")
	abs := filepath.Join(t.TempDir(), "ready")
	yaml := "trials: 1\nscenarios:\n  - {name: a, fault: external, bootstrap: [b:9092], on_ready: ./kill.sh, logs: nodes, ready_file: " + abs + "}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Scenarios[0]
	if s.Logs != filepath.Join(dir, "nodes") || s.ReadyFile != abs || s.Dir != dir || s.OnReady != "./kill.sh" {
		t.Errorf("logs %q, ready file %q, dir %q, on_ready %q", s.Logs, s.ReadyFile, s.Dir, s.OnReady)
	}
}

// TestProjectFiles reads the scenario files the project's own CI runs: they
// parse, and the gate's holds the crash alone, since it answers on
// from_heartbeat (a SIGTERM scenario there would spend the gate's trials on
// rows it does not gate).
func TestProjectFiles(t *testing.T) {
	for _, name := range []string{"ci.yaml", "gate.yaml"} {
		if _, err := ReadFile(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	f, err := ReadFile("gate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Scenarios {
		if s.Fault != "sigkill" {
			t.Errorf("gate.yaml: scenario %s is a %s, want the SIGKILL the gate answers on", s.Name, s.Fault)
		}
	}
}
