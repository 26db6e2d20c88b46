package load

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Flags are the --load flags of kbf run and kbf probe, as given: real
// traffic beside the probe, read into a Config once checked.
type Flags struct {
	Rate, Size, Topic string
}

// AddFlags adds --load, --load-size and --load-topic to fs.
func (l *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&l.Rate, "load", "", "real traffic beside the probe, not counted in its figures but recorded (load.csv): records/s (5000/s) or bytes/s (2MB/s)")
	fs.StringVar(&l.Size, "load-size", "1KiB", "--load: each record's size (bytes, or with B, KB, KiB, MB, MiB)")
	fs.StringVar(&l.Topic, "load-topic", "", "--load: its topic, made like the probe's (same partitions and replication) when missing (default the probe's topic with -load); not the probe's own")
}

// Partnerless refuses --load-size or --load-topic given (set says which
// were) without --load: they would size or name no load, in silence.
func (l *Flags) Partnerless(set func(name string) bool) error {
	for _, name := range []string{"load-size", "load-topic"} {
		if l.Rate == "" && set(name) {
			return fmt.Errorf("--%s needs --load: without it there is no load for it to change", name)
		}
	}
	return nil
}

// Config is the load the flags ask for, nil for none, or why a rate or a
// size cannot be read.
func (l *Flags) Config() (*Config, error) {
	if l.Rate == "" {
		return nil, nil
	}
	size, err := ParseSize(l.Size)
	if err != nil {
		return nil, fmt.Errorf("--load-size %s", err.Error())
	}
	rate, err := ParseRate(l.Rate, size)
	if err != nil {
		return nil, fmt.Errorf("--%s", err.Error())
	}
	return &Config{Topic: l.Topic, Rate: rate, Size: size, Offered: l.Rate}, nil
}
