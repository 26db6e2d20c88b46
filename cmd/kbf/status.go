package main

import (
	"context"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/compose"
)

func init() { commands = append(commands, newStatusCmd) }

type statusOptions struct {
	g *globals
	askFlags
	topics []string
}

func newStatusCmd(g *globals) *cobra.Command { return newStatusCmdF(g, runStatus) }

func newStatusCmdF(g *globals, runF func(context.Context, *statusOptions) error) *cobra.Command {
	o := &statusOptions{g: g}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show each partition's leader, ISR, ELR and high watermark",
		Long: `status prints one line per partition of the cluster's topics (or of --topic):
its leader and leader epoch, replicas, ISR, eligible leader replicas (ELR,
KIP-966) and last-known ELR, and high watermark, as the brokers report them;
then any container that is not running.

` + helpISR + "\n\n" + helpAcks + "\n\n" + helpEpochHW + "\n\n" + exitPlain,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if slices.Contains(o.topics, "") {
				return usagef("--topic: a topic name must not be empty")
			}
			if err := o.check(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.cluster.AddFlags(cmd.Flags(), false)
	o.cluster.AddSecurityFlags(cmd.Flags(), g.errOut)
	cmd.Flags().StringSliceVar(&o.topics, "topic", nil, "topics to show (default every topic that is not internal)")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 30*time.Second, "how long to wait for the brokers' answers")
	return wrapHelp(cmd)
}

func runStatus(ctx context.Context, o *statusOptions) error {
	return o.cluster.Ask(ctx, o.timeout, func(ctx context.Context, c *compose.Cluster) error {
		st, err := c.Status(ctx, o.topics...)
		if err != nil {
			return err
		}
		compose.WriteStatus(o.g.out, st)
		return nil
	})
}
