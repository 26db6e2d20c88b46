package compose

import (
	"github.com/spf13/pflag"
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
