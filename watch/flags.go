package watch

import "github.com/spf13/pflag"

// AddFlags adds kbf watch's own flags to fs, over o's values (Defaults
// for kbf watch).
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&o.Stall, "stall", o.Stall, "a partition's acks or reads stopped for longer than this is an incident")
	fs.DurationVar(&o.Before, "before", o.Before, "how much of the probe's records before an incident's first sign its directory keeps")
	fs.DurationVar(&o.Settle, "settle", o.Settle, "an incident has recovered once every partition has acked and been read steadily this long")
	fs.DurationVar(&o.Poll, "poll", o.Poll, "how often the cluster's metadata is asked for")
	fs.DurationVar(&o.Longest, "longest", o.Longest, "an incident open this long is written as it is, to bound memory")
	fs.Var(&o.Retain, "retain", "keep the last N incidents (50), or those of the last DURATION (72h, 30d); default all")
	fs.StringVar(&o.Out, "out", "kbf-watch", "the watch's directory: incident-0001, incident-0002, …")
}
