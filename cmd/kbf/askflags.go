package main

import (
	"context"
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

// with opens the cluster without its topics (the command creates none,
// and a small file may not fit the defaults) and calls f with it, within
// the timeout.
func (a *askFlags) with(ctx context.Context, f func(context.Context, *compose.Cluster) error) error {
	opts, err := a.cluster.Options()
	if err != nil {
		return usage(err)
	}
	opts.Topics = []compose.Topic{}
	c, err := compose.New(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	return f(ctx, c)
}
