package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestOptionsCheck(t *testing.T) {
	cases := []struct {
		name, old, new string
		args           []string
		want           string
	}{
		{name: "fine", old: "a,b", new: "c", args: []string{"-o", "md"}},
		{name: "commas alone", old: ",", new: "c", want: ErrNoSides.Error()},
		{name: "no new", old: "a", new: "", want: ErrNoSides.Error()},
		{name: "a format", old: "a", new: "b", args: []string{"--output", "xml"}, want: `--output "xml": want text, md or json`},
		{name: "an alpha", old: "a", new: "b", args: []string{"--alpha", "2"}, want: "alpha"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := NewOptions()
			fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
			o.AddFlags(fs)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			o.SetSides(c.old, c.new)
			err := o.Check()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			case c.want == ErrNoSides.Error() && !errors.Is(err, ErrNoSides):
				t.Fatalf("error %v is not ErrNoSides", err)
			}
		})
	}
	o := NewOptions()
	o.SetSides("a,,b,", "c")
	if strings.Join(o.Old, " ") != "a b" || len(o.New) != 1 {
		t.Errorf("sides %q %q", o.Old, o.New)
	}
}
