package compare

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGateParse(t *testing.T) {
	for name, c := range map[string]struct {
		a    GateArgs
		want string // "" for none
	}{
		"defaults":        {GateArgs{MaxRegression: "10%"}, ""},
		"every flag":      {GateArgs{MaxRegression: "0.2", MinChange: "5ms", Limits: []string{"leader:ack_stall=12s"}, Metrics: []string{"from_heartbeat"}}, ""},
		"all":             {GateArgs{MaxRegression: "10%", Metrics: []string{MetricAll}}, ""},
		"bad regression":  {GateArgs{MaxRegression: "lots"}, "--max-regression "},
		"negative change": {GateArgs{MaxRegression: "10%", MinChange: "-1s"}, `--min-change "-1s"`},
		"bad limit":       {GateArgs{MaxRegression: "10%", Limits: []string{"ack_stall"}}, "--limit "},
		"all and another": {GateArgs{MaxRegression: "10%", Metrics: []string{MetricAll, "ack_stall"}}, "give it alone"},
		"bad metric":      {GateArgs{MaxRegression: "10%", Metrics: []string{"a:b:c"}}, `--metric "a:b:c"`},
	} {
		t.Run(name, func(t *testing.T) {
			g := DefaultGate
			err := g.Parse(c.a)
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want)):
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
	g := DefaultGate
	if err := g.Parse(GateArgs{MaxRegression: "20%", MinChange: "5ms", Metrics: []string{MetricAll}}); err != nil || g.MaxRegression != 0.2 || g.MinChange != 5*time.Millisecond || !g.All {
		t.Errorf("gate %+v, %v", g, err)
	}
	g = DefaultGate
	g.Alpha = 1
	if err := g.Parse(GateArgs{MaxRegression: "10%"}); err == nil || !strings.HasPrefix(err.Error(), "--alpha 1:") {
		t.Errorf("alpha 1: %v", err)
	}
}

func TestReadSides(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("kbf: header only\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join("testdata", "old.txt")
	if _, _, err := ReadSides(context.Background(), []string{old}, []string{filepath.Join(dir, "none.txt")}); !errors.As(err, new(*SideError)) || !strings.HasPrefix(err.Error(), "new: ") {
		t.Errorf("a missing side: %v, want a SideError of new", err)
	}
	var nv *NoValidError
	if _, _, err := ReadSides(context.Background(), []string{old}, []string{empty}); !errors.As(err, &nv) || !strings.Contains(err.Error(), "no valid trials on the new side") {
		t.Errorf("a side without results: %v, want NoValidError of the new side", err)
	}
	if _, _, err := ReadSides(context.Background(), []string{old}, []string{old}); !errors.As(err, new(*SharedError)) {
		t.Errorf("a file on both sides: %v, want SharedError", err)
	}
	o, n, err := ReadSides(context.Background(), []string{old}, []string{rewrite(t, old, "new.txt", keep)})
	if err != nil || o == nil || n == nil {
		t.Fatalf("%v, %v, %v", o, n, err)
	}
	res := mustCompare(t, o, n, DefaultGate)
	md := filepath.Join(dir, "summary.md")
	for range 2 {
		if err := AppendMarkdown(md, res); err != nil {
			t.Fatal(err)
		}
	}
	var one bytes.Buffer
	if err := Writers["md"](&one, res); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(md); string(got) != one.String()+one.String() {
		t.Errorf("appended twice:\n%s\nwant the comparison twice", got)
	}
}

func TestNoValidError(t *testing.T) {
	for e, want := range map[NoValidError]string{{true, true}: "either side", {false, true}: "the new side", {true, false}: "the old side"} {
		if !strings.Contains(e.Error(), "no valid trials on "+want) {
			t.Errorf("%+v: %s", e, e.Error())
		}
	}
}
