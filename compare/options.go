package compare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// Options are kbf compare's command line: the two sides, the gate as its
// flags spell it and read, and where the comparison goes.
type Options struct {
	// Old and New are the sides' paths (SetSides).
	Old, New []string
	Args     GateArgs
	Gate     Gate
	// Format is a name of Writers; Markdown a file the comparison is
	// appended to as well; NoFail asks for figures, not a verdict.
	Format   string
	Markdown string
	NoFail   bool
}

// ErrNoSides is a side given as nothing (OLD or NEW empty, or commas
// alone).
var ErrNoSides = errors.New("compare takes OLD and NEW: bench.txt files or kbf bench directories")

// NewOptions are the options before the flags: the default gate.
func NewOptions() *Options { return &Options{Gate: DefaultGate} }

// AddFlags adds the gate's flags, -o/--output, --markdown and --no-fail
// to fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Args.AddFlags(fs, &o.Gate)
	fs.StringVarP(&o.Format, "output", "o", "text", "text, md or json (every row's p and the p adjusted for the metrics tested with it)")
	fs.StringVar(&o.Markdown, "markdown", "", "also write the comparison as Markdown to this file (e.g. $GITHUB_STEP_SUMMARY), appending")
	fs.BoolVar(&o.NoFail, "no-fail", false, "exit 0 whatever the verdict")
}

// SetSides sets the sides from OLD and NEW, each a comma-separated list
// of paths (empty items dropped).
func (o *Options) SetSides(old, new string) {
	o.Old, o.New = splitPaths(old), splitPaths(new)
}

func splitPaths(arg string) []string {
	var out []string
	for _, p := range strings.Split(arg, ",") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Check checks the options before anything is read: both sides given
// (ErrNoSides), the gate's flags (Gate.Parse), the output's format.
func (o *Options) Check() error {
	if len(o.Old) == 0 || len(o.New) == 0 {
		return ErrNoSides
	}
	if err := o.Gate.Parse(o.Args); err != nil {
		return err
	}
	if Writers[o.Format] == nil {
		return fmt.Errorf("--output %q: want text, md or json", o.Format)
	}
	return nil
}

// Run reads both sides (ReadSides' errors), compares them (a metric
// measured on neither side is *NotMeasuredError), writes the comparison
// to w in Format and appends it to Markdown when named.
func (o *Options) Run(ctx context.Context, w io.Writer) (*Result, error) {
	old, new, err := ReadSides(ctx, o.Old, o.New)
	if err != nil {
		return nil, err
	}
	res, err := Compare(ctx, old, new, o.Gate)
	if err != nil {
		return nil, err
	}
	if err := Writers[o.Format](w, res); err != nil {
		return nil, err
	}
	if o.Markdown != "" {
		if err := AppendMarkdown(o.Markdown, res); err != nil {
			return nil, fmt.Errorf("--markdown: %w", err)
		}
	}
	return res, nil
}
