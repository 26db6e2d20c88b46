package main

import (
	"fmt"
	"slices"
	"sort"
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

// parse returns the chosen clients and each external client's settings.
func (c *clientFlags) parse() ([]clients.Name, map[clients.Name]map[string]string, error) {
	list := c.list
	if list == "" {
		list = string(clients.FranzGo)
	}
	names, err := clients.ParseList(list)
	if err != nil {
		return nil, nil, usagef("--clients: %v", err)
	}
	settings := map[clients.Name]map[string]string{}
	for _, s := range c.set {
		name, kv, ok := strings.Cut(s, ":")
		key, value, ok2 := strings.Cut(kv, "=")
		if !ok || !ok2 || key == "" {
			return nil, nil, usagef("--client-set %q: want CLIENT:KEY=VALUE, such as librdkafka:retry.backoff.ms=50", s)
		}
		cl, err := clients.Lookup(clients.Name(name))
		if err != nil {
			return nil, nil, usagef("--client-set %q: %v", s, err)
		}
		if !cl.External {
			return nil, nil, usagef("--client-set %q: franz-go's settings are kbf's own flags (kbf run --help)", s)
		}
		if !containsName(names, cl.Name) {
			return nil, nil, usagef("--client-set %q: %s is not in --clients %s", s, cl.Name, c.list)
		}
		if settings[cl.Name] == nil {
			settings[cl.Name] = map[string]string{}
		}
		settings[cl.Name][key] = value
	}
	return names, settings, nil
}

func containsName(names []clients.Name, n clients.Name) bool {
	for _, m := range names {
		if m == n {
			return true
		}
	}
	return false
}

// scenarioClients sets o's clients from a bench scenario's clients and
// client_settings, checked as kbf run's flags are.
func scenarioClients(o *runOptions, s bench.Scenario) error {
	if len(s.Clients) > 0 {
		o.clients.list = strings.Join(s.Clients, ",")
	}
	names := make([]string, 0, len(s.ClientSettings))
	for n := range s.ClientSettings {
		names = append(names, n)
	}
	sort.Strings(names)
	o.clients.set = slices.Clone(o.clients.set)
	for _, n := range names {
		keys := make([]string, 0, len(s.ClientSettings[n]))
		for k := range s.ClientSettings[n] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o.clients.set = append(o.clients.set, n+":"+k+"="+s.ClientSettings[n][k])
		}
	}
	if _, _, err := o.clients.parse(); err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return nil
}

// checkBuilt says, before a trial starts, which chosen external probe is
// not built and how to build it.
func checkBuilt(names []clients.Name) error {
	l := clients.DefaultLocator()
	for _, n := range names {
		c, err := clients.Lookup(n)
		if err != nil || !c.External {
			continue
		}
		spec := clients.Spec{Client: n, Bootstrap: []string{"x:1"}, Topic: "t", Interval: 1, Acks: "all", Dir: "."}
		if _, err := l.Command(spec); err != nil {
			return fmt.Errorf("--clients %s: %w", n, err)
		}
	}
	return nil
}
