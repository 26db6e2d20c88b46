package compose

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

func TestShapeApply(t *testing.T) {
	for name, c := range map[string]struct {
		s    Shape
		want string // "" for none
	}{
		"embedded":                 {Shape{Sized: true, Brokers: 3, Controllers: 1}, ""},
		"combined":                 {Shape{Sized: true, Brokers: 3, Controllers: 1, Combined: true}, ""},
		"file":                     {Shape{File: "c.yaml", ProjectName: "p", Sized: true, Brokers: 3, Controllers: 1}, ""},
		"project without file":     {Shape{ProjectName: "p"}, "--project-name: only with --file"},
		"sized file":               {Shape{File: "c.yaml", Sized: true, Brokers: 5, BrokersSet: true}, "with --file, the file says"},
		"combined and controllers": {Shape{Sized: true, Brokers: 3, Controllers: 3, ControllersSet: true, Combined: true}, "--combined and --controllers"},
		"no brokers":               {Shape{Sized: true, Brokers: 0, Controllers: 1}, "--brokers 0: want 1 or more"},
		"no controllers":           {Shape{Sized: true, Brokers: 3, Controllers: 0}, "--controllers 0: want 1 or 3"},
		"bad setting":              {Shape{Sized: true, Brokers: 3, Controllers: 1, Config: []string{"nokey"}}, "nokey"},
	} {
		t.Run(name, func(t *testing.T) {
			var o Options
			err := c.s.Apply(&o)
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
	var o Options
	s := Shape{File: "c.yaml", Sized: true, Brokers: 3, Controllers: 1, Config: []string{"k1:broker.session.timeout.ms=4000"}}
	if err := s.Apply(&o); err != nil || o.File != "c.yaml" || o.Brokers != 0 || len(o.Config) != 1 {
		t.Errorf("a file's options %+v, %v: want the file, no size, the setting", o, err)
	}
}

func TestWithOffline(t *testing.T) {
	var out bytes.Buffer
	t.Chdir(t.TempDir())
	var opts Options
	opts.WithOffline(&out)
	if opts.BuildOffline != nil {
		t.Errorf("outside the source tree: a builder, want none (the error names make image)")
	}
	opts.Notice("running kbf/kafka:4.3.1")
	if out.String() != "kbf: running kbf/kafka:4.3.1\n" {
		t.Errorf("notice %q", out.String())
	}
	if err := os.MkdirAll("image", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(OfflineScript, []byte("echo building; exit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	opts.WithOffline(&out)
	if opts.BuildOffline == nil {
		t.Fatalf("in the source tree: no builder")
	}
	err := opts.BuildOffline(context.Background())
	if err == nil || !strings.Contains(err.Error(), "image/build.sh: exit status 3") || !strings.Contains(out.String(), "building\n") {
		t.Errorf("BuildOffline: %v, output %q; want the script's failure and its output", err, out.String())
	}
}
