package main

import (
	"github.com/kbf-project/kbf/compose"
	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/load"
	"github.com/kbf-project/kbf/probe"
)

// partnerless refuses a setting of c that given says was set, without
// the setting it needs (probe.Partnerless), as a usage error.
func partnerless(c *probe.Config, given func(name string) bool, prefix string) error {
	return usage(probe.Partnerless(c, given, prefix))
}

// checkBootstrap checks --bootstrap, when given (set), against c's --file (a
// cluster is named one way) and for its form (probe.CheckBootstrap).
func checkBootstrap(c *compose.Flags, set bool, addrs []string) error {
	switch {
	case !set:
		return nil
	case c.File != "":
		return usagef("--bootstrap and --file: give one (the file says where its brokers are)")
	}
	return usage(probe.CheckBootstrap(addrs))
}

// partnerConfig refuses a flag of the probe's (bound to cfg) or the
// load's (lf) given on fs without the flag it needs.
func partnerConfig(fs *pflag.FlagSet, cfg *probe.Config, lf *load.Flags) error {
	if err := partnerless(cfg, fs.Changed, "--"); err != nil {
		return err
	}
	return usage(lf.Partnerless(fs.Changed))
}

// loadConfig is the load lf asks for (load.Flags.Config); a rate or a
// size that cannot be read is a usage error.
func loadConfig(lf *load.Flags) (*load.Config, error) {
	c, err := lf.Config()
	return c, usage(err)
}
