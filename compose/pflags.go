package compose

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/kafkasec"
)

// AddFlags adds -f and --project-name to fs, and when sized --config,
// --brokers, --controllers and --combined over the embedded cluster's
// defaults (kbf up, run and bench). BrokersSet and ControllersSet are the
// command's to fill from fs once parsed.
func (s *Shape) AddFlags(fs *pflag.FlagSet, sized bool) {
	s.Sized = sized
	fs.StringVarP(&s.File, "file", "f", "", "your own compose file (default: kbf's embedded cluster)")
	fs.StringVar(&s.ProjectName, "project-name", "", "the compose project of --file, as docker compose -p (default: the file's name:, else its directory)")
	if !sized {
		return
	}
	fs.StringArrayVar(&s.Config, "config", nil, "a Kafka server property, KEY=VALUE on every node or NODE:KEY=VALUE on one (repeatable)")
	fs.IntVar(&s.Brokers, "brokers", 3, "brokers of the embedded cluster")
	fs.IntVar(&s.Controllers, "controllers", 1, "KRaft controllers of the embedded cluster: 1 or 3")
	fs.BoolVar(&s.Combined, "combined", false, "every broker of the embedded cluster is a controller too (process.roles broker,controller), and no dedicated controller")
}

// AddImageFlag adds --image to fs, the Kafka image of kbf's own cluster
// (kbf up, run, bench, tune), bound to p: "" is New's default.
func AddImageFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "image", "", "Kafka image (default $KBF_IMAGE, else "+DefaultImage+")")
}

// Flags bind the flags that say which of kbf's clusters and how every
// client kbf runs is secured: Shape's (the user's compose file, or the
// embedded one's size, and the nodes' settings) and --command-config
// (kafkasec.Flags), read once. kbf up, down, status, probe, watch, run and
// bench share them.
type Flags struct {
	Shape
	fs *pflag.FlagSet

	// secFlags is --command-config, read once into sec.
	secFlags kafkasec.Flags
	// errOut takes --command-config's warnings.
	errOut  io.Writer
	sec     *kafkasec.Config
	secRead bool
}

// AddFlags adds -f and --project-name to fs, and when sized --brokers,
// --controllers, --combined and --config (Shape.AddFlags).
func (f *Flags) AddFlags(fs *pflag.FlagSet, sized bool) {
	f.fs = fs
	f.Shape.AddFlags(fs, sized)
}

// AddSecurityFlags adds --command-config to fs: how every client kbf
// runs is secured, in Kafka's own client properties; its warnings go to
// errOut.
func (f *Flags) AddSecurityFlags(fs *pflag.FlagSet, errOut io.Writer) {
	f.errOut = errOut
	f.secFlags.AddFlags(fs)
}

// Given says whether the flag name of AddFlags was given.
func (f *Flags) Given(name string) bool { return f.fs != nil && f.fs.Changed(name) }

// Security returns --command-config read and checked, nil without it,
// its warnings said once. A file that cannot be used is an error, found
// before anything starts.
func (f *Flags) Security() (*kafkasec.Config, error) {
	if f.secFlags.Path == "" || f.secRead {
		return f.sec, nil
	}
	sec, err := f.secFlags.Load()
	if err != nil {
		return nil, err
	}
	if f.errOut != nil {
		for _, w := range sec.Warnings {
			fmt.Fprintf(f.errOut, "kbf: warning: --command-config %s\n", w)
		}
	}
	f.sec, f.secRead = sec, true
	return sec, nil
}

// Options returns the compose options the flags describe, checked
// (Shape.Apply) before anything reaches Docker; an error names the flag.
func (f *Flags) Options() (Options, error) {
	var o Options
	sec, err := f.Security()
	if err != nil {
		return o, err
	}
	o.Security = sec
	sh := f.Shape
	if f.Sized {
		sh.BrokersSet, sh.ControllersSet = f.Given("brokers"), f.Given("controllers")
	}
	return o, sh.Apply(&o)
}
