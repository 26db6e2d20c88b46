package main

import (
	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/load"
	"github.com/kbf-project/kbf/probe"
)

// loadFlags are kbf run's and kbf probe's --load flags: real traffic
// beside the probe (package load).
type loadFlags struct {
	rate, size, topic string
}

func (l *loadFlags) register(f *pflag.FlagSet) {
	f.StringVar(&l.rate, "load", "", "real traffic beside the probe, not counted in its figures but recorded (load.csv): records/s (5000/s) or bytes/s (2MB/s)")
	f.StringVar(&l.size, "load-size", "1KiB", "--load: each record's size (bytes, or with B, KB, KiB, MB, MiB)")
	f.StringVar(&l.topic, "load-topic", "", "--load: its topic, made like the probe's (same partitions and replication) when missing (default the probe's topic with -load); not the probe's own")
}

// partnerless refuses --load-size or --load-topic given (set says which
// were) without --load: they would size or name no load, in silence.
func (l *loadFlags) partnerless(set func(name string) bool) error {
	for _, name := range []string{"load-size", "load-topic"} {
		if l.rate == "" && set(name) {
			return usagef("--%s needs --load: without it there is no load for it to change", name)
		}
	}
	return nil
}

// config is the load the flags ask for, nil for none; a rate or a size
// that cannot be read is a usage error.
func (l *loadFlags) config() (*load.Config, error) {
	if l.rate == "" {
		return nil, nil
	}
	size, err := load.ParseSize(l.size)
	if err != nil {
		return nil, usagef("--load-size %s", err.Error())
	}
	rate, err := load.ParseRate(l.rate, size)
	if err != nil {
		return nil, usagef("--%s", err.Error())
	}
	return &load.Config{Topic: l.topic, Rate: rate, Size: size, Offered: l.rate}, nil
}

// partnerConfig refuses a flag of the probe's (bound to cfg) or the
// load's (lf) given on fs without the flag it needs.
func partnerConfig(fs *pflag.FlagSet, cfg *probe.Config, lf *loadFlags) error {
	if err := partnerless(cfg, fs.Changed, "--"); err != nil {
		return err
	}
	return lf.partnerless(fs.Changed)
}
