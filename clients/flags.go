package clients

import (
	"github.com/spf13/pflag"
)

// Flags are --clients and --client-set as given: the clients that probe a
// trial side by side and their settings (kbf run, bench and tune).
type Flags struct {
	List string
	// Set are --client-set NAME:KEY=VALUE, in order.
	Set []string
}

// AddFlags adds --clients and --client-set to fs.
func (c *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.List, "clients", string(FranzGo),
		"the clients that probe the same partitions side by side, comma-separated: franz-go (in kbf; it always probes), librdkafka, java (built by make probes)")
	fs.StringArrayVar(&c.Set, "client-set", nil,
		"CLIENT:KEY=VALUE, a setting of an external client by its own name (librdkafka's or the Java client's), over its probe's; repeatable")
}

// Parse returns the chosen clients and each external client's settings
// (ParseChoice).
func (c *Flags) Parse() ([]Name, map[Name]map[string]string, error) {
	return ParseChoice(c.List, c.Set)
}
