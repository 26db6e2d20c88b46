package kafkasec

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Flags is --command-config as given: the client properties file that
// secures every client kbf runs.
type Flags struct {
	Path string
}

// AddFlags adds --command-config to fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Path, "command-config", "", "a Kafka client properties file (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.location, …) that secures every client kbf runs, as Kafka's own tools take it")
}

// Load reads and checks the file (Load), nil without one; an error names
// the flag.
func (f *Flags) Load() (*Config, error) {
	if f.Path == "" {
		return nil, nil
	}
	c, err := Load(f.Path)
	if err != nil {
		return nil, fmt.Errorf("--command-config: %w", err)
	}
	return c, nil
}
