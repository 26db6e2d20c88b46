package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/compose"
)

func init() { commands = append(commands, newDownCmd) }

type downOptions struct {
	g       *globals
	cluster compose.Flags
	timeout time.Duration
}

func newDownCmd(g *globals) *cobra.Command { return newDownCmdF(g, runDown) }

func newDownCmdF(g *globals, runF func(context.Context, *downOptions) error) *cobra.Command {
	o := &downOptions{g: g}
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Remove the cluster's containers, their data and the network",
		Long: `down removes every container of the kbf cluster with its data, and the
network, so the next kbf up starts from nothing. It works on a half-made
cluster, and does nothing when there is none. With -f FILE it removes the
containers and network of that file's compose project, as docker compose
down would (named volumes stay).

` + exitPlain,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.timeout <= 0 {
				return usagef("--timeout %v: must be positive", o.timeout)
			}
			if _, err := o.cluster.Options(); err != nil {
				return usage(err)
			}
			return runF(cmd.Context(), o)
		},
	}
	o.cluster.AddFlags(cmd.Flags(), false)
	cmd.Flags().DurationVar(&o.timeout, "timeout", time.Minute, "how long removing may take")
	return wrapHelp(cmd)
}

func runDown(ctx context.Context, o *downOptions) error {
	opts, err := o.cluster.Options()
	if err != nil {
		return usage(err)
	}
	opts.Topics = []compose.Topic{} // down makes none, and a small file may not fit the defaults
	c, err := compose.New(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	start := time.Now()
	removed, err := c.Down(ctx)
	if len(removed) > 0 {
		fmt.Fprintf(o.g.out, "removed %s\n", strings.Join(removed, ", "))
	}
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		fmt.Fprintln(o.g.out, "no kbf cluster: nothing to remove")
		return nil
	}
	fmt.Fprintf(o.g.out, "down in %s\n", compose.Seconds(time.Since(start)))
	return nil
}
