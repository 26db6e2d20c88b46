package compose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

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

// UpFlags are kbf up's own flags: the image, the probed topic (its flags
// bound into Probed), the single-replica topic's name ("" for none) and
// how long to wait for the cluster to be whole.
type UpFlags struct {
	Image       string
	Probed      Topic
	SingleTopic string
	Timeout     time.Duration
}

// AddFlags adds --image, --topic, --partitions, --replication-factor,
// --min-insync, --single-topic and --timeout to fs, over the default
// topics (DefaultTopics).
func (u *UpFlags) AddFlags(fs *pflag.FlagSet) {
	def := DefaultTopics()
	AddImageFlag(fs, &u.Image)
	fs.StringVar(&u.Probed.Name, "topic", def[0].Name, "the probed topic, spread over every broker")
	fs.Int32Var(&u.Probed.Partitions, "partitions", def[0].Partitions, "partitions of --topic")
	fs.Int16Var(&u.Probed.ReplicationFactor, "replication-factor", def[0].ReplicationFactor, "replication factor of --topic")
	fs.IntVar(&u.Probed.MinInsync, "min-insync", def[0].MinInsync, "min.insync.replicas of --topic (0 keeps the broker default, 1)")
	fs.StringVar(&u.SingleTopic, "single-topic", def[1].Name, `a one-partition, one-replica topic on broker 1 ("" for none)`)
	fs.DurationVar(&u.Timeout, "timeout", 3*time.Minute, "how long to wait for the cluster to be whole")
}

// Check refuses an empty --image given (imageGiven), a --timeout not
// positive and a --single-topic that is --topic.
func (u *UpFlags) Check(imageGiven bool) error {
	switch {
	case imageGiven && u.Image == "":
		return errors.New("--image: must not be empty")
	case u.Timeout <= 0:
		return fmt.Errorf("--timeout %v: must be positive", u.Timeout)
	case u.SingleTopic == u.Probed.Name:
		return fmt.Errorf("--single-topic %q: must differ from --topic", u.SingleTopic)
	}
	return nil
}

// Topics returns the topics the flags describe: the probed one, and the
// single-replica one unless its name is "".
func (u *UpFlags) Topics() []Topic {
	ts := []Topic{u.Probed}
	if u.SingleTopic != "" {
		single := DefaultTopics()[1]
		single.Name = u.SingleTopic
		single.Brokers = nil // one replica: on the first broker, whatever its id
		ts = append(ts, single)
	}
	return ts
}

// Ask opens the cluster the flags name without its topics — a command
// that only asks a cluster or removes it (kbf status, kbf down) makes
// none, and a small compose file may not fit the defaults — and calls do
// with it within timeout.
func (f *Flags) Ask(ctx context.Context, timeout time.Duration, do func(context.Context, *Cluster) error) error {
	opts, err := f.Options()
	if err != nil {
		return err
	}
	opts.Topics = []Topic{}
	c, err := New(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return do(ctx, c)
}
