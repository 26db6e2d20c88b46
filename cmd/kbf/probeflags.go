package main

import (
	"github.com/kbf-project/kbf/probe"
)

// partnerless refuses a setting of c that given says was set, without
// the setting it needs (probe.Partnerless), as a usage error.
func partnerless(c *probe.Config, given func(name string) bool, prefix string) error {
	return usage(probe.Partnerless(c, given, prefix))
}

// checkBootstrap checks --bootstrap, when given (set), against --file (a
// cluster is named one way) and for its form (probe.CheckBootstrap).
func (c *clusterFlags) checkBootstrap(set bool, addrs []string) error {
	switch {
	case !set:
		return nil
	case c.file != "":
		return usagef("--bootstrap and --file: give one (the file says where its brokers are)")
	}
	return usage(probe.CheckBootstrap(addrs))
}
