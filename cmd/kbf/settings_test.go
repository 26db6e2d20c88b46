package main

import (
	"strings"
	"testing"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
)

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
