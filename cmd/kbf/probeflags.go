package main

import (
	"net"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/probe"
)

// partnerless refuses a setting of c that given says was set, without
// the setting it needs (probe.Partnerless), as a usage error.
func partnerless(c *probe.Config, given func(name string) bool, prefix string) error {
	if err := probe.Partnerless(c, given, prefix); err != nil {
		return usageError{err}
	}
	return nil
}

// probeFlags binds the flags of a probe's configuration, shared by kbf probe,
// kbf run and kbf bench.
type probeFlags struct {
	cfg probe.Config
}

// register adds the flags to fs over the probe's defaults (registerProbe).
func (f *probeFlags) register(fs *pflag.FlagSet, bootstrap bool) {
	registerProbe(fs, &f.cfg, bootstrap)
}

// registerProbe sets c to the probe's defaults and adds the flags over it
// to fs, one for each of probe.Settings; bootstrap adds --bootstrap, for a
// probe of a cluster kbf did not start (kbf run takes the addresses from
// its own).
func registerProbe(fs *pflag.FlagSet, c *probe.Config, bootstrap bool) {
	*c = probe.Defaults()
	if bootstrap {
		fs.StringSliceVar(&c.Bootstrap, "bootstrap", c.Bootstrap, "Kafka bootstrap addresses (default kbf up's brokers, 127.0.0.1:19092-19094)")
		fs.Lookup("bootstrap").DefValue = "[]" // said in the usage, in fewer columns
	}
	for _, s := range probe.Settings {
		v := s.Value(c)
		fl := fs.VarPF(v, s.Name, "", s.Usage)
		if v.Type() == "bool" {
			fl.NoOptDefVal = "true" // --kip951 alone is --kip951=true
		}
		if fl.DefValue == "0s" {
			fl.DefValue = "0" // left out of the usage, as pflag's own durations' "0s" is
		}
	}
}

// config returns the probe configuration the flags set; the experiment's
// options check it (experiment.Options.Validate, ProbeOptions.Validate).
func (f *probeFlags) config() probe.Config { return f.cfg }

// checkBootstrap checks --bootstrap, when given (set), against --file (a
// cluster is named one way) and for its form.
func (c *clusterFlags) checkBootstrap(set bool, addrs []string) error {
	switch {
	case !set:
		return nil
	case c.file != "":
		return usagef("--bootstrap and --file: give one (the file says where its brokers are)")
	}
	return checkBootstrap(addrs)
}

// checkBootstrap refuses, as a usage error, a --bootstrap address that is
// not host:port with a port from 1 to 65535, before anything dials it.
func checkBootstrap(addrs []string) error {
	if len(addrs) == 0 {
		return usagef("--bootstrap: empty; give host:port[,host:port…]")
	}
	for _, a := range addrs {
		host, port, err := net.SplitHostPort(strings.TrimSpace(a))
		if err != nil {
			return usagef("--bootstrap %q: want host:port ([v6-address]:port for an IPv6 address)", a)
		}
		if host == "" || strings.ContainsAny(host, " /\t") {
			return usagef("--bootstrap %q: no host; want host:port", a)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return usagef("--bootstrap %q: port %q: want a number from 1 to 65535", a, port)
		}
	}
	return nil
}
