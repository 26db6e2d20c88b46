package main

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/bench/trialrun"
	"github.com/kbf-project/kbf/probe"
)

// settingSamples is a value, not the default, of every probe setting.
var settingSamples = map[string]string{
	"topic":                    "payments",
	"partitions":               "0,2",
	"interval":                 "50ms",
	"acks":                     "1",
	"linger":                   "5ms",
	"retry-backoff":            "250ms",
	"retry-backoff-max":        "2s",
	"metadata-min-age":         "1s",
	"delivery-timeout":         "30s",
	"produce-timeout":          "5s",
	"request-timeout-overhead": "3s",
	"fetch-max-wait":           "100ms",
	"drain":                    "2s",
	"kip951":                   "false",
	"consumer":                 "group",
	"group-protocol":           "consumer",
	"commit":                   "async",
	"producer":                 "transactional",
	"txn-records":              "50",
	"txn-interval":             "500ms",
}

// settingNeeds are the settings a setting is refused without, with the
// values it needs: the group reader's only with one, the transactions'
// only with a transactional producer.
var settingNeeds = map[string][2]string{
	"group-protocol": {"consumer", "group"},
	"commit":         {"consumer", "group"},
	"txn-records":    {"producer", "transactional"},
	"txn-interval":   {"producer", "transactional"},
}

// TestProbeSettingsAreTheFlags: the probe's flags are probe.Settings' rows,
// no more and no fewer, and kbf run, bench and probe take each of them.
func TestProbeSettingsAreTheFlags(t *testing.T) {
	fs := pflag.NewFlagSet("probe", pflag.ContinueOnError)
	var f probe.Config
	f.AddFlags(fs, false)
	var flags, rows []string
	fs.VisitAll(func(fl *pflag.Flag) { flags = append(flags, fl.Name) })
	for _, s := range probe.Settings {
		rows = append(rows, s.Name)
	}
	slices.Sort(rows)
	if !slices.Equal(flags, rows) {
		t.Errorf("flags %v, settings %v", flags, rows)
	}
	g := &globals{out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}
	for _, cmd := range []*cobra.Command{newRunCmd(g), newBenchCmd(g), newProbeCmd(g)} {
		for _, s := range probe.Settings {
			if fl := cmd.Flags().Lookup(s.Name); fl == nil || fl.Usage != s.Usage {
				t.Errorf("kbf %s --%s: %+v", cmd.Name(), s.Name, fl)
			}
		}
	}
}

// TestProbeSettingRecorded: a setting's recorded name is the one meta.json
// records it under, and what it records changes with the setting.
func TestProbeSettingRecorded(t *testing.T) {
	def := probe.Defaults()
	before := def.Effective()
	for _, s := range probe.Settings {
		if s.Recorded == "" {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			c := probe.Defaults()
			if err := s.Value(&c).Set(settingSamples[s.Name]); err != nil {
				t.Fatal(err)
			}
			if after := c.Effective()[s.Recorded]; after == before[s.Recorded] {
				t.Errorf("%s %s: meta.json's %s is still %q", s.Name, settingSamples[s.Name], s.Recorded, after)
			}
		})
	}
}

// TestScenarioProbeAsFlag: a scenario's client setting gives the probe the
// configuration kbf run's flag of that name gives it, and leaves the
// command's own as they were.
func TestScenarioProbeAsFlag(t *testing.T) {
	runFlags := func(t *testing.T, args ...string) probe.Config {
		t.Helper()
		var got *runOptions
		code, stderr := runOnly(t, func(g *globals) *cobra.Command {
			return newRunCmdF(g, func(_ context.Context, o *runOptions) error { got = o; return nil })
		}, append([]string{"run", "--kill", "sigkill"}, args...)...)
		if code != exitOK || got == nil {
			t.Fatalf("kbf run %v: exit %d: %s", args, code, stderr)
		}
		return got.Base.Trial.Probe
	}
	runConfig := runFlags
	base := runFlags(t)
	def := base
	for _, s := range probe.Settings {
		t.Run(s.Name, func(t *testing.T) {
			v, ok := settingSamples[s.Name]
			if !ok {
				t.Fatalf("no sample value of %s", s.Name)
			}
			args, client := []string{"--" + s.Name + "=" + v}, map[string]string{s.Name: v}
			if need, ok := settingNeeds[s.Name]; ok {
				args, client[need[0]] = append(args, "--"+need[0]+"="+need[1]), need[1]
			}
			want := runConfig(t, args...)
			got, err := trialrun.ScenarioProbe(base, bench.Scenario{Client: client})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("client %s: %s gives\n%+v\n--%s %s gives\n%+v", s.Name, v, got, s.Name, v, want)
			}
			if reflect.DeepEqual(want, def) {
				t.Errorf("--%s %s: the defaults", s.Name, v)
			}
			if !reflect.DeepEqual(base, def) {
				t.Errorf("the scenario changed the command's settings: %+v", base)
			}
		})
	}
	if got := runConfig(t, "--partitions", "0", "--partitions", "2,3").Partitions; !slices.Equal(got, []int32{0, 2, 3}) {
		t.Errorf("--partitions given twice: %v, want both", got)
	}
}

// TestScenarioProbeRefuses: a setting the probe lacks, or a value its flag
// would refuse, in one line naming the setting.
func TestScenarioProbeRefuses(t *testing.T) {
	var base probe.Config
	base.AddFlags(pflag.NewFlagSet("probe", pflag.ContinueOnError), false)
	tests := []struct {
		name    string
		client  map[string]string
		wantErr string
	}{
		{name: "unknown", client: map[string]string{"lingr": "1ms"}, wantErr: "client lingr: no such probe setting (kbf run --help lists them)"},
		{name: "bootstrap is the scenario's own", client: map[string]string{"bootstrap": "b1:9092"}, wantErr: "client bootstrap: no such probe setting"},
		{name: "duration", client: map[string]string{"linger": "soon"}, wantErr: `client linger: time: invalid duration "soon"`},
		{name: "boolean", client: map[string]string{"kip951": "maybe"}, wantErr: `client kip951: "maybe": want true or false`},
		{name: "partitions", client: map[string]string{"partitions": "0,x"}, wantErr: `client partitions: strconv.ParseInt: parsing "x": invalid syntax`},
		{name: "the first by name", client: map[string]string{"retry-backoff": "x", "drain": "y"}, wantErr: "client drain: "},
		{name: "without its partner", client: map[string]string{"txn-records": "5"}, wantErr: "client txn-records needs --producer transactional"},
		{name: "beside another producer", client: map[string]string{"txn-interval": "2s", "producer": "idempotent"}, wantErr: "client txn-interval needs --producer transactional"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := trialrun.ScenarioProbe(base, bench.Scenario{Client: tt.client})
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line starting %q", err, tt.wantErr)
			}
		})
	}
}
