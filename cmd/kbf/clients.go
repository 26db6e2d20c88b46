package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/clients"
)

// clientFlags choose the clients that probe a trial side by side and their
// settings.
type clientFlags struct {
	list string
	// set are --client-set NAME:KEY=VALUE, in order.
	set []string
}

func (c *clientFlags) register(f *pflag.FlagSet) {
	f.StringVar(&c.list, "clients", string(clients.FranzGo),
		"the clients that probe the same partitions side by side, comma-separated: franz-go (in kbf; it always probes), librdkafka, java (built by make probes)")
	f.StringArrayVar(&c.set, "client-set", nil,
		"CLIENT:KEY=VALUE, a setting of an external client by its own name (librdkafka's or the Java client's), over its probe's; repeatable")
}

// parse returns the chosen clients and each external client's settings
// (clients.ParseChoice).
func (c *clientFlags) parse() ([]clients.Name, map[clients.Name]map[string]string, error) {
	names, settings, err := clients.ParseChoice(c.list, c.set)
	return names, settings, usage(err)
}

// scenarioClients sets o's clients from a bench scenario's clients and
// client_settings, checked as kbf run's flags are.
func scenarioClients(o *runOptions, s bench.Scenario) error {
	if len(s.Clients) > 0 {
		o.clients.list = strings.Join(s.Clients, ",")
	}
	o.clients.set = slices.Clone(o.clients.set)
	for _, n := range slices.Sorted(maps.Keys(s.ClientSettings)) {
		for _, k := range slices.Sorted(maps.Keys(s.ClientSettings[n])) {
			o.clients.set = append(o.clients.set, n+":"+k+"="+s.ClientSettings[n][k])
		}
	}
	if _, _, err := o.clients.parse(); err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return nil
}

// checkBuilt says, before a trial starts, which chosen external probe is
// not built and how to build it (clients.CheckBuilt).
func checkBuilt(names []clients.Name) error { return clients.CheckBuilt(names) }
