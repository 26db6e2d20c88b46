package tune

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestFlagsGrid(t *testing.T) {
	var f Flags
	fs := pflag.NewFlagSet("tune", pflag.ContinueOnError)
	f.AddFlags(fs)
	if err := fs.Parse([]string{"--session", "9s,4s", "--tolerate-pause", "2s", "--tolerate-loss", "30%:2s", "--trials", "7"}); err != nil {
		t.Fatal(err)
	}
	g, err := f.Grid(0.1, "k2")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Sessions) != 2 || g.Sessions[1] != 4*time.Second || len(g.Pauses) != 1 || g.Trials != 7 || g.StarveCPUs != 0.1 || g.Broker != "k2" {
		t.Errorf("grid %+v", g)
	}
	if len(g.Losses) != 1 || g.Losses[0].For != 2*time.Second {
		t.Errorf("losses %+v", g.Losses)
	}
	f.Losses = []string{"30%"}
	if _, err := f.Grid(0, ""); err == nil || !strings.Contains(err.Error(), "tolerate-loss") {
		t.Errorf("a loss without its length: %v", err)
	}
}
