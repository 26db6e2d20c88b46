package main

import (
	"time"

	"github.com/kbf-project/kbf/compose"
)

// askFlags are what down and status share: a Docker cluster (kbf's own,
// or a compose file's) that the command asks or removes but does not
// make, and how long it may take.
type askFlags struct {
	cluster compose.Flags
	timeout time.Duration
}

// check is the flags' usage error, nil when they are whole.
func (a *askFlags) check() error {
	if a.timeout <= 0 {
		return usagef("--timeout %v: must be positive", a.timeout)
	}
	if _, err := a.cluster.Options(); err != nil {
		return usage(err)
	}
	return nil
}
