package main

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/probe"
)

// TestSettingFlags: every mapped setting is one the probe records, and
// every flag it names is one kbf run and kbf probe take.
func TestSettingFlags(t *testing.T) {
	fs := pflag.NewFlagSet("probe", pflag.ContinueOnError)
	f := &probe.Config{}
	f.AddFlags(fs, true)
	c := probe.Defaults()
	effective := c.Effective()
	for setting, flag := range settingFlags {
		t.Run(setting, func(t *testing.T) {
			if _, ok := effective[setting]; !ok {
				t.Errorf("%s is not a setting the probe records in meta.json", setting)
			}
			if fs.Lookup(strings.TrimPrefix(flag, "--")) == nil {
				t.Errorf("%s maps to %s, which is not a probe flag", setting, flag)
			}
		})
	}
}

// TestTextReportFlags: the text report names the flag of a client setting
// that would shorten a stall, and not of a node's.
func TestTextReportFlags(t *testing.T) {
	tr := &analysis.Trial{Gaps: gaps.NewReport(gaps.Options{}), Stalls: []analysis.Stall{{Partition: 0, Role: "leader", Phases: []analysis.Phase{
		{Name: analysis.PhaseClient, Explanation: analysis.Explanation{Setting: "metadata_min_age", Settings: []analysis.Setting{
			{Name: "metadata_min_age", Value: "100ms", Source: analysis.SourceClientConfig}}}},
		{Name: analysis.PhaseDetect, Explanation: analysis.Explanation{Setting: "broker.session.timeout.ms", Settings: []analysis.Setting{
			{Name: "broker.session.timeout.ms", Node: "c1", Source: analysis.SourceUnknown}}}},
	}}}}
	var b strings.Builder
	if err := textReport.WriteText(&b, tr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "shorten: metadata_min_age; flag --metadata-min-age\n") {
		t.Errorf("report does not name the flag:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "shorten: broker.session.timeout.ms\n") {
		t.Errorf("report names a flag for a node's setting:\n%s", b.String())
	}
}
