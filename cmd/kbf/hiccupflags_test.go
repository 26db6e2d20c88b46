package main

import (
	"context"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/experiment"
)

func TestHiccupFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    experiment.HiccupFault
		wantErr string
	}{
		{name: "cpu-starve, the default sliver", args: []string{"run", "--fault", "cpu-starve", "--return-after", "2s"}, want: experiment.HiccupFault{CPUs: 0.05}},
		{name: "cpu-starve, a sliver", args: []string{"run", "--fault", "cpu-starve", "--starve-cpus", "0.1"}, want: experiment.HiccupFault{CPUs: 0.1}},
		{name: "packet-loss", args: []string{"run", "--fault", "packet-loss", "--loss", "30%", "--return-after", "2s"}, want: experiment.HiccupFault{Loss: 0.3}},
		{name: "packet-loss without a share", args: []string{"run", "--fault", "packet-loss"}, wantErr: "--fault packet-loss needs --loss, a percentage such as 30%"},
		{name: "a loss of everything", args: []string{"run", "--fault", "packet-loss", "--loss", "100%"}, wantErr: `--loss "100%": want a percentage between 0 and 100`},
		{name: "a loss that is no number", args: []string{"run", "--fault", "packet-loss", "--loss", "some"}, wantErr: `--loss "some": want a percentage`},
		{name: "a loss for another fault", args: []string{"run", "--fault", "pause", "--loss", "30%"}, wantErr: "--loss is packet-loss's, not pause's"},
		{name: "a sliver too thin", args: []string{"run", "--fault", "cpu-starve", "--starve-cpus", "0.001"}, wantErr: "--starve-cpus 0.001: want 0.01 to 1 of a CPU"},
		{name: "a sliver for another fault", args: []string{"run", "--fault", "sigkill", "--starve-cpus", "0.1"}, wantErr: "--starve-cpus is cpu-starve's, not sigkill's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *runOptions
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newRunCmdF(g, func(_ context.Context, o *runOptions) error { got = o; return nil })
			}, tt.args...)
			if tt.wantErr != "" {
				checkUsageError(t, code, stderr, tt.wantErr, got != nil)
				return
			}
			if code != exitOK || got == nil {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if h := got.Experiment().Hiccup; h != tt.want {
				t.Errorf("hiccup options %+v, want %+v", h, tt.want)
			}
		})
	}
}
