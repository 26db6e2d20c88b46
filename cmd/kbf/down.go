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
	g *globals
	askFlags
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
			if err := o.check(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.cluster.AddFlags(cmd.Flags(), false)
	cmd.Flags().DurationVar(&o.timeout, "timeout", time.Minute, "how long removing may take")
	return wrapHelp(cmd)
}

func runDown(ctx context.Context, o *downOptions) error {
	return o.cluster.Ask(ctx, o.timeout, func(ctx context.Context, c *compose.Cluster) error { return down(ctx, o.g, c) })
}

// down removes c and says what it removed.
func down(ctx context.Context, g *globals, c *compose.Cluster) error {
	start := time.Now()
	removed, err := c.Down(ctx)
	if len(removed) > 0 {
		fmt.Fprintf(g.out, "removed %s\n", strings.Join(removed, ", "))
	}
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		fmt.Fprintln(g.out, "no kbf cluster: nothing to remove")
		return nil
	}
	fmt.Fprintf(g.out, "down in %s\n", compose.Seconds(time.Since(start)))
	return nil
}
